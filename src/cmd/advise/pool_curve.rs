//! `advise --workload`'s curve of pool sizes: every built candidate loaded and its workload
//! run again under each pool size (`--pool-sizes`, shares of that candidate's table or
//! bytes, raised to the smallest pool the server starts with), on the `--jobs` threads, the
//! costliest first; each run's workload cost kept as one point of that candidate's curve.
//!
//! Not for: reading the pool a target needs off the curve (`weigh.rs`), or servers (one
//! restart per size; advise refuses --workload there).

use super::workload::{cost, WorkloadCost};
use crate::parallel::{self, Failure};
use crate::progress::{Bars, LoadProgress};
use anyhow::Result;
use keylab_core::{PoolSize, RunResult};

/// Per candidate, its points (pool bytes, workload cost), smallest pool first: one run of
/// `run_at(candidate, pool_bytes)` per candidate with a table size in `table_bytes` and per
/// size of `sizes`; candidates without one (not built, failed) get none.
pub(super) fn run_curve(
    jobs: usize,
    sizes: &[PoolSize],
    floor: u64,
    table_bytes: &[Option<u64>],
    run_at: &(dyn Fn(usize, u64, &mut LoadProgress) -> Result<RunResult> + Sync),
) -> Result<Vec<Vec<(u64, WorkloadCost)>>> {
    let mut todo: Vec<(usize, u64)> = Vec::new();
    for (i, t) in table_bytes.iter().enumerate() {
        let Some(t) = *t else { continue };
        let mut pools: Vec<u64> = sizes.iter().map(|s| s.bytes(t, floor)).collect();
        pools.sort_unstable();
        pools.dedup();
        todo.extend(pools.into_iter().map(|p| (i, p)));
    }
    let mut points: Vec<Vec<(u64, WorkloadCost)>> = vec![Vec::new(); table_bytes.len()];
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
                points[i].push((pool, c));
            }
            Ok(())
        },
    )
    .map_err(|(Failure::Job(e) | Failure::Sink(e))| e)?;
    for p in &mut points {
        p.sort_by_key(|x| x.0);
    }
    Ok(points)
}
