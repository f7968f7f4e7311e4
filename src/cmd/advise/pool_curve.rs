//! `advise --workload`'s curve of pool sizes: every built candidate loaded and its workload
//! run again under each pool size (`--pool-sizes`, shares of that candidate's table or
//! bytes, raised to the smallest pool the server starts with), on the `--jobs` threads, the
//! costliest first; each run's workload cost kept as one point of that candidate's curve,
//! and its reads phase's misses per read as one point of the reads phase's own curve.
//!
//! Not for: reading the pool a target needs off the curve (`weigh.rs`), or servers (one
//! restart per size; advise refuses --workload there).

use super::weigh::WorkloadFigures;
use super::workload::{cost, WorkloadCost};
use super::Candidate;
use crate::parallel::{self, Failure};
use crate::progress::{Bars, LoadProgress};
use anyhow::Result;
use keylab_core::{
    curve_point, fill_curve, PhaseKind, PhaseResult, PoolBounds, PoolSize, ReadCurvePoint,
    RunResult,
};

/// The pool sizes tried and how.
pub(super) struct Curve<'a> {
    /// Shares of each candidate's table, or bytes.
    pub sizes: &'a [PoolSize],
    /// The smallest pool the server starts with, and what it keeps of any pool.
    pub bounds: PoolBounds,
    /// Simulator runs at once.
    pub jobs: usize,
}

/// Each run's workload figures: its cost at its own pool and its curve (a candidate that
/// took another's build takes that one's curve); `run_at(candidate, pool_bytes)` runs one
/// point.
pub(super) fn weigh_runs(
    curve: &Curve,
    candidates: &[Candidate],
    build_of: &[Option<usize>],
    runs: &[RunResult],
    run_at: &(dyn Fn(usize, u64, &mut LoadProgress) -> Result<RunResult> + Sync),
) -> Result<Vec<WorkloadFigures>> {
    // Runs are in candidate order, a failed candidate left out.
    let run_of = |i: usize| runs.iter().position(|r| r.variant == candidates[i].label);
    let table_bytes: Vec<Option<u64>> = (0..candidates.len())
        .map(|i| match build_of[i] {
            None => run_of(i).and_then(|r| super::figures::total_bytes(&runs[r])),
            Some(_) => None,
        })
        .collect();
    let points = run_curve(curve.jobs, curve.sizes, curve.bounds, &table_bytes, run_at)?;
    let figures = runs.iter().map(|r| {
        let i = candidates.iter().position(|c| c.label == r.variant);
        let p = i.map(|i| points[build_of[i].unwrap_or(i)].clone()).unwrap_or_default();
        WorkloadFigures {
            at_pool: cost(r),
            curve: p.costs,
            reads_curve: p.reads,
            table_bytes: super::figures::total_bytes(r),
        }
    });
    Ok(figures.collect())
}

/// Per candidate, its points (pool bytes, workload cost), smallest pool first: one run of
/// `run_at(candidate, pool_bytes)` per candidate with a table size in `table_bytes` and per
/// size of `sizes`; candidates without one (not built, failed) get none.
/// One candidate's points: its workload cost at each pool, and its reads phase's curve
/// point (per read spec) where the workload has reads.
#[derive(Debug, Clone, Default)]
struct Points {
    costs: Vec<(u64, WorkloadCost)>,
    reads: Vec<ReadCurvePoint>,
}

fn run_curve(
    jobs: usize,
    sizes: &[PoolSize],
    bounds: PoolBounds,
    table_bytes: &[Option<u64>],
    run_at: &(dyn Fn(usize, u64, &mut LoadProgress) -> Result<RunResult> + Sync),
) -> Result<Vec<Points>> {
    let mut todo: Vec<(usize, u64)> = Vec::new();
    for (i, t) in table_bytes.iter().enumerate() {
        let Some(t) = *t else { continue };
        let mut pools: Vec<u64> = sizes.iter().map(|s| s.bytes(t, bounds)).collect();
        pools.sort_unstable();
        pools.dedup();
        todo.extend(pools.into_iter().map(|p| (i, p)));
    }
    let mut points: Vec<Points> = vec![Points::default(); table_bytes.len()];
    let bars = Bars::new();
    parallel::run_ordered(
        jobs,
        todo.len(),
        &bars,
        // A smaller pool costs more page traffic; the table size decides most of it.
        |k| table_bytes[todo[k].0].unwrap_or(0),
        |k, progress| run_at(todo[k].0, todo[k].1, progress),
        |k, run: RunResult| {
            let (i, pool) = todo[k];
            if let Some(c) = cost(&run) {
                points[i].costs.push((pool, c));
            }
            if let Some(p) = run.phases.iter().find(|p| p.kind() == PhaseKind::Reads) {
                let table = table_bytes[i].unwrap_or(0);
                points[i].reads.push(curve_point(p, pool, table));
            }
            Ok(())
        },
    )
    .map_err(|(Failure::Job(e) | Failure::Sink(e))| e)?;
    for p in &mut points {
        p.costs.sort_by_key(|x| x.0);
    }
    Ok(points)
}

/// Puts each run's reads curve into its `reads` phase, with the pool `target` needs per
/// read spec (`keylab_core::fill_curve`: the same interpolation), so every format shows
/// misses per read against cache size as `compare --pool-sizes` does.
pub(super) fn fill_reads_curves(runs: &mut [RunResult], figures: &[WorkloadFigures], target: f64) {
    for (run, f) in runs.iter_mut().zip(figures) {
        if f.reads_curve.is_empty() {
            continue;
        }
        for p in &mut run.phases {
            if let PhaseResult::Reads(r) = p {
                fill_curve(r, f.reads_curve.clone(), target);
            }
        }
    }
}
