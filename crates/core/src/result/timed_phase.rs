//! A `timed` phase's figures: client threads insert for a fixed time and the throughput is
//! counted per interval, as sysbench reports transactions per second per interval. Only a
//! server has a clock for it; on the simulator the phase is `not_applicable`.

use super::phase_figures::{shape_after, CounterFigures, Figure, PoolFigures, ShapeFigures};
use super::phases::{figures, PhaseStatus};
use serde::{Deserialize, Serialize};

figures! {
    /// A `timed` phase: `threads` connections insert one row per autocommitted statement for
    /// `seconds`; rows per second per `interval_s`, with their median, min and max.
    pub struct TimedPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// The time asked for, seconds.
        pub seconds: f64,
        /// Client threads (one connection each).
        pub threads: u64,
        /// Interval of the throughput series, seconds.
        pub interval_s: f64,
        /// Rows inserted in all.
        pub rows: u64,
        /// Wall time the inserts took, seconds (the phase ends early when its `max_rows` ran
        /// out).
        pub wall_s: f64,
        /// `rows` / `wall_s`.
        pub rows_per_s: f64,
        /// Rows per second in each whole interval, in order.
        pub rows_per_s_per_interval: Vec<f64>,
        /// Median of `rows_per_s_per_interval`.
        pub rows_per_s_median: f64,
        /// Its slowest interval.
        pub rows_per_s_min: f64,
        /// Its fastest interval.
        pub rows_per_s_max: f64,
        ;
        /// Counter deltas over the phase.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the phase.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}
