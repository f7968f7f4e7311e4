//! The buffer pool model: InnoDB's LRU list with midpoint insertion (docs/model-rules.md §9,
//! `buf0lru.cc`, `buf_page_make_young_if_needed`), page reads on misses, dirty pages, the
//! page cleaner's LRU batch and its page writes (two sets of rules, [`PageCleanerRules`]),
//! page writes when a dirty page is evicted from a full pool or at a checkpoint;
//! plus the change buffer's bookkeeping (`ibuf.rs` holds its rules). It holds index pages and
//! the tablespace's FSP header, extent descriptor and inode pages, which every page
//! allocation and free changes. Not modelled: the system tablespace's pages (rollback-segment
//! headers, which purge reads at a rate set by time, undo log pages, its own file-space pages)
//! and the ibuf bitmap, 6.4 % of a server's reads at 16 MiB (docs/model-rules.md §9).
//!
//! Time: the simulator has no clock. `innodb_old_blocks_time` is modelled in operations:
//! a page in the old sublist is made young on an access only when at least
//! [`PoolSettings::old_blocks_ops`] row operations have passed since its first access (the
//! default, 1,000 operations, stands for InnoDB's 1,000 ms at about 1,000 row operations per
//! second — an assumption, not a measurement). The page cleaner's LRU batch runs at once when
//! free pages run low, and its writes complete at its end (the server's run on a background
//! thread and complete later; `page_cleaner.rs`). Under the 10.11.9 rules it also writes dirty
//! neighbours (`innodb_flush_neighbors=1`, which the server does only on rotational storage
//! and with 512 or more pages in the LRU), and the pool's page descriptors take some of its
//! pages. No adaptive flush-list flushing: dirty pages are written by the LRU batch, when
//! evicted from a full pool and, every [`PoolSettings::checkpoint_every_ops`] operations, all
//! at once. No read-ahead, no doublewrite buffer, no redo log I/O.

use serde::{Deserialize, Serialize};

#[path = "page_cleaner.rs"]
mod page_cleaner;
pub(crate) use page_cleaner::pool_pages;
#[cfg(test)]
use page_cleaner::{flush_area, lru_batch_min_len};

/// `BUF_LRU_OLD_MIN_LEN`: no old sublist below this many pages.
const OLD_MIN_LEN: usize = 512;
/// `BUF_LRU_MIN_LEN`: the page cleaner runs an LRU batch only while the LRU holds more than
/// this many pages (`buf_pool_t::need_LRU_eviction`), and the batch stops there (before
/// MariaDB 10.11.9: see [`PageCleanerRules`]).
const LRU_MIN_LEN: usize = 256;
/// `BUF_LRU_OLD_TOLERANCE`.
const OLD_TOLERANCE: usize = 20;
const NIL: u32 = u32::MAX;
/// `FSP_FIRST_INODE_PAGE_NO`: a file-per-table tablespace's segment inodes (85 segments, 42
/// indexes, at 16k) are on page 2.
const FSP_INODE_PAGE: u32 = 2;
/// `FSP_HDR`: page 0, the tablespace header and the first extent descriptors.
const FSP_HEADER_PAGE: u32 = 0;

/// Which MariaDB 10.11 release's page cleaner the LRU batch follows (the buffer pool's LRU batch,
/// `buf_flush_LRU_list_batch`). Two rules changed within 10.11, and together they change how
/// deep a batch goes under a small pool (docs/model-rules.md §9).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageCleanerRules {
    /// 10.11.0 to 10.11.6: a completed LRU write frees its page (`buf_page_write_complete`
    /// for an `IORequest::is_LRU()` write), and a batch stops once the LRU is down to
    /// `BUF_LRU_MIN_LEN` (256) pages. The pool holds `bytes / page size` pages; no
    /// neighbour flushing. The default until the figures of §9 were checked on 10.11.19.
    Before10_11_7,
    /// 10.11.9 and later (the 10.11.19 the live tests run), the default: a completed write
    /// leaves its page in the LRU, clean, for a later batch to free (MDEV-26827, 10.11.7), a
    /// batch stops at one page under 5 % of the pool when that is under 256 pages
    /// (MDEV-34166, 10.11.9) and writes dirty neighbours ([`PoolSettings::flush_neighbors`]);
    /// the pool's page descriptors take some of its pages (`pool_pages`: 1,014 pages in
    /// 16 MiB at 16k).
    #[default]
    Since10_11_9,
}

/// Buffer pool settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolSettings {
    /// `innodb_old_blocks_pct`.
    pub old_blocks_pct: u8,
    /// `innodb_old_blocks_time`, in row operations (see the module docs).
    pub old_blocks_ops: u64,
    /// Flush every dirty page after this many row operations (a sharp checkpoint); `None`
    /// writes dirty pages only when they are evicted.
    pub checkpoint_every_ops: Option<u64>,
    /// `innodb_change_buffer_max_size`: the change buffer's cap, percent of the pool.
    pub change_buffer_max_pct: u8,
    /// `innodb_lru_scan_depth`: the free pages the page cleaner keeps (see `Pool::insert`);
    /// 0 turns that rule off (pages are evicted only when the pool is full).
    #[serde(default = "default_lru_scan_depth")]
    pub lru_scan_depth: usize,
    /// The page cleaner's LRU batch rules.
    #[serde(default)]
    pub page_cleaner: PageCleanerRules,
    /// `innodb_flush_neighbors=1` on rotational storage: an LRU batch writes a dirty page's
    /// dirty neighbours with it (with [`PageCleanerRules::Since10_11_9`] only; the server
    /// does it on rotational storage only, as the disk of the servers checked reports).
    #[serde(default = "yes")]
    pub flush_neighbors: bool,
}

fn yes() -> bool {
    true
}

fn default_lru_scan_depth() -> usize {
    1536
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            old_blocks_pct: 37,
            old_blocks_ops: 1000,
            checkpoint_every_ops: Some(10_000),
            change_buffer_max_pct: 25,
            lru_scan_depth: default_lru_scan_depth(),
            page_cleaner: PageCleanerRules::default(),
            flush_neighbors: true,
        }
    }
}

/// Buffer pool and change buffer figures, cumulative since the table was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PoolCounters {
    /// Page accesses (every page an operation touched).
    pub page_accesses: u64,
    /// Pages read from storage (misses).
    pub pages_read: u64,
    /// Pages written to storage (evictions of dirty pages, checkpoints, change-buffer pages).
    pub pages_written: u64,
    /// Of `pages_written`: change-buffer pages.
    pub ibuf_pages_written: u64,
    /// Pages evicted from the LRU tail.
    pub evictions: u64,
    /// Old-sublist hits moved to the head (`young-making rate`).
    pub made_young: u64,
    /// Old-sublist hits not moved (within the promotion delay).
    pub not_made_young: u64,
    /// Secondary-index changes buffered instead of reading the leaf.
    pub ibuf_buffered: u64,
    /// Changes not buffered because the change buffer was at its cap.
    pub ibuf_refused_cap: u64,
    /// Inserts not buffered because the ibuf bitmap promised too little free space.
    pub ibuf_refused_free_space: u64,
    /// Buffered changes applied when their page was read.
    pub ibuf_merged: u64,
    /// Page reads that merged buffered changes.
    pub ibuf_merge_reads: u64,
    /// Row operations counted (the model's clock).
    pub ops: u64,
}

impl PoolCounters {
    /// Hits / accesses (1 when nothing was accessed).
    pub fn hit_ratio(&self) -> f64 {
        if self.page_accesses == 0 {
            1.0
        } else {
            1.0 - self.pages_read as f64 / self.page_accesses as f64
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Node {
    prev: u32,
    next: u32,
    in_pool: bool,
    old: bool,
    dirty: bool,
    /// Operation of the first access since the page entered the pool (None = not yet).
    first_access: Option<u64>,
    /// `freed_page_clock` when the page was last put at the head.
    young_clock: u64,
    /// Operation of the latest access: the running operation's pages are buffer-fixed.
    last_op: u64,
}

const EMPTY: Node = Node {
    prev: NIL,
    next: NIL,
    in_pool: false,
    old: false,
    dirty: false,
    first_access: None,
    young_clock: 0,
    last_op: 0,
};

/// The LRU list and the change buffer's state.
#[derive(Debug, Clone)]
pub struct Pool {
    pub(crate) settings: PoolSettings,
    capacity: usize,
    nodes: Vec<Node>,
    head: u32,
    tail: u32,
    len: usize,
    /// First page of the old sublist (`LRU_old`), NIL while there is none.
    old_first: u32,
    old_len: usize,
    /// Evictions so far (`freed_page_clock`).
    freed_clock: u64,
    dirty_list: Vec<u32>,
    /// Pages an LRU batch is writing (kept to reuse its allocation).
    batch_writes: Vec<u32>,
    pub(crate) counters: PoolCounters,
    pub(crate) ibuf: crate::ibuf::ChangeBuffer,
}

impl Pool {
    /// A pool of `capacity_pages` pages.
    pub fn new(
        capacity_pages: usize,
        page_bytes: u32,
        settings: PoolSettings,
        ibuf_on: bool,
    ) -> Pool {
        Pool {
            settings,
            capacity: capacity_pages.max(8),
            nodes: Vec::new(),
            head: NIL,
            tail: NIL,
            len: 0,
            old_first: NIL,
            old_len: 0,
            freed_clock: 0,
            dirty_list: Vec::new(),
            batch_writes: Vec::new(),
            counters: PoolCounters::default(),
            ibuf: crate::ibuf::ChangeBuffer::new(ibuf_on, page_bytes),
        }
    }

    /// Pool size in pages.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Pages in the pool.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    fn node(&mut self, p: u32) -> &mut Node {
        let i = p as usize;
        if self.nodes.len() <= i {
            self.nodes.resize(i + 1, EMPTY);
        }
        &mut self.nodes[i]
    }

    /// Hints the CPU to load page `p`'s LRU node, which an access to `p` reads (the
    /// prefetching batch insert, `prefetch.rs`). Changes nothing.
    pub(crate) fn prefetch_node(&self, p: u32) {
        if let Some(n) = self.nodes.get(p as usize) {
            crate::prefetch::prefetch_line(n);
        }
    }

    /// Hints the CPU to load the LRU nodes around page `p`'s (once its own is loaded): moving
    /// `p` to the head unlinks it between them. Changes nothing.
    pub(crate) fn prefetch_neighbours(&self, p: u32) {
        if let Some(n) = self.nodes.get(p as usize) {
            for q in [n.prev, n.next] {
                if let Some(m) = self.nodes.get(q as usize) {
                    crate::prefetch::prefetch_line(m);
                }
            }
        }
    }

    /// True when page `p` is cached.
    pub fn contains(&self, p: u32) -> bool {
        self.nodes.get(p as usize).is_some_and(|n| n.in_pool)
    }

    /// Advances the clock by one row operation; runs the checkpoint when due.
    pub fn tick(&mut self) {
        self.counters.ops += 1;
        if let Some(every) = self.settings.checkpoint_every_ops {
            if every > 0 && self.counters.ops % every == 0 {
                self.flush_all();
            }
        }
    }

    /// Writes every dirty page (a checkpoint) and the change buffer's changed pages.
    pub fn flush_all(&mut self) {
        let list = std::mem::take(&mut self.dirty_list);
        for p in list {
            if self.nodes[p as usize].in_pool {
                self.write_completes(p);
            }
        }
        let w = self.ibuf.take_dirty_pages();
        self.counters.pages_written += w;
        self.counters.ibuf_pages_written += w;
    }

    /// An access to page `p` (`buf_page_get`), dirtying it when `write`. A miss reads it
    /// into the old sublist (`buf_read_page`); a hit may make it young. Returns true on a miss.
    pub fn access(&mut self, p: u32, write: bool) -> bool {
        self.counters.page_accesses += 1;
        let now = self.counters.ops;
        let miss = !self.contains(p);
        if miss {
            self.counters.pages_read += 1;
            self.insert(p, true);
            let merged = self.ibuf.merge_on_read(p);
            if merged > 0 {
                self.counters.ibuf_merge_reads += 1;
                self.counters.ibuf_merged += merged as u64;
                self.mark_dirty(p);
            }
        } else {
            self.make_young_if_needed(p, now);
        }
        let n = self.node(p);
        if n.first_access.is_none() {
            n.first_access = Some(now);
        }
        n.last_op = now;
        if write {
            self.mark_dirty(p);
        }
        miss
    }

    /// A server restart: a clean shutdown writes every dirty page, and the pool starts empty
    /// (no buffer pool dump is loaded). Counters and the change buffer, which is on disk,
    /// carry on.
    pub fn restart(&mut self) {
        self.flush_all();
        self.nodes.clear();
        self.head = NIL;
        self.tail = NIL;
        self.len = 0;
        self.old_first = NIL;
        self.old_len = 0;
    }

    /// A page created in memory (`buf_page_create`: a new page from a split or a build): at
    /// the head of the LRU, dirty, no read.
    pub fn create(&mut self, p: u32) {
        if self.contains(p) {
            self.remove(p);
        }
        self.insert(p, false);
        let now = self.counters.ops;
        let n = self.node(p);
        n.first_access = Some(now);
        n.last_op = now;
        self.mark_dirty(p);
    }

    /// CREATE TABLE makes the tablespace's FSP header and inode page in memory
    /// (`fsp_header_init`, `fsp_alloc_seg_inode_page`): in the pool, dirty, never read.
    pub fn create_file_space_pages(&mut self) {
        self.create(FSP_HEADER_PAGE);
        self.create(FSP_INODE_PAGE);
    }

    /// A page allocated or freed in the tablespace: the segment's inode page
    /// (`fseg_inode_get`), the FSP header (`fsp_get_header`) and the page holding the extent's
    /// descriptor (`xdes_get_descriptor`, page 0 for the first 16,384 pages at 16k) are read
    /// if absent and changed, as `fseg_alloc_free_page_low` and `fseg_free_page` do.
    pub fn file_space_change(&mut self, xdes_page: u32) {
        self.access(FSP_INODE_PAGE, true);
        self.access(FSP_HEADER_PAGE, true);
        if xdes_page != FSP_HEADER_PAGE {
            self.access(xdes_page, true);
        }
    }

    /// A freed page leaves the pool unwritten.
    pub fn forget(&mut self, p: u32) {
        if self.contains(p) {
            self.remove(p);
        }
        self.ibuf.forget(p);
    }

    fn mark_dirty(&mut self, p: u32) {
        let n = self.node(p);
        if !n.dirty {
            n.dirty = true;
            self.dirty_list.push(p);
        }
    }

    /// `buf_page_make_young_if_needed` for a hit.
    fn make_young_if_needed(&mut self, p: u32, now: u64) {
        if self.freed_clock == 0 {
            // Nothing is moved before the first eviction.
            return;
        }
        let n = self.nodes[p as usize];
        if n.old {
            let delay = self.settings.old_blocks_ops;
            let first = n.first_access.unwrap_or(now);
            if delay > 0 && now.saturating_sub(first) < delay {
                self.counters.not_made_young += 1;
                return;
            }
        } else {
            // buf_page_peek_if_young: recently made young pages stay where they are.
            let ratio = self.settings.old_blocks_pct as u64;
            let young_enough = self.capacity as u64 * (100 - ratio) / 100 / 4;
            if self.freed_clock.saturating_sub(n.young_clock) < young_enough {
                return;
            }
        }
        if self.head == p {
            return;
        }
        self.counters.made_young += n.old as u64;
        self.remove(p);
        self.insert(p, false);
    }

    /// `buf_LRU_add_block`: `old` pages go right after the first old page once the list has an
    /// old sublist; others to the head. Evicts from the tail when the pool is full, and runs
    /// the page cleaner's LRU batch when free pages run low.
    fn insert(&mut self, p: u32, old: bool) {
        let room = self.capacity.saturating_sub(self.ibuf.pool_pages(self.capacity));
        while self.len >= room.max(1) {
            self.evict();
        }
        // The page cleaner keeps free pages: once fewer than half of `innodb_lru_scan_depth`
        // are free and the LRU holds more than `BUF_LRU_MIN_LEN` pages
        // (`buf_pool_t::need_LRU_eviction`, woken from `buf_LRU_get_free_block`), it runs an
        // LRU batch ([`Pool::lru_batch`]). It runs before `p` joins the list, counting `p` in
        // (the server's batch skips the page being read, which is buffer-fixed).
        let depth = self.settings.lru_scan_depth;
        if depth > 0 && self.len + 1 > LRU_MIN_LEN && room.saturating_sub(self.len + 1) < depth / 2
        {
            self.lru_batch(room);
        }
        let (clock, now) = (self.freed_clock, self.counters.ops);
        let (head, old_first) = (self.head, self.old_first);
        let use_old = old && old_first != NIL && self.len >= OLD_MIN_LEN;
        if use_old {
            let after = old_first;
            let next = self.nodes[after as usize].next;
            *self.node(p) = Node {
                prev: after,
                next,
                in_pool: true,
                old: true,
                dirty: false,
                first_access: None,
                young_clock: clock,
                last_op: now,
            };
            self.nodes[after as usize].next = p;
            if next != NIL {
                self.nodes[next as usize].prev = p;
            } else {
                self.tail = p;
            }
            self.old_len += 1;
        } else {
            *self.node(p) = Node {
                prev: NIL,
                next: head,
                in_pool: true,
                old: false,
                dirty: false,
                first_access: None,
                young_clock: clock,
                last_op: now,
            };
            if head != NIL {
                self.nodes[head as usize].prev = p;
            } else {
                self.tail = p;
            }
            self.head = p;
        }
        self.len += 1;
        self.adjust_old();
    }

    fn remove(&mut self, p: u32) {
        let n = self.nodes[p as usize];
        debug_assert!(n.in_pool);
        if self.old_first == p {
            // buf_LRU_remove_block: LRU_old moves to the previous block, which becomes old.
            self.old_first = n.prev;
            if n.prev != NIL {
                if !self.nodes[n.prev as usize].old {
                    self.nodes[n.prev as usize].old = true;
                    self.old_len += 1;
                }
            } else {
                self.old_first = n.next;
            }
        }
        if n.old {
            self.old_len -= 1;
        }
        if n.prev != NIL {
            self.nodes[n.prev as usize].next = n.next;
        } else {
            self.head = n.next;
        }
        if n.next != NIL {
            self.nodes[n.next as usize].prev = n.prev;
        } else {
            self.tail = n.prev;
        }
        let m = &mut self.nodes[p as usize];
        m.in_pool = false;
        m.old = false;
        m.prev = NIL;
        m.next = NIL;
        self.len -= 1;
        if self.len < OLD_MIN_LEN {
            // buf_LRU_old_init is redone when the list grows back.
            let mut q = self.head;
            while q != NIL && self.old_len > 0 {
                let node = &mut self.nodes[q as usize];
                if node.old {
                    node.old = false;
                    self.old_len -= 1;
                }
                q = node.next;
            }
            self.old_first = NIL;
            self.old_len = 0;
        } else {
            self.adjust_old();
        }
    }

    fn evict(&mut self) {
        self.evict_page(self.tail);
    }

    /// Page `p`'s write, when it is dirty: counted, and the page is clean.
    fn write_completes(&mut self, p: u32) {
        let n = &mut self.nodes[p as usize];
        if n.dirty {
            n.dirty = false;
            self.counters.pages_written += 1;
        }
    }

    fn evict_page(&mut self, t: u32) {
        debug_assert!(t != NIL);
        self.write_completes(t);
        self.remove(t);
        self.nodes[t as usize].first_access = None;
        self.freed_clock += 1;
        self.counters.evictions += 1;
    }

    /// `buf_LRU_old_adjust_len` (and `buf_LRU_old_init` when the list first reaches
    /// `BUF_LRU_OLD_MIN_LEN`): keeps the old sublist at `old_blocks_pct` of the list ± 20.
    fn adjust_old(&mut self) {
        if self.len < OLD_MIN_LEN {
            return;
        }
        if self.old_first == NIL {
            // buf_LRU_old_init: every page old, then shrink from the head side.
            let mut q = self.head;
            while q != NIL {
                let node = &mut self.nodes[q as usize];
                node.old = true;
                q = node.next;
            }
            self.old_first = self.head;
            self.old_len = self.len;
        }
        let target = self.len * self.settings.old_blocks_pct as usize / 100;
        while self.old_len + OLD_TOLERANCE < target {
            let prev = self.nodes[self.old_first as usize].prev;
            if prev == NIL {
                break;
            }
            self.nodes[prev as usize].old = true;
            self.old_first = prev;
            self.old_len += 1;
        }
        while self.old_len > target + OLD_TOLERANCE {
            let of = self.old_first;
            let next = self.nodes[of as usize].next;
            if next == NIL {
                break;
            }
            self.nodes[of as usize].old = false;
            self.old_first = next;
            self.old_len -= 1;
        }
    }
}

#[cfg(test)]
#[path = "pool_tests.rs"]
mod tests;
