//! The `reads` and `mixed` phases of a scenario run: the rows every load (and mixed phase)
//! inserted are kept in a [`ReadSource`] (only the columns reads need), and each phase hands
//! its operations to [`Engine::work`] through keylab-core's phase runners. A read kind the
//! run's table cannot serve (no secondary index, no index on a time column) is that spec's
//! `not_applicable`, with the reason; an engine that cannot read gives `not_applicable` too.
//! Rows churn and DDL writers insert are not kept (churn deletes rows the source would still
//! name), so later reads pick among the loads' and mixed phases' rows only.
//!
//! Not for: the order of phases (`execute.rs`) or the figures' meaning
//! (`keylab_core::ReadsPhase`).

use super::State;
use crate::plan::{PhasePlan, RunPlan};
use keylab_core::{
    Engine, EngineError, Figure, MixSpec, PhaseKind, PhaseResult, PhaseStatus, Progress,
    ReadFigures, ReadKind, ReadSource, ReadSpec, ReadsPhase,
};

/// The kinds the plan's reads and mixed phases use.
fn kinds(run: &RunPlan) -> Vec<ReadKind> {
    let mut out = Vec::new();
    for p in &run.phases {
        match p {
            PhasePlan::Reads { specs } => out.extend(specs.iter().map(|s| s.kind)),
            PhasePlan::Mixed { mix } => out.push(mix.kind),
            _ => {}
        }
    }
    out
}

/// A source for the kinds of `run` its table can serve; `None` when the run reads nothing.
pub(super) fn source(run: &RunPlan) -> Option<ReadSource> {
    let all = kinds(run);
    if all.is_empty() {
        return None;
    }
    let served: Vec<ReadKind> =
        all.into_iter().filter(|k| ReadSource::new(run.table(), &[*k]).is_ok()).collect();
    // Point reads need only a primary key; a table without one reads nothing.
    ReadSource::new(run.table(), &served).ok()
}

/// Why `run`'s table cannot serve `kind`, if it cannot.
fn refusal(run: &RunPlan, kind: ReadKind) -> Option<String> {
    ReadSource::new(run.table(), &[kind]).err()
}

pub(super) fn reads_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    specs: &[ReadSpec],
    seed: u64,
    progress: &mut dyn Progress,
) -> Result<PhaseResult, EngineError> {
    let mut out = Vec::new();
    for spec in specs {
        let refused = refusal(run, spec.kind).or_else(|| {
            st.reads.is_none().then(|| "the table has no primary key to read by".to_string())
        });
        if let Some(why) = refused {
            out.push(ReadFigures::refused(&spec.to_string(), &why));
            continue;
        }
        let source = st.reads.as_ref().expect("a source when the kind is served");
        let one = std::slice::from_ref(spec);
        let p =
            keylab_core::reads_phase(engine, run.table(), source, one, seed, &run.label, progress)?;
        if let PhaseResult::Reads(r) = p {
            out.extend(r.specs.get().cloned().unwrap_or_default());
        }
    }
    let status = if out.iter().any(ReadFigures::applicable) {
        PhaseStatus::Ok
    } else {
        PhaseStatus::NotApplicable
    };
    let reason = match status {
        PhaseStatus::NotApplicable => Figure::of(out.iter().find_map(|f| f.reason.get().cloned())),
        PhaseStatus::Ok => Figure::Absent,
    };
    Ok(PhaseResult::Reads(ReadsPhase {
        status: Figure::Value(status),
        reason,
        specs: Figure::Value(out),
        ..ReadsPhase::default()
    }))
}

pub(super) fn mixed_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    mix: &MixSpec,
    seed: u64,
    progress: &mut dyn Progress,
) -> Result<PhaseResult, EngineError> {
    let refused = refusal(run, mix.kind)
        .or_else(|| st.reads.is_none().then(|| "the table has no primary key".to_string()));
    if let Some(why) = refused {
        return Ok(PhaseResult::not_applicable(PhaseKind::Mixed, &why));
    }
    let source = st.reads.as_mut().expect("a source when the kind is served");
    // The phase's new rows join the live keys too, for a later churn.
    let live = &mut st.live;
    let mut rows = (&mut st.rows).inspect(|r| {
        if let Some(l) = live.as_mut() {
            l.record(r);
        }
    });
    let p = keylab_core::mixed_phase(
        engine,
        run.table(),
        source,
        &mut rows,
        mix,
        seed,
        &run.label,
        progress,
    )?;
    if p.applicable() {
        st.stale = true;
    }
    Ok(p)
}
