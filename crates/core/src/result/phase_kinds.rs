//! The figure structs of the phase kinds that describe a table and its load (`settings`,
//! `load`, `churn`, `rebuild`, `restart`, `queries`, `ddl`, `advice`); `reads` and `mixed`
//! are in `result/work_phases.rs`, the enum that holds them all in `result/phases.rs`.
//!
//! Not for: computing or rendering any figure.

use super::phase_figures::{cell_keys, shape_after, shape_before, statement_ms, writers_stall_ms};
use super::phase_figures::{CounterFigures, Figure, PoolFigures, SeriesPoint, ShapeFigures};
use super::phases::{figures, PhaseStatus};
use crate::{DdlAction, DdlAlgorithm, DdlLock, LatencyMs};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
figures! {
    /// The `settings` phase: the run's matrix cell and the settings asked for.
    pub struct SettingsPhase {
        /// `ok`.
        pub status: PhaseStatus,
        /// Page size, bytes (PostgreSQL engines: their fixed block size).
        pub page_size_bytes: u64,
        /// Buffer pool size asked for, bytes.
        pub buffer_pool_bytes: u64,
        /// Fill factor asked for, percent.
        pub fill_factor_pct: u64,
        /// Merge threshold asked for, percent.
        pub merge_threshold_pct: u64,
        /// Change buffering asked for.
        pub change_buffering: bool,
        /// `performance_schema` asked for.
        pub performance_schema: bool,
        /// `innodb_autoinc_lock_mode` asked for.
        pub autoinc_lock_mode: u64,
        /// Shards (`--shards`).
        pub shards: u64,
        /// How rows are routed to shards (`range`, `hash`).
        pub sharding: String,
        /// Asked-for engine variables the engine does not report applying.
        pub not_applicable: String,
        /// Why those are not applied.
        pub reason: String,
        /// Settings the server reports differently from what was asked.
        pub engine_not_applied: Vec<String>,
        ;
        /// The run's matrix cell, dimension → value (`cell_{dimension}` in the JSON).
        #[serde(flatten, with = "cell_keys")]
        pub cell: BTreeMap<String, String>,
    }
}

figures! {
    /// A `load` phase: how the rows were loaded, the counter and buffer pool deltas, the shape
    /// after, and shape samples when asked.
    pub struct LoadPhase {
        /// `ok` (or `not_applicable`).
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// Rows loaded.
        pub rows: u64,
        /// Load method token.
        pub method: String,
        /// Rows per statement or transaction.
        pub batch: u64,
        /// The largest statement when statements vary in shape.
        pub batch_max: u64,
        /// Parallel connections.
        pub writers: u64,
        /// Measured wall time, seconds.
        pub wall_s: f64,
        /// Measured rows per second.
        pub rows_per_s: f64,
        /// Measured per-batch latency.
        pub batch_latency_ms: LatencyMs,
        /// Each writer's first batch, ms.
        pub first_batch_ms: Vec<f64>,
        /// Each writer's other batches' median, ms.
        pub other_batch_p50_ms: Vec<Option<f64>>,
        /// Server-side time of the load's statements, ms.
        pub server_statement_ms: f64,
        /// Rows between samples.
        pub sample_every: u64,
        /// The shape every `sample_every` rows.
        pub samples: Vec<SeriesPoint>,
        ;
        /// Counter deltas over the load.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the load.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}

figures! {
    /// A `churn` phase: rounds of inserts and deletes, the deltas over them, the shape before
    /// and after, and a point every `measure_every` rounds.
    pub struct ChurnPhase {
        /// `ok` or `not_applicable` (absent in older results).
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// Rounds.
        pub rounds: u64,
        /// Inserts per round.
        pub inserts_per_round: u64,
        /// Deletes per round.
        pub deletes_per_round: u64,
        /// Rounds between points of `per_round`.
        pub measure_every: u64,
        /// How inserts were sent (`multi`, `row`).
        pub insert_method: String,
        /// Concurrent writers.
        pub writers: u64,
        /// How deletes were sent.
        pub delete_method: String,
        /// Whose order the inserts were applied in (`keylab`, `concurrent_writers`).
        pub insert_order: String,
        /// Rows in the table after the churn.
        pub live_rows: u64,
        /// One point every `measure_every` rounds.
        pub per_round: Vec<SeriesPoint>,
        /// Rows inserted (older results).
        pub rows_inserted: u64,
        /// Rows deleted (older results).
        pub rows_deleted: u64,
        /// Wall time, seconds (older results).
        pub wall_s: f64,
        ;
        /// Counter deltas over the churn.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the churn.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape before (`…_before`).
        #[serde(flatten, with = "shape_before")]
        pub before: ShapeFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}

figures! {
    /// A `rebuild` phase: the fill factor, the deltas, the shape before and after.
    pub struct RebuildPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// The fill factor of the rebuild, percent.
        pub fill_factor_pct: u64,
        ;
        /// Counter deltas over the rebuild.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the rebuild.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape before (`…_before`).
        #[serde(flatten, with = "shape_before")]
        pub before: ShapeFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}

figures! {
    /// A `restart` phase.
    pub struct RestartPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
    }
}

figures! {
    /// A `queries` phase: the names run (their timings are the run's `queries`).
    pub struct QueriesPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// The queries run, comma-separated.
        pub queries: String,
        /// The queries the engine refused, with its reasons.
        pub not_applicable: String,
    }
}

figures! {
    /// A `ddl` phase: one entry per statement, and one flat time per statement for tables.
    pub struct DdlPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// Concurrent writers during each statement.
        pub concurrent_writers: u64,
        /// The statements that ran.
        pub steps: Vec<DdlStep>,
        /// The statements the engine refused, with its reasons.
        pub not_applicable: String,
        ;
        /// Wall time per statement (`add_column_instant` → `add_column_instant_ms`; `null`
        /// where refused), ms.
        #[serde(flatten, with = "statement_ms")]
        pub statement_ms: BTreeMap<String, Option<f64>>,
        /// The writers' longest stall per statement (`…_writers_stall_ms`), ms.
        #[serde(flatten, with = "writers_stall_ms")]
        pub writers_stall_ms: BTreeMap<String, Option<f64>>,
    }
}

figures! {
    /// One DDL statement of a `ddl` phase.
    pub struct DdlStep {
        /// What it did.
        pub action: DdlAction,
        /// The column.
        pub column: String,
        /// Where the column went (`AFTER`).
        pub after: String,
        /// The algorithm asked for.
        pub algorithm: DdlAlgorithm,
        /// The lock asked for.
        pub lock: DdlLock,
        /// Whether the engine accepted it.
        pub supported: bool,
        /// The server's error number when refused.
        pub error_code: u64,
        /// The algorithm used.
        pub algorithm_used: String,
        /// The lock held.
        pub lock_used: String,
        /// Wall time, ms.
        pub wall_ms: f64,
        /// The engine's message.
        pub message: String,
        /// Concurrent writers.
        pub concurrent_writers: u64,
        /// Whether the statement blocked the writers.
        pub blocks_writers: bool,
        /// The writers' longest stall, ms.
        pub writers_longest_stall_ms: f64,
        /// Rows the writers inserted while it ran.
        pub rows_inserted_during_ddl: u64,
        /// Rows the writers inserted in all.
        pub rows_inserted: u64,
    }
}

figures! {
    /// The `advice` phase of `keylab advise`: a candidate key's costs, against the current key
    /// where it ran.
    pub struct AdvicePhase {
        /// The key's SQL type(s).
        pub key_type: String,
        /// Who makes the ids.
        pub ids_from: String,
        /// Bytes of all indexes.
        pub total_bytes: u64,
        /// `total_bytes` per row.
        pub bytes_per_row: f64,
        /// Page splits per 1,000 inserts.
        pub splits_per_1000_inserts: f64,
        /// Buffer pool bytes the insert working set needs.
        pub insert_working_set_pool_bytes: u64,
        /// Rows of the working-set window.
        pub working_set_window_rows: u64,
        /// Bytes of one key entry.
        pub key_entry_bytes: u64,
        /// `total_bytes` against the current key, percent.
        pub total_bytes_change_pct: f64,
        /// Bytes of a secondary entry against the current key.
        pub secondary_entry_bytes_change: i64,
        /// Bytes per index, by index name.
        pub index_bytes: BTreeMap<String, Option<u64>>,
        /// Insert working set, pages per index, by index name.
        pub insert_working_set_pages: BTreeMap<String, Option<u64>>,
        /// `--workload`: what ran after the load, its specs comma-separated.
        pub workload: String,
        /// The buffer pool the load and the workload ran under, bytes.
        pub buffer_pool_bytes: u64,
        /// The workload's pages read from storage per 1,000 operations (reads and inserts)
        /// at `buffer_pool_bytes`.
        pub workload_misses_per_1000_ops: f64,
        /// The workload's page requests per operation.
        pub workload_page_requests_per_op: f64,
        /// The workload's hit ratio at `buffer_pool_bytes` (1 − misses / requests), 0..1.
        pub workload_hit_ratio: f64,
        /// The hit ratio `cache_for_hit_target_bytes` is for, 0..1.
        pub hit_target: f64,
        /// The buffer pool the workload needs for `hit_target`, interpolated between the
        /// pool sizes tried (`workload_curve`); `null` when even the largest misses it.
        pub cache_for_hit_target_bytes: u64,
        /// How it was found (`interpolated from the curve`, `more than the largest pool
        /// tried (N MiB)`, ...).
        pub cache_for_hit_target: String,
        /// The workload's misses at each pool size tried, smallest first.
        pub workload_curve: Vec<WorkloadCurvePoint>,
    }
}

figures! {
    /// One pool size of an `advice` phase's `workload_curve`: the candidate loaded and its
    /// workload run again under that pool.
    pub struct WorkloadCurvePoint {
        /// Buffer pool size, bytes.
        pub pool_bytes: u64,
        /// The pool against the candidate's table (data and every index), percent.
        pub pool_pct_of_table: f64,
        /// Pages read from storage per 1,000 operations of the workload.
        pub misses_per_1000_ops: f64,
        /// The workload's hit ratio (1 − misses / requests), 0..1.
        pub hit_ratio: f64,
    }
}
