//! The load, churn, rebuild and ddl phases on an engine: each runs its statements, measures
//! before and after, and records its figures (see the parent module for what each records).
//!
//! Not for: the order of the phases, the settings phase or queries (`execute.rs`), or
//! turning measurements into figures (`execute/figures.rs`).

use super::figures::{counters, point, pool_figures, shape};
use super::{not_run, refused, State};
use crate::churn::{ChurnRound, LiveKeys};
use crate::plan::RunPlan;
use crate::rows::TableRows;
use keylab_core::{
    ChurnPhase, ChurnStyle, DdlPhase, DdlStep, Engine, EngineError, Figure, LoadPhase, LoadPlan,
    LoadResult, PhaseKind, PhaseResult, PhaseStatus, Progress, RebuildPhase, Row, SeriesPoint,
};

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
        let label = format!("{} {} {}", token(&step.action), step.column, token(&step.algorithm));
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
                done.push(DdlStep {
                    action: Figure::Value(step.action),
                    column: Figure::Value(step.column.clone()),
                    after: Figure::of(step.after.clone()),
                    algorithm: Figure::Value(step.algorithm),
                    lock: Figure::of(step.lock),
                    supported: Figure::Value(o.supported),
                    error_code: Figure::of(o.error_code.map(u64::from)),
                    algorithm_used: Figure::of(o.algorithm_used),
                    lock_used: Figure::of(o.lock_used),
                    wall_ms: Figure::of(o.wall_ms),
                    message: Figure::of(o.message),
                    concurrent_writers: Figure::of(w.map(|w| u64::from(w.writers))),
                    blocks_writers: Figure::of(w.and_then(|w| w.blocks_writers)),
                    writers_longest_stall_ms: Figure::of(w.and_then(|w| w.longest_stall_ms)),
                    rows_inserted_during_ddl: Figure::of(w.and_then(|w| w.rows_inserted_during)),
                    rows_inserted: Figure::of(w.and_then(|w| w.rows_inserted)),
                });
            }
            Err(EngineError::Unsupported(reason)) => skipped.push((label, reason)),
            Err(e) => return Err(e),
        }
    }
    if done.is_empty() {
        return Ok(not_run(PhaseKind::Ddl, &skipped));
    }
    let mut f = DdlPhase {
        status: Figure::Value(PhaseStatus::Ok),
        not_applicable: refused(&skipped),
        ..DdlPhase::default()
    };
    if writers > 0 {
        f.concurrent_writers = Figure::Value(writers.into());
    }
    for d in &done {
        // `add_column_instant_ms` (`add_column_copy_shared_ms` with a lock): one flat figure
        // per statement for tables, and the writers' longest stall beside it.
        let action = d.action.get().map_or_else(|| "?".to_string(), token);
        let algorithm = d.algorithm.get().map_or_else(|| "?".to_string(), token);
        let mut key = format!("{action}_{algorithm}");
        if let Some(lock) = d.lock.get() {
            key = format!("{key}_{}", token(lock));
        }
        let ok = d.supported.value() == Some(true);
        f.statement_ms.insert(key.clone(), d.wall_ms.value().filter(|_| ok));
        if writers > 0 {
            let stall = d.writers_longest_stall_ms.value().filter(|_| ok);
            f.writers_stall_ms.insert(key, stall);
        }
    }
    f.steps = Figure::Value(done);
    Ok(PhaseResult::Ddl(f))
}

/// The JSON token of a ddl action, algorithm or lock (`add_column`, `instant`, `shared`).
fn token<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "?".to_string(),
    }
}

/// Rows of one load call, noting each row's key for later churn.
struct Recorded<'a> {
    rows: &'a mut TableRows,
    live: Option<&'a mut LiveKeys>,
    /// The rows later reads pick from.
    reads: Option<&'a mut keylab_core::ReadSource>,
    left: u64,
    /// `Some(batch)` when each statement of `batch` rows (the call's last one: what is
    /// left) loses the unused end of its reserved `AUTO_INCREMENT` values.
    bulk_batch: Option<u64>,
    /// Rows of the current statement so far.
    in_statement: u64,
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
        if let Some(reads) = self.reads.as_deref_mut() {
            reads.record(&row);
        }
        if let Some(batch) = self.bulk_batch {
            self.in_statement += 1;
            if self.in_statement == batch || self.left == 0 {
                let used = std::mem::take(&mut self.in_statement);
                self.rows.skip_auto_values(keylab_core::bulk_autoinc_reserved(used) - used);
            }
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
    // A `LOAD DATA` statement's rows (a fixed batch: sizes vary for INSERTs only) into a
    // server-numbered key leave the counter past the block it reserved last.
    let bulk_batch = (plan.method == keylab_core::LoadMethod::LoadData
        && run.table().auto_increment
        && engine.bulk_autoinc_gaps())
    .then_some(u64::from(plan.batch.max(1)));
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
            let mut it = Recorded {
                rows: &mut st.rows,
                live: st.live.as_mut(),
                reads: st.reads.as_mut(),
                left: n,
                bulk_batch,
                in_statement: 0,
            };
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
                // The last chunk's is the phase's measurement, the others only samples.
                let m = if done < rows {
                    engine.sample(run.table())?
                } else {
                    engine.measure(run.table())?
                };
                samples.push(SeriesPoint {
                    rows: Figure::Value(done),
                    wall_s: Figure::of(out.wall_s),
                    ..point(&before, &m)
                });
                st.last = m;
            }
        }
        if sample_every.is_none() {
            st.last = engine.measure(run.table())?;
        }
        Ok::<(), EngineError>(())
    })();
    progress.finish();
    if let (Err(EngineError::Unsupported(reason)), 0) = (&outcome, done) {
        // The engine loads no row into this table (the InnoDB model and ROW_FORMAT=COMPRESSED):
        // the load is not applicable and the run goes on, on the empty table.
        let load = LoadResult::unmeasured(plan);
        return Ok((load, PhaseResult::not_applicable(PhaseKind::Load, reason)));
    }
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
    let sampled = sample_every.is_some();
    let f = LoadPhase {
        status: Figure::Value(PhaseStatus::Ok),
        rows: Figure::Value(rows),
        method: Figure::Value(load.method.clone()),
        batch: Figure::Value(plan.batch.into()),
        batch_max: if plan.varies() {
            Figure::of(plan.batch_max.map(u64::from))
        } else {
            Figure::Absent
        },
        writers: Figure::Value(plan.writers.into()),
        wall_s: Figure::of(wall_s),
        rows_per_s: Figure::of(rows_per_s),
        batch_latency_ms: Figure::of(batch_latency_ms),
        first_batch_ms: Figure::of(load.first_batch_ms.clone()),
        server_statement_ms: Figure::present(server_statement_ms),
        other_batch_p50_ms: Figure::of(load.other_batch_p50_ms.clone()),
        counters: counters(&before, &st.last),
        pool: pool_figures(&before, &st.last),
        after: shape(&st.last),
        sample_every: if sampled { Figure::Value(chunk) } else { Figure::Absent },
        samples: if sampled { Figure::Value(samples) } else { Figure::Absent },
        ..LoadPhase::default()
    };
    Ok((load, PhaseResult::Load(f)))
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
                per_round.push(SeriesPoint {
                    round: Figure::Value(round.into()),
                    live_rows: Figure::Value(live.len() as u64),
                    ..point(&prev, &m)
                });
                prev = m;
            }
        }
        Ok(None)
    })();
    progress.finish();
    if let Some(reason) = outcome? {
        return Ok(PhaseResult::not_applicable(PhaseKind::Churn, &reason));
    }
    st.last = prev;
    // Concurrent writers: the server applies the inserts in an order of its own; the
    // simulator (which has no connections) in keylab's.
    let order = if style.writers > 1 { "concurrent_writers" } else { "keylab" };
    Ok(PhaseResult::Churn(ChurnPhase {
        status: Figure::Value(PhaseStatus::Ok),
        rounds: Figure::Value(rounds.into()),
        inserts_per_round: Figure::Value(inserts),
        deletes_per_round: Figure::Value(deletes),
        measure_every: Figure::Value(measure_every.into()),
        insert_method: Figure::Value(token(&style.insert)),
        writers: Figure::Value(style.writers.into()),
        delete_method: Figure::Value(token(&style.delete)),
        insert_order: Figure::Value(order.to_string()),
        live_rows: Figure::Value(st.live.as_ref().map_or(0, |l| l.len()) as u64),
        counters: counters(&before, &st.last),
        pool: pool_figures(&before, &st.last),
        before: shape(&before),
        after: shape(&st.last),
        per_round: Figure::Value(per_round),
        ..ChurnPhase::default()
    }))
}

pub(super) fn rebuild_phase(
    engine: &mut dyn Engine,
    run: &RunPlan,
    st: &mut State,
    fill_factor_pct: u8,
) -> Result<PhaseResult, EngineError> {
    match engine.rebuild(run.table(), fill_factor_pct) {
        Ok(()) => {}
        Err(EngineError::Unsupported(reason)) => {
            return Ok(PhaseResult::not_applicable(PhaseKind::Rebuild, &reason))
        }
        Err(e) => return Err(e),
    }
    let before = std::mem::replace(&mut st.last, engine.measure(run.table())?);
    Ok(PhaseResult::Rebuild(RebuildPhase {
        status: Figure::Value(PhaseStatus::Ok),
        fill_factor_pct: Figure::Value(fill_factor_pct.into()),
        counters: counters(&before, &st.last),
        pool: pool_figures(&before, &st.last),
        before: shape(&before),
        after: shape(&st.last),
        ..RebuildPhase::default()
    }))
}
