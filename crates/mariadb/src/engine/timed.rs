//! A time-boxed insert phase (`timed`, what sysbench runs): client threads insert one row per
//! autocommitted statement for a fixed time, each from its own connection, and the rows
//! inserted are counted per interval. The rows are the caller's; the server's order among the
//! threads is its own. This module measures; it does not choose rows or judge the figures.

use crate::engine::{work_opts, MariaDbEngine};
use crate::sql;
use keylab_core::{Row, TimedOutcome, TimedPlan};
use keylab_schema::Table;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

impl MariaDbEngine {
    /// [`keylab_core::Engine::timed_inserts`] on this server.
    pub(super) fn insert_for_a_time(
        &mut self,
        table: &Table,
        plan: &TimedPlan,
        rows: &mut (dyn Iterator<Item = Row> + Send),
    ) -> Result<TimedOutcome, ServerError> {
        // Only keylab's own tables.
        self.owned_name(table)?;
        let mut conns = Vec::new();
        for _ in 0..plan.threads.max(1) {
            conns.push(Conn::new(work_opts(&self.target, &self.database, self.flavour)).map_err(
                |e| ServerError::Connect(format!("cannot open a timed writer's connection: {e}")),
            )?);
        }
        let queue = Mutex::new(rows);
        let inserted = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let start = Instant::now();
        let deadline = start + plan.duration;
        let mut per_interval = Vec::new();
        let mut last_end = start;
        std::thread::scope(|s| {
            let mut writers = Vec::new();
            for mut conn in conns {
                let (queue, inserted, stop, failures) = (&queue, &inserted, &stop, &failures);
                writers.push(s.spawn(move || {
                    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                        let Some(row) = queue.lock().expect("no writer panics").next() else {
                            break;
                        };
                        if let Err(e) = conn.query_drop(sql::multi_insert_sql(table, &[row])) {
                            failures.lock().expect("no writer panics").push(e.to_string());
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                        inserted.fetch_add(1, Ordering::Relaxed);
                    }
                }));
            }
            // The counter read at each interval's end: whole intervals only, stopping early
            // when every writer is done (rows ran out, or one failed).
            let mut seen = 0;
            let mut k = 1;
            loop {
                let due = start + plan.interval * k;
                if due > deadline {
                    break;
                }
                while Instant::now() < due && !writers.iter().all(|w| w.is_finished()) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                if Instant::now() < due {
                    break;
                }
                let now = inserted.load(Ordering::Relaxed);
                per_interval.push(now - seen);
                seen = now;
                k += 1;
            }
            for w in writers {
                let _ = w.join();
            }
            last_end = Instant::now();
        });
        if let Some(e) = failures.into_inner().expect("no writer panics").first() {
            return Err(ServerError::sql("timed INSERT failed", e));
        }
        Ok(TimedOutcome {
            rows: inserted.into_inner(),
            wall_s: (last_end - start).as_secs_f64(),
            rows_per_interval: per_interval,
        })
    }
}
