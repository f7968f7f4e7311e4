//! `keylab validate`: the same matrix on the simulator and on a server, and the simulator's
//! error against the server on every structural metric. The simulator follows the model of
//! the server's version (`SimModel::for_server`); with no exact model the closest one is
//! used and a note says so (on standard error, in the table and in the JSON).

mod pool;
mod shards;

use crate::applies::{self, Facts, Given};
use crate::args::{EngineArgs, ValidateArgs};
use crate::engines::{make_engine, EngineSeries};
use crate::parallel::{self, Failure};
use crate::progress::Bars;
use anyhow::{anyhow, Context, Result};
use keylab_core::{EngineInfo, EngineKind, RunResult, SimModel};
use keylab_scenario::{validate, RunPlan};
use std::io::Write;

/// Runs `keylab validate`.
pub fn run(args: ValidateArgs, given: &Given) -> Result<()> {
    let facts = Facts {
        engine: args.engine,
        innodb_model: true,
        buffer_pool: false,
        shards: args.shards.is_some(),
    };
    applies::check("validate", given, &facts)?;
    match (args.shards, args.sharding) {
        (Some(shards), _) => return shards::run(args, shards),
        (None, Some(_)) => {
            return Err(crate::UsageError(
                "--sharding chooses the sharded validation: add --shards N (2 to 16)".into(),
            )
            .into())
        }
        (None, None) => {}
    }
    let scenario = keylab_scenario::validate_scenario()
        .map_err(|e| anyhow!("the validation matrix is broken: {e}"))?;
    let plans = scenario.plan(1.0).map_err(|e| anyhow!("{e}"))?;
    let server = engine_args(&args, None);
    // The server first: if it cannot start, say so before any simulation.
    let (server_info, server_runs) = run_all(&server, &plans, 1).context("server runs")?;
    // The simulator models the server it is compared with (or the closest model, said so).
    let kind: EngineKind = server_info.kind.parse().map_err(|e: String| anyhow!(e))?;
    let Some((model, model_note)) = SimModel::for_server(kind, &server_info.version) else {
        // The server side ran: show what it measured, then say plainly what is missing.
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "server: {} {} (measured; no simulator to compare with)",
            kind, server_info.version
        )?;
        for (plan, run) in plans.iter().zip(&server_runs) {
            let ix = run.indexes.first();
            let pg = run.postgres.clone().unwrap_or_default();
            writeln!(
                out,
                "{:<40} leaf pages {:>8}  height {:>2}  avg_leaf_density {:>6}  splits {:>8}  \
                 WAL bytes {:>12}  FPI {:>6}",
                plan.label,
                shown(ix.and_then(|i| i.leaf_pages)),
                shown(ix.and_then(|i| i.height)),
                shown(ix.and_then(|i| i.avg_leaf_density)),
                shown(run.counters.page_splits),
                shown(pg.wal_bytes),
                shown(pg.full_page_images),
            )?;
        }
        out.flush()?;
        return Err(anyhow!(
            "no simulator model of {kind} is available in this build yet, so there is nothing to \
             validate against (the server figures above are measured); valid models: {}",
            SimModel::choices()
        ));
    };
    if let Some(note) = &model_note {
        eprintln!("keylab: {}", keylab_report::escape_controls(note, true));
    }
    let sim = engine_args(&args, Some(model));
    let (sim_info, sim_runs) =
        run_all(&sim, &plans, args.jobs.unwrap_or_else(parallel::default_jobs))
            .context("simulator runs")?;
    let labels: Vec<String> = plans.iter().map(|p| p.label.clone()).collect();
    let v = validate::compare(&labels, &sim_runs, &server_runs);
    let pool = if args.skip_pool {
        Vec::new()
    } else if kind == EngineKind::Postgres {
        // The pool check follows InnoDB's LRU and page cleaner; the nbtree model has no model
        // of shared_buffers yet, so there is nothing to hold the server's reads against.
        eprintln!(
            "keylab: buffer pool check skipped: the postgres-15 model has no buffer pool model \
             (shared_buffers) yet"
        );
        Vec::new()
    } else {
        pool::run(&server, &sim).context("buffer pool check")?
    };
    let mut out = std::io::stdout().lock();
    if args.format == "json" {
        let json = serde_json::json!({
            "simulator": sim_info,
            "server": server_info,
            "model_note": model_note,
            "validation": v,
            "buffer_pool": pool,
        });
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "simulator: {} (model {model})\nserver:    {} {}",
        sim_info.version, server_info.kind, server_info.version
    )?;
    if let Some(note) = &model_note {
        writeln!(out, "note:      {note}")?;
    }
    writeln!(out)?;
    out.write_all(validate::render_table(&v).as_bytes())?;
    if !pool.is_empty() {
        writeln!(out)?;
        out.write_all(keylab_scenario::validate::pool::render(&pool).as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// Every planned run on engines of `args`' kind (one engine per distinct settings), and
/// their description. Simulator runs go on up to `jobs` threads, one simulator each; a
/// server's run one at a time.
/// The engine one side of a validation runs on, one server and not sharded: the server
/// `args` name (`--engine`, `--url`, `--database`), or with `model` the simulator of it.
pub(super) fn engine_args(args: &ValidateArgs, model: Option<SimModel>) -> EngineArgs {
    let server = model.is_none();
    EngineArgs {
        engine: if server { args.engine } else { EngineKind::Sim },
        model: model.into_iter().collect(),
        interleave: Default::default(),
        page_cleaner: Default::default(),
        url: args.url.clone().filter(|_| server),
        database: args.database.clone().filter(|_| server),
        shards: None,
        sharding: None,
        collation: args.collation,
        backends: Vec::new(),
    }
}

pub(super) fn run_all(
    args: &EngineArgs,
    plans: &[RunPlan],
    jobs: usize,
) -> Result<(EngineInfo, Vec<RunResult>)> {
    let bars = Bars::new();
    let mut runs = Vec::new();
    if args.engine == EngineKind::Sim {
        let mut all: Option<EngineInfo> = None;
        parallel::run_ordered(
            jobs,
            plans.len(),
            &bars,
            |n| parallel::plan_cost(&plans[n]),
            |n, progress| {
                let plan = &plans[n];
                let mut eng = make_engine(args, &plan.settings, None)?;
                let run = keylab_scenario::execute(eng.as_mut(), plan, 1, progress)
                    .map_err(|e| anyhow!(e).context(format!("run `{}` failed", plan.label)))?;
                Ok((run, eng.info()))
            },
            |_, (run, info)| {
                match &mut all {
                    Some(all) => all.absorb(&info),
                    None => all = Some(info),
                }
                runs.push(run);
                Ok(())
            },
        )
        .map_err(|(Failure::Job(e) | Failure::Sink(e))| e)?;
        let info = all.ok_or_else(|| anyhow!("the validation matrix has no runs"))?;
        return Ok((info, runs));
    }
    let mut engines = EngineSeries::new(args);
    let mut progress = bars.bar();
    for plan in plans {
        let eng = engines.engine_for(&plan.settings)?;
        let run = keylab_scenario::execute(eng, plan, 1, &mut progress)
            .map_err(|e| anyhow!(e).context(format!("run `{}` failed", plan.label)))?;
        runs.push(run);
    }
    let info = engines.info().ok_or_else(|| anyhow!("the validation matrix has no runs"))?;
    Ok((info, runs))
}

/// A figure, or `null` where the engine gave none.
fn shown<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "null".into(), |v| v.to_string())
}
