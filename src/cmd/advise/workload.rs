//! `advise --workload`: the workload per candidate on the simulator (issue 28). The rows a
//! candidate's load inserts are kept (only the columns reads need), and after its
//! measurement the workload runs through [`Engine::work`]: the reads (`KIND:COUNT[:DIST]`,
//! a `reads` phase), then the mixed workload (`SHARE:KIND:OPS[:DIST]`, a `mixed` phase,
//! its inserts the next rows of the candidate's own generator). A read kind a candidate's
//! table cannot serve is that spec's (or the mix's) `not_applicable` with the reason.
//! [`cost`] sums what the workload cost: misses and page requests per operation.
//!
//! Not for: the pool sizes tried (`pool_curve.rs`), the rule that weighs the figures
//! (`weigh.rs`), partitioned tables or servers (refused before anything runs).

use super::Candidate;
use crate::args::advise::{AdviseArgs, WorkloadItem};
use crate::UsageError;
use anyhow::Result;
use keylab_core::{
    Engine, EngineKind, Figure, PhaseKind, PhaseResult, PhaseStatus, Progress, ReadFigures,
    ReadKind, ReadSource, ReadsPhase, Row, RunResult, SimModel,
};
use keylab_schema::Table;

/// The pool a --workload runs under when --buffer-pool is not given: 128 MiB, the default of
/// `innodb_buffer_pool_size` (MariaDB 10.11, MySQL 8.0) and of `shared_buffers`
/// (PostgreSQL 15) alike.
pub const DEFAULT_POOL_BYTES: u64 = 128 << 20;

/// The smallest pool the server `model` starts with (a share of a small table is raised to
/// it on the curve).
pub(super) fn pool_floor(model: SimModel, page_bytes: u64) -> u64 {
    pool_bounds(model, page_bytes).floor_bytes
}

/// The floor and what the server `model` keeps of any pool (a share of the table comes on top).
pub(super) fn pool_bounds(model: SimModel, page_bytes: u64) -> keylab_core::PoolBounds {
    let page = u32::try_from(page_bytes).unwrap_or(0);
    crate::checks::pool_bounds(page, model != SimModel::Postgres15)
}

/// Refuses (exit 2) what --workload and its flags do not combine with, before anything runs.
/// `table` is the user's table's name.
pub(super) fn check(
    args: &AdviseArgs,
    candidates: &[Candidate],
    table: &str,
) -> Result<(), UsageError> {
    let mixes: Vec<String> = args
        .workload
        .iter()
        .filter(|w| matches!(w, WorkloadItem::Mix(_)))
        .map(|w| w.to_string())
        .collect();
    if mixes.len() > 1 {
        return Err(UsageError(format!(
            "--workload: one mixed workload (SHARE:KIND:OPS[:DIST]) at most, got {}: {}",
            mixes.len(),
            mixes.join(", ")
        )));
    }
    let curve_flag = match (args.pool_sizes.is_empty(), args.hit_target) {
        (false, _) => Some("--pool-sizes"),
        (true, Some(_)) => Some("--hit-target"),
        (true, None) => None,
    };
    if let (Some(flag), true) = (curve_flag, args.workload.is_empty()) {
        return Err(UsageError(format!(
            "{flag} weighs the cache a --workload needs; give --workload too (e.g. --workload \
             10%:point:100000:latest=5%)"
        )));
    }
    if args.engine != EngineKind::Sim && !args.workload.is_empty() {
        return Err(UsageError(format!(
            "--workload applies to the simulator only (--engine sim): on --engine {} the \
             candidates run one after another on one private server, and the pool each needs \
             would take a restart per pool size",
            args.engine
        )));
    }
    if args.workload.is_empty() {
        return Ok(());
    }
    match candidates.iter().any(|c| c.table.partitioning.is_some()) {
        true => Err(UsageError(format!(
            "--workload: table `{table}` is partitioned, and advise runs a workload on tables \
             without partitions only; leave out --workload to advise on its size and inserts"
        ))),
        false => Ok(()),
    }
}

/// The pool the candidates run under and where its size came from: --buffer-pool, else with
/// a workload the --url server's own (`server`: bytes and where read), else
/// [`DEFAULT_POOL_BYTES`] (said in a note), else none (every page cached).
pub(super) fn pool(
    args: &AdviseArgs,
    model: SimModel,
    page_bytes: u64,
    server: Option<(u64, String)>,
    notes: &mut Vec<String>,
) -> Result<Option<(u64, String)>> {
    let setting = match model {
        SimModel::Postgres15 => "shared_buffers",
        _ => "innodb_buffer_pool_size",
    };
    let (bytes, from) = match (args.buffer_pool, args.workload.is_empty(), server) {
        (Some(b), _, _) => (b, "--buffer-pool".to_string()),
        (None, false, Some((b, origin))) => (b, format!("read from {origin}")),
        (None, false, None) => {
            let whose = if args.url.is_some() { "the server's could not be read; " } else { "" };
            let from = format!("the default {setting}: {whose}give --buffer-pool for yours");
            (DEFAULT_POOL_BYTES, from)
        }
        (None, true, _) => return Ok(None),
    };
    // A --url server's pool below the model's floor (a PostgreSQL server's 128 KiB on the
    // InnoDB model) is raised to it, as the curve raises its sizes.
    let bytes = match args.buffer_pool {
        None => bytes.max(pool_floor(model, page_bytes)),
        Some(b) => b,
    };
    if args.engine != EngineKind::Sim {
        let pg = args.engine == EngineKind::Postgres;
        crate::memory::check_server_pool("--buffer-pool", bytes, pg)?;
    } else {
        let page = u32::try_from(page_bytes).unwrap_or(u32::MAX);
        let at = format!("{} KiB pages", page_bytes >> 10);
        crate::checks::check_pool_floor(bytes, page, &at, model != SimModel::Postgres15)?;
    }
    let size = match bytes {
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / 1_048_576.0),
    };
    notes.push(format!(
        "buffer pool ({setting}): {size} ({from}); every candidate loads{} under it",
        if args.workload.is_empty() { "" } else { " and runs the workload" }
    ));
    Ok(Some((bytes, from)))
}

/// Rows a candidate's table holds at the end: the load and the mixed workload's inserts.
pub(super) fn held_rows(args: &AdviseArgs) -> u64 {
    super::rows_of(args) + args.mix().map_or(0, |m| m.inserts())
}

/// Every read kind of the workload (its reads and its mix).
fn kinds(args: &AdviseArgs) -> Vec<ReadKind> {
    args.reads().iter().map(|r| r.kind).chain(args.mix().map(|m| m.kind)).collect()
}

/// A source for the workload's read kinds the table can serve; `None` without a workload.
pub(super) fn source(table: &Table, args: &AdviseArgs) -> Option<ReadSource> {
    if args.workload.is_empty() {
        return None;
    }
    let served: Vec<_> =
        kinds(args).into_iter().filter(|k| ReadSource::new(table, &[*k]).is_ok()).collect();
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

/// Runs the workload on `engine`: its reads (a `reads` phase) and its mix (a `mixed` phase,
/// inserting from `rows`), added to `run`.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_workload(
    engine: &mut dyn Engine,
    table: &Table,
    source: Option<&mut ReadSource>,
    rows: &mut dyn Iterator<Item = Row>,
    args: &AdviseArgs,
    c: &Candidate,
    run: &mut RunResult,
    progress: &mut dyn Progress,
) -> Result<()> {
    let reads = args.reads();
    let label = c.progress_label();
    if !reads.is_empty() {
        let mut specs = Vec::new();
        for spec in &reads {
            let refused = ReadSource::new(table, &[spec.kind]).err();
            match (refused, source.as_deref()) {
                (None, Some(src)) => {
                    let one = std::slice::from_ref(spec);
                    let p = keylab_core::reads_phase(
                        engine, table, src, one, args.seed, &label, progress,
                    )?;
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
    }
    if let Some(mix) = args.mix() {
        let refused = ReadSource::new(table, &[mix.kind]).err();
        let phase = match (refused, source) {
            (None, Some(src)) => keylab_core::mixed_phase(
                engine, table, src, rows, &mix, args.seed, &label, progress,
            )?,
            (why, _) => {
                let why = why.unwrap_or_else(|| "the table has no primary key to read by".into());
                let mut p = PhaseResult::not_applicable(PhaseKind::Mixed, &why);
                if let PhaseResult::Mixed(m) = &mut p {
                    m.read_spec = Figure::Value(mix.read_token());
                    m.insert_share = Figure::Value(mix.insert_share);
                }
                p
            }
        };
        run.phases.push(phase);
    }
    Ok(())
}

/// What a run's workload cost: operations, page requests and misses, over its reads and its
/// mix; `None` figures where the engine gave none (misses need a bounded pool).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WorkloadCost {
    /// Operations run (reads and inserts).
    pub ops: u64,
    /// Page requests (hits and misses).
    pub page_requests: Option<f64>,
    /// Pages read from storage.
    pub pages_read: Option<u64>,
}

impl WorkloadCost {
    /// Misses per 1,000 operations.
    pub fn misses_per_1000_ops(&self) -> Option<f64> {
        let r = self.pages_read?;
        (self.ops > 0).then(|| r as f64 * 1000.0 / self.ops as f64)
    }

    /// Page requests per operation.
    pub fn page_requests_per_op(&self) -> Option<f64> {
        let r = self.page_requests?;
        (self.ops > 0).then(|| r / self.ops as f64)
    }

    /// 1 − misses / requests.
    pub fn hit_ratio(&self) -> Option<f64> {
        let (req, read) = (self.page_requests?, self.pages_read?);
        (req > 0.0).then(|| (1.0 - read as f64 / req).clamp(0.0, 1.0))
    }
}

/// The cost of `run`'s workload, `None` when it ran no operation.
pub(super) fn cost(run: &RunResult) -> Option<WorkloadCost> {
    let mut c = WorkloadCost { ops: 0, page_requests: Some(0.0), pages_read: Some(0) };
    let mut add = |ops: u64, per_op: Option<f64>, read: Option<u64>| {
        c.ops += ops;
        c.page_requests = c.page_requests.zip(per_op).map(|(a, p)| a + p * ops as f64);
        c.pages_read = c.pages_read.zip(read).map(|(a, r)| a + r);
    };
    for p in &run.phases {
        match p {
            PhaseResult::Reads(r) => {
                for f in r.specs.get().into_iter().flatten().filter(|f| f.applicable()) {
                    let n = f.reads.value().unwrap_or(0);
                    add(n, f.page_requests_per_read.value(), f.pages_read.value());
                }
            }
            PhaseResult::Mixed(m) if m.status.value() == Some(PhaseStatus::Ok) => {
                let n = m.ops.value().unwrap_or(0);
                add(n, m.page_requests_per_op.value(), m.pages_read.value());
            }
            _ => {}
        }
    }
    (c.ops > 0).then_some(c)
}
