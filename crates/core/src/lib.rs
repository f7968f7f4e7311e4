//! The engine-neutral core of keylab: what an experiment is, how its rows are generated, the
//! one trait every engine (the simulator, a MariaDB/MySQL server, PostgreSQL) implements, and
//! the result model every report is rendered from.
//!
//! A run goes through these types in order:
//! 1. [`Workload`]: a key [`Variant`](keylab_keys::Variant), a [`Placement`] and a
//!    [`Payload`] give a [`Table`](keylab_schema::Table) and a deterministic stream of rows
//!    ([`RowGen`]).
//! 2. An [`Engine`] creates the table, loads the rows under a [`LoadPlan`], and is measured.
//! 3. The measurement becomes a [`RunResult`] inside a [`Report`] (the JSON contract of
//!    `docs/contracts.md`), which `keylab-report` renders.
//!
//! This crate does no I/O of its own and knows no engine.
#![deny(missing_docs)]

mod engine;
mod model;
mod phase;
mod pool_curve;
mod reads;
mod result;
mod runner;
mod shard;
mod value_store;
mod workload;

pub use engine::{
    bulk_autoinc_reserved, parse_batch, ChurnDelete, ChurnInsert, ChurnStyle, Engine, EngineError,
    EngineKind, EngineSettings, FillFactors, IdBlockSource, IdBlocks, LoadMethod, LoadOutcome,
    LoadPlan, Measurement, TimedOutcome, TimedPlan, PREPARED_CACHE_STATEMENTS,
    WRITER_QUEUE_STATEMENTS,
};
pub use model::SimModel;
pub use phase::{
    DdlAction, DdlAlgorithm, DdlLock, DdlOutcome, DdlSpec, DdlWriters, Op, QueryOutcome, QueryPlan,
    QuerySpec,
};
pub use pool_curve::{PoolCurvePoint, PoolCurveSampler, MAX_POINTS as POOL_CURVE_MAX_POINTS};
pub use reads::{
    cache_for_target, curve_point, fill_curve, mixed_ops, mixed_phase, parse_mix_reads,
    parse_pool_size, reads_phase, MixSpec, PoolBounds, PoolSize, ReadDistribution, ReadKind,
    ReadOp, ReadPicker, ReadSource, ReadSpec, WorkOp, WorkOutcome, WorkPlan,
};
pub use result::{
    fold_repeats, hit_ratio, io_share_pct, misses_per_op, per_1k_rows, AdvicePhase,
    BufferPoolResult, ChangeBufferResult, ChildChange, ChurnPhase, CounterFigures, Counters,
    DdlPhase, DdlStep, DifferingFigure, EngineInfo, Figure, IndexResult, LatencyMs, LoadPhase,
    LoadResult, LoadVerification, MixedPhase, PhaseKind, PhaseResult, PhaseStatus, PoolFigures,
    PostgresFigures, QueriesPhase, QueryResult, ReadCurvePoint, ReadFigures, ReadsPhase,
    RebuildPhase, RefusedTable, Repeats, Report, RestartPhase, RunResult, SchemaSummary,
    SchemaTable, SeriesPoint, SettingsPhase, ShapeFigures, TableSizes, TimedPhase, TimingSpread,
    WorkloadCurvePoint, REPORT_SCHEMA_VERSION,
};
pub use runner::{run_variant, run_variant_with, NoProgress, Progress};
pub use shard::{
    key_shard, range_bounds, range_shard, total_of, window_rows, windows_of, ShardResult,
    ShardWindow, Sharding, ShardsResult,
};
pub use value_store::ValueStore;
pub use workload::{KeySource, Payload, Placement, Row, RowGen, Workload};
