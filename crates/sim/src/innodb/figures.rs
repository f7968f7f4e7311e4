//! The simulator's figures as a [`Measurement`]: the model's counters, sizes, per-index
//! pages and fill, and its buffer pool and change buffer, every one a prediction. A
//! figure only a server gives (per-file I/O, PostgreSQL's) is `None`.
//!
//! Not for running the workload or sampling the pool's curve (`innodb.rs`).

use super::SimEngine;
use keylab_core::{
    io_share_pct, per_1k_rows, BufferPoolResult, ChangeBufferResult, Counters, EngineError,
    IndexResult, Measurement, TableSizes,
};
use keylab_schema::Table;

impl SimEngine {
    /// The table's figures now (a measurement or a load sample).
    pub(super) fn figures(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        let sim = self.table()?;
        let (stats, ibuf_size) = (sim.stats(), sim.ibuf_size());
        let freed: Vec<u64> =
            (0..stats.indexes.len()).map(|i| sim.freed_pages_unreused(i)).collect();
        let c = &stats.counters;
        let pool = stats.pool.as_ref().map(|p| p.counters);
        Ok(Measurement {
            counters: Counters {
                page_splits: Some(c.page_splits),
                merge_attempts: Some(c.merge_attempts),
                merges: Some(c.merges),
                page_reorgs: Some(c.page_reorgs),
                page_discards: Some(c.page_discards),
                pages_read: pool.map(|p| p.pages_read),
                pages_written: pool.map(|p| p.pages_written),
                page_requests: pool.map(|p| p.page_accesses),
                // Per-file reads and writes are a server's performance_schema figures.
                io_write_requests: None,
                io_write_bytes: None,
                io_read_requests: None,
                io_read_bytes: None,
            },
            table: TableSizes {
                data_length: Some(stats.data_length_bytes),
                index_length: Some(stats.index_length_bytes),
                data_free: Some(stats.data_free_bytes),
            },
            indexes: stats
                .indexes
                .iter()
                .enumerate()
                .map(|(i, ix)| IndexResult {
                    name: ix.name.clone(),
                    size_pages: Some(ix.size_pages),
                    leaf_pages: Some(ix.leaf_pages),
                    n_leaf_pages_stat: Some(n_leaf_pages_stat(
                        ix.leaf_pages,
                        ix.height,
                        n_uniq(table, i),
                    )),
                    nonleaf_pages: Some(ix.nonleaf_pages),
                    freed_pages_in_pool: Some(freed[i]),
                    height: Some(ix.height),
                    fill_pct: Some(ix.fill_pct),
                    records_per_leaf: Some(ix.records_per_leaf),
                    fill_histogram: Some(ix.fill_histogram.to_vec()),
                    pages_per_level: Some(ix.pages_per_level.clone()),
                    ..IndexResult::default()
                })
                .collect(),
            buffer_pool: stats.pool.as_ref().map(|p| {
                let c = &p.counters;
                BufferPoolResult {
                    pool_bytes: self.settings.buffer_pool_bytes,
                    page_requests: Some(c.page_accesses),
                    pages_read: Some(c.pages_read),
                    index_pages_read: keylab_core::Figure::Value(c.index_pages_read),
                    pages_written: Some(c.pages_written),
                    row_ops: Some(c.ops),
                    hit_ratio: Some(p.hit_ratio),
                    misses_per_op: Some(p.misses_per_op),
                    evictions: Some(c.evictions),
                    reads_per_1k_rows: per_1k_rows(Some(c.pages_read), Some(c.ops)),
                    writes_per_1k_rows: per_1k_rows(Some(c.pages_written), Some(c.ops)),
                    curve: self.curve.clone(),
                    // The model keeps the bookkeeping with buffering off too (all zero then).
                    // The model's change-buffer pages stay in the pool: their I/O is writes.
                    change_buffer: Some(ChangeBufferResult {
                        buffered: Some(c.ibuf_buffered),
                        merged: Some(c.ibuf_merged),
                        refused: Some(c.ibuf_refused_cap + c.ibuf_refused_free_space),
                        page_io: Some(c.ibuf_pages_written),
                        io_share_pct: io_share_pct(
                            Some(c.ibuf_pages_written),
                            Some(c.pages_read),
                            Some(c.pages_written),
                        ),
                        size_pages: ibuf_size.map(|s| s.pages),
                        max_size_pages: ibuf_size.map(|s| s.max_pages),
                        cap_pages: ibuf_size.map(|s| s.cap_pages),
                    }),
                    est_io_s_hdd: Some(p.est_io_s_hdd),
                    est_io_s_ssd: Some(p.est_io_s_ssd),
                }
            }),
            postgres: None,
            shards: None,
        })
    }
}

/// `innodb_stats_persistent_sample_pages`, the server default.
const STATS_SAMPLE_PAGES: u64 = 20;

/// `n_leaf_pages` as `ANALYZE TABLE` stores it. `dict_stats_analyze_index` scans the whole
/// leaf level when the tree is a single page or when sampling would read more pages than the
/// level has (sample pages x n_uniq > leaf pages); that path keeps the value the index's
/// statistics were emptied to, 1 (seen on MariaDB 10.11: 15 leaves stored as 1).
fn n_leaf_pages_stat(leaf_pages: u64, height: u32, n_uniq: u64) -> u64 {
    if height <= 1 || STATS_SAMPLE_PAGES * n_uniq > leaf_pages {
        1
    } else {
        leaf_pages
    }
}

/// Fields that make an index's records unique (`dict_index_get_n_unique`): the primary key's
/// columns; a unique index's columns; a non-unique index's columns plus the primary-key
/// columns it lacks. `index` 0 is PRIMARY, then the secondary indexes in table order.
fn n_uniq(table: &Table, index: usize) -> u64 {
    let Some(ix) = index.checked_sub(1).and_then(|i| table.indexes.get(i)) else {
        return table.primary_key.len() as u64;
    };
    if ix.unique {
        return ix.columns.len() as u64;
    }
    let extra = table.primary_key.iter().filter(|c| !ix.columns.contains(c)).count();
    (ix.columns.len() + extra) as u64
}
