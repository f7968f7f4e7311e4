//! The load pipeline: rows from the generator to N writer connections.
//!
//! The calling thread pulls rows from the (not `Send`) iterator, groups them into batches
//! and sends them to `writers` scoped threads, each with its own connection and its own
//! bounded queue: statement `n` goes to writer `n % writers` ([`LoadPlan::writer_of`]), so a
//! writer's rows are the same on every run and the simulator's model of parallel writers gets
//! the same ones; every row goes to exactly one writer, so ids are split without collisions
//! (an `AUTO_INCREMENT` key is left to the server). For `multi` and `prepared` the calling
//! thread also renders each batch (the SQL text, or the parameter list), so a writer only
//! sends and waits: the next statement is rendered while the server runs the current one.
//! Each batch is timed into an HDR histogram, and each writer's first batch is kept apart
//! (it pays for connection warm-up, statement preparation and the first page allocations).
//! The calling thread also computes the client half of the row checksum and reports
//! progress.
//!
//! With an ORM's block id generator ([`IdFetch`]), each writer takes a block of ids from
//! the server before a batch needs more than it holds, as the ORM would: the round trips
//! are paid and timed; the ids sent are keylab's, handed out in the same blocks.
//!
//! This module does not create tables or read metrics; statement latencies are kept, and
//! what a load measured is described, by keylab-server-common's `load` (shared with the
//! PostgreSQL engine).

use crate::client::sql_err;
use crate::sql;
use keylab_core::{LoadMethod, LoadPlan, Row, PREPARED_CACHE_STATEMENTS, WRITER_QUEUE_STATEMENTS};
use keylab_schema::Table;
use keylab_server_common::load::{check_writers, end_of_load, BatchTimes};
use keylab_server_common::{LoadStats, ServerError};
use mysql::prelude::Queryable;
use mysql::{Conn, LocalInfileHandler};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Most placeholders one prepared statement may have (a 16-bit count in the protocol).
const MAX_PLACEHOLDERS: usize = 65_535;
/// Rows per chunk handed to a `LOAD DATA` stream: a statement spans as many chunks as its
/// batch needs, so a whole load can be one streamed statement without buffering it.
const LOAD_DATA_CHUNK_ROWS: usize = 1000;

/// Refuses a load plan no server can run on `table`, before anything starts: a prepared
/// INSERT needing more placeholders than the client protocol carries, or more writers than
/// [`keylab_server_common::MAX_WRITERS`].
pub fn check_plan(table: &Table, plan: &LoadPlan) -> Result<(), String> {
    let cols = sql::sent_columns(table).len();
    // With varying shapes (`batch_max`) the largest statement decides.
    let largest = plan.batch.max(plan.batch_max.unwrap_or(0)).max(1);
    if matches!(plan.method, LoadMethod::Prepared | LoadMethod::PreparedUncached)
        && (largest as usize).saturating_mul(cols) > MAX_PLACEHOLDERS
    {
        return Err(format!(
            "a prepared INSERT of {largest} rows x {cols} columns needs more than \
             {MAX_PLACEHOLDERS} placeholders; use a --batch of at most {}",
            MAX_PLACEHOLDERS / cols.max(1)
        ));
    }
    check_writers(plan)
}

/// The statements one writer runs to take a block of `block` ids from the server.
#[derive(Debug, Clone)]
pub struct IdFetch {
    /// Run in order, each its own round trip.
    pub statements: Vec<String>,
    /// Ids per block.
    pub block: u64,
}

/// Loads `rows` into `table` over `conns` (one writer per connection).
pub fn run_load(
    table: &Table,
    plan: &LoadPlan,
    conns: Vec<Conn>,
    rows: &mut dyn Iterator<Item = Row>,
    on_rows: &mut dyn FnMut(u64),
) -> Result<LoadStats, ServerError> {
    run_load_with_ids(table, plan, conns, rows, on_rows, None)
}

/// [`run_load`], each writer taking its ids in blocks through `ids` when given.
pub fn run_load_with_ids(
    table: &Table,
    plan: &LoadPlan,
    conns: Vec<Conn>,
    rows: &mut dyn Iterator<Item = Row>,
    on_rows: &mut dyn FnMut(u64),
    ids: Option<&IdFetch>,
) -> Result<LoadStats, ServerError> {
    check_plan(table, plan).map_err(ServerError::Refused)?;
    let cols = sql::sent_columns(table);
    let checksum_cols = sql::checksum_columns(table);
    let (txs, rxs): (Vec<_>, Vec<_>) =
        conns.iter().map(|_| sync_channel::<Batch>(WRITER_QUEUE_STATEMENTS)).unzip();
    // SQL buffers the writers are done with, for the next statements (no fresh allocation
    // and page faults for each one).
    let (spare_tx, spare_rx) = channel::<String>();
    let failed = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let (mut sent, mut checksum) = (0u64, 0u64);
    let (wall_s, times) = std::thread::scope(|s| {
        let handles: Vec<_> = conns
            .into_iter()
            .zip(rxs)
            .map(|(conn, rx)| {
                let w = Writer {
                    table,
                    plan,
                    rx: Arc::new(Mutex::new(rx)),
                    spare: spare_tx.clone(),
                    failed: failed.clone(),
                    done: done.clone(),
                    ids,
                };
                s.spawn(move || w.run(conn))
            })
            .collect();
        drop(spare_tx);
        let mut batcher = Batcher::new(table, plan, cols);
        let mut reported = 0u64;
        // A batch goes to the writer of its statement (a LOAD DATA statement spans several
        // batches, which end at statement boundaries).
        let send = |(statement, batch): (u64, Batch)| {
            txs[plan.writer_of(statement)].send(batch).is_ok() && !failed.load(Ordering::SeqCst)
        };
        for row in &mut *rows {
            sent += 1;
            if !checksum_cols.is_empty() {
                checksum =
                    checksum.wrapping_add(u64::from(sql::row_crc32(&row, table, &checksum_cols)));
            }
            if let Some(batch) = batcher.push(row, &spare_rx) {
                if !send(batch) {
                    break;
                }
                let now = done.load(Ordering::Relaxed);
                on_rows(now - reported);
                reported = now;
            }
        }
        if let Some(batch) = batcher.finish() {
            if !failed.load(Ordering::SeqCst) {
                send(batch);
            }
        }
        drop(txs);
        end_of_load(handles, started, &done, reported, on_rows)
    })?;
    Ok(LoadStats { rows: sent, wall_s, times, client_checksum: checksum })
}

/// What the calling thread hands a writer: rows still to render (`row`, `load-data`), or one
/// statement's payload already rendered.
enum Batch {
    /// Rows, rendered by the writer.
    Rows(Vec<Row>),
    /// A `multi` statement: its SQL text and rows.
    Sql { text: String, rows: u64 },
    /// A `prepared` execution: its parameters, `rows` tuples of the sent columns.
    Params { values: Vec<mysql::Value>, rows: usize },
}

/// Groups rows into batches on the calling thread, rendering them as it goes for `multi`
/// and `prepared`. A batch is one statement, or for `load-data` a chunk of one.
struct Batcher<'a> {
    table: &'a Table,
    method: LoadMethod,
    cols: Vec<usize>,
    /// Rows per `load-data` chunk (other methods: a batch is a whole statement).
    chunk: usize,
    /// Sizes of the statements still to come ([`LoadPlan::statement_rows`]).
    sizes: Box<dyn Iterator<Item = usize>>,
    /// Rows of the current statement, those batched so far, and its number.
    statement: usize,
    in_statement: usize,
    statement_no: u64,
    /// The statement the pending batch belongs to.
    batch_statement: u64,
    prefix: String,
    rows: Vec<Row>,
    text: String,
    values: Vec<mysql::Value>,
    pending: usize,
}

impl<'a> Batcher<'a> {
    fn new(table: &'a Table, plan: &LoadPlan, cols: Vec<usize>) -> Self {
        let mut sizes = Box::new(plan.statement_rows());
        let statement = sizes.next().unwrap_or(1).max(1);
        Batcher {
            table,
            method: plan.method,
            chunk: match plan.method {
                LoadMethod::LoadData => LOAD_DATA_CHUNK_ROWS,
                _ => usize::MAX,
            },
            sizes,
            statement,
            in_statement: 0,
            statement_no: 0,
            batch_statement: 0,
            prefix: sql::insert_prefix(table),
            cols,
            rows: Vec::new(),
            text: String::new(),
            values: Vec::new(),
            pending: 0,
        }
    }

    /// Adds `row`; returns the batch it completes with its statement's number. `spare` offers
    /// used SQL buffers.
    fn push(&mut self, row: Row, spare: &Receiver<String>) -> Option<(u64, Batch)> {
        if self.pending == 0 {
            self.batch_statement = self.statement_no;
        }
        match self.method {
            LoadMethod::Multi => {
                if self.pending == 0 {
                    let mut text = spare.try_recv().unwrap_or_default();
                    text.clear();
                    text.push_str(&self.prefix);
                    self.text = text;
                } else {
                    self.text.push(',');
                }
                sql::write_values_tuple(&mut self.text, self.table, &self.cols, &row);
            }
            LoadMethod::Prepared | LoadMethod::PreparedUncached => {
                if self.pending == 0 {
                    self.values = Vec::with_capacity(self.statement * self.cols.len());
                }
                sql::push_params_of(&mut self.values, self.table, &self.cols, row);
            }
            LoadMethod::Row | LoadMethod::LoadData => {
                if self.pending == 0 {
                    self.rows = Vec::with_capacity(self.statement.min(self.chunk));
                }
                self.rows.push(row);
            }
        }
        self.pending += 1;
        self.in_statement += 1;
        if self.in_statement == self.statement {
            self.in_statement = 0;
            self.statement_no += 1;
            self.statement = self.sizes.next().unwrap_or(1).max(1);
            return Some(self.take());
        }
        (self.pending == self.chunk).then(|| self.take())
    }

    /// The last, partial batch.
    fn finish(&mut self) -> Option<(u64, Batch)> {
        (self.pending > 0).then(|| self.take())
    }

    fn take(&mut self) -> (u64, Batch) {
        let rows = std::mem::take(&mut self.pending);
        let batch = match self.method {
            LoadMethod::Multi => {
                Batch::Sql { text: std::mem::take(&mut self.text), rows: rows as u64 }
            }
            LoadMethod::Prepared | LoadMethod::PreparedUncached => {
                Batch::Params { values: std::mem::take(&mut self.values), rows }
            }
            LoadMethod::Row | LoadMethod::LoadData => Batch::Rows(std::mem::take(&mut self.rows)),
        };
        (self.batch_statement, batch)
    }
}

/// One writer thread's share of the work.
struct Writer<'a> {
    table: &'a Table,
    plan: &'a LoadPlan,
    rx: Arc<Mutex<Receiver<Batch>>>,
    spare: Sender<String>,
    failed: Arc<AtomicBool>,
    done: Arc<AtomicU64>,
    ids: Option<&'a IdFetch>,
}

fn recv(rx: &Mutex<Receiver<Batch>>) -> Option<Batch> {
    rx.lock().unwrap_or_else(|e| e.into_inner()).recv().ok()
}

/// The rows of a batch of the `row` and `load-data` methods (the only ones that carry rows).
fn rows_of(batch: Batch) -> Vec<Row> {
    match batch {
        Batch::Rows(rows) => rows,
        Batch::Sql { .. } | Batch::Params { .. } => {
            unreachable!("the calling thread renders only multi and prepared batches")
        }
    }
}

impl Writer<'_> {
    fn run(self, mut conn: Conn) -> Result<BatchTimes, ServerError> {
        let r = self.run_inner(&mut conn);
        if r.is_err() {
            self.failed.store(true, Ordering::SeqCst);
        }
        r
    }

    fn run_inner(&self, conn: &mut Conn) -> Result<BatchTimes, ServerError> {
        let mut out = BatchTimes::default();
        let mut statements = PreparedCache::default();
        // Rows a LOAD DATA statement took beyond its batch, sent first by the next one.
        let mut carry: Option<Batch> = None;
        // Ids this writer holds from blocks already taken.
        let mut held_ids = 0u64;
        while let Some(batch) = carry.take().or_else(|| recv(&self.rx)) {
            if self.failed.load(Ordering::SeqCst) {
                break;
            }
            let t0 = Instant::now();
            if let Some(ids) = self.ids {
                let need = match &batch {
                    Batch::Sql { rows, .. } => *rows,
                    Batch::Params { rows, .. } => *rows as u64,
                    Batch::Rows(rows) => rows.len() as u64,
                };
                while held_ids < need {
                    for s in &ids.statements {
                        conn.query_drop(s)
                            .map_err(|e| sql_err("taking a block of ids failed", e))?;
                    }
                    held_ids += ids.block.max(1);
                }
                held_ids -= need;
            }
            let n = match batch {
                Batch::Sql { text, rows } => {
                    conn.query_drop(&text).map_err(|e| sql_err("multi-row INSERT failed", e))?;
                    // The calling thread may be gone already; then the buffer is just freed.
                    let _ = self.spare.send(text);
                    rows
                }
                Batch::Params { values, rows } if self.plan.method == LoadMethod::Prepared => {
                    let stmt = statements.get(conn, self.table, rows)?;
                    conn.exec_drop(stmt, values)
                        .map_err(|e| sql_err("prepared INSERT failed", e))?;
                    rows as u64
                }
                Batch::Params { values, rows } => {
                    // No statement cache: prepared, executed and closed every time.
                    let stmt = conn
                        .prep(sql::prepared_insert_sql(self.table, rows))
                        .map_err(|e| sql_err("preparing the INSERT failed", e))?;
                    conn.exec_drop(&stmt, values)
                        .map_err(|e| sql_err("prepared INSERT failed", e))?;
                    conn.close(stmt).map_err(|e| sql_err("closing the statement failed", e))?;
                    rows as u64
                }
                Batch::Rows(rows) if self.plan.method == LoadMethod::LoadData => {
                    let (n, rest) = self.load_data(conn, rows)?;
                    carry = rest.map(Batch::Rows);
                    n
                }
                Batch::Rows(rows) => self.rows_in_transaction(conn, &rows)?,
            };
            let us = (t0.elapsed().as_micros() as u64).max(1);
            out.record(us);
            // LOAD DATA counts its rows while streaming.
            if self.plan.method != LoadMethod::LoadData {
                self.done.fetch_add(n, Ordering::Relaxed);
            }
        }
        Ok(out)
    }

    /// `row`: one INSERT per row, committed every batch; a batch of 1 is autocommit (each
    /// INSERT its own transaction, without the two extra statements of an explicit one).
    fn rows_in_transaction(&self, conn: &mut Conn, batch: &[Row]) -> Result<u64, ServerError> {
        let explicit = self.plan.batch > 1;
        if explicit {
            conn.query_drop("START TRANSACTION").map_err(|e| sql_err("START TRANSACTION", e))?;
        }
        for row in batch {
            conn.query_drop(sql::multi_insert_sql(self.table, std::slice::from_ref(row)))
                .map_err(|e| sql_err("INSERT failed", e))?;
        }
        if explicit {
            conn.query_drop("COMMIT").map_err(|e| sql_err("COMMIT failed", e))?;
        }
        Ok(batch.len() as u64)
    }

    /// `load-data`: one `LOAD DATA LOCAL INFILE` statement streaming `batch` rows, starting
    /// with `first` and pulling further chunks from the channel while it runs. Returns the
    /// rows sent and those of the last chunk beyond the batch.
    fn load_data(
        &self,
        conn: &mut Conn,
        first: Vec<Row>,
    ) -> Result<(u64, Option<Vec<Row>>), ServerError> {
        let limit = self.plan.batch.max(1) as u64;
        let table = Arc::new(self.table.clone());
        let cols = Arc::new(sql::sent_columns(self.table));
        let pending = Arc::new(Mutex::new(Some(first)));
        let streamed = Arc::new(AtomicU64::new(0));
        let (rx, done, failed) = (self.rx.clone(), self.done.clone(), self.failed.clone());
        let (h_pending, h_streamed) = (pending.clone(), streamed.clone());
        let handler = LocalInfileHandler::new(move |_name, stream| {
            let mut buf = Vec::with_capacity(64 << 10);
            loop {
                let chunk = h_pending.lock().unwrap_or_else(|e| e.into_inner()).take();
                let mut chunk = match chunk {
                    Some(c) => c,
                    None if h_streamed.load(Ordering::Relaxed) >= limit => break,
                    None if failed.load(Ordering::SeqCst) => break,
                    None => match recv(&rx) {
                        Some(c) => rows_of(c),
                        None => break,
                    },
                };
                let room = limit.saturating_sub(h_streamed.load(Ordering::Relaxed)) as usize;
                let full = chunk.len() >= room;
                if chunk.len() > room {
                    let rest = chunk.split_off(room);
                    *h_pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(rest);
                }
                buf.clear();
                for row in &chunk {
                    sql::write_tsv_row(&mut buf, &table, &cols, row);
                }
                stream.write_all(&buf)?;
                h_streamed.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                if full {
                    break;
                }
            }
            Ok(())
        });
        conn.set_local_infile_handler(Some(handler));
        let r = conn.query_drop(sql::load_data_sql(self.table, "keylab-stream"));
        conn.set_local_infile_handler(None);
        r.map_err(|e| sql_err("LOAD DATA LOCAL INFILE failed", e))?;
        let rest = pending.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok((streamed.load(Ordering::Relaxed), rest))
    }
}

/// The prepared INSERTs of one connection, one per shape (row count), at most
/// [`PREPARED_CACHE_STATEMENTS`], the least recently used closed first: a fixed shape is
/// prepared once (and a remainder once), while varying shapes keep preparing anew.
#[derive(Default)]
struct PreparedCache {
    /// Least recently used first.
    by_rows: Vec<(usize, mysql::Statement)>,
}

impl PreparedCache {
    fn get(
        &mut self,
        conn: &mut Conn,
        table: &Table,
        rows: usize,
    ) -> Result<&mysql::Statement, ServerError> {
        match self.by_rows.iter().position(|(n, _)| *n == rows) {
            Some(p) => {
                let hit = self.by_rows.remove(p);
                self.by_rows.push(hit);
            }
            None => {
                if self.by_rows.len() >= PREPARED_CACHE_STATEMENTS {
                    let (_, old) = self.by_rows.remove(0);
                    conn.close(old).map_err(|e| sql_err("closing the statement failed", e))?;
                }
                let stmt = conn
                    .prep(sql::prepared_insert_sql(table, rows))
                    .map_err(|e| sql_err("preparing the INSERT failed", e))?;
                self.by_rows.push((rows, stmt));
            }
        }
        Ok(&self.by_rows.last().expect("just pushed").1)
    }
}
