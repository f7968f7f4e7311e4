//! Reads and mixed work on PostgreSQL (`PgEngine::work`): each read is a prepared `SELECT *`
//! (point: `pk = $1`; secondary: the index's columns `= $n`; key range: `pk >= $1 ORDER BY pk
//! LIMIT n`; time range: `col BETWEEN $1 AND $2`), each insert an autocommitted INSERT, all
//! on keylab's own connection. The figures are differences of `pg_statio_user_tables` (heap,
//! with its free space and visibility maps) and `pg_statio_user_indexes` (each index) read
//! before and after, settled first (PostgreSQL 15 keeps a backend's counts until
//! `pgstat_report_stat`: `pg_stat_force_next_flush()`, then a fresh snapshot).
//!
//! The server cannot say which distinct pages it touched (no working set: `null`) nor, without
//! `pg_stat_statements`, the server-side time of the statements (`null`, with a note); the
//! client's wall time is given.

use super::{sql_err, PgEngine};
use crate::sql::{self, quote_ident};
use keylab_core::{EngineError, ReadOp, WorkOp, WorkOutcome};
use keylab_schema::{Table, Value};
use postgres::types::ToSql;
use postgres::Statement;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// Operations between progress reports.
const PROGRESS_EVERY: u64 = 1_000;

/// Per relation (`heap`, or the index's report name): (reads, hits).
type ByRelation = BTreeMap<String, (u64, u64)>;

impl PgEngine {
    /// The table's buffer reads and hits per relation, settled.
    fn statio_by_relation(&mut self, table: &Table) -> Result<ByRelation, EngineError> {
        self.flush_stats();
        let t = self.table_ref(table);
        let q = format!(
            "SELECT 'heap'::text, COALESCE(heap_blks_read, 0), COALESCE(heap_blks_hit, 0) \
             FROM pg_statio_user_tables WHERE relid = '{t}'::regclass \
             UNION ALL SELECT indexrelname::text, COALESCE(idx_blks_read, 0), \
             COALESCE(idx_blks_hit, 0) FROM pg_statio_user_indexes \
             WHERE relid = '{t}'::regclass"
        );
        let rows =
            self.client.query(&q, &[]).map_err(|e| sql_err("reading pg_statio failed", e))?;
        Ok(rows
            .iter()
            .map(|r| {
                let name: String = r.get(0);
                let name = if name == "heap" {
                    name
                } else {
                    crate::metrics::report_name_of(table, &name)
                };
                (name, (r.get::<_, i64>(1) as u64, r.get::<_, i64>(2) as u64))
            })
            .collect())
    }

    /// The SQL of a read, and the values it binds.
    fn read_sql<'a>(
        &self,
        table: &Table,
        op: &'a ReadOp,
    ) -> Result<(String, Vec<&'a Value>, Vec<usize>), EngineError> {
        let t = self.table_ref(table);
        let schema = self.schema.clone();
        let cols = |cs: &[usize]| {
            cs.iter()
                .enumerate()
                .map(|(n, &c)| {
                    format!(
                        "{} = {}",
                        quote_ident(&table.columns[c].name),
                        sql::text_param(table, c, &schema, n + 1)
                    )
                })
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        let index = |name: &str| {
            table.indexes.iter().find(|ix| ix.name == name).ok_or_else(|| {
                EngineError::Rejected(format!("table `{}` has no index `{name}`", table.name))
            })
        };
        let pk = &table.primary_key;
        Ok(match op {
            ReadOp::Point { key } => {
                (format!("SELECT * FROM {t} WHERE {}", cols(pk)), key.iter().collect(), pk.clone())
            }
            ReadOp::Secondary { index: name, key } => {
                let ix = index(name)?;
                let c = &ix.columns[..key.len().min(ix.columns.len())];
                (format!("SELECT * FROM {t} WHERE {}", cols(c)), key.iter().collect(), c.to_vec())
            }
            ReadOp::KeyRange { from, rows } => {
                let list = |f: &dyn Fn(usize, usize) -> String| {
                    pk.iter().enumerate().map(|(n, &c)| f(n, c)).collect::<Vec<_>>().join(", ")
                };
                let names = list(&|_, c| quote_ident(&table.columns[c].name));
                let params = list(&|n, c| sql::text_param(table, c, &schema, n + 1));
                (
                    format!(
                        "SELECT * FROM {t} WHERE ({names}) >= ({params}) ORDER BY {names} LIMIT {rows}"
                    ),
                    from.iter().collect(),
                    pk.clone(),
                )
            }
            ReadOp::TimeRange { index: name, from, to } => {
                let c = index(name)?.columns[0];
                let col = quote_ident(&table.columns[c].name);
                let (a, b) =
                    (sql::text_param(table, c, &schema, 1), sql::text_param(table, c, &schema, 2));
                (
                    format!("SELECT * FROM {t} WHERE {col} BETWEEN {a} AND {b}"),
                    vec![from, to],
                    vec![c, c],
                )
            }
        })
    }

    /// `Engine::work` on PostgreSQL.
    pub(crate) fn run_work(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<WorkOutcome, EngineError> {
        let before = self.statio_by_relation(table)?;
        let started = Instant::now();
        let mut prepared: HashMap<String, Statement> = HashMap::new();
        let mut out = WorkOutcome::default();
        let mut done = 0u64;
        for op in ops {
            match op {
                WorkOp::Read(r) => {
                    let (q, values, cols) = self.read_sql(table, &r)?;
                    let stmt = match prepared.get(&q) {
                        Some(s) => s.clone(),
                        None => {
                            let s = self
                                .client
                                .prepare(&q)
                                .map_err(|e| sql_err("PREPARE failed", e))?;
                            prepared.insert(q.clone(), s.clone());
                            s
                        }
                    };
                    let texts: Vec<Option<String>> = values
                        .iter()
                        .zip(&cols)
                        .map(|(v, &c)| sql::cell_text(v, &table.columns[c]))
                        .collect();
                    let params: Vec<&(dyn ToSql + Sync)> =
                        texts.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                    let rows = self
                        .client
                        .query(&stmt, &params)
                        .map_err(|e| sql_err("SELECT failed", e))?;
                    out.rows_returned += rows.len() as u64;
                    out.reads += 1;
                }
                WorkOp::Insert(row) => {
                    let q = sql::multi_insert_sql(table, &self.schema, std::slice::from_ref(&row));
                    self.client.batch_execute(&q).map_err(|e| sql_err("INSERT failed", e))?;
                    out.inserts += 1;
                }
            }
            done += 1;
            if done % PROGRESS_EVERY == 0 {
                on_ops(PROGRESS_EVERY);
            }
        }
        on_ops(done % PROGRESS_EVERY);
        out.wall_s = Some(started.elapsed().as_secs_f64());
        let after = self.statio_by_relation(table)?;
        let (mut reads, mut hits) = (0u64, 0u64);
        for (name, (r, h)) in &after {
            let (r0, h0) = before.get(name).copied().unwrap_or_default();
            reads += r - r0.min(*r);
            hits += h - h0.min(*h);
        }
        out.pages_read = Some(reads);
        out.page_requests = Some(reads + hits);
        out.notes.push(
            "pages written: PostgreSQL counts no writes per table (null); working set: the \
             server cannot tell which distinct pages it touched (null); server time: not \
             readable without pg_stat_statements (null)"
                .into(),
        );
        Ok(out)
    }
}
