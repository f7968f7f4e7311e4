//! The buffer pool model: InnoDB's LRU list with midpoint insertion (docs/model-rules.md §9,
//! `buf0lru.cc`, `buf_page_make_young_if_needed`), page reads on misses, dirty pages, the
//! page cleaner's LRU batch and its page writes (two sets of rules, [`PageCleanerRules`]),
//! page writes when a dirty page is evicted from a full pool or at a checkpoint;
//! plus the change buffer's bookkeeping (`change_buffer.rs`; `ibuf.rs` holds its rules). It holds index pages and
//! the tablespace's FSP header, extent descriptor and inode pages, which every page
//! allocation and free changes, and, from [`SYS_PAGE_BASE`] up, the system tablespace's pages
//! that autocommitted inserts and their purge touch (rollback-segment headers, undo log pages,
//! its file-space pages: `undo.rs`, docs/model-rules.md §15). Not modelled: the system
//! tablespace's pages during a load (a load's multi-row transactions' undo, purge after it)
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
//!
//! This file holds the pool's pages and the operations on them; the LRU list's own rules are
//! in `lru.rs`, the page cleaner's in `page_cleaner.rs`, the settings and counters in
//! `settings.rs`.

mod change_buffer;
mod ibuf_tree;
mod lru;
mod nodes;
pub use nodes::SYS_PAGE_BASE;
mod settings;
pub(crate) use change_buffer::ChangeBuffer;
pub use change_buffer::IbufSize;
pub use settings::{
    min_buffer_pool_bytes, page_cleaner_free_bytes, PageCleanerRules, PoolCounters, PoolSettings,
    MIN_BUFFER_POOL_BYTES,
};

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
const NIL: u32 = u32::MAX;
/// `FSP_FIRST_INODE_PAGE_NO`: a file-per-table tablespace's segment inodes (85 segments, 42
/// indexes, at 16k) are on page 2.
const FSP_INODE_PAGE: u32 = 2;
/// `FSP_HDR`: page 0, the tablespace header and the first extent descriptors.
const FSP_HEADER_PAGE: u32 = 0;

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
    nodes: nodes::Nodes,
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
    pub(crate) ibuf: ChangeBuffer,
}

impl Pool {
    /// A pool of `capacity_pages` pages (`_page_bytes`: the page size, which the change
    /// buffer tree takes from the tablespace instead).
    pub fn new(
        capacity_pages: usize,
        _page_bytes: u32,
        settings: PoolSettings,
        ibuf_on: bool,
    ) -> Pool {
        Pool {
            settings,
            capacity: capacity_pages.max(8),
            nodes: nodes::Nodes::default(),
            head: NIL,
            tail: NIL,
            len: 0,
            old_first: NIL,
            old_len: 0,
            freed_clock: 0,
            dirty_list: Vec::new(),
            batch_writes: Vec::new(),
            counters: PoolCounters::default(),
            ibuf: ChangeBuffer::new(ibuf_on),
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
        self.nodes.get_or_add(p as usize, EMPTY)
    }

    /// Hints the CPU to load page `p`'s LRU node, which an access to `p` reads (the
    /// prefetching batch insert, `prefetch.rs`). Changes nothing.
    pub(crate) fn prefetch_node(&self, p: u32) {
        if let Some(n) = self.nodes.get(p as usize) {
            crate::cache_line::prefetch_line(n);
        }
    }

    /// Hints the CPU to load the LRU nodes around page `p`'s (once its own is loaded): moving
    /// `p` to the head unlinks it between them. Changes nothing.
    pub(crate) fn prefetch_neighbours(&self, p: u32) {
        if let Some(n) = self.nodes.get(p as usize) {
            for q in [n.prev, n.next] {
                if let Some(m) = self.nodes.get(q as usize) {
                    crate::cache_line::prefetch_line(m);
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
        // Index pages and the system tablespace's (undo.rs) come through here; file-space
        // pages through `file_space_change`.
        self.access_page(p, write, p < SYS_PAGE_BASE)
    }

    /// [`Pool::access`], counting a miss among `index_pages_read` when `index_page`.
    fn access_page(&mut self, p: u32, write: bool, index_page: bool) -> bool {
        self.counters.page_accesses += 1;
        let now = self.counters.ops;
        let miss = !self.contains(p);
        if miss {
            self.counters.pages_read += 1;
            self.counters.index_pages_read += u64::from(index_page);
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

    /// A cursor restored on a page it still has (`buf_page_optimistic_get`): the page may be
    /// made young, but it is no page request (that function does not count
    /// `buf_pool.stat.n_page_gets`). Nothing happens to a page no longer cached.
    pub fn restore_access(&mut self, p: u32) {
        if self.contains(p) {
            let now = self.counters.ops;
            self.make_young_if_needed(p, now);
        }
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
        self.access_page(FSP_INODE_PAGE, true, false);
        self.access_page(FSP_HEADER_PAGE, true, false);
        if xdes_page != FSP_HEADER_PAGE {
            self.access_page(xdes_page, true, false);
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

    /// Page `p`'s write, when it is dirty: counted, and the page is clean.
    fn write_completes(&mut self, p: u32) {
        let n = &mut self.nodes[p as usize];
        if n.dirty {
            n.dirty = false;
            self.counters.pages_written += 1;
        }
    }
}

#[cfg(test)]
mod tests;
