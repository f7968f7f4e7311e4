//! The one trait every engine implements, and the engine-neutral vocabulary of a load.

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
pub use create_options::{FillFactors, IdBlockSource, IdBlocks};

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

/// How rows are sent to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadMethod {
    /// One INSERT per row, `batch` rows per transaction (a batch of 1 is autocommit).
    Row,
    /// Multi-row INSERTs of `batch` rows.
    Multi,
    /// A server-side prepared multi-row INSERT of exactly `batch` rows, one remainder; each
    /// connection keeps its last [`PREPARED_CACHE_STATEMENTS`] statements prepared (a
    /// client's statement cache), so a fixed shape is prepared once.
    Prepared,
    /// The same without a statement cache: every batch is prepared, executed and closed.
    PreparedUncached,
    /// `LOAD DATA LOCAL INFILE` (or `COPY` on PostgreSQL), streamed.
    LoadData,
}

impl LoadMethod {
    /// Every method, in CLI order.
    pub const ALL: [LoadMethod; 5] = [
        LoadMethod::Row,
        LoadMethod::Multi,
        LoadMethod::Prepared,
        LoadMethod::PreparedUncached,
        LoadMethod::LoadData,
    ];

    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            LoadMethod::Row => "row",
            LoadMethod::Multi => "multi",
            LoadMethod::Prepared => "prepared",
            LoadMethod::PreparedUncached => "prepared-uncached",
            LoadMethod::LoadData => "load-data",
        }
    }
}

impl fmt::Display for LoadMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for LoadMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        LoadMethod::ALL.into_iter().find(|m| m.token() == s).ok_or_else(|| {
            format!(
                "unknown load method `{s}`; valid: row, multi, prepared, prepared-uncached, \
                 load-data"
            )
        })
    }
}

/// How churn sends its inserts to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChurnInsert {
    /// Consecutive inserts as multi-row INSERTs inside the churn's transactions.
    #[default]
    Multi,
    /// One autocommitted single-row INSERT per row, spread over the writers' connections.
    Row,
}

/// How churn sends its deletes (the rows to delete are always chosen by keylab).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChurnDelete {
    /// One `DELETE ... WHERE pk = ?` per row, committed with the other operations in
    /// transactions of a thousand.
    #[default]
    ByKey,
    /// One `DELETE ... WHERE pk = ?` per row, every delete of the call in one transaction,
    /// as one `DELETE ... ORDER BY RAND() LIMIT n` statement makes them.
    OneTransaction,
}

/// How a churn call's operations reach a server. The simulator applies the operations in
/// the order given whatever the style; a server with several writers applies the inserts
/// in an order of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChurnStyle {
    /// Statement shape of the inserts.
    pub insert: ChurnInsert,
    /// Connections the inserts are spread over (`Row` only; 1 keeps keylab's order).
    pub writers: u32,
    /// Transactions of the deletes.
    pub delete: ChurnDelete,
}

impl Default for ChurnStyle {
    fn default() -> Self {
        ChurnStyle { insert: ChurnInsert::Multi, writers: 1, delete: ChurnDelete::ByKey }
    }
}

/// How a load phase sends its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadPlan {
    /// Statement shape.
    pub method: LoadMethod,
    /// Rows per statement (multi, prepared, load-data) or per transaction (row; 1 = autocommit).
    pub batch: u32,
    /// Parallel connections.
    pub writers: u32,
    /// `Some(max)`: statements vary in shape, each of `batch` to `max` rows (seeded, the same
    /// sizes on every engine; `multi` and `prepared` only). `None`: every statement has
    /// `batch` rows, the last the remainder.
    #[serde(default)]
    pub batch_max: Option<u32>,
}

/// Statements a writer may have queued beyond the one it runs: the calling thread sends
/// statement `n` to writer [`LoadPlan::writer_of`]`(n)` and waits while that writer's queue
/// is full. The simulator's model of parallel writers uses the same depth.
pub const WRITER_QUEUE_STATEMENTS: usize = 2;

/// `AUTO_INCREMENT` values an InnoDB server (`innodb_autoinc_lock_mode` 1 or 2) takes from
/// the table's counter for one bulk statement (`LOAD DATA`, whose row count it does not know
/// in advance) inserting `rows` rows: it reserves blocks of 1, 2, 4, ... values (at most
/// 65,535 each), a new block when the last is used up, and the unused values of the last
/// block are lost, so the next statement starts after them. Mirrors
/// `handler::update_auto_increment` (the doubling `nb_desired_values`, capped at
/// `AUTO_INC_DEFAULT_NB_MAX`, counted per statement) and `ha_innobase::get_auto_increment`
/// (the counter moves to the end of each reserved block).
pub fn bulk_autoinc_reserved(rows: u64) -> u64 {
    const BLOCK_MAX: u64 = (1 << 16) - 1;
    let (mut reserved, mut block) = (0u64, 1u64);
    while reserved < rows {
        reserved += block;
        block = (block * 2).min(BLOCK_MAX);
    }
    reserved
}

/// Parses a batch as written: `1000` (every statement that size) or `500..1500` (statements
/// of varying shape, `min..max` rows); returns `(min, max)`.
pub fn parse_batch(text: &str) -> Result<(u32, Option<u32>), String> {
    let bad = || {
        format!(
            "batch `{text}` is not valid; valid: a row count (1000) or a range of rows per \
             statement, smallest first (500..1500)"
        )
    };
    let count = |s: &str| s.trim().replace('_', "").parse::<u32>().ok().filter(|&n| n > 0);
    match text.split_once("..") {
        None => count(text).map(|n| (n, None)).ok_or_else(bad),
        Some((lo, hi)) => match (count(lo), count(hi)) {
            (Some(lo), Some(hi)) if hi > lo => Ok((lo, Some(hi))),
            _ => Err(bad()),
        },
    }
}

/// Prepared statements a connection keeps under [`LoadMethod::Prepared`], least recently
/// used dropped first: Connector/J's default `prepStmtCacheSize`, the client of E2.
pub const PREPARED_CACHE_STATEMENTS: usize = 25;

/// Seed of the varying statement sizes of [`LoadPlan::batch_max`].
const SHAPE_SEED: u64 = 0x6b65_796c_6162_5348;

impl LoadPlan {
    /// Whether statements vary in shape.
    pub fn varies(&self) -> bool {
        self.batch_max.is_some_and(|m| m > self.batch)
    }

    /// Rows of each statement in turn (the stream's last statement takes what is left).
    pub fn statement_rows(&self) -> impl Iterator<Item = usize> {
        use rand::{Rng, SeedableRng};
        let (lo, hi) = (self.batch.max(1) as usize, self.batch_max.unwrap_or(0) as usize);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SHAPE_SEED);
        std::iter::repeat_with(move || if hi > lo { rng.random_range(lo..=hi) } else { lo })
    }

    /// The batch as written: `1000`, or `500..1500` when statements vary.
    pub fn batch_text(&self) -> String {
        match self.batch_max {
            Some(m) if m > self.batch => format!("{}..{m}", self.batch),
            _ => self.batch.to_string(),
        }
    }

    /// The writer that sends statement `n` (0-based, in row-stream order) of a load:
    /// round-robin, so that every engine gives each writer the same rows.
    pub fn writer_of(&self, statement: u64) -> usize {
        (statement % u64::from(self.writers.max(1))) as usize
    }
}

impl Default for LoadPlan {
    fn default() -> Self {
        LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_statements_reserve_doubling_blocks() {
        // 1 + 2 + ... + 512 = 1023 values for 1000 rows: 23 lost per statement.
        assert_eq!(bulk_autoinc_reserved(1000), 1023);
        assert_eq!(bulk_autoinc_reserved(1), 1);
        assert_eq!(bulk_autoinc_reserved(3), 3);
        assert_eq!(bulk_autoinc_reserved(4), 7);
        assert_eq!(bulk_autoinc_reserved(0), 0);
        // Blocks stop growing at 65,535: 1 + ... + 32768 = 65535, then 65535 each.
        assert_eq!(bulk_autoinc_reserved(65_535), 65_535);
        assert_eq!(bulk_autoinc_reserved(65_536), 131_070);
        assert_eq!(bulk_autoinc_reserved(200_000), 262_140);
    }

    #[test]
    fn batches_parse_as_a_count_or_a_range() {
        assert_eq!(parse_batch("1000"), Ok((1000, None)));
        assert_eq!(parse_batch("500..1_500"), Ok((500, Some(1500))));
        for bad in ["0", "1500..500", "10..10", "a..b", "..5", ""] {
            let e = parse_batch(bad).unwrap_err();
            assert!(e.contains("valid: a row count (1000) or a range"), "{bad}: {e}");
        }
    }

    #[test]
    fn varying_shapes_are_seeded_and_in_range() {
        let plan = LoadPlan { batch: 500, batch_max: Some(1500), ..LoadPlan::default() };
        assert!(plan.varies());
        assert_eq!(plan.batch_text(), "500..1500");
        let a: Vec<usize> = plan.statement_rows().take(1000).collect();
        assert_eq!(a, plan.statement_rows().take(1000).collect::<Vec<_>>(), "seeded");
        assert!(a.iter().all(|n| (500..=1500).contains(n)));
        assert!(a.iter().collect::<std::collections::BTreeSet<_>>().len() > 500, "they vary");
        let fixed = LoadPlan::default();
        assert!(fixed.statement_rows().take(10).all(|n| n == 1000));
        assert_eq!(fixed.batch_text(), "1000");
    }
}
