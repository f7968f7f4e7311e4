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

use crate::churn::{ChurnRound, LiveKeys};
use crate::plan::{PhasePlan, RunPlan};
use crate::rows::TableRows;
use keylab_core::{
    BufferPoolResult, ChangeBufferResult, ChurnStyle, Counters, Engine, EngineError, LoadPlan,
    LoadResult, Measurement, PhaseResult, Progress, QueryResult, Row, RunResult,
};
use serde_json::{json, Map, Value as Json};
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

/// The table's shape as flat figures, each key with `suffix` (`_after`, `_before`):
/// sizes, PRIMARY's pages and fill, and the pages of all indexes together.
fn shape(f: &mut Map<String, Json>, m: &Measurement, suffix: &str) {
    let primary = m.indexes.first();
    let all: Option<u64> =
        if m.indexes.is_empty() { None } else { m.indexes.iter().map(|i| i.size_pages).sum() };
    let mut put = |k: &str, v: Json| {
        f.insert(format!("{k}{suffix}"), v);
    };
    put("data_length", m.table.data_length.into());
    put("index_length", m.table.index_length.into());
    put("primary_size_pages", primary.and_then(|p| p.size_pages).into());
    put("primary_leaf_pages", primary.and_then(|p| p.leaf_pages).into());
    put("primary_height", primary.and_then(|p| p.height).into());
    put("primary_fill_pct", primary.and_then(|p| p.fill_pct).into());
    put("size_pages_all_indexes", all.into());
}

/// Counter deltas as flat figures (`page_splits`, `merges`, ...; `null` where not given).
fn counters(f: &mut Map<String, Json>, d: &Counters) {
    if let Json::Object(o) = to_json(d) {
        f.extend(o);
    }
}

/// One point of a series (a load sample, a churn round): counters and shape, flat.
fn point(before: &Measurement, m: &Measurement) -> Map<String, Json> {
    let mut f = Map::new();
    counters(&mut f, &m.counters.since(&before.counters));
    pool_figures(&mut f, before, m);
    shape(&mut f, m, "");
    f
}

/// Buffer pool figures of the interval as flat phase figures (`hit_ratio`, `misses_per_op`,
/// `evictions`, `change_buffer_*`, `est_io_s_*`); nothing when the engine gives none.
/// Before the first measurement every cumulative figure counts from zero.
fn pool_figures(f: &mut Map<String, Json>, before: &Measurement, after: &Measurement) {
    let Some(a) = &after.buffer_pool else { return };
    let zero = BufferPoolResult {
        page_requests: Some(0),
        pages_read: Some(0),
        pages_written: Some(0),
        row_ops: Some(0),
        evictions: Some(0),
        change_buffer: Some(ChangeBufferResult {
            buffered: Some(0),
            merged: Some(0),
            refused: Some(0),
            page_io: Some(0),
            ..ChangeBufferResult::default()
        }),
        est_io_s_hdd: Some(0.0),
        est_io_s_ssd: Some(0.0),
        ..BufferPoolResult::default()
    };
    let d = a.since(before.buffer_pool.as_ref().unwrap_or(&zero));
    f.insert("hit_ratio".into(), d.hit_ratio.into());
    f.insert("misses_per_op".into(), d.misses_per_op.into());
    f.insert("evictions".into(), d.evictions.into());
    if let Some(cb) = &d.change_buffer {
        f.insert("change_buffer_buffered".into(), cb.buffered.into());
        f.insert("change_buffer_merged".into(), cb.merged.into());
        f.insert("change_buffer_refused".into(), cb.refused.into());
        // E4's share of page I/O and size against the cap, where the engine gives them.
        for (name, v) in [
            ("change_buffer_io_share_pct", cb.io_share_pct.map(Json::from)),
            ("change_buffer_size_pages", cb.size_pages.map(Json::from)),
            ("change_buffer_max_size_pages", cb.max_size_pages.map(Json::from)),
            ("change_buffer_cap_pages", cb.cap_pages.map(Json::from)),
        ] {
            if let Some(v) = v {
                f.insert(name.into(), v);
            }
        }
    }
    f.insert("est_io_s_hdd".into(), d.est_io_s_hdd.into());
    f.insert("est_io_s_ssd".into(), d.est_io_s_ssd.into());
}

fn to_json<T: serde::Serialize>(v: &T) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// Runs each statement of a ddl phase (under `writers` concurrent writers when not 0) and
/// records one entry per statement, plus flat `{action}_{algorithm}_ms` figures.
fn ddl_phase(
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

fn load_phase(
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
fn churn_phase(
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

fn rebuild_phase(
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

/// Median and 99th percentile by nearest rank; `None` without runs.
/// A query's figures from what the engine returned: client and server percentiles, the
/// share of the table returned.
fn query_result(name: &str, runs: u32, o: keylab_core::QueryOutcome) -> QueryResult {
    let (p50, p99) = percentiles(&o.run_ms);
    let server = o.server_ms.as_deref().map(percentiles);
    QueryResult {
        name: name.to_string(),
        runs,
        p50_ms: p50,
        p99_ms: p99,
        rows: o.rows,
        server_p50_ms: server.and_then(|s| s.0),
        server_p99_ms: server.and_then(|s| s.1),
        server_total_ms: o.server_ms.as_ref().map(|v| v.iter().sum()),
        share: o.table_rows.filter(|&n| n > 0).map(|n| o.rows as f64 / n as f64),
        condition: o.condition,
        plan: o.plan,
        notes: o.notes,
    }
}

fn percentiles(ms: &[f64]) -> (Option<f64>, Option<f64>) {
    if ms.is_empty() {
        return (None, None);
    }
    let mut v = ms.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    (Some(rank(0.5)), Some(rank(0.99)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentiles(&[]), (None, None));
        assert_eq!(percentiles(&[3.0]), (Some(3.0), Some(3.0)));
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentiles(&v), (Some(50.0), Some(99.0)));
    }

    #[test]
    fn counter_deltas_keep_nulls() {
        let a = Counters { page_splits: Some(3), pages_read: None, ..Counters::default() };
        let b = Counters {
            page_splits: Some(10),
            pages_read: None,
            merges: Some(2),
            ..Counters::default()
        };
        let d = b.since(&a);
        assert_eq!(d.page_splits, Some(7));
        assert_eq!(d.merges, Some(2));
        assert_eq!(d.pages_read, None);
    }
}
