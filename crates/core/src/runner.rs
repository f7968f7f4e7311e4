//! Runs one workload on one engine and turns what the engine reports into a [`RunResult`].

use crate::engine::{Engine, EngineError, LoadPlan};
use crate::reads::WorkPlan;
use crate::result::{LoadResult, RunResult};
use crate::workload::{KeySource, Workload};

/// Receives progress of a long run (a progress bar in a terminal, nothing when piped).
pub trait Progress {
    /// A workload starts: `rows` rows will be loaded.
    fn start(&mut self, label: &str, rows: u64);
    /// `rows` more rows were loaded.
    fn advance(&mut self, rows: u64);
    /// The workload finished.
    fn finish(&mut self);
}

/// A [`Progress`] that shows nothing: for callers without a terminal (tests, examples).
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&mut self, _: &str, _: u64) {}
    fn advance(&mut self, _: u64) {}
    fn finish(&mut self) {}
}

/// Creates the workload's table on `engine`, loads it, measures it and drops it.
///
/// The table is dropped even when the load fails, so a failed variant leaves nothing behind.
pub fn run_variant(
    engine: &mut dyn Engine,
    workload: &Workload,
    keys: KeySource,
    plan: &LoadPlan,
    progress: &mut dyn Progress,
) -> Result<RunResult, EngineError> {
    run_variant_with(engine, workload, keys, plan, &WorkPlan::default(), progress)
}

/// [`run_variant`], then after the load's measurement the reads of `work` (a `reads` phase)
/// and its mixed workload (a `mixed` phase, inserting rows that follow the load's in the
/// same stream), before the table is dropped. The run's figures (`counters`, `table`, ...)
/// stay the load's.
pub fn run_variant_with(
    engine: &mut dyn Engine,
    workload: &Workload,
    keys: KeySource,
    plan: &LoadPlan,
    work: &WorkPlan,
    progress: &mut dyn Progress,
) -> Result<RunResult, EngineError> {
    let table = workload.table();
    let block = match &keys {
        KeySource::Generated(cfg) => cfg.block,
        KeySource::Replay(_) => 0,
    };
    engine.set_id_blocks(match &keys {
        KeySource::Generated(_) => crate::engine::IdBlocks::of(workload.variant, block),
        KeySource::Replay(_) => None,
    });
    engine.create_table(&table)?;
    progress.start(&workload.variant.to_string(), workload.rows);
    // The mixed workload's inserts continue the load's row stream.
    let extra = work.mix.map_or(0, |m| m.inserts());
    let mut rows = Workload { rows: workload.rows + extra, ..workload.clone() }.row_gen(keys);
    let mut source = None;
    let outcome = (|| {
        source = if work.is_empty() { None } else { Some(work.source(&table)?) };
        let mut loaded = (&mut rows).take(workload.rows as usize).inspect(|r| {
            if let Some(s) = source.as_mut() {
                s.record(r);
            }
        });
        let load = engine.load(&table, plan, &mut loaded, &mut |n| progress.advance(n))?;
        let measured = engine.measure(&table)?;
        Ok((load, measured))
    })();
    progress.finish();
    let outcome = outcome.and_then(|done| {
        let label = workload.variant.to_string();
        let phases = match source.as_mut() {
            Some(source) => work.run(engine, &table, source, &mut rows, &label, progress)?,
            None => Vec::new(),
        };
        Ok((done, phases))
    });
    let dropped = engine.drop_table(&table);
    let ((load, measured), phases) = outcome?;
    dropped?;
    let rows_per_s = load.wall_s.filter(|&s| s > 0.0).map(|s| load.rows as f64 / s);
    Ok(RunResult {
        variant: workload.variant.to_string(),
        strategy: workload.variant.strategy.token().to_string(),
        encoding: workload.variant.encoding.token().to_string(),
        placement: workload.placement.to_string(),
        // The engine names its model (a simulator) or none (a server).
        model: engine.info().model,
        rows: load.rows,
        load: LoadResult {
            method: plan.method.token().to_string(),
            batch: plan.batch,
            writers: plan.writers,
            batch_max: plan.batch_max.filter(|_| plan.varies()),
            wall_s: load.wall_s,
            rows_per_s,
            batch_latency_ms: load.batch_latency_ms,
            first_batch_ms: load.first_batch_ms,
            other_batch_p50_ms: load.other_batch_p50_ms,
            verification: load.verification,
            server_statement_ms: load.server_statement_ms,
        },
        counters: measured.counters,
        table: measured.table,
        indexes: measured.indexes,
        phases,
        queries: Vec::new(),
        buffer_pool: measured.buffer_pool,
        postgres: measured.postgres,
        shards: measured.shards,
        repeats: None,
    })
}
