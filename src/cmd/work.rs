//! `compare`'s `--reads`, `--mix` and reads curve: the checks against the run before any
//! engine starts (each variant's table must have what the read kinds go through, a mixed
//! workload needs new rows, not a `--keys-file` replay; the curve needs `--reads` and the
//! simulator; bad input exits 2 naming the flag), and the curve's runs: one more table per
//! run and pool size, on the `--jobs` threads, their misses per 1,000 reads put into the
//! run's reads phase with the pool the `--hit-target` needs.
//!
//! Not for: parsing the specs (`args/work.rs`) or running them (`keylab_core::WorkPlan`).

use crate::args::CompareArgs;
use crate::parallel;
use crate::progress::{Bars, LoadProgress};
use crate::UsageError;
use keylab_core::{
    curve_point, fill_curve, EngineKind, PhaseKind, PhaseResult, PoolSize, ReadSource, Report,
    RunResult, WorkPlan,
};
use keylab_keys::Variant;
use keylab_schema::Table;

/// Refuses reads a variant's table cannot serve, and `--mix` with `--keys-file`.
pub fn check_work(
    work: &WorkPlan,
    args: &CompareArgs,
    table_of: &dyn Fn(&Variant) -> Table,
) -> Result<(), UsageError> {
    if work.mix.is_some() && args.keys_file.is_some() {
        return Err(UsageError(
            "--mix inserts new rows, and --keys-file holds only the ids of the load; leave out \
             one of them"
                .into(),
        ));
    }
    let kinds = |flag: &str, kinds: Vec<keylab_core::ReadKind>| {
        for variant in &args.keys {
            if let Err(why) = ReadSource::new(&table_of(variant), &kinds) {
                let hint = if args.placement == keylab_core::Placement::Pk {
                    " (--placement secondary puts the id in a secondary index)"
                } else {
                    ""
                };
                return Err(UsageError(format!("{flag}: {why}{hint}")));
            }
        }
        Ok(())
    };
    kinds("--reads", work.reads.iter().map(|r| r.kind).collect())?;
    kinds("--mix", work.mix.iter().map(|m| m.kind).collect())?;
    if args.work.curve().is_some() {
        let flag = if args.work.pool_sizes.is_empty() { "--hit-target" } else { "--pool-sizes" };
        if work.reads.is_empty() {
            return Err(UsageError(format!(
                "{flag} draws the curve of --reads against cache size; give --reads too"
            )));
        }
        if args.engine.engine != EngineKind::Sim {
            return Err(UsageError(format!(
                "{flag} applies to the simulator only (--engine sim): one more table per pool \
                 size, which a server would need a restart per size for"
            )));
        }
    }
    Ok(())
}

/// The reads curve asked for: pool sizes, the target hit ratio (0..1), the smallest pool the
/// server starts with, and the simulator jobs at once.
pub struct Curve<'a> {
    /// Pool sizes.
    pub sizes: &'a [PoolSize],
    /// Target hit ratio, 0..1.
    pub target: f64,
    /// The smallest pool (a share of a small table is raised to it) and what the server
    /// keeps of any pool (a share comes on top).
    pub bounds: keylab_core::PoolBounds,
    /// Simulator runs at once.
    pub jobs: usize,
}

/// Runs `run_at(run, pool_bytes)` for every run of `report` with a reads phase and every
/// pool size of `curve` (sizes as shares of that run's table), on `curve.jobs` threads, and
/// puts each run's curve and the pool its target needs into its reads phase.
pub fn reads_curve(
    report: &mut Report,
    curve: &Curve,
    bars: &Bars,
    run_at: &(dyn Fn(usize, u64, &mut LoadProgress) -> anyhow::Result<RunResult> + Sync),
) -> anyhow::Result<()> {
    let reads_at = |r: &RunResult| r.phases.iter().position(|p| p.kind() == PhaseKind::Reads);
    // (run, pool bytes, table bytes), for every run that read.
    let mut jobs: Vec<(usize, u64, u64)> = Vec::new();
    for (i, r) in report.runs.iter().enumerate() {
        if reads_at(r).is_none() {
            continue;
        }
        let table =
            r.table.data_length.unwrap_or(0).saturating_add(r.table.index_length.unwrap_or(0));
        let mut pools: Vec<u64> =
            curve.sizes.iter().map(|s| s.bytes(table, curve.bounds)).collect();
        pools.sort_unstable();
        pools.dedup();
        jobs.extend(pools.into_iter().map(|p| (i, p, table)));
    }
    let mut points: Vec<Vec<keylab_core::ReadCurvePoint>> = vec![Vec::new(); report.runs.len()];
    let outcome = parallel::run_ordered(
        curve.jobs,
        jobs.len(),
        bars,
        |k| jobs[k].1,
        |k, progress| run_at(jobs[k].0, jobs[k].1, progress),
        |k, run: RunResult| {
            let (i, pool, table) = jobs[k];
            if let Some(p) = reads_at(&run).map(|at| &run.phases[at]) {
                points[i].push(curve_point(p, pool, table));
            }
            Ok(())
        },
    );
    match outcome {
        Ok(()) => {}
        Err(parallel::Failure::Job(e) | parallel::Failure::Sink(e)) => return Err(e),
    }
    for (run, pts) in report.runs.iter_mut().zip(points) {
        let Some(at) = reads_at(run) else { continue };
        if let PhaseResult::Reads(phase) = &mut run.phases[at] {
            fill_curve(phase, pts, curve.target);
        }
    }
    Ok(())
}
