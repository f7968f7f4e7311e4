//! `keylab compare`: load the same rows under several key variants and report them side by
//! side.

use crate::applies::{self, Facts, Given};
use crate::args::DEFAULT_ROWS;
use crate::args::{CompareArgs, EngineArgs};
use crate::checks::{
    check_engine_built, check_exports, check_limits, check_pool_floor, check_run, check_variant_on,
};
use crate::cmd::keys::gen_config;
use crate::engines::make_engine;
use crate::output::{self, Stage};
use crate::parallel::{self, Failure};
use crate::progress::Bars;
use crate::UsageError;
use anyhow::{Context, Result};
use keylab_core::{
    run_variant_with, EngineKind, EngineSettings, KeySource, LoadMethod, LoadPlan, Payload,
    Placement, Report, RunResult, SimModel, Workload,
};
use keylab_keys::{Key, Variant};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Refuses (exit 2) a run the machine has not the memory for: on the simulator, the tables
/// held at once (one per job) of `rows` rows; on a private server, its `--buffer-pool`.
fn check_memory(
    args: &CompareArgs,
    workload: &dyn Fn(&Variant, u64) -> Workload,
    rows: u64,
    models: usize,
) -> Result<(), UsageError> {
    if args.engine.engine != EngineKind::Sim {
        return match (args.buffer_pool, &args.engine.url) {
            (Some(bytes), None) => crate::memory::check_server_pool(
                "--buffer-pool",
                bytes,
                args.engine.engine == EngineKind::Postgres,
            ),
            _ => Ok(()),
        };
    }
    let tables: Vec<u64> = (0..models)
        .flat_map(|_| &args.keys)
        .map(|v| crate::memory::table_bytes(&workload(v, rows).table(), Some(v), rows))
        .collect();
    let jobs = args.jobs.unwrap_or_else(parallel::default_jobs);
    let need = crate::memory::held_at_once(tables, jobs);
    let what = format!("--rows {rows} on {} job(s)", jobs.min(args.keys.len() * models));
    crate::memory::check_model(&what, need, "--rows (or --jobs: each job holds a table)")
}

/// Runs `keylab compare`.
pub fn run(args: CompareArgs, given: &Given) -> Result<()> {
    // Everything the flags alone decide is checked before any engine starts.
    let keys_file = args.keys_file.as_deref().map(|f| ("--keys-file", f));
    check_exports(&args.output, keys_file.as_slice())?;
    check_engine_built(args.engine.engine)?;
    let facts = Facts {
        engine: args.engine.engine,
        innodb_model: args.engine.model.is_empty()
            || args.engine.model.iter().any(|m| *m != SimModel::Postgres15),
        buffer_pool: args.buffer_pool.is_some(),
        shards: args.engine.shards.is_some(),
    };
    applies::check("compare", given, &facts)?;
    let repeats = crate::args::repeats(args.repeat, args.engine.engine)?;
    let settings = EngineSettings {
        page_size_bytes: args.page_size.bytes(),
        performance_schema: args.perf_schema.then_some(true),
        buffer_pool_bytes: args.buffer_pool,
        ..EngineSettings::default()
    };
    if let Some(bytes) = args.buffer_pool {
        check_pool_floor(
            bytes,
            settings.page_size_bytes,
            &format!("--page-size {}", args.page_size),
            crate::applies::innodb(&facts),
        )?;
    }
    let (batch, batch_max) = args.batch;
    if batch_max.is_some()
        && !matches!(
            args.method,
            LoadMethod::Multi | LoadMethod::Prepared | LoadMethod::PreparedUncached
        )
    {
        return Err(UsageError(format!(
            "--batch {batch}..{} varies the statement shape, which only --method multi, \
             prepared and prepared-uncached have",
            batch_max.unwrap_or(batch)
        ))
        .into());
    }
    let plan = LoadPlan { method: args.method, batch, writers: args.writers, batch_max };
    let workload = |variant: &Variant, rows: u64| Workload {
        variant: *variant,
        placement: args.placement,
        payload: Payload::Data { bytes: args.payload_bytes },
        rows,
        table_name: table_name(variant),
    };
    for variant in &args.keys {
        check_variant_on(args.engine.engine, variant)?;
        let table = workload(variant, 1).table();
        check_run(&format!("variant {variant}"), &table, &settings, &[&plan])?;
    }
    for variant in &args.keys {
        check_limits(&args, variant, &workload(variant, 1).table(), settings.page_size_bytes)?;
    }
    let work = args.work.plan(args.gen.seed);
    crate::cmd::work::check_work(&work, &args, &|v| workload(v, 1).table())?;
    let replay = match &args.keys_file {
        Some(path) => {
            let [variant] = args.keys.as_slice() else {
                return Err(UsageError(format!(
                    "--keys-file needs exactly one variant in --keys (got {})",
                    args.keys.len()
                ))
                .into());
            };
            let unique = args.placement == Placement::Pk;
            Some(read_keys_file(path, *variant, args.rows, unique)?)
        }
        None => None,
    };
    // One engine argument set per model of a `--model` list (the arguments as given
    // otherwise); every variant runs under each, model by model, on the same ids.
    let per_model: Vec<EngineArgs> = match args.engine.models()? {
        models if models.len() > 1 && args.engine.engine == EngineKind::Sim => {
            models.iter().map(|m| args.engine.with_model(*m)).collect()
        }
        // One model, or a server engine (which refuses --model, naming the whole list).
        _ => vec![args.engine.clone()],
    };
    let rows = replay.as_ref().map_or(args.rows.unwrap_or(DEFAULT_ROWS), |l| l.len() as u64);
    // The mixed workload's inserts grow each table past the load.
    let held_rows = rows + work.mix.map_or(0, |m| m.inserts());
    check_memory(&args, &workload, held_rows, per_model.len())?;
    // Every model's engine is built before any run, so what does not combine (--shards with
    // postgres-15, --model with a server engine) is refused before anything runs.
    let mut engine = make_engine(&per_model[0], &settings, args.check_every)?;
    let mut engine_info = engine.info();
    if per_model.len() > 1 {
        let infos = per_model[1..]
            .iter()
            .map(|a| make_engine(a, &settings, args.check_every).map(|e| e.info()))
            .collect::<Result<Vec<_>>>()?;
        engine_info = models_info(engine_info, &infos);
    }
    let mut report = Report {
        keylab: env!("CARGO_PKG_VERSION").to_string(),
        schema_version: keylab_core::REPORT_SCHEMA_VERSION,
        scenario: "compare".into(),
        seed: args.gen.seed,
        engine: engine_info,
        runs: Vec::new(),
        schema: None,
    };
    if args.perf_schema && args.engine.engine == keylab_core::EngineKind::Sim {
        add_note(
            &mut report.engine,
            "--perf-schema: not applicable on the simulator (performance_schema's per-table I/O \
             counters and statement times are a server's)",
        );
    }
    // The replayed ids go to the one variant --keys-file allows, under each model.
    let key_source = || match &replay {
        Some(list) => {
            let rows = list.len() as u64;
            (KeySource::Replay(list.clone()), rows)
        }
        None => (
            KeySource::Generated(keylab_keys::GenConfig {
                writers: args.writers,
                ..gen_config(&args.gen)
            }),
            args.rows.unwrap_or(DEFAULT_ROWS),
        ),
    };
    let bars = Bars::new();
    // Run i is variant i % variants under model i / variants.
    let variants = args.keys.len();
    let count = variants * per_model.len();
    let mut done = |n: usize, run: RunResult| {
        report.runs.push(run);
        let stage = if n + 1 == count { Stage::Final } else { Stage::Partial };
        output::write_exports(&report, &args.output, stage)
    };
    let outcome = if args.engine.engine == EngineKind::Sim {
        // Each variant on its own simulator: a fresh one gives the same figures as the one
        // engine of a sequential run (create_table starts every table afresh).
        drop(engine);
        let jobs = args.jobs.unwrap_or_else(parallel::default_jobs);
        // Every run loads the same number of rows: the variant decides the cost.
        parallel::run_ordered(
            jobs,
            count,
            &bars,
            |i| parallel::load_cost(&args.keys[i % variants], 1),
            |i, progress| {
                let variant = &args.keys[i % variants];
                let mut engine =
                    make_engine(&per_model[i / variants], &settings, args.check_every)?;
                let (keys, rows) = key_source();
                let at = match per_model[i / variants].model() {
                    Some(m) if per_model.len() > 1 => format!(" @ {m}"),
                    _ => String::new(),
                };
                let w = workload(variant, rows);
                run_variant_with(engine.as_mut(), &w, keys, &plan, &work, progress)
                    .with_context(|| format!("variant {variant}{at} failed"))
            },
            &mut done,
        )
    } else {
        // One server: one variant at a time, each `repeats` times on a fresh table with the
        // same rows; the repeats fold into one run with every timing's spread.
        let mut progress = bars.bar();
        (0..count).try_for_each(|i| {
            let variant = &args.keys[i];
            let runs = (1..=repeats)
                .map(|n| {
                    let (keys, rows) = key_source();
                    let workload = workload(variant, rows);
                    run_variant_with(engine.as_mut(), &workload, keys, &plan, &work, &mut progress)
                        .with_context(|| match repeats {
                            1 => format!("variant {variant} failed"),
                            _ => format!("variant {variant} failed (repeat {n} of {repeats})"),
                        })
                })
                .collect::<Result<Vec<RunResult>>>()
                .map_err(Failure::Job)?;
            done(i, keylab_core::fold_repeats(runs)).map_err(Failure::Sink)
        })
    };
    match outcome {
        Ok(()) => {}
        Err(Failure::Sink(err)) => return Err(err),
        Err(Failure::Job(err)) => {
            // Keep what finished: print and export it before failing.
            if !report.runs.is_empty() {
                output::write_exports(&report, &args.output, Stage::Final)?;
                output::print(&report, &args.output)?;
            }
            return Err(err);
        }
    }
    if let Some(sizes) = args.work.curve() {
        // One more table per (run, pool size): the load and the reads at that pool.
        let reads_only = keylab_core::WorkPlan { mix: None, ..work.clone() };
        let jobs = args.jobs.unwrap_or_else(parallel::default_jobs);
        let bounds =
            crate::checks::pool_bounds(settings.page_size_bytes, crate::applies::innodb(&facts));
        let run_at = |i: usize, pool: u64, progress: &mut crate::progress::LoadProgress| {
            let variant = &args.keys[i % variants];
            let at_pool = EngineSettings { buffer_pool_bytes: Some(pool), ..settings };
            let mut engine = make_engine(&per_model[i / variants], &at_pool, args.check_every)?;
            let (keys, rows) = key_source();
            let w = workload(variant, rows);
            run_variant_with(engine.as_mut(), &w, keys, &plan, &reads_only, progress)
                .with_context(|| format!("variant {variant} at a {pool}-byte pool failed"))
        };
        let target = args.work.hit_ratio_target();
        let curve = crate::cmd::work::Curve { sizes: &sizes, target, bounds, jobs };
        crate::cmd::work::reads_curve(&mut report, &curve, &bars, &run_at)?;
        output::write_exports(&report, &args.output, Stage::Final)?;
    }
    output::print(&report, &args.output)
}

/// The engine block of a report whose runs ran under several models: the first model's
/// engine with the others' folded in (`EngineInfo::absorb`), its `model` the list of models
/// (`mariadb-10.11,postgres-15`) and its `version` every model's description; each run's own
/// `model` says which one produced it.
fn models_info(
    mut first: keylab_core::EngineInfo,
    others: &[keylab_core::EngineInfo],
) -> keylab_core::EngineInfo {
    let mut models: Vec<String> = first.model.clone().into_iter().collect();
    let mut versions = vec![first.version.clone()];
    for other in others {
        first.absorb(other);
        models.extend(other.model.clone());
        versions.push(other.version.clone());
    }
    first.model = Some(models.join(","));
    first.version = versions.join(" + ");
    first
}

/// Adds `note` to the engine's `notes` setting.
fn add_note(engine: &mut keylab_core::EngineInfo, note: &str) {
    let notes = engine.settings.entry("notes".to_string()).or_insert_with(|| serde_json::json!([]));
    if let Some(list) = notes.as_array_mut() {
        list.push(note.into());
    }
}

/// A table name per variant (`t_uuid4_text`), so runs never collide.
fn table_name(variant: &Variant) -> String {
    let name: String = variant
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("t_{name}")
}

/// The longest line of a keys file: far above any id keylab prints (a 36-character UUID, a
/// 20-digit integer), so a file with no line breaks (`/dev/zero`) fails at its first line.
const MAX_LINE_BYTES: u64 = 1024;

/// Reads ids, one per line as `keylab keys` prints them, streaming: at most `rows` ids (every
/// id, up to the `--rows` default, when `rows` is `None`). With `unique` (the id is the
/// primary key) a repeated id is refused. Errors name the file, line and column.
fn read_keys_file(
    path: &Path,
    variant: Variant,
    rows: Option<u64>,
    unique: bool,
) -> Result<Vec<Key>> {
    let at = |n: usize, col: usize, why: String| {
        UsageError(format!("{}:{n}:{col}: {why}", path.display()))
    };
    let file = std::fs::File::open(path)
        .map_err(|e| UsageError(format!("{}: cannot read: {e}", path.display())))?;
    let mut reader = BufReader::new(file);
    let want = rows.unwrap_or(DEFAULT_ROWS);
    let mut keys = Vec::new();
    let mut first_line: HashMap<Key, usize> = HashMap::new();
    let mut line = Vec::new();
    let mut n = 0;
    let mut more = false;
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| UsageError(format!("{}: cannot read: {e}", path.display())))?;
        if read == 0 {
            break;
        }
        n += 1;
        if line.len() as u64 > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            return Err(
                at(n, 1, format!("line longer than {MAX_LINE_BYTES} bytes; not an id")).into()
            );
        }
        let text = std::str::from_utf8(&line).map_err(|_| at(n, 1, "not UTF-8 text".into()))?;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        if keys.len() as u64 == want {
            more = true;
            break;
        }
        let column = text.len() - text.trim_start().len() + 1;
        let key = Key::parse(variant, trimmed).map_err(|e| at(n, column, e.to_string()))?;
        if unique {
            if let Some(first) = first_line.insert(key, n) {
                return Err(at(
                    n,
                    column,
                    format!("duplicate id `{trimmed}` (first on line {first}); a primary key holds each id once"),
                )
                .into());
            }
        }
        keys.push(key);
    }
    if keys.is_empty() {
        return Err(UsageError(format!("{}: no ids in the file", path.display())).into());
    }
    match rows {
        Some(rows) if (keys.len() as u64) < rows => {
            return Err(UsageError(format!(
                "{} holds {} ids, fewer than --rows {rows}; give --rows {} or leave --rows out to load every id",
                path.display(),
                keys.len(),
                keys.len()
            ))
            .into())
        }
        None if more => eprintln!(
            "keylab: note: loading the first {DEFAULT_ROWS} ids of {} (the --rows default); give --rows to load more",
            keylab_report::escape_controls(&path.display().to_string(), true)
        ),
        _ => {}
    }
    Ok(keys)
}
