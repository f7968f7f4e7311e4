//! The page cleaner's LRU batch (docs/model-rules.md §9, `buf/buf0flu.cc`): which pages a
//! batch frees and writes, how deep it goes and, under the 10.11.9 rules, the dirty
//! neighbours it writes with a page; and the pages a pool of a given size holds.

use super::{PageCleanerRules, Pool, LRU_MIN_LEN, NIL, OLD_MIN_LEN};

/// `innodb_max_io_capacity`'s default (2,000 when `innodb_io_capacity` is 200): the most
/// pages one LRU batch writes.
const MAX_IO_CAPACITY: usize = 2000;

/// The LRU length an LRU batch stops at in MariaDB 10.11.9 and later
/// (`buf_flush_LRU_list_batch`, MDEV-34166): `BUF_LRU_MIN_LEN`, or one page under 5 % of
/// the pool when that is less (pools under 80 MiB of 16k pages): 49 pages at 16 MiB (1,014
/// pages).
pub(super) fn lru_batch_min_len(pool_pages: usize) -> usize {
    (pool_pages / 20).saturating_sub(1).min(LRU_MIN_LEN)
}

/// `innodb_buffer_pool_extent_size` (64-bit): the pool is allocated in extents of 8 MiB.
const POOL_EXTENT_BYTES: u64 = 8 << 20;
/// `sizeof(buf_block_t)` of the 10.11.19 server checked: 160 bytes gives its
/// `Innodb_buffer_pool_pages_total` at 16k and 4k pages (2,028 and 7,884 in 32 MiB).
const BLOCK_DESCRIPTOR_BYTES: u64 = 160;

/// The pages a buffer pool of `bytes` holds. Since 10.11.9 (as in the 10.11.19 checked:
/// `buf_pool_t::create`, `first_page`), each 8 MiB extent keeps its page descriptors
/// (`buf_block_t`) in its own first pages: 507 of 512 pages at 16k (1,014 in 16 MiB, 2,028 in
/// 32 MiB). Before, `bytes / page_bytes` (the model's 10.11.0 rules).
pub(crate) fn pool_pages(bytes: u64, page_bytes: u32, rules: PageCleanerRules) -> usize {
    let page = u64::from(page_bytes);
    let pages = match rules {
        PageCleanerRules::Before10_11_7 => bytes / page,
        PageCleanerRules::Since10_11_9 => {
            let per_extent = POOL_EXTENT_BYTES / (page + BLOCK_DESCRIPTOR_BYTES);
            bytes / POOL_EXTENT_BYTES * per_extent
                + bytes % POOL_EXTENT_BYTES / (page + BLOCK_DESCRIPTOR_BYTES)
        }
    };
    pages as usize
}

/// The neighbour flush area in pages (`buf_flush_check_neighbors`): the read-ahead area
/// (`BUF_READ_AHEAD_PAGES`, 64, or the power of two at or above 1/32 of the pool when less),
/// and at most 1/16 of the pool.
pub(super) fn flush_area(pool_pages: usize) -> u32 {
    let read_ahead = (pool_pages / 32).max(1).next_power_of_two().min(64);
    read_ahead.min(pool_pages / 16).max(1) as u32
}

impl Pool {
    /// The page cleaner's LRU batch (`buf_flush_LRU_list_batch`, called with
    /// `innodb_max_io_capacity` from `buf_flush_page_cleaner`): from the LRU tail, a clean page
    /// is freed at once; a dirty page gets a write and stays in the LRU, still counted, while
    /// it is written. The scan goes on while the LRU, pages being written included, holds
    /// more than its stop length and fewer than `innodb_lru_scan_depth` pages are free (at
    /// most `innodb_max_io_capacity` writes), so in a tail of dirty pages it writes far past
    /// the stop length. The model completes the batch's writes at its end (the page cleaner
    /// waits for them, `os_aio_wait_until_no_pending_writes`, before its next batch); the
    /// running operation's pages are buffer-fixed and skipped. What a completed write does,
    /// and the stop length, depend on [`PageCleanerRules`]:
    /// - before 10.11.7, the write frees its page and the batch stops at 256 pages: in a
    ///   dirty tail the LRU ends well below 256 once the writes complete;
    /// - since 10.11.9, the page stays in the LRU, clean, for the next batch to free, and
    ///   under 80 MiB the batch stops at 5 % of the pool: a batch that starts at 257 pages
    ///   passes the whole list, frees every clean page (those the previous batch wrote
    ///   among them) and writes every dirty one; past half its free target it also writes a
    ///   dirty page's dirty neighbours ([`Pool::write_neighbours`]).
    pub(super) fn lru_batch(&mut self, room: usize) {
        let depth = self.settings.lru_scan_depth;
        let keeps_written = self.settings.page_cleaner == PageCleanerRules::Since10_11_9;
        let min_len = if keeps_written { lru_batch_min_len(self.capacity) } else { LRU_MIN_LEN };
        let now = self.counters.ops;
        let mut writes = std::mem::take(&mut self.batch_writes);
        // Neighbour flushing needs an LRU of `BUF_LRU_OLD_MIN_LEN` pages at the batch's start.
        let neighbours = keeps_written && self.settings.flush_neighbors && self.len >= OLD_MIN_LEN;
        let mut neighbour_writes = 0;
        let mut q = self.tail;
        while q != NIL
            && self.len + 1 > min_len
            && room.saturating_sub(self.len + 1) < depth
            && writes.len() + neighbour_writes < MAX_IO_CAPACITY
        {
            let n = self.nodes[q as usize];
            if n.last_op == now && n.first_access.is_some() {
                // Buffer-fixed by the running operation.
            } else if n.dirty {
                writes.push(q);
                // Past half the free target, the page's dirty neighbours are written with it.
                if neighbours && room.saturating_sub(self.len + 1) * 2 >= depth {
                    let budget = MAX_IO_CAPACITY - writes.len() - neighbour_writes;
                    neighbour_writes += self.write_neighbours(q, now, budget);
                }
            } else {
                self.evict_page(q);
            }
            q = n.prev;
        }
        for &p in &writes {
            if keeps_written {
                // `buf_page_t::write_complete`: clean, and left where it is.
                self.write_completes(p);
            } else {
                self.evict_page(p);
            }
        }
        writes.clear();
        self.batch_writes = writes;
    }

    /// `buf_flush_try_neighbors` with `innodb_flush_neighbors=1` (`buf_flush_check_neighbors`):
    /// the run of dirty cached pages around page `p` within its flush area (`min(64, pool
    /// pages / 16)` pages, aligned, `buf_pool.read_ahead_area`) is written with it, at most
    /// `budget` of them. Their writes complete at once, so the scan frees those it has not
    /// reached yet (the server's complete while the batch goes on); a page being written or
    /// latched by the running operation ends the run. Returns the neighbours written.
    fn write_neighbours(&mut self, p: u32, now: u64, budget: usize) -> usize {
        let area = flush_area(self.capacity);
        let low = p - p % area;
        let high = low.saturating_add(area);
        let flushable = |pool: &Pool, r: u32| {
            pool.nodes.get(r as usize).is_some_and(|n| {
                n.in_pool && n.dirty && !(n.last_op == now && n.first_access.is_some())
            })
        };
        let mut first = p;
        while first > low && flushable(self, first - 1) {
            first -= 1;
        }
        let mut end = p + 1;
        while end < high && flushable(self, end) {
            end += 1;
        }
        let mut written = 0;
        for r in (first..end).filter(|&r| r != p) {
            if written == budget {
                break;
            }
            self.write_completes(r);
            written += 1;
        }
        written
    }
}
