//! Online DDL under concurrent writes (E5's second half): `writers` connections insert one
//! row per autocommitted statement, taking rows in order from one queue, while a separate
//! connection runs the `ALTER TABLE`; each writer stamps the end of every insert. The result
//! is the statement's own outcome ([`MariaDbEngine::ddl_finish`]) plus, per statement, the
//! writers' longest stall across its run and the rows they inserted during it.
//!
//! The writers start [`WARM_UP`] before the statement and stop after it ends (each finishes
//! the insert it is in). This module judges nothing: whether a stall means "blocked" is the
//! reader's comparison of `longest_stall_ms` with `wall_ms`.

use super::{sql_err, MariaDbEngine};
use crate::sql;
use keylab_core::{DdlOutcome, DdlSpec, DdlWriters, Row};
use keylab_schema::Table;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the writers insert before the statement starts (so each is in its stride).
pub const WARM_UP: Duration = Duration::from_millis(300);

/// One writer's insert end times, or the error that stopped it.
type WriterLog = Result<Vec<Instant>, String>;

impl MariaDbEngine {
    /// Runs `spec` on `table` while `writers` connections insert rows from `rows`.
    pub(super) fn run_ddl_under_writes(
        &mut self,
        table: &Table,
        spec: &DdlSpec,
        writers: u32,
        rows: &mut dyn Iterator<Item = Row>,
    ) -> Result<DdlOutcome, ServerError> {
        let started = self.ddl_start(table, spec)?;
        let mut conns = Vec::new();
        for _ in 0..writers {
            conns.push(self.new_connection()?);
        }
        let mut ddl_conn = self.new_connection()?;
        let stmt = started.stmt.clone();
        let done = AtomicBool::new(false);
        let (tx, rx) = sync_channel::<Row>(4 * writers as usize);
        let rx = Arc::new(Mutex::new(rx));
        let (logs, window, result) = std::thread::scope(|s| {
            let handles: Vec<_> = conns
                .into_iter()
                .map(|conn| {
                    let (rx, done) = (Arc::clone(&rx), &done);
                    s.spawn(move || insert_until_done(conn, table, rx, done))
                })
                .collect();
            // Only the writers hold the queue's receiver now: when the last one stops, the
            // queue closes and feeding ends.
            drop(rx);
            let ddl = s.spawn(|| {
                std::thread::sleep(WARM_UP);
                let t0 = Instant::now();
                let result = ddl_conn.query_drop(&stmt);
                let t1 = Instant::now();
                done.store(true, Ordering::SeqCst);
                ((t0, t1), result)
            });
            for row in &mut *rows {
                if tx.send(row).is_err() {
                    break;
                }
            }
            // Out of rows: the writers stop when the queue is empty.
            drop(tx);
            let logs: Vec<WriterLog> =
                handles.into_iter().map(|h| h.join().expect("no writer panics")).collect();
            let (window, result) = ddl.join().expect("the DDL thread does not panic");
            (logs, window, result)
        });
        let mut ends = Vec::new();
        for log in logs {
            ends.push(log.map_err(|e| {
                ServerError::sql(&format!("a writer's INSERT during `{stmt}` failed"), e)
            })?);
        }
        let wall_ms = (window.1 - window.0).as_secs_f64() * 1e3;
        let mut outcome = self.ddl_finish(spec, started, wall_ms, result)?;
        outcome.writers = Some(writer_figures(&ends, window, writers));
        Ok(outcome)
    }
}

/// One writer: autocommitted single-row INSERTs of rows from `rx` until `done`.
fn insert_until_done(
    mut conn: mysql::Conn,
    table: &Table,
    rx: Arc<Mutex<Receiver<Row>>>,
    done: &AtomicBool,
) -> WriterLog {
    let mut ends = Vec::new();
    while !done.load(Ordering::SeqCst) {
        let Ok(row) = rx.lock().expect("no writer panics").recv() else { break };
        conn.query_drop(sql::multi_insert_sql(table, &[row]))
            .map_err(|e| sql_err("INSERT", e).to_string())?;
        ends.push(Instant::now());
    }
    Ok(ends)
}

/// The writers' figures over the statement's run `window`: the longest time any writer went
/// without finishing an insert while the statement ran, and inserts finished inside it.
fn writer_figures(ends: &[Vec<Instant>], window: (Instant, Instant), writers: u32) -> DdlWriters {
    let (t0, t1) = window;
    let mut longest = Duration::ZERO;
    let mut during = 0u64;
    for writer in ends {
        during += writer.iter().filter(|&&t| t >= t0 && t <= t1).count() as u64;
        // Each gap between two consecutive inserts that overlaps the window, counted whole;
        // a writer with no insert after the window stalled at least until its end.
        let mut prev: Option<Instant> = None;
        for &t in writer {
            if let Some(p) = prev {
                if t >= t0 && p <= t1 {
                    longest = longest.max(t - p);
                }
            }
            prev = Some(t);
        }
        if let Some(p) = prev.filter(|&p| p < t1) {
            longest = longest.max(t1 - p);
        }
        if writer.is_empty() {
            longest = longest.max(t1 - t0);
        }
    }
    DdlWriters {
        writers,
        blocks_writers: None,
        longest_stall_ms: Some(longest.as_secs_f64() * 1e3),
        rows_inserted_during: Some(during),
        rows_inserted: Some(ends.iter().map(|w| w.len() as u64).sum()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_stall_is_the_widest_gap_across_the_window() {
        let base = Instant::now();
        let at = |ms: u64| base + Duration::from_millis(ms);
        let window = (at(100), at(500));
        // Writer 1 inserts every 10 ms but waits from 120 to 480; writer 2 steadily.
        let w1 = vec![at(90), at(110), at(120), at(480), at(490), at(510)];
        let w2: Vec<Instant> = (0..60).map(|i| at(i * 10)).collect();
        let f = writer_figures(&[w1, w2], window, 2);
        assert!((f.longest_stall_ms.unwrap() - 360.0).abs() < 1e-6, "{f:?}");
        // Inside [100, 500]: 110, 120, 480, 490 of writer 1; 100..=500 step 10 of writer 2.
        assert_eq!(f.rows_inserted_during, Some(4 + 41));
        assert_eq!(f.rows_inserted, Some(66));
        // A writer that never finished an insert after the start waited through it all.
        let stuck = writer_figures(&[vec![at(50)]], window, 1);
        assert!((stuck.longest_stall_ms.unwrap() - 450.0).abs() < 1e-6, "{stuck:?}");
    }
}
