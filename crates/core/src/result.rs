//! The result model: the JSON contract of `docs/contracts.md` (schema: `docs/result.schema.json`). Every report format is rendered from
//! these types. A figure an engine cannot give is `None` (JSON `null`), never a guess.
//!
//! This file holds the types and their JSON shape; the figures derived from them (intervals,
//! ratios, rates) are in `result/derived.rs`, the typed phases in `result/phases.rs` (their
//! shared figure groups in `result/phase_figures.rs`).

mod derived;
mod phase_figures;
mod phase_kinds;
mod phases;
mod repeats;
mod schema;
mod timed_phase;
mod work_phases;

pub use self::derived::{hit_ratio, io_share_pct, misses_per_op, per_1k_rows};
pub use self::phases::{
    AdvicePhase, ChurnPhase, CounterFigures, DdlPhase, DdlStep, Figure, LoadPhase, MixedPhase,
    PhaseKind, PhaseResult, PhaseStatus, PoolFigures, QueriesPhase, ReadCurvePoint, ReadFigures,
    ReadsPhase, RebuildPhase, RestartPhase, SeriesPoint, SettingsPhase, ShapeFigures, TimedPhase,
    WorkloadCurvePoint,
};
pub use self::repeats::{fold_repeats, DifferingFigure, Repeats, TimingSpread};
pub use self::schema::{ChildChange, RefusedTable, SchemaSummary, SchemaTable};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of this result format, written as `schema_version` (an extension of the contract;
/// bump on any incompatible change).
pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// A whole keylab run: one engine, one or more variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// keylab's version.
    pub keylab: String,
    /// Version of this format.
    #[serde(default = "schema_version")]
    pub schema_version: u32,
    /// Scenario name (`compare` for `keylab compare`).
    pub scenario: String,
    /// Generator seed.
    pub seed: u64,
    /// The engine the runs were made on.
    pub engine: EngineInfo,
    /// One entry per variant, in run order.
    pub runs: Vec<RunResult>,
    /// `keylab advise FILE.sql` without `--table`: every table of the file (an extension of
    /// the contract; absent from every other report, and then `runs` holds the figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<SchemaSummary>,
}

fn schema_version() -> u32 {
    REPORT_SCHEMA_VERSION
}

/// The engine of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// `sim`, `mariadb`, `mysql` or `postgres`.
    pub kind: String,
    /// The server's version, or the simulator's model (e.g. `InnoDB model of MariaDB 10.11`).
    pub version: String,
    /// The simulator's model token (`mariadb-10.11`, `mysql-8.0`; an extension of the
    /// contract): which server's rules produced the figures. Absent on a server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Settings in effect (page size, fill factor, buffer pool...).
    pub settings: BTreeMap<String, serde_json::Value>,
}

/// One variant's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// `strategy:encoding`.
    pub variant: String,
    /// Key strategy token.
    pub strategy: String,
    /// Encoding token.
    pub encoding: String,
    /// `pk` or `secondary`.
    pub placement: String,
    /// The simulator model that produced this run's figures (`mariadb-10.11`, `mysql-8.0`,
    /// `postgres-15`; an extension of the contract), so a report that runs the same ids under
    /// several models (`--model mariadb-10.11,postgres-15`) says which run is which. Absent on a
    /// server engine (its figures are the server's own) and in results written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Rows loaded.
    pub rows: u64,
    /// The load.
    pub load: LoadResult,
    /// Counters named like `INNODB_METRICS`.
    pub counters: Counters,
    /// Table sizes as `INFORMATION_SCHEMA.TABLES` reports them.
    pub table: TableSizes,
    /// Per index, PRIMARY first.
    pub indexes: Vec<IndexResult>,
    /// Per-phase results (churn, rebuild, queries, ddl).
    #[serde(default)]
    pub phases: Vec<PhaseResult>,
    /// Timed queries.
    #[serde(default)]
    pub queries: Vec<QueryResult>,
    /// Buffer pool and change buffer figures at the end of the run, cumulative since the
    /// table was created (an extension of the contract; absent where the engine gives none,
    /// e.g. the simulator without a pool size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pool: Option<BufferPoolResult>,
    /// Figures only PostgreSQL has (an extension of the contract; absent on InnoDB engines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<PostgresFigures>,
    /// Per-shard figures and the hotspot curve of a sharded run (`--shards`; an extension of
    /// the contract, absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<crate::shard::ShardsResult>,
    /// The run's repeats (`--repeat N` on a server): every timed figure's spread; the timed
    /// figures above are then medians over the repeats and the structural ones the first
    /// repeat's (an extension of the contract; absent after a single run). See
    /// `result/repeats.rs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Repeats>,
}

/// PostgreSQL-only figures of a run's load (or of a phase, in its `figures`), measured by the
/// postgres engine and predicted by the nbtree model. Every field is `null` where the engine
/// cannot give it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PostgresFigures {
    /// WAL bytes written (`pg_current_wal_lsn()` difference).
    pub wal_bytes: Option<u64>,
    /// WAL records written.
    pub wal_records: Option<u64>,
    /// Full-page images written (`pg_stat_wal.wal_fpi`).
    pub full_page_images: Option<u64>,
    /// Bytes of those full-page images, where known (`pg_waldump --stats`).
    pub full_page_image_bytes: Option<u64>,
    /// nbtree split WAL records: left-half-is-new (`SPLIT_L`), right (`SPLIT_R`), new roots.
    pub split_left: Option<u64>,
    /// See `split_left`.
    pub split_right: Option<u64>,
    /// See `split_left`.
    pub new_roots: Option<u64>,
    /// Checkpoints during the load (forced or by cadence).
    pub checkpoints: Option<u64>,
    /// Heap pages of the table.
    pub heap_pages: Option<u64>,
    /// The collation text keys ran under (`C` or the database default), where a text key ran.
    pub collation: Option<String>,
}

/// How the rows were loaded, and how long it took where the engine measures time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    /// Load method token.
    pub method: String,
    /// Rows per statement or transaction.
    pub batch: u32,
    /// Parallel connections.
    pub writers: u32,
    /// The largest statement when statements vary in shape (`batch` is then the smallest;
    /// absent when every statement has `batch` rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_max: Option<u32>,
    /// Measured wall time, seconds (`null` on the simulator).
    pub wall_s: Option<f64>,
    /// Measured rows per second (`null` on the simulator).
    pub rows_per_s: Option<f64>,
    /// Measured per-batch latency (`null` on the simulator).
    pub batch_latency_ms: Option<LatencyMs>,
    /// Measured latency of each writer's first batch, ms (an extension of the contract;
    /// absent where not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_batch_ms: Option<Vec<f64>>,
    /// Measured median latency of each writer's other batches, ms, in the order of
    /// `first_batch_ms` (`null` for a writer that sent one batch only; absent where not
    /// measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_batch_p50_ms: Option<Vec<Option<f64>>>,
    /// What the engine checked after the load: rows expected and found, checksum (an
    /// extension of the contract; absent in results written before keylab checked loads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<LoadVerification>,
    /// Server-side time of all the load's statements, summed (performance_schema statement
    /// `TIMER_WAIT`; E3's "query wait time"), ms (an extension of the contract; absent where
    /// not measured: the simulator, performance_schema off, a `--url` server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_statement_ms: Option<f64>,
}

impl LoadResult {
    /// A load of `plan` with no figure measured (the simulator's, or one that did not run).
    pub fn unmeasured(plan: &crate::LoadPlan) -> LoadResult {
        LoadResult {
            method: plan.method.token().to_string(),
            batch: plan.batch,
            writers: plan.writers,
            batch_max: None,
            wall_s: None,
            rows_per_s: None,
            batch_latency_ms: None,
            first_batch_ms: None,
            other_batch_p50_ms: None,
            verification: None,
            server_statement_ms: None,
        }
    }
}

/// The check an engine made after a load: did the table end up holding what was sent?
/// A server fails the run when either figure differs, so a result that has one says equal;
/// the figures are kept so a reader sees what was checked, not only that it passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadVerification {
    /// Rows the table should hold after the load: what it held before plus the rows sent.
    pub rows_expected: u64,
    /// Rows the engine found in the table after the load (`null` where it cannot count).
    pub rows_found: Option<u64>,
    /// Whether the checksum of the table after the load equals the one computed from what
    /// it held plus the rows sent (`null` where no checksum was computed).
    pub checksum_equal: Option<bool>,
    /// In words, what was counted and which column(s) the checksum covered.
    pub checked: String,
}

/// Latency percentiles in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyMs {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

/// Counters over a run, named after `INNODB_METRICS` (`index_page_splits` → `page_splits`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Page splits as the engine's `index_page_splits` counts them.
    pub page_splits: Option<u64>,
    /// `index_page_merge_attempts`.
    pub merge_attempts: Option<u64>,
    /// `index_page_merge_successful`.
    pub merges: Option<u64>,
    /// `index_page_reorg_attempts`.
    pub page_reorgs: Option<u64>,
    /// `index_page_discards`.
    pub page_discards: Option<u64>,
    /// Pages read from storage.
    pub pages_read: Option<u64>,
    /// Pages written to storage.
    pub pages_written: Option<u64>,
    /// Logical page accesses: requests to the buffer pool, hits and misses (an extension of
    /// the contract; absent where not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_requests: Option<u64>,
    /// Write requests to the table's own file(s), from performance_schema's
    /// `file_summary_by_instance` (E1's `io_write_requests`; an extension, absent where not
    /// given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_write_requests: Option<u64>,
    /// Bytes written to the table's own file(s), from the same source (an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_write_bytes: Option<u64>,
    /// Read requests to the table's own file(s), from the same source (`COUNT_READ`; E1's
    /// `io_read_requests`; an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_read_requests: Option<u64>,
    /// Bytes read from the table's own file(s), from the same source (an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_read_bytes: Option<u64>,
}

/// Buffer pool and change buffer figures over an interval (an extension of the contract).
/// Counts are the engine's; `est_io_s_*` are never measured (see their docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferPoolResult {
    /// Pool size in bytes (`innodb_buffer_pool_size`, or the simulator's modelled pool).
    pub pool_bytes: Option<u64>,
    /// Logical page requests (hits and misses).
    pub page_requests: Option<u64>,
    /// Pages read from storage because they were not in the pool (misses).
    pub pages_read: Option<u64>,
    /// Of `pages_read`: B-tree index pages, leaf and non-leaf (not file-space, undo,
    /// system-tablespace or change-buffer bitmap pages). MariaDB/MySQL: `INNODB_METRICS`
    /// `buffer_page_read_index_leaf` + `buffer_page_read_index_non_leaf`, `null` where those
    /// counters are disabled; `null` on PostgreSQL. Absent in results written before it
    /// was added (so they read and write back unchanged).
    #[serde(default, skip_serializing_if = "Figure::is_absent")]
    pub index_pages_read: Figure<u64>,
    /// Pages written to storage.
    pub pages_written: Option<u64>,
    /// Row operations over the interval (inserts, deletes, updates): the denominator of
    /// `misses_per_op`.
    pub row_ops: Option<u64>,
    /// Hits / page requests, 0 to 1 (higher is better).
    pub hit_ratio: Option<f64>,
    /// Pages read from storage per row operation.
    pub misses_per_op: Option<f64>,
    /// Pages evicted from the pool.
    pub evictions: Option<u64>,
    /// `pages_read` per 1,000 row operations (absent where either is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_per_1k_rows: Option<f64>,
    /// `pages_written` per 1,000 row operations (absent where either is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_per_1k_rows: Option<f64>,
    /// Misses (and writes) per 1,000 inserts against rows loaded, sampled during the load
    /// (50 to 100 points; absent where the load was not sampled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<Vec<crate::PoolCurvePoint>>,
    /// Change buffer activity; absent where the engine has no change buffer or gives no
    /// figures for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_buffer: Option<ChangeBufferResult>,
    /// Estimated seconds of all page reads and writes on keylab's HDD device model: estimated
    /// by keylab's device model, never measured (`null` on a server).
    pub est_io_s_hdd: Option<f64>,
    /// Estimated seconds of all page reads and writes on keylab's SSD device model: estimated
    /// by keylab's device model, never measured (`null` on a server).
    pub est_io_s_ssd: Option<f64>,
}

/// Change buffer (insert buffer) activity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeBufferResult {
    /// Secondary-index changes buffered instead of reading the leaf page.
    pub buffered: Option<u64>,
    /// Buffered changes applied to their page.
    pub merged: Option<u64>,
    /// Changes not buffered (cap reached, too little free space promised).
    pub refused: Option<u64>,
    /// Change-buffer pages read and written (absent where unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_io: Option<u64>,
    /// `page_io` as a percentage of all page reads and writes (E4's paper: 20.6 % at 16k
    /// pages, 40.4 % at 4k).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_share_pct: Option<f64>,
    /// The change buffer's size in pages at the end (absent where unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_pages: Option<u64>,
    /// Its largest size in pages (absent where unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size_pages: Option<u64>,
    /// Its cap, `innodb_change_buffer_max_size` percent of the pool, in pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_pages: Option<u64>,
}

/// Table sizes in bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableSizes {
    /// `DATA_LENGTH`: the clustered index's `size` × page size.
    pub data_length: Option<u64>,
    /// `INDEX_LENGTH`: the secondary indexes' `size` × page size.
    pub index_length: Option<u64>,
    /// `DATA_FREE`.
    pub data_free: Option<u64>,
}

/// One index's shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexResult {
    /// Index name (`PRIMARY` for the clustered index).
    pub name: String,
    /// `mysql.innodb_index_stats` `size`: pages allocated to the index.
    pub size_pages: Option<u64>,
    /// Leaf pages in use (`btr_get_size(BTR_N_LEAF_PAGES)`: B-tree leaves and BLOB pages).
    /// This is the true count; `mysql.innodb_index_stats` can say otherwise, see
    /// `n_leaf_pages_stat`.
    pub leaf_pages: Option<u64>,
    /// `n_leaf_pages` exactly as `mysql.innodb_index_stats` stores it after `ANALYZE TABLE`
    /// (an extension of the contract). It differs from `leaf_pages` when the statistics take
    /// their full-scan path, which stores 1 (see `dict_stats_analyze_index`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_leaf_pages_stat: Option<u64>,
    /// Pages above the leaf level.
    pub nonleaf_pages: Option<u64>,
    /// InnoDB (an extension): pages freed from the index that a buffer pool still holds under
    /// its index id, which `INNODB_BUFFER_PAGE` counts among the index's pages besides the live
    /// ones. On MariaDB: the index's buffered pages that the tablespace's extent descriptors
    /// mark free, read before the measurement flushes the table (MariaDB drops a freed page
    /// when it flushes it). On the InnoDB model: pages freed since the last restart and not
    /// allocated again, which MySQL's pool keeps until it evicts them (eviction not counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freed_pages_in_pool: Option<u64>,
    /// Levels, leaf included.
    pub height: Option<u32>,
    /// Mean over leaf pages of used bytes / page size × 100 (`DATA_SIZE`).
    pub fill_pct: Option<f64>,
    /// Mean records per leaf page.
    pub records_per_leaf: Option<f64>,
    /// Leaf pages by fill, ten buckets of ten points (`[0,10)`, … `[90,100]`).
    pub fill_histogram: Option<Vec<u64>>,
    /// Pages per level, leaf first (an extension of the contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_per_level: Option<Vec<u64>>,
    /// nbtree only (an extension): `pgstatindex` `avg_leaf_density`, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_leaf_density: Option<f64>,
    /// nbtree only: `pgstatindex` `leaf_fragmentation`, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_fragmentation: Option<f64>,
    /// nbtree only: deleted pages (half-dead or deleted, not yet recycled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_pages: Option<u64>,
    /// nbtree only: deleted pages safe to recycle (in the free space map after VACUUM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recyclable_pages: Option<u64>,
}

/// One timed query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    /// Query name (`pk_range`, `point`, ...).
    pub name: String,
    /// Timed runs.
    pub runs: u32,
    /// The first run's time, ms: a cold run (pages read from disk, plans prepared), shown
    /// apart; the figures below are over the other runs when there are several.
    #[serde(default)]
    pub cold_ms: Option<f64>,
    /// Median time, ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile, ms.
    pub p99_ms: Option<f64>,
    /// Fastest and slowest run, ms (the spread a difference must exceed to mean anything).
    #[serde(default)]
    pub min_ms: Option<f64>,
    /// Slowest run, ms.
    #[serde(default)]
    pub max_ms: Option<f64>,
    /// Rows returned per run.
    pub rows: u64,
    /// Server-side median time per run (performance_schema statement `TIMER_WAIT`), ms;
    /// `null` where the engine cannot read it (the simulator; a server without the
    /// statement consumers on).
    #[serde(default)]
    pub server_p50_ms: Option<f64>,
    /// Server-side 99th percentile, ms.
    #[serde(default)]
    pub server_p99_ms: Option<f64>,
    /// Server-side time summed over all runs, ms.
    #[serde(default)]
    pub server_total_ms: Option<f64>,
    /// Rows returned / rows in the table (`null` where the table was not counted).
    #[serde(default)]
    pub share: Option<f64>,
    /// What an `id_share` query selected by: `LIKE '01JGFJ%'` when a prefix of the lowest
    /// id selects the share to 5%, else `BETWEEN lo AND hi` (binary ids as `0x…` hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The server's plan (`EXPLAIN`): access type, key, estimated rows; `null` on the simulator.
    #[serde(default)]
    pub plan: Option<crate::phase::QueryPlan>,
    /// Why a figure is missing, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_figures_serialise_as_null() {
        let c = Counters { page_splits: Some(3), ..Counters::default() };
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"{"page_splits":3,"merge_attempts":null,"merges":null,"page_reorgs":null,"page_discards":null,"pages_read":null,"pages_written":null}"#
        );
    }

    pub(super) fn pool(requests: u64, reads: u64, ops: u64, est_hdd: f64) -> BufferPoolResult {
        BufferPoolResult {
            pool_bytes: Some(1 << 20),
            page_requests: Some(requests),
            pages_read: Some(reads),
            index_pages_read: Figure::Value(reads * 9 / 10),
            pages_written: Some(reads / 2),
            row_ops: Some(ops),
            hit_ratio: hit_ratio(Some(requests), Some(reads)),
            misses_per_op: misses_per_op(Some(reads), Some(ops)),
            evictions: Some(reads),
            change_buffer: Some(ChangeBufferResult {
                buffered: Some(ops / 2),
                merged: Some(ops / 4),
                refused: None,
                ..ChangeBufferResult::default()
            }),
            est_io_s_hdd: Some(est_hdd),
            est_io_s_ssd: None,
            ..BufferPoolResult::default()
        }
    }

    #[test]
    fn buffer_pool_figures_round_trip_and_are_optional() {
        let c = Counters {
            page_requests: Some(100),
            io_write_requests: Some(7),
            io_write_bytes: Some(7 * 16384),
            io_read_requests: Some(0),
            io_read_bytes: Some(0),
            ..Counters::default()
        };
        let back: Counters = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        let old = r#"{"page_splits":3,"merge_attempts":null,"merges":null,"page_reorgs":null,"page_discards":null,"pages_read":null,"pages_written":null}"#;
        let parsed: Counters = serde_json::from_str(old).unwrap();
        assert_eq!(parsed.page_requests, None);
        let p = pool(1000, 100, 50, 0.8);
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["est_io_s_hdd"], 0.8);
        assert!(json["est_io_s_ssd"].is_null());
        assert_eq!(json["change_buffer"]["buffered"], 25);
        assert_eq!(json["index_pages_read"], 90);
        let back: BufferPoolResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
        // `index_pages_read`: null written as null, absent left out (and read back as such).
        for (figure, text) in [(Figure::Null, Some("null")), (Figure::Absent, None)] {
            let p = BufferPoolResult { index_pages_read: figure, ..p.clone() };
            let json = serde_json::to_value(&p).unwrap();
            assert_eq!(json.get("index_pages_read").map(|v| v.to_string()).as_deref(), text);
            assert_eq!(serde_json::from_value::<BufferPoolResult>(json).unwrap(), p);
        }
    }
}
