//! keylab-innodb-model: a byte-accurate, page-level model of InnoDB's B+trees.
//!
//! Given a table definition and a stream of rows, [`SimTable`] builds the pages InnoDB would
//! build: record sizes from the column definitions (COMPACT/DYNAMIC), page space accounting
//! with the directory estimate, garbage, the PAGE_FREE list and heap slots, InnoDB's
//! split-point rules (to the right / to the left / middle / size-based), right-sibling
//! inserts, root raises, and the file-segment allocator that gives `size`, `n_leaf_pages`,
//! `DATA_LENGTH`, `INDEX_LENGTH` and `DATA_FREE`. The rules and the server functions behind
//! them are described in `docs/model-rules.md`; each rule in the code names the
//! function it mirrors.
//!
//! [`SimTable::insert_batch`] inserts rows exactly as [`SimTable::insert`] does, one by one,
//! while prefetching the memory of the inserts a few rows ahead (faster on trees larger than
//! the CPU caches; no figure changes).
//!
//! Beyond inserts:
//! - [`SimTable::delete`] removes a row as purge does (optimistic delete, else pessimistic with
//!   page discards, merge attempts left then right under MERGE_THRESHOLD — per index, see
//!   [`SimTable::set_merge_threshold`] — lift-up and tree height shrinking);
//! - [`SimTable::read_point`], [`SimTable::read_secondary`], [`SimTable::read_key_range`] and
//!   [`SimTable::read_time_range`] answer reads as MariaDB 10.11's `SELECT`s get pages (descents,
//!   range estimates, clustered visits, leaf walks), through the buffer pool model when there is
//!   one, counting requests and working sets in a [`ReadStats`] (docs/model-rules.md §15);
//! - [`SimTable::rebuild`] is `OPTIMIZE TABLE`: a new tablespace and a sorted build of every
//!   index at a fill factor;
//! - with [`SimSettings::buffer_pool_bytes`], a buffer pool with InnoDB's midpoint LRU counts
//!   page reads and writes ([`PoolCounters`]), the change buffer defers secondary-index
//!   changes for uncached leaves, and [`Device`] turns I/O into estimated seconds.
//!
//! Fidelity, measured against MariaDB 10.11 by `keylab validate` (and, page by page, by the
//! comparisons that preceded it): inserts, purged deletes, merges, splits, reorganizations,
//! `size`, `n_leaf_pages`, DATA_LENGTH and DATA_FREE match exactly under random churn and
//! rebuilds. The buffer pool, change
//! buffer and device model are models (their figures are predictions of direction and rough
//! size, not of a server's counters).
//!
//! What it does not do: delete-marked records and MVCC (deletes are applied as purged),
//! updates in place, ROW_FORMAT=REDUNDANT/COMPRESSED, read-ahead, background flushing and
//! background change-buffer merges, redo and doublewrite I/O. It keeps no wall clock and no
//! entropy: the same operations give the same tree.
#![deny(missing_docs)]

mod bulk;
mod cache_line;
mod check;
mod delete;
mod device;
mod fsp;
mod ibuf;
mod layout;
pub mod online_ddl;
mod page;
pub(crate) mod pool;
mod prefetch;
mod row_store;
mod space;
mod split;
mod stats;
mod table;
mod tree;
mod undo;

// Test helpers (seeded generator, E1's and E5's tables, workloads): in the crate's unit tests,
// and for its benches, integration tests and tools through the `testkit` feature only.
#[cfg(any(test, feature = "testkit"))]
#[doc(hidden)]
pub mod testkit;

pub use check::InvariantViolation;
pub use device::Device;
pub use page::PageNo;
pub use pool::{
    min_buffer_pool_bytes, page_cleaner_free_bytes, IbufSize, PageCleanerRules, PoolCounters,
    PoolSettings, MIN_BUFFER_POOL_BYTES,
};
pub use stats::{Counters, IndexStats, TableStats};
pub use table::{ReadStats, SimTable};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// `innodb_page_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum PageSize {
    /// 4 KiB.
    K4,
    /// 8 KiB.
    K8,
    /// 16 KiB (the default).
    #[default]
    K16,
    /// 32 KiB.
    K32,
    /// 64 KiB.
    K64,
}

impl PageSize {
    /// Every supported page size, smallest first.
    pub const ALL: [PageSize; 5] =
        [PageSize::K4, PageSize::K8, PageSize::K16, PageSize::K32, PageSize::K64];

    /// The page size in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            PageSize::K4 => 4096,
            PageSize::K8 => 8192,
            PageSize::K16 => 16384,
            PageSize::K32 => 32768,
            PageSize::K64 => 65536,
        }
    }
}

impl fmt::Display for PageSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}k", self.bytes() / 1024)
    }
}

impl FromStr for PageSize {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "4k" | "4096" => Ok(PageSize::K4),
            "8k" | "8192" => Ok(PageSize::K8),
            "16k" | "16384" => Ok(PageSize::K16),
            "32k" | "32768" => Ok(PageSize::K32),
            "64k" | "65536" => Ok(PageSize::K64),
            _ => Err(SimError::BadPageSize(s.to_string())),
        }
    }
}

/// The server whose rules apply where MariaDB 10.11 and MySQL 8.0 differ. Each rule names
/// the server function it follows where it branches on the flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Flavour {
    /// MariaDB 10.11: `index_page_splits` counts every entry to the split function
    /// (right-sibling inserts too); segments add an extent only while fewer than 4 extents'
    /// worth of pages are unused (MDEV-33542); deleting the top record lowers PAGE_HEAP_TOP;
    /// sorted builds reserve no extents (MDEV-26740); change buffering off (MDEV-27734).
    #[default]
    MariaDb1011,
    /// MySQL 8.0 (its 8.0.x source): completed splits only; the 1/8 segment reserve rule
    /// alone; descriptor extents leased to segments (`fsp_alloc_xdes_free_frag`); sorted
    /// builds reserve an extent per page and set PAGE_LAST_INSERT; change buffering `all`.
    /// Where 8.4/9.x differ the model still follows 8.0: 8.4 made `innodb_change_buffering`
    /// default to `none` (set it explicitly to model 8.4), and its sorted-build loader can
    /// allocate whole extents per level.
    Mysql80,
}

/// Simulator settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimSettings {
    /// `innodb_page_size`.
    pub page_size: PageSize,
    /// Which server's rules to follow where they differ.
    pub flavour: Flavour,
    /// `innodb_fill_factor` of sorted index builds ([`SimTable::rebuild`] takes its own).
    pub fill_factor_pct: u8,
    /// MERGE_THRESHOLD of every index, percent of the page
    /// ([`SimTable::set_merge_threshold`] changes one index).
    pub merge_threshold_pct: u8,
    /// Run the full invariant checker every N operations (None = never).
    pub check_every: Option<u64>,
    /// `innodb_buffer_pool_size` in bytes; `None` = every page cached and no I/O modelled.
    pub buffer_pool_bytes: Option<u64>,
    /// `innodb_change_buffering` all (`Some(true)`) or none (`Some(false)`); `None` = the
    /// flavour's default: off for MariaDB 10.11 (MDEV-27734), on (`all`) for MySQL 8.0
    /// (`innodb_change_buffering = IBUF_USE_ALL` in ibuf0ibuf.cc; `none` from 8.4.0).
    /// Needs a buffer pool: without one every leaf is cached and nothing is buffered.
    pub change_buffering: Option<bool>,
    /// LRU and checkpoint settings of the buffer pool model.
    pub pool: PoolSettings,
    /// The table will only be inserted into (and perhaps rebuilt): the model then keeps no
    /// per-row copy of the secondary-index columns, which only a delete needs (about a
    /// third of the memory of a table with secondary indexes), and [`SimTable::delete`]
    /// refuses. Changes no figure of an insert-only load.
    pub insert_only: bool,
}

impl SimSettings {
    /// Whether the change buffer is on, after the flavour default.
    pub fn change_buffering_on(&self) -> bool {
        self.change_buffering.unwrap_or(self.flavour == Flavour::Mysql80)
    }
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            page_size: PageSize::K16,
            flavour: Flavour::MariaDb1011,
            fill_factor_pct: 100,
            merge_threshold_pct: 50,
            check_every: None,
            buffer_pool_bytes: None,
            change_buffering: None,
            pool: PoolSettings::default(),
            insert_only: false,
        }
    }
}

/// Errors from building or loading a simulated table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// A record can never fit in a page (the server's "Row size too large").
    #[error(
        "row size too large for index {index}: a record takes {record_bytes} bytes, but a \
         {limit_bytes}-byte record is the most a page of this size holds (half a page)"
    )]
    RowTooLarge {
        /// Index name.
        index: String,
        /// Worst-case or actual record size.
        record_bytes: u32,
        /// Largest record a page holds.
        limit_bytes: u32,
    },
    /// A key is longer than the server allows for this page size.
    #[error("key of index {index} is too long: {key_bytes} bytes, the limit is {limit_bytes}")]
    KeyTooLong {
        /// Index name.
        index: String,
        /// Maximum key length of the index.
        key_bytes: u32,
        /// Server limit.
        limit_bytes: u32,
    },
    /// The row duplicates a key of the primary key or a unique index.
    #[error("duplicate key in index {index}")]
    DuplicateKey {
        /// Index name.
        index: String,
    },
    /// The row does not match the table definition.
    #[error("bad row for table {table}: {reason}")]
    BadRow {
        /// Table name.
        table: String,
        /// What is wrong.
        reason: String,
    },
    /// The table definition cannot be simulated.
    #[error("bad table definition {table}: {reason}")]
    BadTable {
        /// Table name.
        table: String,
        /// What is wrong.
        reason: String,
    },
    /// A page size that is not 4k, 8k, 16k, 32k or 64k.
    #[error("unknown page size {0:?}: expected 4k, 8k, 16k, 32k or 64k")]
    BadPageSize(String),
    /// A settings value out of range.
    #[error("bad setting: {0}")]
    BadSetting(String),
}

/// Page-size-derived constants (docs/model-rules.md §10).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub page_bytes: u32,
    /// `page_get_free_space_of_empty`: P − 132.
    pub free_empty: u32,
    /// `dict_index_get_space_reserve`: P/16.
    pub reserve: u32,
    /// `BTR_CUR_PAGE_REORGANIZE_LIMIT`: P/32.
    pub reorg_limit: u32,
    /// `BTR_CUR_PAGE_COMPRESS_LIMIT`: P × MERGE_THRESHOLD / 100.
    pub merge_limit: u32,
    /// `FSP_EXTENT_SIZE`.
    pub extent_pages: u32,
}

impl Geometry {
    pub fn new(page: PageSize, merge_threshold_pct: u8) -> Geometry {
        let p = page.bytes();
        Geometry {
            page_bytes: p,
            free_empty: p - 132,
            reserve: p / 16,
            reorg_limit: p / 32,
            merge_limit: p * merge_threshold_pct as u32 / 100,
            extent_pages: match page {
                PageSize::K4 => 256,
                PageSize::K8 => 128,
                _ => 64,
            },
        }
    }

    /// `page_zip_rec_needs_ext` for uncompressed pages: the record must go (partly) off-page.
    pub fn needs_ext(&self, rec_bytes: u32) -> bool {
        rec_bytes >= self.free_empty / 2 || rec_bytes >= 16384
    }

    /// The largest record stored wholly in a page.
    pub fn max_rec_bytes(&self) -> u32 {
        (self.free_empty / 2).min(16384) - 1
    }

    /// Off-page bytes per BLOB page: P − FIL header − BLOB header − FIL trailer.
    pub fn blob_payload_bytes(&self) -> u32 {
        self.page_bytes - 38 - 8 - 8
    }

    /// Largest index key the server accepts (`DICT_MAX_FIELD_LEN_BY_FORMAT` and the
    /// page-size dependent limit of MariaDB/MySQL).
    pub fn max_key_bytes(&self) -> u32 {
        match self.page_bytes {
            4096 => 768,
            8192 => 1536,
            _ => 3072,
        }
    }
}

#[cfg(test)]
mod tests;
