//! Independent simulator runs (compare's variants, a scenario's runs, validate's simulator
//! side, advise's candidates) on up to `--jobs` threads, the costliest started first, their
//! results handed on in input order.
//!
//! Scoped threads and an atomic job counter rather than rayon: results must reach the
//! exports in input order as soon as each prefix is complete (an interrupted command keeps
//! them), a failed job must stop new ones from starting, and the number of jobs alive, hence
//! of simulated tables in memory, must be exactly `jobs`; a work-stealing pool gives none of
//! these directly. Each job builds its own engine and drops it (and its table) before the
//! next starts; only the results are kept. A run makes its rows on its own thread (a second
//! thread for rows was measured to cost more than it saved, docs/benchmarks.md §3). It does
//! not run server engines: one server,
//! one job at a time (the commands keep their sequential loop for those).

use crate::progress::Bars;
use crate::progress::LoadProgress;
use keylab_keys::Variant;
use keylab_scenario::{PhasePlan, RunPlan};
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// How a series of jobs stopped early.
#[derive(Debug)]
pub enum Failure {
    /// A job failed: every job before it was handed on, none after it.
    Job(anyhow::Error),
    /// Handing a result on failed (writing the exports).
    Sink(anyhow::Error),
}

/// `--jobs` when not given: the number of cores this process may use.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The estimated cost of loading `rows` ids of `variant`, to start the longest runs first.
/// A simulated insert costs about the bytes it compares and moves (the key plus a fixed
/// ~32 bytes of record and row making), three times more when keys arrive in random order
/// (every insert lands on a cold leaf and splits pages): so uuid4:text, the default compare's
/// slowest run by 2.5x, comes first. Only the order of the estimates matters.
pub fn load_cost(variant: &Variant, rows: u64) -> u64 {
    let per_row = 32 + u64::from(variant.stored_len());
    let order = if variant.is_ascending() { 1 } else { 3 };
    rows.saturating_mul(per_row * order)
}

/// [`load_cost`] of a scenario run's loads.
pub fn plan_cost(plan: &RunPlan) -> u64 {
    let rows = plan
        .phases
        .iter()
        .map(|p| match p {
            PhasePlan::Load { rows, .. } => *rows,
            _ => 0,
        })
        .fold(0, u64::saturating_add);
    load_cost(&plan.variant, rows)
}

/// Runs `work(i)` for every `i < count` on up to `jobs` threads and calls `done(i, result)`
/// in increasing `i`, each as soon as every job before it has finished. Jobs start in
/// decreasing `cost(i)` (ties in input order), so that the longest do not start last and
/// leave one thread working alone at the end. With one job (or one item) everything runs on
/// the calling thread, in input order. Each worker has its own progress bar in `bars`.
pub fn run_ordered<R, C, W, D>(
    jobs: usize,
    count: usize,
    bars: &Bars,
    cost: C,
    work: W,
    mut done: D,
) -> Result<(), Failure>
where
    R: Send,
    C: Fn(usize) -> u64,
    W: Fn(usize, &mut LoadProgress) -> anyhow::Result<R> + Sync,
    D: FnMut(usize, R) -> anyhow::Result<()>,
{
    let workers = jobs.clamp(1, count.max(1));
    if workers == 1 {
        let mut progress = bars.bar();
        for i in 0..count {
            let result = work(i, &mut progress).map_err(Failure::Job)?;
            done(i, result).map_err(Failure::Sink)?;
        }
        return Ok(());
    }
    // The start order: a stable sort keeps input order among equal costs.
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&i| Reverse(cost(i)));
    let next_job = AtomicUsize::new(0);
    // The first job (in input order) that failed: jobs after it are not started, jobs before
    // it still are, so every result before the failure is handed on, as with one job.
    let first_failed = AtomicUsize::new(usize::MAX);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<R>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next_job, first_failed, stop, work) = (&next_job, &first_failed, &stop, &work);
            let order = &order;
            scope.spawn(move || {
                let mut progress = bars.bar();
                while !stop.load(Ordering::Relaxed) {
                    let Some(&i) = order.get(next_job.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    if i > first_failed.load(Ordering::Relaxed) {
                        continue; // never handed on
                    }
                    let result = work(i, &mut progress);
                    if result.is_err() {
                        first_failed.fetch_min(i, Ordering::Relaxed);
                    }
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Results wait here until every earlier one has been handed on.
        let mut waiting = BTreeMap::new();
        let mut next_out = 0;
        for (i, result) in rx {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&next_out) {
                let handed = match result {
                    Ok(r) => done(next_out, r).map_err(Failure::Sink),
                    Err(e) => Err(Failure::Job(e)),
                };
                if let Err(failure) = handed {
                    stop.store(true, Ordering::Relaxed);
                    return Err(failure);
                }
                next_out += 1;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::anyhow;

    #[test]
    fn results_come_in_input_order_whatever_finishes_first() {
        for jobs in [1, 2, 4, 9] {
            let mut seen = Vec::new();
            run_ordered(
                jobs,
                8,
                &Bars::hidden(),
                |_| 0,
                |i, _| {
                    // Later jobs finish first.
                    std::thread::sleep(std::time::Duration::from_millis(10 * (8 - i as u64)));
                    Ok(i * 10)
                },
                |i, r| {
                    seen.push((i, r));
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(seen, (0..8).map(|i| (i, i * 10)).collect::<Vec<_>>(), "jobs {jobs}");
        }
    }

    #[test]
    fn a_failed_job_keeps_every_earlier_result_and_no_later_one() {
        // Later jobs cost more, so they start first: the jobs before the failed one still run.
        for jobs in [1, 3] {
            let mut seen = Vec::new();
            let failure = run_ordered(
                jobs,
                10,
                &Bars::hidden(),
                |i| i as u64,
                |i, _| if i == 4 { Err(anyhow!("job 4 broke")) } else { Ok(i) },
                |i, _| {
                    seen.push(i);
                    Ok(())
                },
            )
            .unwrap_err();
            assert!(matches!(failure, Failure::Job(e) if e.to_string() == "job 4 broke"));
            assert_eq!(seen, vec![0, 1, 2, 3], "jobs {jobs}");
        }
    }

    #[test]
    fn a_failed_hand_on_stops_the_series() {
        let failure = run_ordered(
            2,
            6,
            &Bars::hidden(),
            |_| 0,
            |i, _| Ok(i),
            |i, _| if i == 1 { Err(anyhow!("disk full")) } else { Ok(()) },
        )
        .unwrap_err();
        assert!(matches!(failure, Failure::Sink(_)));
    }

    #[test]
    fn the_costliest_jobs_start_first_and_results_come_in_input_order() {
        let costs = [10, 50, 20, 90, 30];
        let started = std::sync::Mutex::new(Vec::new());
        let mut seen = Vec::new();
        run_ordered(
            2,
            costs.len(),
            &Bars::hidden(),
            |i| costs[i],
            |i, _| {
                started.lock().unwrap().push(i);
                std::thread::sleep(std::time::Duration::from_millis(20));
                Ok(i * 10)
            },
            |i, r| {
                seen.push((i, r));
                Ok(())
            },
        )
        .unwrap();
        let started = started.into_inner().unwrap();
        let mut first_two = started[..2].to_vec();
        first_two.sort_unstable();
        assert_eq!(first_two, vec![1, 3], "the two costliest first: {started:?}");
        assert_eq!(started.last(), Some(&0), "the cheapest last: {started:?}");
        assert_eq!(seen, (0..5).map(|i| (i, i * 10)).collect::<Vec<_>>());
    }
}
