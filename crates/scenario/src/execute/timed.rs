//! A `timed` phase: client threads insert for a fixed time on a server, and the phase records
//! the rows inserted, the throughput of each whole interval with its median, min and max, and
//! the counter deltas and shape after. The simulator has no clock: the phase is then
//! `not_applicable` with its reason. Not for: choosing the rows (the run's row stream).

use super::figures::{counters, pool_figures, shape};
use super::State;
use crate::plan::RunPlan;
use keylab_core::{
    Engine, EngineError, Figure, PhaseKind, PhaseResult, PhaseStatus, TimedPhase, TimedPlan,
};

/// Runs the phase: up to `max_rows` rows drawn from the run's stream as the threads take them
/// (the phase is the last one, so which rows it inserted matters to no later phase).
pub(super) fn timed_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    plan: &TimedPlan,
    max_rows: u64,
) -> Result<PhaseResult, EngineError> {
    let before = st.last.clone();
    let rows = &mut st.rows;
    let mut rows = (0..max_rows).map(|_| rows.next_row());
    let out = match engine.timed_inserts(run.table(), plan, &mut rows) {
        Ok(o) => o,
        Err(EngineError::Unsupported(reason)) => {
            return Ok(PhaseResult::not_applicable(PhaseKind::Timed, &reason));
        }
        Err(e) => return Err(e),
    };
    st.last = engine.measure(run.table())?;
    let interval_s = plan.interval.as_secs_f64();
    let per_s: Vec<f64> = out.rows_per_interval.iter().map(|&n| n as f64 / interval_s).collect();
    let (median, min, max) = spread(&per_s);
    Ok(PhaseResult::Timed(TimedPhase {
        status: Figure::Value(PhaseStatus::Ok),
        seconds: Figure::Value(plan.duration.as_secs_f64()),
        threads: Figure::Value(plan.threads.into()),
        interval_s: Figure::Value(interval_s),
        rows: Figure::Value(out.rows),
        wall_s: Figure::Value(out.wall_s),
        rows_per_s: Figure::of((out.wall_s > 0.0).then(|| out.rows as f64 / out.wall_s)),
        rows_per_s_per_interval: Figure::Value(per_s),
        rows_per_s_median: Figure::of(median),
        rows_per_s_min: Figure::of(min),
        rows_per_s_max: Figure::of(max),
        counters: counters(&before, &st.last),
        pool: pool_figures(&before, &st.last),
        after: shape(&st.last),
        ..TimedPhase::default()
    }))
}

/// Median, min and max of `v` (`None` each when it is empty).
fn spread(v: &[f64]) -> (Option<f64>, Option<f64>, Option<f64>) {
    if v.is_empty() {
        return (None, None, None);
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 };
    (Some(median), Some(s[0]), Some(s[n - 1]))
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_of_intervals() {
        assert_eq!(spread(&[]), (None, None, None));
        assert_eq!(spread(&[3.0, 1.0, 2.0]), (Some(2.0), Some(1.0), Some(3.0)));
        assert_eq!(spread(&[4.0, 1.0, 2.0, 3.0]), (Some(2.5), Some(1.0), Some(4.0)));
    }
}
