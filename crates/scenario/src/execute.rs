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
//! - `reads`: one entry per read spec (`execute/work.rs`): reads, rows, page requests per
//!   read, misses per 1,000 reads, pages written, each index's working set, server time.
//! - `mixed`: the same per operation, over inserts and reads interleaved.
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

#[cfg(test)]
mod autoinc_tests;
mod figures;
mod phase_runs;
mod timed;
mod work;
#[cfg(test)]
mod work_tests;

use self::figures::query_result;
use self::phase_runs::{churn_phase, ddl_phase, load_phase, rebuild_phase};
use crate::churn::LiveKeys;
use crate::plan::{PhasePlan, RunPlan};
use crate::rows::TableRows;
use keylab_core::{
    Counters, Engine, EngineError, Figure, LoadResult, Measurement, PhaseKind, PhaseResult,
    PhaseStatus, Progress, QueriesPhase, RestartPhase, RunResult, SettingsPhase,
};
use serde_json::Value as Json;

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
    /// True when the last measurement may be out of date (after DDL, a mixed phase).
    stale: bool,
    /// The rows reads pick from (when the run has a reads or mixed phase).
    reads: Option<keylab_core::ReadSource>,
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
        reads: self::work::source(run),
    };
    let mut phases = vec![settings_phase(engine, run)];
    let mut queries: Vec<keylab_core::QueryResult> = Vec::new();
    let mut first_load: Option<LoadResult> = None;
    let mut loaded = 0u64;
    for phase in &run.phases {
        let result = match phase {
            PhasePlan::Load { rows, plan, sample_every } => {
                let (load, result) =
                    load_phase(engine, run, &mut st, *rows, plan, *sample_every, progress)?;
                if result.status() != Some(PhaseStatus::NotApplicable) {
                    loaded += *rows;
                }
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
                Ok(()) => PhaseResult::Restart(RestartPhase {
                    status: Figure::Value(PhaseStatus::Ok),
                    ..RestartPhase::default()
                }),
                Err(EngineError::Unsupported(reason)) => {
                    PhaseResult::not_applicable(PhaseKind::Restart, &reason)
                }
                Err(e) => return Err(e),
            },
            PhasePlan::Queries { runs, queries: list } => {
                let mut names = Vec::new();
                let mut skipped = Vec::new();
                for (name, spec) in list {
                    // A second queries phase's `point` is `point_2`, so the report's table
                    // (one row per name) keeps both.
                    let seen = queries
                        .iter()
                        .filter(|q| q.name == *name || q.name.starts_with(&format!("{name}_")))
                        .count();
                    let name =
                        if seen == 0 { name.clone() } else { format!("{name}_{}", seen + 1) };
                    match engine.query(run.table(), spec, *runs) {
                        Ok(o) => {
                            queries.push(query_result(&name, *runs, o));
                            names.push(name);
                        }
                        Err(EngineError::Unsupported(reason)) => {
                            skipped.push((name.clone(), reason))
                        }
                        Err(e) => return Err(e),
                    }
                }
                if names.is_empty() {
                    not_run(PhaseKind::Queries, &skipped)
                } else {
                    PhaseResult::Queries(QueriesPhase {
                        status: Figure::Value(PhaseStatus::Ok),
                        queries: Figure::Value(names.join(", ")),
                        not_applicable: refused(&skipped),
                        ..QueriesPhase::default()
                    })
                }
            }
            PhasePlan::Ddl { steps, concurrent_writers } => {
                ddl_phase(engine, run, &mut st, steps, *concurrent_writers)?
            }
            PhasePlan::Reads { specs } => {
                self::work::reads_phase(engine, run, &mut st, specs, seed, progress)?
            }
            PhasePlan::Mixed { mix } => {
                self::work::mixed_phase(engine, run, &mut st, mix, seed, progress)?
            }
            PhasePlan::Timed { plan, max_rows } => {
                self::timed::timed_phase(engine, run, &mut st, plan, *max_rows)?
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
        repeats: None,
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

/// A phase of several statements none of which the engine ran: not applicable, with the
/// first refusal's reason.
fn not_run(kind: PhaseKind, skipped: &[(String, String)]) -> PhaseResult {
    let reason = skipped.first().map_or("nothing to run", |s| s.1.as_str());
    PhaseResult::not_applicable(kind, reason)
}

/// The statements of a phase the engine refused, as text (absent when it ran them all).
fn refused(skipped: &[(String, String)]) -> Figure<String> {
    if skipped.is_empty() {
        return Figure::Absent;
    }
    let list: Vec<String> = skipped.iter().map(|(what, why)| format!("{what}: {why}")).collect();
    Figure::Value(list.join("; "))
}

fn settings_phase(engine: &dyn Engine, run: &RunPlan) -> PhaseResult {
    let info = engine.info();
    let s = &run.settings;
    let mut f = SettingsPhase {
        status: Figure::Value(PhaseStatus::Ok),
        cell: run.cell.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        ..SettingsPhase::default()
    };
    // PostgreSQL engines report their fixed `block_size` (8 KiB); the plan's page size is
    // InnoDB's setting and does not apply to them.
    let page_size = info.settings.get("block_size").and_then(Json::as_u64);
    f.page_size_bytes = Figure::Value(page_size.unwrap_or(s.page_size_bytes.into()));
    f.buffer_pool_bytes = Figure::of(s.buffer_pool_bytes);
    f.fill_factor_pct = Figure::of(Some(s.fill_factor_pct.into()));
    f.merge_threshold_pct = Figure::of(Some(s.merge_threshold_pct.into()));
    f.change_buffering = Figure::of(s.change_buffering);
    f.performance_schema = Figure::present(s.performance_schema);
    f.autoinc_lock_mode = Figure::present(s.autoinc_lock_mode.map(u64::from));
    if let Some(n) = s.shards {
        f.shards = Figure::Value(n.into());
        let rule = s.sharding.unwrap_or(keylab_core::Sharding::Range);
        f.sharding = Figure::Value(rule.token().to_string());
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
        f.not_applicable = Figure::Value(missing.join("; "));
        f.reason = Figure::Value(format!(
            "the {} engine does not apply these settings; figures that depend on them are not \
             modelled",
            info.kind
        ));
    }
    if let Some(diffs) = info.settings.get("not_applied") {
        f.engine_not_applied = Figure::of(serde_json::from_value(diffs.clone()).ok());
    }
    PhaseResult::Settings(f)
}
