//! `keylab advise FILE.sql`: the user's table (read by `keylab-ddl`) under its current key
//! and each candidate key, every other column and every secondary index kept as the user's;
//! each candidate loaded with the same rows in its own key order, measured, and reported with
//! the advice figures (`figures.rs`) and a recommendation.
//!
//! On the simulator the candidates run in parallel (`parallel::run_ordered`: one model each,
//! as many at once as there are cores; the model is insert-only, keeping no per-row copy for deletes), and the insert working set is counted from the leaf page of every insert; on a server they run one after
//! the other on one private instance, and the working set is `null` (the server does not say
//! which page an insert went to). On the InnoDB model, candidates that would build the same
//! trees are built once (`share.rs`).
//!
//! With `--workload` (simulator only) each candidate runs the workload after its load under
//! the pool (`workload.rs`), then again under each pool size of the curve
//! (`pool_curve.rs`); `weigh.rs` puts the figures into the advice phases and weighs them in
//! the recommendation.

mod children;
mod figures;
mod limits;
mod live;
mod partitioned;
mod partitions;
mod pool_curve;
mod prepare;
mod reading;
mod rows;
mod server;
mod share;
mod sim;
mod storage;
mod summary;
mod weigh;
mod workload;

use self::figures::{advice_phase, recommendation, WorkingSet};
use self::live::{read_live, LiveTable};
use self::prepare::{prepare, Prepared};
use self::rows::ColumnValues;
use self::server::run_server;
use self::share::shared_builds;
use self::sim::{run_nbtree, run_sim};
use crate::args::advise::AdviseArgs;
use crate::args::{EngineArgs, OutputArgs, DEFAULT_ROWS};
use crate::engines::{make_engine, sim_settings};
use crate::output::{self, Stage};
use crate::parallel::{self, Failure};
use crate::progress::{Bars, LoadProgress};
use crate::UsageError;
use anyhow::Result;
use keylab_core::{
    Engine, EngineKind, EngineSettings, FillFactors, LoadResult, PhaseResult, Report, RunResult,
    SimModel,
};
use keylab_innodb_model::SimSettings;
use keylab_keys::Variant;
use keylab_schema::Table;
use keylab_sim::{flavour, nbtree_settings, NbtreeEngine, SimEngine};

/// The largest DDL file read: the largest schema in the test corpus is under 100 KiB and a
/// large application's `structure.sql` a few MiB, so 64 MiB only refuses what is not a schema.
const MAX_DDL_BYTES: u64 = 64 << 20;
const DDL_WHY: &str = "a DDL file is CREATE statements (a dump with data: dump the schema only)";

/// Rows between progress reports.
pub(super) const PROGRESS_ROWS: u64 = 16_384;

/// Rows per candidate: --rows, else a --url table's row count (filled in by `run`), else the
/// CLI's [`DEFAULT_ROWS`].
pub(super) fn rows_of(args: &AdviseArgs) -> u64 {
    args.rows.unwrap_or(DEFAULT_ROWS)
}

/// One candidate: its label, the table as it would be, how its rows are made.
pub struct Candidate {
    /// `current` or the variant token.
    pub label: String,
    /// The key generator (the current key's nearest variant; `None` for a composite key).
    pub variant: Option<Variant>,
    /// The table with this key.
    pub table: Table,
    /// Primary-key columns.
    pub key: Vec<usize>,
    /// How each column is filled.
    pub plan: Vec<ColumnValues>,
    /// The table is a heap (PostgreSQL): a secondary entry points at a 6-byte TID, not at
    /// the primary key, so the key's width does not reach the secondary indexes.
    pub heap_table: bool,
    /// The user's PostgreSQL fillfactors, the table created with them (empty elsewhere).
    pub fill_factors: FillFactors,
    /// Shown before the label on its progress bar (the table's name in a schema summary).
    pub progress_prefix: Option<String>,
}

impl Candidate {
    /// The label of its progress bar.
    pub fn progress_label(&self) -> String {
        match &self.progress_prefix {
            Some(p) => format!("{p} {}", self.label),
            None => self.label.clone(),
        }
    }
}

/// Runs `keylab advise`.
pub fn run(mut args: AdviseArgs) -> Result<()> {
    let ddl_file = args.file.as_deref().map(|f| ("the DDL file", f));
    crate::checks::check_exports(&args.output, ddl_file.as_slice())?;
    let mut notes: Vec<String> = Vec::new();
    // The --url server's own pool (the default of a workload's), and where it was read.
    let mut server_pool: Option<(u64, String)> = None;
    let (origin, source, table_name, dialect) = match (&args.url, &args.file) {
        (Some(url), _) => {
            let live = read_live(url, args.table.as_deref().unwrap_or(""))?;
            let LiveTable { origin, sql, dialect, table, user } = live;
            notes.push(format!(
                "read from {origin} (read-only): {} rows {}, widths averaged over {} sampled rows",
                user.rows,
                if user.rows_counted { "counted" } else { "estimated by the statistics" },
                user.sampled_rows
            ));
            if args.rows.is_none() {
                args.rows = Some(user.rows.max(1));
            }
            server_pool = user.pool_bytes.map(|b| (b, origin.clone()));
            for (col, w) in &user.avg_widths {
                let given = args.width.iter().any(|(c, _)| c.eq_ignore_ascii_case(col));
                if let (false, Some(w)) = (given, w) {
                    args.width.push((col.clone(), w.round() as u32));
                }
            }
            (origin, sql, Some(table), Some(dialect))
        }
        (None, Some(path)) => {
            let origin = path.display().to_string();
            let source = crate::input::read_text(path, MAX_DDL_BYTES, "the DDL file", DDL_WHY)?;
            (origin, source, args.table.clone(), None)
        }
        (None, None) => return Err(UsageError("give FILE.sql or --url".into()).into()),
    };
    let flag = args.dialect.map(|d| d.source());
    let file = reading::read_file(&source, &origin, dialect.or(flag))?;
    if table_name.is_none() && file.tables.len() + file.refused.len() > 1 {
        return summary::run_schema(args, &file, &origin);
    }
    args.rows = Some(args.rows.unwrap_or(DEFAULT_ROWS));
    let ddl = reading::pick(&file, table_name.as_deref())?;
    notes.extend(reading::reading_notes(&file, ddl, args.url.is_none(), flag.is_some()));
    let Prepared { candidates, model, fill, page_bytes, .. } =
        prepare(&args, &args.width, ddl, file.dialect, &origin, &mut notes)?;
    workload::check(&args, &candidates, &ddl.table.name)?;
    let pool = workload::pool(&args, model, page_bytes, server_pool, &mut notes)?;
    if args.engine == EngineKind::Sim {
        // A mixed workload's inserts grow each table past the load.
        let rows = workload::held_rows(&args);
        let tables = candidates
            .iter()
            .map(|c| crate::memory::table_bytes(&c.table, c.variant.as_ref(), rows))
            .collect();
        let jobs = jobs_of(&args);
        let what = format!("--rows {rows} on {} job(s)", jobs.min(candidates.len()));
        let lower = "--rows (or --jobs: each job holds a candidate's table)";
        crate::memory::check_model(&what, crate::memory::held_at_once(tables, jobs), lower)?;
    }
    let settings =
        EngineSettings { buffer_pool_bytes: pool.as_ref().map(|p| p.0), ..Default::default() };
    // One candidate on the simulator under `s` (the curve runs each again at its own pool).
    let run_one = |c: &Candidate, s: &EngineSettings, progress: &mut LoadProgress| {
        if model == SimModel::Postgres15 {
            run_nbtree(c, &args, nbtree_settings(s, None), progress)
        } else {
            // Advise only inserts: the model keeps no per-row copy for deletes.
            let sim = SimSettings {
                flavour: flavour(model).unwrap_or_default(),
                insert_only: true,
                ..sim_settings(s)?
            };
            run_sim(c, &args, &|| SimEngine::new(sim), progress)
        }
    };
    let mut build_of = vec![None; candidates.len()];
    let (results, engine_info) = match args.engine {
        EngineKind::Sim if model == SimModel::Postgres15 => {
            let nb = nbtree_settings(&settings, None);
            let mut info_engine = NbtreeEngine::new(nb);
            info_engine.set_fill_factors(&fill)?;
            let info = info_engine.info();
            let results = run_candidates(jobs_of(&args), &candidates, &build_of, |c, progress| {
                run_one(c, &settings, progress)
            })?;
            (results, info)
        }
        EngineKind::Sim => {
            let sim = SimSettings {
                flavour: flavour(model).unwrap_or_default(),
                insert_only: true,
                ..sim_settings(&settings)?
            };
            let info = SimEngine::new(sim).info();
            if !args.no_shared_builds {
                let shared = shared_builds(&candidates, rows_of(&args), args.seed);
                notes.extend(shared.notes);
                build_of = shared.build_of;
            }
            let results = run_candidates(jobs_of(&args), &candidates, &build_of, |c, progress| {
                run_one(c, &settings, progress)
            })?;
            (results, info)
        }
        kind => {
            let engine_args = EngineArgs {
                engine: kind,
                model: Vec::new(),
                interleave: Default::default(),
                page_cleaner: Default::default(),
                url: None,
                database: None,
                shards: None,
                sharding: None,
                collation: Default::default(),
                backends: Vec::new(),
            };
            let mut engine = make_engine(&engine_args, &settings, None)?;
            engine.set_fill_factors(&fill)?;
            let info = engine.info();
            let results = candidates
                .iter()
                .map(|c| run_server(c, &args, engine.as_mut()))
                .collect::<Vec<_>>();
            (results, info)
        }
    };
    let mut runs = Vec::new();
    let mut sets = Vec::new();
    let mut failure = None;
    for (c, r) in candidates.iter().zip(results) {
        match r {
            Ok((run, ws)) => {
                runs.push(run);
                sets.push(ws);
            }
            Err(e) => {
                failure.get_or_insert(e.context(format!("candidate {} failed", c.label)));
            }
        }
    }
    let done: Vec<&Candidate> =
        candidates.iter().filter(|c| runs.iter().any(|r| r.variant == c.label)).collect();
    let current = done.first().filter(|c| c.label == "current").map(|c| (*c, &runs[0]));
    let phases: Vec<_> = (0..runs.len())
        .map(|i| advice_phase(done[i], &runs[i], &sets[i], current, page_bytes))
        .collect();
    let weighed = match pool {
        Some((pool_bytes, pool_from)) if !args.workload.is_empty() => {
            let bounds = workload::pool_bounds(model, page_bytes);
            let run_at = |c: usize, p: u64, progress: &mut LoadProgress| {
                let at = EngineSettings { buffer_pool_bytes: Some(p), ..settings };
                Ok(run_one(&candidates[c], &at, progress)?.0)
            };
            let (workload, target) = (args.workload_text(), args.hit_ratio_target());
            let sizes = args.curve_sizes();
            let curve = pool_curve::Curve { sizes: &sizes, bounds, jobs: jobs_of(&args) };
            let figures = pool_curve::weigh_runs(&curve, &candidates, &build_of, &runs, &run_at)?;
            pool_curve::fill_reads_curves(&mut runs, &figures, target);
            Some(weigh::Weighed { workload, pool_bytes, pool_from, target, figures })
        }
        _ => None,
    };
    for (i, (run, mut p)) in runs.iter_mut().zip(phases).enumerate() {
        if let (Some(w), PhaseResult::Advice(a)) = (&weighed, &mut p) {
            w.fill(i, a);
        }
        run.phases.push(p);
    }
    let current = runs.first().cloned();
    let mut report = Report {
        keylab: env!("CARGO_PKG_VERSION").to_string(),
        schema_version: keylab_core::REPORT_SCHEMA_VERSION,
        scenario: format!("advise {}", ddl.table.name),
        seed: args.seed,
        engine: engine_info,
        runs,
        schema: None,
    };
    if let Some(cur) = &current {
        if cur.variant == "current" {
            notes.push(recommendation(&done, &report.runs, &sets, page_bytes, weighed.as_ref()));
        }
    }
    let label = if args.engine == EngineKind::Sim {
        let kind = if model == SimModel::Postgres15 { "nbtree" } else { "InnoDB" };
        format!(
            "every figure is a prediction of the {kind} page model of {}, not a measurement",
            model.server()
        )
    } else {
        "figures measured on a private server; the insert working set is null (a server does \
         not say which page an insert went to)"
            .into()
    };
    notes.insert(0, label);
    for n in notes {
        add_note(&mut report, &n);
    }
    finish(&report, &args.output, failure)
}

fn finish(report: &Report, out: &OutputArgs, failure: Option<anyhow::Error>) -> Result<()> {
    if !report.runs.is_empty() {
        output::write_exports(report, out, Stage::Final)?;
        output::print(report, out)?;
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

pub(super) fn add_note(report: &mut Report, note: &str) {
    let notes =
        report.engine.settings.entry("notes".to_string()).or_insert_with(|| serde_json::json!([]));
    if let Some(list) = notes.as_array_mut() {
        list.push(note.into());
    }
}

/// --jobs, else the number of cores.
pub(super) fn jobs_of(args: &AdviseArgs) -> usize {
    args.jobs.unwrap_or_else(parallel::default_jobs)
}

/// The report's strategy and encoding of a candidate.
fn strategy_encoding(c: &Candidate) -> (String, String) {
    match c.variant {
        Some(v) => (v.strategy.token().to_string(), v.encoding.token().to_string()),
        None => ("composite".into(), "as declared".into()),
    }
}

/// Another candidate's figures under `c`'s label.
pub(super) fn relabel(run: &RunResult, c: &Candidate) -> RunResult {
    let (strategy, encoding) = strategy_encoding(c);
    RunResult { variant: c.label.clone(), strategy, encoding, ..run.clone() }
}

pub(super) fn run_result(
    c: &Candidate,
    rows: u64,
    m: keylab_core::Measurement,
    load: LoadResult,
) -> RunResult {
    let (strategy, encoding) = strategy_encoding(c);
    RunResult {
        variant: c.label.clone(),
        strategy,
        encoding,
        placement: "pk".into(),
        // One model for every candidate: the report's engine names it.
        model: None,
        rows,
        load,
        counters: m.counters,
        table: m.table,
        indexes: m.indexes,
        phases: Vec::new(),
        queries: Vec::new(),
        buffer_pool: m.buffer_pool,
        postgres: m.postgres,
        shards: m.shards,
        repeats: None,
    }
}

/// Every candidate on the simulator, up to the number of cores at once (one table each), in
/// candidate order; a failed candidate does not stop the others. A candidate with
/// `build_of[i] = Some(j)` is not built: it takes candidate `j`'s figures under its own label
/// (`share.rs` says when that is exact).
fn run_candidates(
    jobs: usize,
    candidates: &[Candidate],
    build_of: &[Option<usize>],
    run: impl Fn(&Candidate, &mut LoadProgress) -> Result<(RunResult, WorkingSet)> + Sync,
) -> Result<Vec<Result<(RunResult, WorkingSet)>>> {
    let built: Vec<usize> = (0..candidates.len()).filter(|&i| build_of[i].is_none()).collect();
    let bars = Bars::new();
    let mut results: Vec<Option<Result<(RunResult, WorkingSet)>>> =
        (0..candidates.len()).map(|_| None).collect();
    parallel::run_ordered(
        jobs,
        built.len(),
        &bars,
        // The same rows for every candidate; a composite key (no variant) costs as the widest.
        |b| candidates[built[b]].variant.map_or(u64::MAX, |v| parallel::load_cost(&v, 1)),
        |b, progress| Ok(run(&candidates[built[b]], progress)),
        |b, r| {
            results[built[b]] = Some(r);
            Ok(())
        },
    )
    .map_err(|(Failure::Job(e) | Failure::Sink(e))| e)?;
    for (i, of) in build_of.iter().enumerate() {
        let Some(j) = *of else { continue };
        results[i] = Some(match &results[j] {
            Some(Ok((run, ws))) => Ok((relabel(run, &candidates[i]), ws.clone())),
            Some(Err(e)) => Err(anyhow::anyhow!("built as {}: {e:#}", candidates[j].label)),
            None => Err(anyhow::anyhow!("candidate {} was not built", candidates[j].label)),
        });
    }
    Ok(results.into_iter().map(|r| r.expect("every candidate built or shared")).collect())
}
