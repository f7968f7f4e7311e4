//! The PostgreSQL load pipeline: rows from the generator to N writer connections.
//!
//! The same scheme as `keylab_mariadb`'s `load` for MariaDB: the calling thread pulls rows from
//! the (not `Send`) iterator, cuts them into statements ([`LoadPlan::statement_rows`]) and
//! sends statement `n` to writer [`LoadPlan::writer_of`]`(n)` over a bounded queue, so every
//! engine gives each writer the same rows; each statement is timed into an HDR histogram and
//! each writer's first one is kept apart; the calling thread computes the client half of the
//! checksum. The statements are PostgreSQL's: `row` = one INSERT per row, `batch` rows per
//! transaction; `multi` = a multi-row INSERT; `prepared` = a server-side prepared INSERT of a
//! fixed shape, prepared once per shape and connection; `prepared-uncached` = prepared and
//! closed per statement; `load-data` = `COPY ... FROM STDIN` through the client's copy-in
//! stream, one COPY per statement. The writer code is this crate's own: the MariaDB
//! pipeline's writers are written against the `mysql` client. What is client-independent is
//! shared with it: the writers' statement times, the end of a load
//! ([`keylab_server_common::load::end_of_load`]), what a load measured ([`LoadStats`]), and the
//! limit on writers.
//!
//! This module does not create tables or read metrics.

use crate::engine::sql_err;
use crate::sql;
use keylab_core::{LoadMethod, LoadPlan, Row, WRITER_QUEUE_STATEMENTS};
use keylab_schema::Table;
use keylab_server_common::load::{end_of_load, BatchTimes, LoadStats};
use keylab_server_common::ServerError;
use postgres::types::ToSql;
use postgres::{Client, Statement};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::time::Instant;

/// Most parameters one PostgreSQL statement may have (a 16-bit count in the protocol).
pub const MAX_PARAMS: usize = 65_535;

/// Refuses a plan PostgreSQL cannot run on `table`: a prepared INSERT needing more
/// parameters than the protocol carries.
pub fn check_plan(table: &Table, plan: &LoadPlan) -> Result<(), String> {
    let cols = sql::sent_columns(table).len().max(1);
    let largest = plan.batch.max(plan.batch_max.unwrap_or(0)).max(1) as usize;
    if matches!(plan.method, LoadMethod::Prepared | LoadMethod::PreparedUncached)
        && largest.saturating_mul(cols) > MAX_PARAMS
    {
        return Err(format!(
            "a prepared INSERT of {largest} rows x {cols} columns needs more than {MAX_PARAMS} \
             parameters; use a --batch of at most {}",
            MAX_PARAMS / cols
        ));
    }
    keylab_server_common::check_writers(plan)
}

/// Loads `rows` into `schema`.`table` over `clients`, one writer per client.
pub fn run_load(
    table: &Table,
    schema: &str,
    plan: &LoadPlan,
    clients: Vec<Client>,
    rows: &mut dyn Iterator<Item = Row>,
    on_rows: &mut dyn FnMut(u64),
) -> Result<LoadStats, ServerError> {
    check_plan(table, plan).map_err(ServerError::Refused)?;
    let cols = sql::sent_columns(table);
    let (txs, rxs): (Vec<_>, Vec<_>) =
        clients.iter().map(|_| sync_channel::<Vec<Row>>(WRITER_QUEUE_STATEMENTS)).unzip();
    let failed = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let started = Instant::now();
    let mut checksum = 0u64;
    let mut sent = 0u64;
    let (wall_s, times) = std::thread::scope(|s| {
        let handles: Vec<_> = clients
            .into_iter()
            .zip(rxs)
            .map(|(client, rx)| {
                let w = Writer { table, schema, plan, cols: &cols, failed: &failed, done: &done };
                s.spawn(move || w.run(client, rx))
            })
            .collect();
        let mut shapes = plan.statement_rows();
        let mut want = shapes.next().unwrap_or(1);
        let mut batch = Vec::with_capacity(want);
        let mut statement = 0u64;
        let mut reported = 0u64;
        for row in &mut *rows {
            sent += 1;
            checksum = checksum.wrapping_add(u64::from(sql::row_hash(&row, table, &cols)));
            batch.push(row);
            if batch.len() >= want {
                let full = std::mem::take(&mut batch);
                if txs[plan.writer_of(statement)].send(full).is_err()
                    || failed.load(Ordering::SeqCst)
                {
                    break;
                }
                statement += 1;
                want = shapes.next().unwrap_or(1);
                batch.reserve(want);
                let now = done.load(Ordering::Relaxed);
                on_rows(now - reported);
                reported = now;
            }
        }
        if !batch.is_empty() && !failed.load(Ordering::SeqCst) {
            let _ = txs[plan.writer_of(statement)].send(batch);
        }
        drop(txs);
        end_of_load(handles, started, &done, reported, on_rows)
    })?;
    Ok(LoadStats { rows: sent, wall_s, times, client_checksum: checksum })
}

struct Writer<'a> {
    table: &'a Table,
    schema: &'a str,
    plan: &'a LoadPlan,
    cols: &'a [usize],
    failed: &'a AtomicBool,
    done: &'a AtomicU64,
}

impl Writer<'_> {
    fn run(&self, mut client: Client, rx: Receiver<Vec<Row>>) -> Result<BatchTimes, ServerError> {
        let mut out = BatchTimes::default();
        let mut prepared: HashMap<usize, Statement> = HashMap::new();
        for batch in rx {
            let n = batch.len() as u64;
            let t0 = Instant::now();
            let sent = self.send(&mut client, &batch, &mut prepared);
            if let Err(e) = sent {
                self.failed.store(true, Ordering::SeqCst);
                return Err(e);
            }
            let us = (t0.elapsed().as_micros() as u64).max(1);
            out.record(us);
            self.done.fetch_add(n, Ordering::Relaxed);
        }
        // The session's statistics (buffer hits and reads, WAL) reach the shared counters
        // before this statement returns, so the measurement after the load sees them.
        let _ = client.batch_execute("SELECT pg_stat_force_next_flush()");
        Ok(out)
    }

    fn send(
        &self,
        client: &mut Client,
        batch: &[Row],
        prepared: &mut HashMap<usize, Statement>,
    ) -> Result<(), ServerError> {
        let (t, schema) = (self.table, self.schema);
        match self.plan.method {
            // A batch of one is autocommit, as on MariaDB: no BEGIN/COMMIT round trips.
            LoadMethod::Row if batch.len() == 1 => client
                .batch_execute(&sql::multi_insert_sql(t, schema, batch))
                .map_err(|e| sql_err("INSERT failed", e)),
            LoadMethod::Row => {
                let mut tx = client.transaction().map_err(|e| sql_err("BEGIN failed", e))?;
                for row in batch {
                    let sql = sql::multi_insert_sql(t, schema, std::slice::from_ref(row));
                    tx.batch_execute(&sql).map_err(|e| sql_err("INSERT failed", e))?;
                }
                tx.commit().map_err(|e| sql_err("COMMIT failed", e))
            }
            LoadMethod::Multi => client
                .batch_execute(&sql::multi_insert_sql(t, schema, batch))
                .map_err(|e| sql_err("INSERT failed", e)),
            LoadMethod::Prepared | LoadMethod::PreparedUncached => {
                let cached = self.plan.method == LoadMethod::Prepared;
                let stmt = match prepared.get(&batch.len()) {
                    Some(s) if cached => s.clone(),
                    _ => {
                        let s = client
                            .prepare(&sql::prepared_insert_sql(t, schema, batch.len()))
                            .map_err(|e| sql_err("PREPARE failed", e))?;
                        if cached {
                            prepared.insert(batch.len(), s.clone());
                        }
                        s
                    }
                };
                let texts: Vec<Option<String>> = batch
                    .iter()
                    .flat_map(|row| {
                        self.cols.iter().map(|&c| sql::cell_text(&row[c], &t.columns[c]))
                    })
                    .collect();
                let params: Vec<&(dyn ToSql + Sync)> =
                    texts.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                // A dropped uncached Statement is closed by the client on its next request.
                client.execute(&stmt, &params).map(|_| ()).map_err(|e| sql_err("EXECUTE failed", e))
            }
            LoadMethod::LoadData => {
                let mut w = client
                    .copy_in(&sql::copy_sql(t, schema))
                    .map_err(|e| sql_err("COPY failed", e))?;
                let mut buf = Vec::with_capacity(64 * 1024);
                for row in batch {
                    sql::write_copy_line(&mut buf, t, self.cols, row);
                    if buf.len() >= 64 * 1024 {
                        w.write_all(&buf).map_err(|e| ServerError::sql("COPY failed", e))?;
                        buf.clear();
                    }
                }
                w.write_all(&buf).map_err(|e| ServerError::sql("COPY failed", e))?;
                w.finish().map(|_| ()).map_err(|e| sql_err("COPY failed", e))
            }
        }
    }
}
