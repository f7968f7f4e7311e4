//! The one trait every engine implements, and the engine-neutral vocabulary of a load.
//!
//! Parts: `load_plan` (how rows are sent: load methods, batches, writers, churn styles),
//! `create_options` (what a table is created with besides its columns).

use crate::phase::{DdlOutcome, DdlSpec, Op, QueryOutcome, QuerySpec};
use crate::result::{
    BufferPoolResult, Counters, EngineInfo, IndexResult, LatencyMs, LoadVerification,
    PostgresFigures, TableSizes,
};
use crate::workload::Row;
use keylab_schema::Table;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

mod create_options;
mod load_plan;
pub use create_options::{FillFactors, IdBlockSource, IdBlocks};
pub use load_plan::{
    bulk_autoinc_reserved, parse_batch, ChurnDelete, ChurnInsert, ChurnStyle, LoadMethod, LoadPlan,
    PREPARED_CACHE_STATEMENTS, WRITER_QUEUE_STATEMENTS,
};

/// Which engine runs an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The embedded InnoDB page simulator.
    Sim,
    /// A MariaDB server.
    Mariadb,
    /// A MySQL server.
    Mysql,
    /// A PostgreSQL server.
    Postgres,
}

impl EngineKind {
    /// Every engine, in CLI order.
    pub const ALL: [EngineKind; 4] =
        [EngineKind::Sim, EngineKind::Mariadb, EngineKind::Mysql, EngineKind::Postgres];

    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            EngineKind::Sim => "sim",
            EngineKind::Mariadb => "mariadb",
            EngineKind::Mysql => "mysql",
            EngineKind::Postgres => "postgres",
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for EngineKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EngineKind::ALL
            .into_iter()
            .find(|k| k.token() == s)
            .ok_or_else(|| format!("unknown engine `{s}`; valid: sim, mariadb, mysql, postgres"))
    }
}

/// Engine settings a scenario or the command line asks for. A simulator applies them all; a
/// private server is started with them; a `--url` server reports what it actually has.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineSettings {
    /// `innodb_page_size` in bytes (4096 to 65536).
    pub page_size_bytes: u32,
    /// `innodb_buffer_pool_size` in bytes; `None` keeps the engine's default.
    pub buffer_pool_bytes: Option<u64>,
    /// `innodb_fill_factor` for sorted index builds (10 to 100).
    pub fill_factor_pct: u8,
    /// `MERGE_THRESHOLD` of every index (1 to 50).
    pub merge_threshold_pct: u8,
    /// `innodb_change_buffering`: `Some(true)` = all, `Some(false)` = none, `None` = the
    /// engine's default.
    pub change_buffering: Option<bool>,
    /// `performance_schema` at server start (per-table I/O figures such as E1's write
    /// requests need it); `None` = the engine's default. The simulator has none.
    pub performance_schema: Option<bool>,
    /// The server the simulator models; `None` = the default model. A server engine is the
    /// server it is and ignores this.
    pub model: Option<crate::SimModel>,
    /// `innodb_autoinc_lock_mode` (0 traditional, 1 consecutive, 2 interleaved); `None` =
    /// the engine's default (MariaDB 1, MySQL 8.0 2).
    pub autoinc_lock_mode: Option<u8>,
    /// PostgreSQL: a checkpoint after every this many rows inserted (the nbtree model's
    /// checkpoint clock, for full-page images); `None` = no checkpoint during the run.
    pub checkpoint_every_rows: Option<u64>,
    /// Shards the table is spread over (`--shards`, scenario `[engine] shards`); `None` = one
    /// table on one server.
    pub shards: Option<u32>,
    /// How rows are routed to the shards; `None` = range.
    pub sharding: Option<crate::shard::Sharding>,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            page_size_bytes: 16_384,
            buffer_pool_bytes: None,
            fill_factor_pct: 100,
            merge_threshold_pct: 50,
            change_buffering: None,
            performance_schema: None,
            model: None,
            autoinc_lock_mode: None,
            checkpoint_every_rows: None,
            shards: None,
            sharding: None,
        }
    }
}

/// What a load reports about itself. Engines that do not time a load (the simulator) leave
/// the timings `None`: its wall time predicts nothing about a server's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadOutcome {
    /// Rows loaded.
    pub rows: u64,
    /// Wall time of the load, seconds.
    pub wall_s: Option<f64>,
    /// Per-batch latency.
    pub batch_latency_ms: Option<LatencyMs>,
    /// Latency of each writer's first batch, ms (E2's "the first batch waits").
    pub first_batch_ms: Option<Vec<f64>>,
    /// Median latency of each writer's other batches, ms, in the order of `first_batch_ms`
    /// (`None` for a writer that sent one batch only).
    #[serde(default)]
    pub other_batch_p50_ms: Option<Vec<Option<f64>>>,
    /// The engine's check of the table after the load (`None` where it made none).
    #[serde(default)]
    pub verification: Option<LoadVerification>,
    /// Server-side time of every statement of the load, summed (performance_schema
    /// `TIMER_WAIT`: E3's "query wait time"), ms; `None` where not readable.
    #[serde(default)]
    pub server_statement_ms: Option<f64>,
}

/// The structural metrics of a table, read after the load (as after `ANALYZE TABLE`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Counters over the load.
    pub counters: Counters,
    /// Table sizes.
    pub table: TableSizes,
    /// One entry per index, PRIMARY first.
    pub indexes: Vec<IndexResult>,
    /// Buffer pool and change buffer figures, cumulative since the table was created;
    /// `None` where the engine gives none.
    #[serde(default)]
    pub buffer_pool: Option<BufferPoolResult>,
    /// PostgreSQL-only figures (WAL, full-page images, split records); `None` elsewhere.
    #[serde(default)]
    pub postgres: Option<PostgresFigures>,
    /// Per-shard figures of a sharded engine (`--shards`); `None` elsewhere. The figures
    /// above are then the totals over the shards.
    #[serde(default)]
    pub shards: Option<crate::shard::ShardsResult>,
}

/// An engine failure, with what the engine said.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine refused the input (a row too large, a duplicate key...).
    #[error("{0}")]
    Rejected(String),
    /// The engine failed (server error, connection lost...).
    #[error("{0}")]
    Failed(String),
    /// The engine cannot do this at all.
    #[error("not supported by this engine: {0}")]
    Unsupported(String),
}

/// A time-boxed insert phase as the engine runs it ([`Engine::timed_inserts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedPlan {
    /// Client threads, one connection each.
    pub threads: u32,
    /// How long they insert.
    pub duration: std::time::Duration,
    /// The throughput series' interval.
    pub interval: std::time::Duration,
}

/// What a time-boxed insert phase did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimedOutcome {
    /// Rows inserted in all.
    pub rows: u64,
    /// Wall time from the first statement to the last one's end, seconds.
    pub wall_s: f64,
    /// Rows inserted in each whole interval, in order (a last, partial one left out).
    pub rows_per_interval: Vec<u64>,
}

/// An engine keylab runs experiments on: the simulator or a real server.
///
/// Calls come in this order for each workload: `create_table`, `load`, `measure`, then
/// `drop_table` once its figures are read.
pub trait Engine {
    /// What the engine is (kind, version, settings as in effect).
    fn info(&self) -> EngineInfo;
    /// Creates `table` afresh in the engine's own space.
    fn create_table(&mut self, table: &Table) -> Result<(), EngineError>;
    /// The block id generator the next tables' loads draw on (called before
    /// `create_table`); `None` for every other key strategy. Engines without round trips
    /// (the simulator) ignore it: the ids' order already comes from the generator.
    fn set_id_blocks(&mut self, blocks: Option<IdBlocks>) {
        let _ = blocks;
    }
    /// True when a `LOAD DATA` statement takes its `AUTO_INCREMENT` values in reserved
    /// blocks and loses the unused end of the last one ([`bulk_autoinc_reserved`]): InnoDB
    /// with `innodb_autoinc_lock_mode` 1 or 2, on a server or in the model. Callers that
    /// number rows as the server does skip the lost values. False (every row takes the next
    /// value, none is lost) by default.
    fn bulk_autoinc_gaps(&self) -> bool {
        false
    }
    /// The `fillfactor`s the next tables are created with (called before `create_table`).
    /// Engines with no such storage parameters (InnoDB) refuse any but the defaults.
    fn set_fill_factors(&mut self, fill_factors: &FillFactors) -> Result<(), EngineError> {
        if fill_factors.is_empty() {
            Ok(())
        } else {
            Err(EngineError::Unsupported(
                "this engine has no per-table or per-index fillfactor".into(),
            ))
        }
    }
    /// Loads `rows` into `table` under `plan`; `on_rows` is called with the number of rows
    /// just loaded, for progress.
    fn load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError>;
    /// Reads the table's structure and counters.
    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError>;
    /// The same during a load (a growth-curve sample): an engine whose full measurement
    /// changes what it measures takes a lighter one here (a private MariaDB reads the buffer
    /// pool instead of flushing the table to read its file: each flush wrote every dirty page,
    /// which multiplied E1's write requests 4-19x and slowed its loads).
    fn sample(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        self.measure(table)
    }
    /// Drops `table`.
    fn drop_table(&mut self, table: &Table) -> Result<(), EngineError>;

    /// Applies churn operations in order (inserts of new rows, deletes by primary key), as
    /// committed transactions whose deletes have been purged.
    fn apply(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        let _ = (table, ops, on_ops);
        Err(EngineError::Unsupported("churn (inserts and deletes) is not modelled yet".into()))
    }

    /// [`Engine::apply`] with the operations sent as `style` says; engines without statements
    /// (the simulator) ignore the style.
    fn apply_styled(
        &mut self,
        table: &Table,
        style: &ChurnStyle,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        let _ = style;
        self.apply(table, ops, on_ops)
    }

    /// Rebuilds every index of `table` by a sorted build (`OPTIMIZE TABLE`) with
    /// `innodb_fill_factor` = `fill_factor_pct`.
    fn rebuild(&mut self, table: &Table, fill_factor_pct: u8) -> Result<(), EngineError> {
        let _ = (table, fill_factor_pct);
        Err(EngineError::Unsupported("rebuilds are not modelled yet".into()))
    }

    /// Inserts `rows` into `table` for at most `duration`, one row per autocommitted statement
    /// from `threads` client connections at once (each takes the next row when it is free),
    /// counting the rows inserted in each whole `interval`. It stops at the deadline, or
    /// earlier when `rows` run out. Only an engine with a clock can: the default refuses.
    fn timed_inserts(
        &mut self,
        table: &Table,
        plan: &TimedPlan,
        rows: &mut (dyn Iterator<Item = Row> + Send),
    ) -> Result<TimedOutcome, EngineError> {
        let _ = (table, plan, rows);
        Err(EngineError::Unsupported(
            "time-boxed inserts are not implemented for this engine".into(),
        ))
    }

    /// Restarts the server on the same data (a cold buffer pool); the simulator empties its
    /// buffer pool model. Counters continue across it.
    fn restart(&mut self) -> Result<(), EngineError> {
        Err(EngineError::Unsupported("restarts are not modelled yet".into()))
    }

    /// Runs `query` `runs` times and times each run.
    fn query(
        &mut self,
        table: &Table,
        query: &QuerySpec,
        runs: u32,
    ) -> Result<QueryOutcome, EngineError> {
        let _ = (table, query, runs);
        Err(EngineError::Unsupported("timed queries need a real server".into()))
    }

    /// Runs reads and inserts in order (a reads phase, or a mixed workload), each insert
    /// autocommitted, and reports what they cost: pages touched and read from storage over
    /// the call, the working set of each index; `on_ops` is called with operations done,
    /// for progress. A model answers every read from its pages and its cache model; a server
    /// runs the statements and reads its counters before and after.
    fn work(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = crate::WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<crate::WorkOutcome, EngineError> {
        let _ = (table, ops, on_ops);
        Err(EngineError::Unsupported("reads are not modelled on this engine yet".into()))
    }

    /// Runs an online schema change.
    fn ddl(&mut self, table: &Table, ddl: &DdlSpec) -> Result<DdlOutcome, EngineError> {
        let _ = (table, ddl);
        Err(EngineError::Unsupported("online DDL needs a real server".into()))
    }

    /// Runs an online schema change while `writers` connections insert rows taken from
    /// `rows` (one row per autocommitted statement), and reports what the writers saw. The
    /// writers take rows in order, so the rows inserted are the first
    /// `writers.rows_inserted` of `rows`.
    fn ddl_under_writes(
        &mut self,
        table: &Table,
        ddl: &DdlSpec,
        writers: u32,
        rows: &mut dyn Iterator<Item = Row>,
    ) -> Result<DdlOutcome, EngineError> {
        let _ = (table, ddl, writers, rows);
        Err(EngineError::Unsupported("DDL under concurrent writes needs a real server".into()))
    }
}
