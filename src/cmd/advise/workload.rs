//! `advise --workload`: reads per candidate on the simulator (issue 28). The rows a
//! candidate's load inserts are kept (only the columns reads need), and after its
//! measurement the reads run through [`Engine::work`]; the
//! candidate's run then carries a `reads` phase, which the report shows side by side (page
//! requests per read, each index's working set; misses need a bounded pool, which advise
//! does not set, so they are `null`). A read kind a candidate's table cannot serve is that
//! spec's `not_applicable` with the reason.
//!
//! Not for: weighing reads in the recommendation (not done yet), partitioned tables or
//! servers (their candidates carry no reads phase).

use super::Candidate;
use crate::args::advise::AdviseArgs;
use anyhow::Result;
use keylab_core::{
    Engine, Figure, PhaseResult, PhaseStatus, Progress, ReadFigures, ReadSource, ReadsPhase, Row,
    RunResult,
};
use keylab_schema::Table;

/// A source for the workload's read kinds the table can serve; `None` without a workload.
pub(super) fn source(table: &Table, args: &AdviseArgs) -> Option<ReadSource> {
    if args.workload.is_empty() {
        return None;
    }
    let served: Vec<_> = args
        .workload
        .iter()
        .map(|s| s.kind)
        .filter(|k| ReadSource::new(table, &[*k]).is_ok())
        .collect();
    ReadSource::new(table, &served).ok()
}

/// Notes a batch of rows loaded.
pub(super) fn record(source: Option<&mut ReadSource>, rows: &[Row]) {
    if let Some(s) = source {
        for r in rows {
            s.record(r);
        }
    }
}

/// Runs the workload's reads on `engine` and adds the `reads` phase to `run`.
pub(super) fn read(
    engine: &mut dyn Engine,
    table: &Table,
    source: Option<&ReadSource>,
    args: &AdviseArgs,
    c: &Candidate,
    run: &mut RunResult,
    progress: &mut dyn Progress,
) -> Result<()> {
    if args.workload.is_empty() {
        return Ok(());
    }
    let mut specs = Vec::new();
    for spec in &args.workload {
        let refused = ReadSource::new(table, &[spec.kind]).err();
        match (refused, source) {
            (None, Some(src)) => {
                let one = std::slice::from_ref(spec);
                let label = c.progress_label();
                let p =
                    keylab_core::reads_phase(engine, table, src, one, args.seed, &label, progress)?;
                if let PhaseResult::Reads(r) = p {
                    specs.extend(r.specs.get().cloned().unwrap_or_default());
                }
            }
            (why, _) => specs.push(ReadFigures::refused(
                &spec.to_string(),
                &why.unwrap_or_else(|| "the table has no primary key to read by".into()),
            )),
        }
    }
    let ok = specs.iter().any(ReadFigures::applicable);
    run.phases.push(PhaseResult::Reads(ReadsPhase {
        status: Figure::Value(if ok { PhaseStatus::Ok } else { PhaseStatus::NotApplicable }),
        reason: if ok {
            Figure::Absent
        } else {
            Figure::of(specs.iter().find_map(|f| f.reason.get().cloned()))
        },
        specs: Figure::Value(specs),
        ..ReadsPhase::default()
    }));
    Ok(())
}
