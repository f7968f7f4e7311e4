//! What every server engine's load pipeline shares (MariaDB/MySQL in `keylab-mariadb`,
//! PostgreSQL in `keylab-pg-server`): what a load measured ([`LoadStats`]), the writer limit
//! ([`MAX_WRITERS`], [`check_writers`]), and statement latencies: each writer's histogram
//! with its first statement kept apart, folded over all writers, and the percentiles
//! reported; and the end of a load, where the writers are joined and their times folded.
//!
//! Writers measure each statement and record it here; this module reads the clock only for
//! the load's wall time at its end. It sends no rows: each engine's own pipeline does.

use crate::error::ServerError;
use hdrhistogram::Histogram;
use keylab_core::LoadPlan;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::ScopedJoinHandle;
use std::time::Instant;

/// What a load measured, on every server engine (MariaDB/MySQL in `keylab-mariadb`,
/// PostgreSQL in `keylab-pg-server`).
#[derive(Debug, Clone)]
pub struct LoadStats {
    /// Rows sent.
    pub rows: u64,
    /// Wall time from the first batch sent to the last one finished, seconds.
    pub wall_s: f64,
    /// Every writer's statement times.
    pub times: LoadTimes,
    /// The client half of the load's checksum: the sum (mod 2^64) of each sent row's hash,
    /// by the engine's own rule (MariaDB: `keylab-mariadb`'s `sql::row_crc32`; PostgreSQL:
    /// the first 32 bits of md5).
    pub client_checksum: u64,
}

impl LoadStats {
    /// This load followed by `next` on the same table (a load cut at a checkpoint mark):
    /// rows, time, latencies and checksums add up; each writer's first batch is this load's.
    pub fn followed_by(mut self, next: LoadStats) -> LoadStats {
        self.rows += next.rows;
        self.wall_s += next.wall_s;
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.times.batch_latency_us.add(&next.times.batch_latency_us);
        if self.times.first_batch_ms.is_empty() {
            self.times.first_batch_ms = next.times.first_batch_ms;
            self.times.other_batch_p50_ms = next.times.other_batch_p50_ms;
        }
        self.client_checksum = self.client_checksum.wrapping_add(next.client_checksum);
        self
    }
}

/// The most writer connections a load may open; a private instance allows this many and a
/// few more (`max_connections`), so any accepted `--writers` can connect.
pub const MAX_WRITERS: u32 = 256;

/// Refuses more writers than [`MAX_WRITERS`] (every server engine's limit).
pub fn check_writers(plan: &LoadPlan) -> Result<(), String> {
    if plan.writers > MAX_WRITERS {
        return Err(format!("{} writers asked for; at most {MAX_WRITERS}", plan.writers));
    }
    Ok(())
}

fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds")
}

/// One writer's statement latencies: every statement, and its first apart from the others
/// (E2's first-batch finding). Shared by every server engine's writers.
pub struct BatchTimes {
    all_us: Histogram<u64>,
    first_us: Option<u64>,
    others_us: Histogram<u64>,
}

impl Default for BatchTimes {
    fn default() -> Self {
        BatchTimes { all_us: new_histogram(), first_us: None, others_us: new_histogram() }
    }
}

impl BatchTimes {
    /// One statement took `us` microseconds.
    pub fn record(&mut self, us: u64) {
        if self.first_us.is_none() {
            self.first_us = Some(us);
        } else {
            self.others_us.saturating_record(us);
        }
        self.all_us.saturating_record(us);
    }

    /// Every writer's times, folded: all statements' histogram, each writer's first
    /// statement and the median of its others (`None` when it sent one only), in writer
    /// order, writers that sent nothing left out.
    pub fn fold(writers: impl IntoIterator<Item = BatchTimes>) -> Result<LoadTimes, ServerError> {
        let mut all = new_histogram();
        let (mut first_ms, mut others_p50_ms) = (Vec::new(), Vec::new());
        for w in writers {
            all.add(&w.all_us).map_err(|e| ServerError::Sql(e.to_string()))?;
            if let Some(us) = w.first_us {
                first_ms.push(us as f64 / 1000.0);
                others_p50_ms.push(
                    (!w.others_us.is_empty())
                        .then(|| w.others_us.value_at_quantile(0.5) as f64 / 1000.0),
                );
            }
        }
        Ok(LoadTimes {
            batch_latency_us: all,
            first_batch_ms: first_ms,
            other_batch_p50_ms: others_p50_ms,
        })
    }
}

/// Every writer's statement times together (see [`BatchTimes::fold`]).
#[derive(Debug, Clone)]
pub struct LoadTimes {
    /// Every statement of every writer, microseconds.
    pub batch_latency_us: Histogram<u64>,
    /// Each writer's first statement, ms.
    pub first_batch_ms: Vec<f64>,
    /// The median of each writer's other statements, ms, in the order of `first_batch_ms`
    /// (`None` for a writer that sent one statement only).
    pub other_batch_p50_ms: Vec<Option<f64>>,
}

/// The end of a load, the same on every server engine once the calling thread has closed the
/// writers' queues: waits for every writer (one that panicked is an error), reports the rows
/// they finished since `reported` (of `done`), then takes the wall time since `started` and
/// folds the writers' times. A failed writer's error is returned, the first in writer order.
pub fn end_of_load(
    writers: Vec<ScopedJoinHandle<'_, Result<BatchTimes, ServerError>>>,
    started: Instant,
    done: &AtomicU64,
    reported: u64,
    on_rows: &mut dyn FnMut(u64),
) -> Result<(f64, LoadTimes), ServerError> {
    let results: Vec<_> = writers
        .into_iter()
        .map(|h| {
            h.join().unwrap_or_else(|_| Err(ServerError::Sql("a writer thread panicked".into())))
        })
        .collect();
    on_rows(done.load(Ordering::Relaxed) - reported);
    let wall_s = started.elapsed().as_secs_f64();
    let times = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok((wall_s, BatchTimes::fold(times)?))
}

/// Percentiles of a latency histogram in milliseconds.
pub fn latency_ms(h: &Histogram<u64>) -> Option<keylab_core::LatencyMs> {
    (!h.is_empty()).then(|| keylab_core::LatencyMs {
        p50: h.value_at_quantile(0.5) as f64 / 1000.0,
        p99: h.value_at_quantile(0.99) as f64 / 1000.0,
        max: h.max() as f64 / 1000.0,
    })
}
