//! Statement latencies of a load: each writer's histogram with its first statement kept
//! apart, folded over all writers, and the percentiles reported. Shared by every server
//! engine's writers (MariaDB/MySQL here, PostgreSQL in `keylab-pg-server`).
//!
//! This module does not time anything itself: writers measure each statement and record it.

use crate::error::ServerError;
use hdrhistogram::Histogram;

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
pub struct LoadTimes {
    /// Every statement of every writer, microseconds.
    pub batch_latency_us: Histogram<u64>,
    /// Each writer's first statement, ms.
    pub first_batch_ms: Vec<f64>,
    /// The median of each writer's other statements, ms.
    pub other_batch_p50_ms: Vec<Option<f64>>,
}

/// Percentiles of a latency histogram in milliseconds.
pub fn latency_ms(h: &Histogram<u64>) -> Option<keylab_core::LatencyMs> {
    (!h.is_empty()).then(|| keylab_core::LatencyMs {
        p50: h.value_at_quantile(0.5) as f64 / 1000.0,
        p99: h.value_at_quantile(0.99) as f64 / 1000.0,
        max: h.max() as f64 / 1000.0,
    })
}
