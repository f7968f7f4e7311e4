//! Reading sentences about how a load ran on a server: each writer's first batch against its
//! other batches (E2's "the first batch waits"), and writer counts beyond the cores of the
//! machine running the server, where a writers curve says more about CPU scheduling than
//! about the server. Figures only a server measures; the simulator has none of them.

use crate::text::{decimal, times};
use keylab_core::{Report, RunResult};

/// The run whose writers' first batches took longest against their other batches, with each
/// writer's figures.
pub(crate) fn first_batch_wait(runs: &[(&RunResult, &str)]) -> Option<String> {
    let list = |v: &[f64]| v.iter().map(|x| decimal(*x, 1)).collect::<Vec<_>>().join(", ");
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (label, first, others, ratio) = runs
        .iter()
        .filter_map(|(r, label)| {
            let first = r.load.first_batch_ms.as_ref()?;
            let others: Vec<f64> =
                r.load.other_batch_p50_ms.as_ref()?.iter().flatten().copied().collect();
            if first.is_empty() || others.is_empty() {
                return None;
            }
            let ratio = mean(first) / mean(&others).max(f64::MIN_POSITIVE);
            Some((label, first, others, ratio))
        })
        .max_by(|a, b| a.3.total_cmp(&b.3))?;
    Some(format!(
        "{label}: each writer's first batch took {} ms against a median of {} ms for its other \
         batches ({} as long on average).",
        list(first),
        list(&others),
        times(ratio)
    ))
}

/// A warning when runs used more writers than the server's machine has cores (known for a
/// private instance, which runs on keylab's machine).
pub(crate) fn writers_over_cores(report: &Report) -> Option<String> {
    let cores = report.engine.settings.get("server_cores")?.as_u64()?;
    let most = report.runs.iter().map(|r| u64::from(r.load.writers)).max()?;
    (most > cores).then(|| {
        format!(
            "Up to {most} writers ran against a server on a machine with {cores} cores: beyond \
             {cores}, writers wait for CPU as much as for the server, so that part of a writers \
             curve says little about the server."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(writers: u32, first: &[f64], others: &[Option<f64>]) -> RunResult {
        let mut r: RunResult = serde_json::from_value(serde_json::json!({
            "variant": "auto-inc", "strategy": "auto-inc", "encoding": "", "placement": "pk",
            "rows": 10, "load": {"method": "multi", "batch": 100, "writers": writers,
            "wall_s": 1.0, "rows_per_s": 10.0, "batch_latency_ms": null},
            "counters": {}, "table": {}, "indexes": []
        }))
        .unwrap();
        r.load.first_batch_ms = Some(first.to_vec());
        r.load.other_batch_p50_ms = Some(others.to_vec());
        r
    }

    #[test]
    fn the_slowest_first_batches_are_named_with_each_writer() {
        let (a, b) = (run(2, &[4.0, 6.0], &[Some(1.0), None]), run(2, &[2.0], &[Some(2.0)]));
        let s = first_batch_wait(&[(&a, "a"), (&b, "b")]).unwrap();
        assert_eq!(
            s,
            "a: each writer's first batch took 4.0, 6.0 ms against a median of 1.0 ms for its \
             other batches (5.0x as long on average)."
        );
        assert_eq!(first_batch_wait(&[(&run(1, &[3.0], &[None]), "c")]), None);
    }
}
