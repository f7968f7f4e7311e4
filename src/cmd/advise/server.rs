//! `keylab advise --engine mariadb|mysql|postgres`: one candidate on a private server,
//! created, loaded with the candidate's rows, measured and dropped. The server does not say
//! which page an insert went to, so the insert working set is `null`; no workload runs here
//! (refused before the server starts).

use super::rows::AdviseRows;
use super::{partitions, rows_of, run_result, Candidate, WorkingSet};
use crate::args::advise::AdviseArgs;
use anyhow::Result;
use keylab_core::{Engine, EngineError, LoadPlan, RunResult};

/// One candidate on a server: create, load, measure, drop (dropped on failure too).
pub(super) fn run_server(
    c: &Candidate,
    args: &AdviseArgs,
    engine: &mut dyn Engine,
) -> Result<(RunResult, WorkingSet)> {
    let plan = LoadPlan::default();
    engine.set_fill_factors(&c.fill_factors)?;
    engine.create_table(&c.table)?;
    let outcome = (|| {
        let gen = AdviseRows::new(&c.table, &c.plan, c.variant, args.seed);
        // A partitioned table: the rows that fit no partition are left out, as on the model.
        let mut routed = partitions::Routed::new(gen, &c.table, rows_of(args));
        let mut refused = None;
        let mut rows = std::iter::from_fn(|| {
            let mut row = Vec::new();
            match routed.fill(&mut row) {
                Ok(_) => Some(row),
                Err(e) => {
                    refused = Some(e);
                    None
                }
            }
        })
        .take(rows_of(args) as usize);
        let load = engine.load(&c.table, &plan, &mut rows, &mut |_| {})?;
        drop(rows);
        if let Some(e) = refused {
            return Err(EngineError::Rejected(e));
        }
        let m = engine.measure(&c.table)?;
        Ok::<_, EngineError>((load, m))
    })();
    let dropped = engine.drop_table(&c.table);
    let (load, m) = outcome?;
    dropped?;
    let mut lr = keylab_core::LoadResult::unmeasured(&plan);
    lr.wall_s = load.wall_s;
    lr.rows_per_s = load.wall_s.filter(|&s| s > 0.0).map(|s| load.rows as f64 / s);
    lr.verification = load.verification;
    let window = (rows_of(args) / 10).max(1);
    Ok((run_result(c, load.rows, m, lr), WorkingSet { pages: None, window }))
}
