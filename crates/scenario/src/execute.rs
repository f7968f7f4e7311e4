//! Running one planned run on an engine: create the table, run the phases in order, measure,
//! drop. Every phase becomes a [`PhaseResult`]; a phase the engine cannot run
//! ([`EngineError::Unsupported`]) becomes `"status": "not_applicable"` with the engine's
//! reason, and the run goes on. Nothing is estimated here: every figure is the engine's.
//!
//! What each phase records (besides `kind` and `status`):
//! - `settings` (always first): the cell's coordinates, the settings asked for, and any
//!   asked-for engine variable the engine does not report applying (`not_applicable`).
//! - `load`: rows, method, batch, writers, `wall_s`, `rows_per_s`, counter deltas, the
//!   shape after, and `samples` (shape every `sample_every` rows) when asked.
//! - `churn`: per-round sizes, counter deltas, shape before and after, and `per_round`
//!   (counter deltas and PRIMARY pages every `measure_every` rounds).
//! - `rebuild`: fill factor, counter deltas, shape before and after.
//! - `queries`: the names run (timings go to the run's `queries`).
//! - `ddl`: one entry per statement (`steps`): its wall time, whether the engine accepted it
//!   (or its error number), the algorithm and lock asked for and used, and with
//!   `concurrent_writers` the writers' longest stall and rows inserted during it; flat
//!   `{action}_{algorithm}[_{lock}]_ms` and `..._writers_stall_ms` figures for tables.
//!
//! Where the engine gives buffer pool figures, load, churn (also per round) and rebuild
//! phases carry their deltas flat (`hit_ratio`, `misses_per_op`, `evictions`,
//! `change_buffer_*`, `est_io_s_*`, the last from the simulator's device model).
//!
//! The run's top-level `load` is its first load; `counters`, `table`, `indexes` and
//! `buffer_pool` are the table at the end of the run (cumulative since it was created).
//!
//! The load, churn, rebuild and ddl phases are in `execute/phase_runs.rs`, the figures
//! they record in `execute/figures.rs`.

mod figures;
mod phase_runs;

use self::figures::query_result;
use self::phase_runs::{churn_phase, ddl_phase, load_phase, rebuild_phase};
use crate::churn::LiveKeys;
use crate::plan::{PhasePlan, RunPlan};
use crate::rows::TableRows;
use keylab_core::{
    Counters, Engine, EngineError, LoadResult, Measurement, PhaseResult, Progress, RunResult,
};
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// Runs `run` on `engine` under `seed`: creates the table, runs every phase, measures and
/// drops the table (also when a phase fails, so a failed run leaves nothing behind).
pub fn execute(
    engine: &mut dyn Engine,
    run: &RunPlan,
    seed: u64,
    progress: &mut dyn Progress,
) -> Result<RunResult, EngineError> {
    engine.set_id_blocks(keylab_core::IdBlocks::of(run.variant, run.gen_config(seed).block));
    engine.create_table(run.table())?;
    let outcome = run_phases(engine, run, seed, progress);
    let dropped = engine.drop_table(run.table());
    let result = outcome?;
    dropped?;
    Ok(result)
}

/// The state carried from phase to phase.
struct State {
    rows: TableRows,
    live: Option<LiveKeys>,
    last: Measurement,
    /// True when the last measurement may be out of date (after DDL).
    stale: bool,
}

fn run_phases(
    engine: &mut dyn Engine,
    run: &RunPlan,
    seed: u64,
    progress: &mut dyn Progress,
) -> Result<RunResult, EngineError> {
    let needs_keys = run.phases.iter().any(|p| matches!(p, PhasePlan::Churn { .. }));
    let mut st = State {
        rows: TableRows::new(run, seed),
        live: needs_keys.then(|| LiveKeys::new(run.table().primary_key[0], seed)),
        last: empty_measurement(),
        stale: false,
    };
    let mut phases = vec![settings_phase(engine, run)];
    let mut queries = Vec::new();
    let mut first_load: Option<LoadResult> = None;
    let mut loaded = 0u64;
    for phase in &run.phases {
        let result = match phase {
            PhasePlan::Load { rows, plan, sample_every } => {
                let (load, result) =
                    load_phase(engine, run, &mut st, *rows, plan, *sample_every, progress)?;
                loaded += *rows;
                first_load.get_or_insert(load);
                result
            }
            PhasePlan::Churn { rounds, inserts, deletes, measure_every, style } => churn_phase(
                engine,
                run,
                &mut st,
                (*rounds, *inserts, *deletes, *measure_every),
                style,
                progress,
            )?,
            PhasePlan::Rebuild { fill_factor_pct } => {
                rebuild_phase(engine, run, &mut st, *fill_factor_pct)?
            }
            PhasePlan::Restart => match engine.restart() {
                Ok(()) => {
                    let mut f = Map::new();
                    f.insert("status".into(), "ok".into());
                    self::phase("restart", f)
                }
                Err(EngineError::Unsupported(reason)) => not_applicable("restart", &reason),
                Err(e) => return Err(e),
            },
            PhasePlan::Queries { runs, queries: list } => {
                let mut names = Vec::new();
                let mut skipped = Vec::new();
                for (name, spec) in list {
                    match engine.query(run.table(), spec, *runs) {
                        Ok(o) => {
                            queries.push(query_result(name, *runs, o));
                            names.push(name.clone());
                        }
                        Err(EngineError::Unsupported(reason)) => {
                            skipped.push((name.clone(), reason))
                        }
                        Err(e) => return Err(e),
                    }
                }
                let mut f = Map::new();
                f.insert("queries".into(), names.join(", ").into());
                partial("queries", !names.is_empty(), f, &skipped)
            }
            PhasePlan::Ddl { steps, concurrent_writers } => {
                ddl_phase(engine, run, &mut st, steps, *concurrent_writers)?
            }
        };
        phases.push(result);
    }
    if st.stale {
        st.last = engine.measure(run.table())?;
    }
    let load = first_load.expect("a plan starts with a load phase");
    Ok(RunResult {
        variant: run.variant.to_string(),
        strategy: run.variant.strategy.token().to_string(),
        encoding: run.variant.encoding.token().to_string(),
        placement: run.placement.to_string(),
        model: engine.info().model,
        rows: loaded,
        load,
        counters: st.last.counters,
        table: st.last.table,
        indexes: st.last.indexes,
        phases,
        queries,
        buffer_pool: st.last.buffer_pool,
        postgres: st.last.postgres,
        shards: st.last.shards,
    })
}

/// Counters at zero before the first row: deltas of the first load are its totals.
fn empty_measurement() -> Measurement {
    let zero = Some(0);
    Measurement {
        counters: Counters {
            page_splits: zero,
            merge_attempts: zero,
            merges: zero,
            page_reorgs: zero,
            page_discards: zero,
            pages_read: zero,
            pages_written: zero,
            page_requests: zero,
            io_write_requests: zero,
            io_write_bytes: zero,
            io_read_requests: zero,
            io_read_bytes: zero,
        },
        ..Measurement::default()
    }
}

fn phase(kind: &str, figures: Map<String, Json>) -> PhaseResult {
    PhaseResult { kind: kind.to_string(), figures: figures.into_iter().collect::<BTreeMap<_, _>>() }
}

/// A phase the engine cannot run, with its reason.
pub(crate) fn not_applicable(kind: &str, reason: &str) -> PhaseResult {
    let mut f = Map::new();
    f.insert("status".into(), "not_applicable".into());
    f.insert("reason".into(), reason.into());
    phase(kind, f)
}

/// A phase of several statements: `ok` with the figures of what ran (and, as text, what the
/// engine refused), or not applicable when it ran none.
fn partial(
    kind: &str,
    ran: bool,
    mut f: Map<String, Json>,
    skipped: &[(String, String)],
) -> PhaseResult {
    if !ran {
        let reason = skipped.first().map_or("nothing to run", |s| s.1.as_str());
        return not_applicable(kind, reason);
    }
    f.insert("status".into(), "ok".into());
    if !skipped.is_empty() {
        let list: Vec<String> =
            skipped.iter().map(|(what, why)| format!("{what}: {why}")).collect();
        f.insert("not_applicable".into(), list.join("; ").into());
    }
    phase(kind, f)
}

fn settings_phase(engine: &dyn Engine, run: &RunPlan) -> PhaseResult {
    let info = engine.info();
    let s = &run.settings;
    let mut f = Map::new();
    f.insert("status".into(), "ok".into());
    for (k, v) in &run.cell {
        f.insert(format!("cell_{k}"), v.clone().into());
    }
    // PostgreSQL engines report their fixed `block_size` (8 KiB); the plan's page size is
    // InnoDB's setting and does not apply to them.
    let page_size = info.settings.get("block_size").and_then(Json::as_u64);
    f.insert("page_size_bytes".into(), page_size.unwrap_or(s.page_size_bytes.into()).into());
    f.insert("buffer_pool_bytes".into(), s.buffer_pool_bytes.into());
    f.insert("fill_factor_pct".into(), s.fill_factor_pct.into());
    f.insert("merge_threshold_pct".into(), s.merge_threshold_pct.into());
    f.insert("change_buffering".into(), s.change_buffering.into());
    if let Some(on) = s.performance_schema {
        f.insert("performance_schema".into(), on.into());
    }
    if let Some(mode) = s.autoinc_lock_mode {
        f.insert("autoinc_lock_mode".into(), mode.into());
    }
    if let Some(n) = s.shards {
        f.insert("shards".into(), n.into());
        let rule = s.sharding.unwrap_or(keylab_core::Sharding::Range);
        f.insert("sharding".into(), rule.token().into());
    }
    let missing: Vec<String> = run
        .requested
        .iter()
        .filter_map(|var| {
            let got = info.settings.get(*var);
            let applied = match (*var, got) {
                // A number is the pool the engine runs with (servers round to their chunk).
                ("innodb_buffer_pool_size", Some(v)) => v.is_number(),
                ("innodb_change_buffering", Some(v)) => {
                    let want = if s.change_buffering == Some(true) { "all" } else { "none" };
                    v.as_str().is_some_and(|g| g.eq_ignore_ascii_case(want))
                }
                ("performance_schema", Some(v)) => {
                    let want = if s.performance_schema == Some(true) { "ON" } else { "OFF" };
                    v.as_str().is_some_and(|g| g.eq_ignore_ascii_case(want))
                }
                ("innodb_autoinc_lock_mode", Some(v)) => {
                    v.as_u64() == s.autoinc_lock_mode.map(u64::from)
                }
                _ => false,
            };
            let shown = got.map_or_else(|| "nothing".to_string(), |v| v.to_string());
            (!applied).then(|| format!("{var} (the engine reports {shown})"))
        })
        .collect();
    if !missing.is_empty() {
        f.insert("not_applicable".into(), missing.join("; ").into());
        f.insert(
            "reason".into(),
            format!(
                "the {} engine does not apply these settings; figures that depend on them are \
                 not modelled",
                info.kind
            )
            .into(),
        );
    }
    if let Some(diffs) = info.settings.get("not_applied") {
        f.insert("engine_not_applied".into(), diffs.clone());
    }
    phase("settings", f)
}
