//! Independent simulator runs (compare's variants, a scenario's runs, validate's simulator
//! side) on up to `--jobs` threads, their results handed on in input order.
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

/// Runs `work(i)` for every `i < count` on up to `jobs` threads and calls `done(i, result)`
/// in increasing `i`, each as soon as every job before it has finished. With one job (or one
/// item) everything runs on the calling thread, in order. Each worker has its own progress
/// bar in `bars`.
pub fn run_ordered<R, W, D>(
    jobs: usize,
    count: usize,
    bars: &Bars,
    work: W,
    mut done: D,
) -> Result<(), Failure>
where
    R: Send,
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
    let next_job = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<R>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next_job, stop, work) = (&next_job, &stop, &work);
            scope.spawn(move || {
                let mut progress = bars.bar();
                while !stop.load(Ordering::Relaxed) {
                    // Jobs start in input order, so when job i fails every job before it has
                    // started and will be handed on.
                    let i = next_job.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let result = work(i, &mut progress);
                    let failed = result.is_err();
                    if failed {
                        stop.store(true, Ordering::Relaxed);
                    }
                    if tx.send((i, result)).is_err() || failed {
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
        for jobs in [1, 3] {
            let mut seen = Vec::new();
            let failure = run_ordered(
                jobs,
                10,
                &Bars::hidden(),
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
            |i, _| Ok(i),
            |i, _| if i == 1 { Err(anyhow!("disk full")) } else { Ok(()) },
        )
        .unwrap_err();
        assert!(matches!(failure, Failure::Sink(_)));
    }
}
