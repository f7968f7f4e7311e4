//! [`PgEngine`]: the `keylab_core::Engine` on PostgreSQL, a private instance or a user's
//! server at `--url`, working only in a schema of its own (`keylab` by default).
//!
//! Each table's figures are cumulative from its creation, as on the other engines: the
//! scenario runner differences them per phase. WAL is read from the LSN at `create_table`
//! on; on a private instance `pg_waldump` counts the records of each new stretch of WAL at
//! every `measure` (so splits and full-page images are exact), on a `--url` server the WAL
//! files are out of reach and those figures are `null`, with a note.
//!
//! Buffer hits and reads come from `pg_statio_*`, without those of keylab's own load check
//! (`statio`). Child modules: `open` (starting or connecting, claiming the schema),
//! `key_check` (the load check of an identity key), `wal` (the WAL figures of a
//! measurement), `statio` (the table's buffer counters, the check's kept apart) and `reads`
//! (`Engine::work`: reads and mixed work).

mod key_check;
mod open;
mod partitions;
mod reads;
mod statio;
mod wal;

use crate::instance::{PgInstance, SUPERUSER};
use crate::load::run_load;
use crate::metrics::{index_names, index_shape, report_name_of, WalCounts};
use crate::owner;
use crate::sql::{self, qualified, quote_ident, TextCollation};
use keylab_core::{
    BufferPoolResult, Counters, Engine, EngineError, EngineInfo, FillFactors, LoadOutcome,
    LoadPlan, LoadVerification, Measurement, Op, Row, TableSizes,
};
use keylab_schema::Table;
use keylab_server_common::latency_ms;
use keylab_server_common::LoadStats;
use keylab_server_common::{ServerError, ServerUrl};
use open::{config_of, connect_to, target_name};
use postgres::Client;
use std::collections::BTreeMap;

/// The schema keylab works in by default.
pub const DEFAULT_SCHEMA: &str = "keylab";

/// What a server error says, with its detail, never a password (the client's errors carry
/// none).
pub fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(d) => format!("{} ({d})", db.message()),
            None => db.message().to_string(),
        },
        // The client's own errors ("error connecting to server") keep their cause (refused,
        // timed out, no such host, an authentication failure) in the source chain.
        None => {
            let mut text = e.to_string();
            let mut cause = std::error::Error::source(e);
            while let Some(c) = cause {
                let part = c.to_string();
                if !text.contains(&part) {
                    text.push_str(": ");
                    text.push_str(&part);
                }
                cause = c.source();
            }
            text
        }
    }
}

/// [`ServerError::sql`] for the PostgreSQL client's errors (the server's message and detail).
pub(crate) fn sql_err(what: &str, e: postgres::Error) -> ServerError {
    ServerError::sql(what, describe(&e))
}

/// Where the connections go.
enum Target {
    Private(Box<PgInstance>),
    Url { url: ServerUrl, database: String },
}

/// The per-table tallies `measure` reports.
#[derive(Debug, Clone, Default)]
struct Tally {
    /// LSN at `create_table`.
    start_lsn: String,
    /// LSN up to which the WAL was counted.
    counted_lsn: String,
    /// Counted so far (private instance only).
    wal: Option<WalCounts>,
    /// `pg_stat_wal` at `create_table` (records, FPI), for `--url` servers.
    stat_wal_start: Option<(i64, i64)>,
    /// Buffer reads and hits of keylab's own load checks, kept out of the figures.
    check_io: statio::Statio,
}

/// PostgreSQL as a keylab engine.
pub struct PgEngine {
    target: Target,
    client: Client,
    schema: String,
    collation: TextCollation,
    version: String,
    /// Whether `pageinspect`/`pgstattuple` and `pg_freespacemap` answer.
    inspect: bool,
    fsm: bool,
    tally: Tally,
    notes: Vec<String>,
    dropped_leftovers: Vec<String>,
    /// The table created and not dropped yet (its lock is re-taken after a restart).
    current: Option<String>,
    /// A `CHECKPOINT` after every this many rows loaded since `create_table` (the scenario's
    /// `checkpoint_every_rows`, the nbtree model's checkpoint clock); `None`: none.
    checkpoint_every_rows: Option<u64>,
    /// Rows loaded since `create_table`, for that clock.
    rows_loaded: u64,
    /// The `fillfactor`s tables are created with (`keylab advise`: the user's own).
    fill_factors: FillFactors,
}

impl PgEngine {
    /// Where the engine works, for messages (never with a password).
    pub fn target_name(&self) -> String {
        target_name(&self.target)
    }

    /// The private instance, if this engine runs on one.
    pub fn instance(&self) -> Option<&PgInstance> {
        match &self.target {
            Target::Private(i) => Some(i),
            Target::Url { .. } => None,
        }
    }

    /// Tables an interrupted keylab run had left in the schema, dropped when this engine
    /// claimed it.
    pub fn dropped_leftovers(&self) -> &[String] {
        &self.dropped_leftovers
    }

    /// The schema keylab works in.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// Sets the checkpoint clock (see `checkpoint_every_rows`).
    pub fn set_checkpoint_every_rows(&mut self, rows: Option<u64>) {
        self.checkpoint_every_rows = rows.filter(|&n| n > 0);
    }

    /// `run_load`, cut at every multiple of `checkpoint_every_rows` rows since the table was
    /// created, with a `CHECKPOINT` there once every writer has committed, so the first change
    /// to each page after it logs a full-page image exactly where the nbtree model's clock
    /// puts one (a statement that would span the mark is cut in two).
    fn load_with_checkpoints(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadStats, EngineError> {
        let mut total: Option<LoadStats> = None;
        let mut rows = rows.peekable();
        loop {
            let until_mark = match self.checkpoint_every_rows {
                Some(n) => n - self.rows_loaded % n,
                None => u64::MAX,
            };
            let clients = (0..plan.writers.max(1))
                .map(|_| self.new_connection())
                .collect::<Result<Vec<_>, _>>()?;
            let mut part = rows.by_ref().take(usize::try_from(until_mark).unwrap_or(usize::MAX));
            let stats = run_load(table, &self.schema, plan, clients, &mut part, on_rows)?;
            self.rows_loaded += stats.rows;
            let at_mark = self.checkpoint_every_rows.is_some_and(|n| self.rows_loaded % n == 0);
            if at_mark && stats.rows > 0 {
                self.client
                    .batch_execute("CHECKPOINT")
                    .map_err(|e| sql_err("CHECKPOINT failed", e))?;
            }
            total = Some(match total {
                None => stats,
                Some(t) => t.followed_by(stats),
            });
            if rows.peek().is_none() {
                break;
            }
        }
        Ok(total.expect("the loop runs at least once"))
    }

    /// A new connection to keylab's database.
    pub fn new_connection(&self) -> Result<Client, ServerError> {
        connect_to(&self.target)
    }

    fn table_ref(&self, table: &Table) -> String {
        qualified(&self.schema, &sql::table_name(table))
    }

    fn scalar_text(&mut self, q: &str) -> Result<String, ServerError> {
        self.client.query_one(q, &[]).map(|r| r.get(0)).map_err(|e| sql_err(q, e))
    }

    fn table_counts(&mut self, table: &Table) -> Result<(u64, u128), ServerError> {
        let n: i64 = self
            .client
            .query_one(&format!("SELECT count(*) FROM {}", self.table_ref(table)), &[])
            .map_err(|e| sql_err("counting the rows failed", e))?
            .get(0);
        let sum = self.scalar_text(&sql::checksum_sql(table, &self.schema))?;
        Ok((n as u64, sum.parse().unwrap_or(0)))
    }
}

impl Engine for PgEngine {
    fn info(&self) -> EngineInfo {
        let mut settings = BTreeMap::new();
        let mut put = |k: &str, v: serde_json::Value| {
            settings.insert(k.to_string(), v);
        };
        put(
            "checkpoint_every_rows",
            match self.checkpoint_every_rows {
                Some(n) => format!("{n} (loads only; churn inserts do not count)").into(),
                None => "none".into(),
            },
        );
        if let Target::Private(i) = &self.target {
            let s = i.settings();
            put("shared_buffers_bytes", s.shared_buffers_bytes.into());
            put("checkpoint_timeout_s", s.checkpoint_timeout_s.into());
            put("max_wal_size_mb", s.max_wal_size_mb.into());
            put("full_page_writes", s.full_page_writes.into());
            put("autovacuum", s.autovacuum.into());
            put("wal_level", s.wal_level.clone().into());
        }
        put("block_size", 8192.into());
        put("text_collation", self.collation.token().into());
        let ff = &self.fill_factors;
        if let Some(p) = ff.table_pct {
            put("table_fillfactor", p.into());
        }
        if let Some(own) = ff.by_index_setting() {
            put("index_fillfactor_by_index", own);
        }
        put("schema", self.schema.clone().into());
        put("notes", self.notes.clone().into());
        EngineInfo { kind: "postgres".into(), version: self.version.clone(), model: None, settings }
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        let t = self.table_ref(table);
        let name = sql::table_name(table);
        self.client
            .batch_execute(&format!("DROP TABLE IF EXISTS {t}"))
            .map_err(|e| sql_err("DROP TABLE failed", e))?;
        owner::lock_table(&mut self.client, &self.schema, &name)?;
        self.current = Some(name.clone());
        self.rows_loaded = 0;
        owner::register(&mut self.client, &self.schema, &name)?;
        if let Target::Url { .. } = self.target {
            let where_ = self.target_name();
            crate::interrupted::track_table(&config_of(&self.target), &where_, &self.schema, &name);
        }
        let statements =
            sql::create_statements(table, &self.schema, self.collation, &self.fill_factors);
        for stmt in statements {
            self.client.batch_execute(&stmt).map_err(|e| sql_err("CREATE failed", e))?;
        }
        if let Target::Url { .. } = self.target {
            owner::mark_table(&mut self.client, &self.schema, &name)?;
        }
        self.flush_stats();
        let lsn = self.flushed_lsn()?;
        let stat_wal_start = self.stat_wal();
        self.tally = Tally {
            start_lsn: lsn.clone(),
            counted_lsn: lsn,
            wal: None,
            stat_wal_start,
            check_io: statio::Statio::default(),
        };
        Ok(())
    }

    fn set_fill_factors(&mut self, fill_factors: &FillFactors) -> Result<(), EngineError> {
        self.fill_factors = fill_factors.clone();
        Ok(())
    }

    fn load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        // The checks scan the table: their buffer reads are kept out of the load's figures.
        let check_io_before = self.tally.check_io;
        let (rows_before, sum_before, key_check) = self.keep_apart(table, |e| {
            let (rows, sum) = e.table_counts(table)?;
            Ok::<_, ServerError>((rows, sum, e.key_check_before(table)?))
        })?;
        let stats = self.load_with_checkpoints(table, plan, rows, on_rows)?;
        let (rows_found, sum_after) = self.keep_apart(table, |e| {
            let counts = e.table_counts(table)?;
            if let Some(check) = &key_check {
                e.key_check_after(table, check, stats.rows)?;
            }
            Ok::<_, ServerError>(counts)
        })?;
        let expected = rows_before + stats.rows;
        let checksum_equal = sum_after == sum_before + u128::from(stats.client_checksum);
        if rows_found != expected || !checksum_equal {
            return Err(EngineError::Failed(format!(
                "the load does not check out: {expected} rows expected, {rows_found} found; \
                 checksum {}",
                if checksum_equal { "equal" } else { "differs" }
            )));
        }
        let check_io = self.tally.check_io.since(check_io_before);
        Ok(LoadOutcome {
            rows: stats.rows,
            wall_s: Some(stats.wall_s),
            batch_latency_ms: latency_ms(&stats.times.batch_latency_us),
            first_batch_ms: Some(stats.times.first_batch_ms),
            other_batch_p50_ms: Some(stats.times.other_batch_p50_ms),
            verification: Some(LoadVerification {
                rows_expected: expected,
                rows_found: Some(rows_found),
                checksum_equal: Some(checksum_equal),
                checked: format!(
                    "count(*) and the sum of the first 32 bits of md5 of every sent column's \
                     text{}; the checks' own {} buffer reads and {} hits are not counted in \
                     the table's figures",
                    key_check::key_check_text(table, key_check.as_ref()),
                    check_io.reads,
                    check_io.hits
                ),
            }),
            server_statement_ms: None,
        })
    }

    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        if table.partitioning.is_some() {
            return self.measure_partitions(table);
        }
        let mut pg = self.wal_figures()?;
        self.flush_stats();
        let t = self.table_ref(table);
        let q = format!(
            "SELECT pg_relation_size('{t}'), pg_indexes_size('{t}'), \
             current_setting('shared_buffers', true), \
             (SELECT datcollate::text FROM pg_database WHERE datname = current_database())"
        );
        let r = self.client.query_one(&q, &[]).map_err(|e| sql_err("reading sizes failed", e))?;
        let (heap, idx): (i64, i64) = (r.get(0), r.get(1));
        pg.heap_pages = Some(heap as u64 / 8192);
        // The collation matters where a key is text: a primary key or indexed column.
        let keyed = table.primary_key.iter().chain(table.indexes.iter().flat_map(|i| &i.columns));
        let has_text = keyed.clone().any(|&c| {
            matches!(
                table.columns[c].ty,
                keylab_schema::ColumnType::VarChar { .. } | keylab_schema::ColumnType::Char { .. }
            )
        });
        pg.collation = has_text.then(|| match self.collation {
            TextCollation::C => "C".to_string(),
            TextCollation::Default => format!("default ({})", r.get::<_, String>(3)),
        });
        let ops = format!(
            "SELECT n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables \
             WHERE relid = '{t}'::regclass"
        );
        let ops =
            self.client.query_opt(&ops, &[]).ok().flatten().map(|r| r.get::<_, i64>(0) as u64);
        // Without keylab's own checks' reads (`statio`).
        let io = self.statio(table).map(|s| s.since(self.tally.check_io));
        let (reads, hits) = (io.map(|s| s.reads), io.map(|s| s.hits));
        let requests = reads.zip(hits).map(|(r, h)| r + h);
        let pool_bytes = match &self.target {
            Target::Private(i) => Some(i.settings().shared_buffers_bytes),
            Target::Url { .. } => None,
        };
        let buffer_pool = BufferPoolResult {
            pool_bytes,
            page_requests: requests,
            pages_read: reads,
            // An InnoDB split (`buffer_page_read_index_*`); PostgreSQL's are per relation.
            index_pages_read: keylab_core::Figure::Null,
            row_ops: ops,
            hit_ratio: keylab_core::hit_ratio(requests, reads),
            misses_per_op: keylab_core::misses_per_op(reads, ops),
            ..BufferPoolResult::default()
        };
        let mut indexes = Vec::new();
        for ix in index_names(&mut self.client, &self.schema, &sql::table_name(table)) {
            let name = report_name_of(table, &ix);
            let shape = if self.inspect {
                index_shape(&mut self.client, &qualified(&self.schema, &ix), &name, self.fsm)
            } else {
                None
            };
            indexes.push(shape.unwrap_or(keylab_core::IndexResult { name, ..Default::default() }));
        }
        let splits = pg.split_left.zip(pg.split_right).map(|(l, r)| l + r);
        Ok(Measurement {
            counters: Counters {
                page_splits: splits,
                pages_read: reads,
                page_requests: requests,
                ..Counters::default()
            },
            table: TableSizes {
                data_length: Some(heap as u64),
                index_length: Some(idx as u64),
                data_free: None,
            },
            indexes,
            buffer_pool: Some(buffer_pool),
            postgres: Some(pg),
            shards: None,
        })
    }

    fn drop_table(&mut self, table: &Table) -> Result<(), EngineError> {
        self.client
            .batch_execute(&format!("DROP TABLE IF EXISTS {}", self.table_ref(table)))
            .map_err(|e| sql_err("DROP TABLE failed", e))?;
        for stmt in sql::drop_type_statements(table, &self.schema) {
            self.client.batch_execute(&stmt).map_err(|e| sql_err("DROP TYPE failed", e))?;
        }
        let name = sql::table_name(table);
        owner::unregister(&mut self.client, &self.schema, &name)?;
        owner::unlock_table(&mut self.client, &self.schema, &name);
        crate::interrupted::forget_table(&self.target_name(), &self.schema, &name);
        self.current = None;
        Ok(())
    }

    fn apply(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        crate::phases::apply(self, table, ops, on_ops)
    }

    fn rebuild(&mut self, table: &Table, fill_factor_pct: u8) -> Result<(), EngineError> {
        let note = "rebuild phases: the fill factor becomes each index's fillfactor \
                    (ALTER INDEX ... SET (fillfactor = N), then REINDEX TABLE), PostgreSQL's \
                    counterpart of innodb_fill_factor + OPTIMIZE TABLE; the heap keeps its own";
        if !self.notes.iter().any(|n| n == note) {
            self.notes.push(note.into());
        }
        crate::phases::rebuild(self, table, fill_factor_pct)
    }

    fn query(
        &mut self,
        table: &Table,
        query: &keylab_core::QuerySpec,
        runs: u32,
    ) -> Result<keylab_core::QueryOutcome, EngineError> {
        crate::query::run(self, table, query, runs)
    }

    fn work(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = keylab_core::WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<keylab_core::WorkOutcome, EngineError> {
        self.run_work(table, ops, on_ops)
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        match &mut self.target {
            Target::Private(i) => i.restart()?,
            Target::Url { .. } => {
                return Err(EngineError::Unsupported(
                    "keylab restarts only a private instance, never a --url server".into(),
                ))
            }
        }
        let mut client = connect_to(&self.target)?;
        client
            .batch_execute(&format!("SET search_path = {}, public", quote_ident(&self.schema)))
            .map_err(|e| sql_err("SET search_path failed", e))?;
        if let Some(t) = &self.current {
            owner::lock_table(&mut client, &self.schema, t)?;
        }
        self.client = client;
        Ok(())
    }

    fn ddl(
        &mut self,
        _: &Table,
        _: &keylab_core::DdlSpec,
    ) -> Result<keylab_core::DdlOutcome, EngineError> {
        Err(EngineError::Unsupported(
            "the DDL phase is written for InnoDB's ALTER TABLE algorithms (INSTANT, INPLACE, \
             COPY); PostgreSQL has none of them"
                .into(),
        ))
    }

    fn ddl_under_writes(
        &mut self,
        table: &Table,
        ddl: &keylab_core::DdlSpec,
        _: u32,
        _: &mut dyn Iterator<Item = keylab_core::Row>,
    ) -> Result<keylab_core::DdlOutcome, EngineError> {
        self.ddl(table, ddl)
    }
}

impl PgEngine {
    /// The main connection (for the phases).
    pub(crate) fn client(&mut self) -> &mut Client {
        &mut self.client
    }

    /// The user keylab's private instances run as.
    pub fn superuser() -> &'static str {
        SUPERUSER
    }
}
