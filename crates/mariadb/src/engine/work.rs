//! Reads and autocommitted inserts on a server (`Engine::work`, issue 28): one prepared
//! statement per read kind, every returned row read, and the buffer pool's counters
//! (`Innodb_buffer_pool_read_requests`, `Innodb_buffer_pool_reads`, `Innodb_pages_written`)
//! read before and after. keylab's own statements in between (an `EXPLAIN` that decides
//! whether a secondary read needs `FORCE INDEX`) are bracketed by counter reads and their
//! cost subtracted. Server time comes from performance_schema where its statement history is
//! on (`StatementClock`), else `None` with a note.
//!
//! Before the first statement the call waits for purge, so that purge's work on the rows a
//! load just inserted (MariaDB resets each inserted record's `DB_TRX_ID`, a leaf visit per row)
//! is not counted as the reads'. Other background work (the page cleaner's writes, statistics
//! recalculation) is the server's and stays in the figures. The working set of each index is
//! not readable from a server: `None`.

use super::stmt_time::{self, StatementClock};
use super::{sql_err, MariaDbEngine};
use crate::sql::{self, quote_ident};
use keylab_core::{ReadOp, WorkOp, WorkOutcome};
use keylab_schema::{Table, Value};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::{Conn, Statement};
use std::collections::HashMap;
use std::time::Instant;

/// Operations between progress reports and statement-history reads (the history keeps
/// 10,000 statements by default: read well before it wraps).
const BATCH_OPS: u64 = 1_000;

/// The buffer pool's counters at one moment.
#[derive(Debug, Clone, Copy, Default)]
struct PoolIo {
    requests: u64,
    reads: u64,
    written: u64,
}

fn pool_io(conn: &mut Conn) -> Result<PoolIo, ServerError> {
    let status: Vec<(String, String)> = conn
        .query(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_read_requests', \
             'Innodb_buffer_pool_reads', 'Innodb_pages_written')",
        )
        .map_err(|e| sql_err("reading the buffer pool counters failed", e))?;
    let get = |name: &str| -> Result<u64, ServerError> {
        status
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| ServerError::Sql(format!("the server reports no {name}")))
    };
    Ok(PoolIo {
        requests: get("Innodb_buffer_pool_read_requests")?,
        reads: get("Innodb_buffer_pool_reads")?,
        written: get("Innodb_pages_written")?,
    })
}

/// The statements of one call, prepared when first needed.
#[derive(Default)]
struct Statements {
    point: Option<Statement>,
    /// Per index name (secondary and time-range reads).
    by_index: HashMap<String, Statement>,
    /// Per row count.
    range: HashMap<u32, Statement>,
    insert: Option<Statement>,
}

impl MariaDbEngine {
    /// Runs `ops` in order on `table` and reports the counters' differences.
    pub(super) fn run_work(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<WorkOutcome, ServerError> {
        let name = self.owned_name(table)?;
        let t = quote_ident(&name);
        let mut out = WorkOutcome::default();
        self.wait_for_purge()?;
        self.conn
            .query_drop("SET SESSION autocommit = 1")
            .map_err(|e| sql_err("setting autocommit failed", e))?;
        let mut clock = match StatementClock::start(&mut self.conn) {
            Ok(c) => Some(c),
            Err(why) => {
                out.notes.push(why);
                None
            }
        };
        let (mut server_ms, mut statements) = (0.0, 0u64);
        let mut own = PoolIo::default();
        let mut stmts = Statements::default();
        let before = pool_io(&mut self.conn)?;
        let t0 = Instant::now();
        let mut since = 0u64;
        for op in ops {
            let rows = match &op {
                WorkOp::Read(read) => {
                    out.reads += 1;
                    let (stmt, params) =
                        self.read_statement(table, &t, read, &mut stmts, &mut own)?;
                    self.exec_rows(&stmt, params)?
                }
                WorkOp::Insert(row) => {
                    out.inserts += 1;
                    let stmt = match &stmts.insert {
                        Some(s) => s.clone(),
                        None => {
                            let sql = sql::prepared_insert_sql(table, 1);
                            let s = self.prep(&sql)?;
                            stmts.insert.insert(s).clone()
                        }
                    };
                    let params = sql::prepared_params(table, std::slice::from_ref(row));
                    self.conn
                        .exec_drop(&stmt, params)
                        .map_err(|e| sql_err("an insert of the work phase failed", e))?;
                    0
                }
            };
            out.rows_returned += rows;
            statements += 1;
            since += 1;
            if since == BATCH_OPS {
                on_ops(since);
                since = 0;
                self.read_clock(&mut clock, &mut server_ms, &mut statements, &mut out)?;
            }
        }
        let wall = t0.elapsed().as_secs_f64();
        let after = pool_io(&mut self.conn)?;
        if since > 0 {
            on_ops(since);
        }
        self.read_clock(&mut clock, &mut server_ms, &mut statements, &mut out)?;
        let less_own = |a: u64, b: u64, own: u64| a.saturating_sub(b).saturating_sub(own);
        out.page_requests = Some(less_own(after.requests, before.requests, own.requests));
        out.pages_read = Some(less_own(after.reads, before.reads, own.reads));
        out.pages_written = Some(less_own(after.written, before.written, own.written));
        out.server_ms = clock.map(|_| server_ms);
        out.wall_s = Some(wall);
        out.working_set_pages = None;
        out.notes.push(
            "server-wide buffer pool counters over the call (other sessions and background \
             work included); the working set of each index is not readable from the server"
                .into(),
        );
        Ok(out)
    }

    fn prep(&mut self, sql: &str) -> Result<Statement, ServerError> {
        self.conn.prep(sql).map_err(|e| sql_err("preparing a read of the work phase failed", e))
    }

    /// Runs `stmt` and reads every row; returns the rows.
    fn exec_rows(
        &mut self,
        stmt: &Statement,
        params: Vec<mysql::Value>,
    ) -> Result<u64, ServerError> {
        let result = self
            .conn
            .exec_iter(stmt, params)
            .map_err(|e| sql_err("a read of the work phase failed", e))?;
        let mut rows = 0u64;
        for row in result {
            row.map_err(|e| sql_err("a read of the work phase failed", e))?;
            rows += 1;
        }
        Ok(rows)
    }

    /// Adds the statements' server time since the last read; drops the clock (with a note)
    /// when the history lost some.
    fn read_clock(
        &mut self,
        clock: &mut Option<StatementClock>,
        server_ms: &mut f64,
        statements: &mut u64,
        out: &mut WorkOutcome,
    ) -> Result<(), ServerError> {
        let Some(c) = clock.as_mut() else { return Ok(()) };
        let (ms, seen) = c.read(&mut self.conn)?;
        if seen >= *statements {
            *server_ms += ms;
        } else {
            out.notes.push(format!(
                "performance_schema's statement history held {seen} of {statements} statements, \
                 so no server-side time"
            ));
            *clock = None;
        }
        *statements = 0;
        Ok(())
    }

    /// The statement and parameters of `read`, preparing the statement the first time its
    /// shape comes.
    fn read_statement(
        &mut self,
        table: &Table,
        t: &str,
        read: &ReadOp,
        stmts: &mut Statements,
        own: &mut PoolIo,
    ) -> Result<(Statement, Vec<mysql::Value>), ServerError> {
        let params_of = |cols: &[usize], values: &[Value]| -> Vec<mysql::Value> {
            cols.iter().zip(values).map(|(&c, v)| sql::param(v, &table.columns[c].ty)).collect()
        };
        Ok(match read {
            ReadOp::Point { key } => {
                if stmts.point.is_none() {
                    let sql = format!("SELECT * FROM {t} WHERE {}", sql::pk_equals_params(table));
                    stmts.point = Some(self.prep(&sql)?);
                }
                let s = stmts.point.clone().expect("prepared");
                (s, params_of(&table.primary_key, key))
            }
            ReadOp::KeyRange { from, rows } => {
                let params = params_of(&table.primary_key, from);
                let s = match stmts.range.get(rows) {
                    Some(s) => s.clone(),
                    None => {
                        let sql = format!(
                            "SELECT * FROM {t} WHERE {} ORDER BY {} LIMIT {rows}",
                            sql::pk_at_least(table),
                            sql::pk_columns(table)
                        );
                        let s = self.prep(&sql)?;
                        stmts.range.insert(*rows, s.clone());
                        s
                    }
                };
                (s, params)
            }
            ReadOp::Secondary { index, key } => {
                let ix = index_of(table, index)?;
                let params = params_of(&ix.columns, key);
                let cols: Vec<String> = ix
                    .columns
                    .iter()
                    .map(|&c| format!("{} = ?", quote_ident(&table.columns[c].name)))
                    .collect();
                let s = self.index_statement(t, index, &cols.join(" AND "), &params, stmts, own)?;
                (s, params)
            }
            ReadOp::TimeRange { index, from, to } => {
                let ix = index_of(table, index)?;
                let c = ix.columns[0];
                let ty = &table.columns[c].ty;
                let params = vec![sql::param(from, ty), sql::param(to, ty)];
                let cond = format!("{} BETWEEN ? AND ?", quote_ident(&table.columns[c].name));
                let s = self.index_statement(t, index, &cond, &params, stmts, own)?;
                (s, params)
            }
        })
    }

    /// The prepared `SELECT *` through `index` under `cond`: `FORCE INDEX` only when
    /// `EXPLAIN` (with the first read's values) shows the optimizer choosing another path.
    /// The `EXPLAIN`'s page requests and reads (its range estimate) are measured and left out.
    fn index_statement(
        &mut self,
        t: &str,
        index: &str,
        cond: &str,
        params: &[mysql::Value],
        stmts: &mut Statements,
        own: &mut PoolIo,
    ) -> Result<Statement, ServerError> {
        if let Some(s) = stmts.by_index.get(index) {
            return Ok(s.clone());
        }
        let plain = format!("SELECT * FROM {t} WHERE {cond}");
        let a = pool_io(&mut self.conn)?;
        let plan = stmt_time::explain(&mut self.conn, &plain, params.to_vec())?;
        let b = pool_io(&mut self.conn)?;
        own.requests += b.requests.saturating_sub(a.requests);
        own.reads += b.reads.saturating_sub(a.reads);
        own.written += b.written.saturating_sub(a.written);
        let sql = if plan.key.as_deref() == Some(index) {
            plain
        } else {
            self.note(format!(
                "reads through `{index}` use FORCE INDEX: the optimizer chose {} for them",
                plan.key.as_deref().unwrap_or("no index")
            ));
            format!("SELECT * FROM {t} FORCE INDEX ({}) WHERE {cond}", quote_ident(index))
        };
        let s = self.prep(&sql)?;
        stmts.by_index.insert(index.to_string(), s.clone());
        Ok(s)
    }
}

fn index_of<'t>(table: &'t Table, index: &str) -> Result<&'t keylab_schema::Index, ServerError> {
    table.indexes.iter().find(|i| i.name == index).ok_or_else(|| {
        ServerError::Refused(format!("table `{}` has no index `{index}`", table.name))
    })
}
