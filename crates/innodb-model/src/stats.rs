//! Statistics of a simulated table, named and defined as the server reports them:
//! `mysql.innodb_index_stats` (`size`, `n_leaf_pages`), `TABLES.DATA_LENGTH` /
//! `INDEX_LENGTH`, `INNODB_METRICS` counters, and per-index page figures computed the way
//! `INFORMATION_SCHEMA.INNODB_BUFFER_PAGE` would give them (DATA_SIZE per page).
//!
//! The types only: `table/analyze.rs` computes them from the pages.

use crate::PoolCounters;
use serde::{Deserialize, Serialize};

/// Counters named like `INNODB_METRICS` (module `index`), summed over all indexes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// What the flavour's `index_page_splits` counts: MariaDB 10.11 counts every call of
    /// `btr_page_split_and_insert`, including inserts that went into the right sibling;
    /// MySQL 8.0 counts completed splits.
    pub page_splits: u64,
    /// `index_page_reorg_attempts` (= `_successful`: MariaDB counts both together): page
    /// reorganizations.
    pub page_reorgs: u64,
    /// Inserts placed on the right sibling instead of splitting (`btr_insert_into_right_sibling`;
    /// no server counter of its own).
    pub right_sibling_inserts: u64,
    /// Root raises (tree height +1).
    pub root_raises: u64,
    /// `index_page_merge_attempts`: entries to `btr_compress` (merge or lift-up attempts).
    pub merge_attempts: u64,
    /// `index_page_merge_successful`.
    pub merges: u64,
    /// `index_page_discards`.
    pub page_discards: u64,
}

/// Per-index figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexStats {
    /// Index name (`PRIMARY` for the clustered index).
    pub name: String,
    /// `innodb_index_stats` `size`: pages reserved by the leaf and non-leaf segments.
    pub size_pages: u64,
    /// `innodb_index_stats` `n_leaf_pages`: used pages of the leaf segment (BLOB pages
    /// included), at least 1.
    pub leaf_pages: u64,
    /// B-tree pages above the leaf level.
    pub nonleaf_pages: u64,
    /// B-tree pages per level; index 0 is the leaf level.
    pub pages_per_level: Vec<u64>,
    /// Tree height (1 for a single-page tree).
    pub height: u32,
    /// Leaf records (rows).
    pub records: u64,
    /// Mean over B-tree leaf pages of DATA_SIZE / page size × 100.
    pub fill_pct: f64,
    /// Leaf records per B-tree leaf page.
    pub records_per_leaf: f64,
    /// B-tree leaf pages by fill, buckets of 10 points (the last holds 90–100).
    pub fill_histogram: [u64; 10],
    /// Sum of DATA_SIZE over all B-tree pages of the index, leaf and non-leaf.
    pub data_size_bytes: u64,
    /// Mean over all B-tree pages (leaf and non-leaf) of DATA_SIZE / page size × 100, as an
    /// average over an index's buffered pages gives it.
    pub fill_pct_all_pages: f64,
    /// BLOB pages holding off-page columns (part of `leaf_pages`).
    pub blob_pages: u64,
}

/// Table-level figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableStats {
    /// Counters since the table was created.
    pub counters: Counters,
    /// `DATA_LENGTH` = PRIMARY `size` × page size.
    pub data_length_bytes: u64,
    /// `INDEX_LENGTH` = Σ secondary `size` × page size.
    pub index_length_bytes: u64,
    /// `DATA_FREE`: free extents of the tablespace less InnoDB's reserve
    /// (`fsp_get_available_space_in_free_extents`).
    pub data_free_bytes: u64,
    /// Buffer pool and change buffer figures, when a pool is modelled.
    pub pool: Option<PoolStats>,
    /// PRIMARY first, then the secondary indexes in table order.
    pub indexes: Vec<IndexStats>,
}

/// Buffer pool figures with the device model's estimates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolStats {
    /// Pool size in pages.
    pub capacity_pages: u64,
    /// Cumulative counters.
    pub counters: PoolCounters,
    /// Hits / page accesses.
    pub hit_ratio: f64,
    /// Page reads per row operation.
    pub misses_per_op: f64,
    /// Pages with buffered changes not yet merged.
    pub ibuf_pending_pages: u64,
    /// Change-buffer pages held in the pool.
    pub ibuf_pool_pages: u64,
    /// Estimated I/O time of all reads and writes on the HDD model (an estimate, see
    /// [`Device`](crate::Device)).
    pub est_io_s_hdd: f64,
    /// Estimated I/O time on the SSD model (an estimate).
    pub est_io_s_ssd: f64,
}
