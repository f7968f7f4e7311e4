//! The load, churn, rebuild and ddl phases on an engine: each runs its statements, measures
//! before and after, and records its figures (see the parent module for what each records).
//!
//! Not for: the order of the phases, the settings phase or queries (`execute.rs`), or
//! turning measurements into figures (`execute/figures.rs`).

use super::figures::{counters, point, pool_figures, shape, to_json};
use super::{not_applicable, partial, phase, State};
use crate::churn::{ChurnRound, LiveKeys};
use crate::plan::RunPlan;
use crate::rows::TableRows;
use keylab_core::{
    ChurnStyle, Engine, EngineError, LoadPlan, LoadResult, PhaseResult, Progress, Row,
};
use serde_json::{json, Map, Value as Json};

/// Runs each statement of a ddl phase (under `writers` concurrent writers when not 0) and
/// records one entry per statement, plus flat `{action}_{algorithm}_ms` figures.
pub(super) fn ddl_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    steps: &[keylab_core::DdlSpec],
    writers: u32,
) -> Result<PhaseResult, EngineError> {
    let mut done = Vec::new();
    let mut skipped = Vec::new();
    for step in steps {
        let label = format!(
            "{} {} {}",
            to_json(&step.action).as_str().unwrap_or("?"),
            step.column,
            to_json(&step.algorithm).as_str().unwrap_or("?")
        );
        let outcome = if writers == 0 {
            engine.ddl(run.table(), step)
        } else {
            // The writers take rows in order: the first `rows_inserted` made are the ones in
            // the table, and only their keys join the live keys (the rest are skipped ids).
            let mut made = Vec::new();
            let mut it = (&mut st.rows).inspect(|r| made.push(r.clone()));
            let out = engine.ddl_under_writes(run.table(), step, writers, &mut it);
            if let (Ok(o), Some(live)) = (&out, st.live.as_mut()) {
                let n = o.writers.as_ref().and_then(|w| w.rows_inserted).unwrap_or(0);
                for row in made.iter().take(n as usize) {
                    live.record(row);
                }
            }
            out
        };
        match outcome {
            Ok(o) => {
                st.stale = true;
                let w = o.writers.as_ref();
                done.push(json!({
                    "action": step.action, "column": step.column, "after": step.after,
                    "algorithm": step.algorithm, "lock": step.lock,
                    "supported": o.supported, "error_code": o.error_code,
                    "algorithm_used": o.algorithm_used, "lock_used": o.lock_used,
                    "wall_ms": o.wall_ms, "message": o.message,
                    "concurrent_writers": w.map(|w| w.writers),
                    "blocks_writers": w.and_then(|w| w.blocks_writers),
                    "writers_longest_stall_ms": w.and_then(|w| w.longest_stall_ms),
                    "rows_inserted_during_ddl": w.and_then(|w| w.rows_inserted_during),
                    "rows_inserted": w.and_then(|w| w.rows_inserted),
                }));
            }
            Err(EngineError::Unsupported(reason)) => skipped.push((label, reason)),
            Err(e) => return Err(e),
        }
    }
    let mut f = Map::new();
    let ran = !done.is_empty();
    if writers > 0 {
        f.insert("concurrent_writers".into(), writers.into());
    }
    for d in &done {
        // `add_column_instant_ms` (`add_column_copy_shared_ms` with a lock): one flat figure
        // per statement for tables, and the writers' longest stall beside it.
        let mut key = format!(
            "{}_{}",
            d["action"].as_str().unwrap_or("?"),
            d["algorithm"].as_str().unwrap_or("?")
        );
        if let Some(lock) = d["lock"].as_str() {
            key = format!("{key}_{lock}");
        }
        let ok = d["supported"] == Json::Bool(true);
        f.insert(format!("{key}_ms"), if ok { d["wall_ms"].clone() } else { Json::Null });
        if writers > 0 {
            let stall = if ok { d["writers_longest_stall_ms"].clone() } else { Json::Null };
            f.insert(format!("{key}_writers_stall_ms"), stall);
        }
    }
    f.insert("steps".into(), done.into());
    Ok(partial("ddl", ran, f, &skipped))
}

/// Rows of one load call, noting each row's key for later churn.
struct Recorded<'a> {
    rows: &'a mut TableRows,
    live: Option<&'a mut LiveKeys>,
    left: u64,
}

impl Iterator for Recorded<'_> {
    type Item = Row;
    fn next(&mut self) -> Option<Row> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let row = self.rows.next_row();
        if let Some(live) = self.live.as_deref_mut() {
            live.record(&row);
        }
        Some(row)
    }
}

pub(super) fn load_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    rows: u64,
    plan: &LoadPlan,
    sample_every: Option<u64>,
    progress: &mut dyn Progress,
) -> Result<(LoadResult, PhaseResult), EngineError> {
    let chunk = sample_every.unwrap_or(rows).max(1);
    let before = st.last.clone();
    let mut done = 0u64;
    let mut wall_s = Some(0.0);
    let mut latency = None;
    let mut first_batch_ms = None;
    let mut other_batch_p50_ms = None;
    let mut verification = None;
    let mut server_statement_ms = Some(0.0);
    let mut chunks = 0;
    let mut samples = Vec::new();
    progress.start(&run.label, rows);
    let outcome = (|| {
        while done < rows {
            let n = chunk.min(rows - done);
            let mut it = Recorded { rows: &mut st.rows, live: st.live.as_mut(), left: n };
            let out = engine.load(run.table(), plan, &mut it, &mut |k| progress.advance(k))?;
            done += n;
            chunks += 1;
            wall_s = wall_s.zip(out.wall_s).map(|(a, b)| a + b);
            server_statement_ms =
                server_statement_ms.zip(out.server_statement_ms).map(|(a, b)| a + b);
            latency = out.batch_latency_ms;
            // Each call checks the whole table, so the last check covers every chunk.
            verification = out.verification;
            if chunks == 1 {
                first_batch_ms = out.first_batch_ms;
                other_batch_p50_ms = out.other_batch_p50_ms;
            }
            if sample_every.is_some() {
                let m = engine.measure(run.table())?;
                let mut p = point(&before, &m);
                p.insert("rows".into(), done.into());
                p.insert("wall_s".into(), out.wall_s.into());
                samples.push(Json::Object(p));
                st.last = m;
            }
        }
        if sample_every.is_none() {
            st.last = engine.measure(run.table())?;
        }
        Ok::<(), EngineError>(())
    })();
    progress.finish();
    outcome?;
    // Percentiles of separate load calls cannot be combined: with samples, the overall
    // batch latency is left null (each call's own is not kept either).
    let batch_latency_ms = if chunks == 1 { latency } else { None };
    let rows_per_s = wall_s.filter(|&s| s > 0.0).map(|s| rows as f64 / s);
    let load = LoadResult {
        method: plan.method.token().to_string(),
        batch: plan.batch,
        writers: plan.writers,
        batch_max: plan.batch_max.filter(|_| plan.varies()),
        wall_s,
        rows_per_s,
        batch_latency_ms,
        first_batch_ms,
        other_batch_p50_ms,
        verification,
        server_statement_ms,
    };
    let mut f = Map::new();
    f.insert("status".into(), "ok".into());
    f.insert("rows".into(), rows.into());
    f.insert("method".into(), load.method.clone().into());
    f.insert("batch".into(), plan.batch.into());
    if plan.varies() {
        f.insert("batch_max".into(), plan.batch_max.into());
    }
    f.insert("writers".into(), plan.writers.into());
    f.insert("wall_s".into(), wall_s.into());
    f.insert("rows_per_s".into(), rows_per_s.into());
    f.insert("batch_latency_ms".into(), to_json(&batch_latency_ms));
    f.insert("first_batch_ms".into(), to_json(&load.first_batch_ms));
    if let Some(ms) = server_statement_ms {
        f.insert("server_statement_ms".into(), ms.into());
    }
    f.insert("other_batch_p50_ms".into(), to_json(&load.other_batch_p50_ms));
    counters(&mut f, &st.last.counters.since(&before.counters));
    pool_figures(&mut f, &before, &st.last);
    shape(&mut f, &st.last, "_after");
    if sample_every.is_some() {
        f.insert("sample_every".into(), chunk.into());
        f.insert("samples".into(), samples.into());
    }
    Ok((load, phase("load", f)))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn churn_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    (rounds, inserts, deletes, measure_every): (u32, u64, u64, u32),
    style: &ChurnStyle,
    progress: &mut dyn Progress,
) -> Result<PhaseResult, EngineError> {
    let before = st.last.clone();
    let mut prev = before.clone();
    let mut per_round = Vec::new();
    let live = st.live.as_mut().expect("live keys are kept when a plan churns");
    progress.start(&format!("{} churn", run.label), u64::from(rounds) * (inserts + deletes));
    let outcome = (|| {
        for round in 1..=rounds {
            let mut ops = ChurnRound::new(&mut st.rows, live, inserts, deletes);
            match engine.apply_styled(run.table(), style, &mut ops, &mut |n| progress.advance(n)) {
                Ok(()) => {}
                Err(EngineError::Unsupported(reason)) => return Ok(Some(reason)),
                Err(e) => return Err(e),
            }
            if round % measure_every == 0 || round == rounds {
                let m = engine.measure(run.table())?;
                let mut p = point(&prev, &m);
                p.insert("round".into(), round.into());
                p.insert("live_rows".into(), (live.len() as u64).into());
                per_round.push(Json::Object(p));
                prev = m;
            }
        }
        Ok(None)
    })();
    progress.finish();
    if let Some(reason) = outcome? {
        return Ok(not_applicable("churn", &reason));
    }
    st.last = prev;
    let mut f = Map::new();
    f.insert("status".into(), "ok".into());
    f.insert("rounds".into(), rounds.into());
    f.insert("inserts_per_round".into(), inserts.into());
    f.insert("deletes_per_round".into(), deletes.into());
    f.insert("measure_every".into(), measure_every.into());
    f.insert("insert_method".into(), to_json(&style.insert));
    f.insert("writers".into(), style.writers.into());
    f.insert("delete_method".into(), to_json(&style.delete));
    // Concurrent writers: the server applies the inserts in an order of its own; the
    // simulator (which has no connections) in keylab's.
    let order = if style.writers > 1 { "concurrent_writers" } else { "keylab" };
    f.insert("insert_order".into(), order.into());
    f.insert("live_rows".into(), (st.live.as_ref().map_or(0, |l| l.len()) as u64).into());
    counters(&mut f, &st.last.counters.since(&before.counters));
    pool_figures(&mut f, &before, &st.last);
    shape(&mut f, &before, "_before");
    shape(&mut f, &st.last, "_after");
    f.insert("per_round".into(), per_round.into());
    Ok(phase("churn", f))
}

pub(super) fn rebuild_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    fill_factor_pct: u8,
) -> Result<PhaseResult, EngineError> {
    match engine.rebuild(run.table(), fill_factor_pct) {
        Ok(()) => {}
        Err(EngineError::Unsupported(reason)) => return Ok(not_applicable("rebuild", &reason)),
        Err(e) => return Err(e),
    }
    let before = std::mem::replace(&mut st.last, engine.measure(run.table())?);
    let mut f = Map::new();
    f.insert("status".into(), "ok".into());
    f.insert("fill_factor_pct".into(), fill_factor_pct.into());
    counters(&mut f, &st.last.counters.since(&before.counters));
    pool_figures(&mut f, &before, &st.last);
    shape(&mut f, &before, "_before");
    shape(&mut f, &st.last, "_after");
    Ok(phase("rebuild", f))
}
