//! The buffer pool model's settings (the server variables it follows, and which 10.11
//! release's page cleaner rules), the smallest pool the server starts with, and the figures
//! it counts.

use serde::{Deserialize, Serialize};

/// The smallest `innodb_buffer_pool_size` at any page size (MySQL's and MariaDB's minimum is
/// 5 MiB).
pub const MIN_BUFFER_POOL_BYTES: u64 = 5 << 20;

/// The smallest buffer pool a server starts with at `page_size_bytes`: 5 MiB, and from 16 KiB
/// pages up, 320 pages plus 1 MiB (MariaDB 10.11 refuses less at startup, "innodb_page_size=16384
/// requires innodb_buffer_pool_size >= 6 MiB"; 11 MiB at 32k, 21 MiB at 64k, measured). keylab
/// refuses a smaller pool on every engine, the simulator included, so that a command that runs
/// on the simulator runs on a server unchanged.
pub fn min_buffer_pool_bytes(page_size_bytes: u32) -> u64 {
    MIN_BUFFER_POOL_BYTES.max(u64::from(page_size_bytes) * 320 + (1 << 20))
}

/// The bytes of the free pages MariaDB's page cleaner keeps (`innodb_lru_scan_depth` pages at
/// its default, `buf_pool_t::need_LRU_eviction`): in a pool under about 2,300 pages they,
/// not the pool size, bound the LRU (docs/model-rules.md §9), so a pool holds a table only
/// with them on top.
pub fn page_cleaner_free_bytes(page_size_bytes: u32) -> u64 {
    default_lru_scan_depth() as u64 * u64::from(page_size_bytes)
}

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
    /// `innodb_old_blocks_time`, in row operations (see the `pool` module docs).
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
    /// Of `pages_read`: index pages (leaf and non-leaf), not the tablespace's file-space
    /// pages or the system tablespace's (as the server's `buffer_page_read_index_*`).
    #[serde(default)]
    pub index_pages_read: u64,
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
