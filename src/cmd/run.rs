//! `keylab run SCENARIO`: every run of a scenario file or built-in on one engine kind, into
//! one report written to the exports after each run (an interrupted run keeps what it did).

use crate::applies::{self, Facts, Given};
use crate::args::RunArgs;
use crate::checks::{
    check_engine_built, check_exports, check_pool_floor, check_run, check_variant_on,
};
use crate::engines::{make_engine, EngineSeries};
use crate::output::{self, Stage};
use crate::parallel::{self, Failure};
use crate::progress::Bars;
use crate::UsageError;
use anyhow::{anyhow, Result};
use keylab_core::{EngineInfo, EngineKind, LoadPlan, Report, SimModel};
use keylab_scenario::PhasePlan;

/// Runs `keylab run`.
pub fn run(mut args: RunArgs, given: &Given) -> Result<()> {
    // Everything the command line and the scenario decide is checked before any engine
    // starts (--scale is bounded when parsed).
    let file = std::path::Path::new(&args.scenario);
    let scenario_file = [("the scenario file", file)];
    let built_in = keylab_scenario::builtin(&args.scenario).is_some();
    check_exports(&args.output, if built_in { &[] } else { &scenario_file })?;
    check_engine_built(args.engine.engine)?;
    args.engine.one_model_only("run")?;
    let scenario = keylab_scenario::load(&args.scenario).map_err(|e| UsageError(e.to_string()))?;
    let mut plans = scenario.plan(args.scale).map_err(|e| UsageError(e.to_string()))?;
    if let Some(bytes) = args.buffer_pool {
        for plan in &mut plans {
            // The floor `compare` applies, at each run's page size.
            let at = format!(
                "run `{}`'s page size ({} bytes)",
                plan.label, plan.settings.page_size_bytes
            );
            let innodb = match args.engine.engine {
                EngineKind::Sim => {
                    args.engine.model().or(plan.settings.model).unwrap_or_default()
                        != SimModel::Postgres15
                }
                engine => engine != EngineKind::Postgres,
            };
            check_pool_floor(bytes, plan.settings.page_size_bytes, &at, innodb)?;
            plan.settings.buffer_pool_bytes = Some(bytes);
        }
    }
    let facts = Facts {
        engine: args.engine.engine,
        innodb_model: plans.iter().any(|p| {
            args.engine.model().or(p.settings.model).unwrap_or_default() != SimModel::Postgres15
        }),
        buffer_pool: plans.iter().any(|p| p.settings.buffer_pool_bytes.is_some()),
        shards: args.engine.shards.or(plans.iter().find_map(|p| p.settings.shards)).is_some(),
    };
    applies::check("run", given, &facts)?;
    // --repeat (or KEYLAB_REPEAT), else the scenario's [engine] repeat on a server (the
    // simulator runs once whatever the scenario says: its figures never vary).
    let repeats = match (args.repeat, scenario.repeat(), args.engine.engine) {
        (None, Some(n), engine) if engine != EngineKind::Sim => {
            crate::args::repeats_from_scenario(n)?
        }
        (given, _, engine) => crate::args::repeats(given, engine)?,
    };
    let backends = scenario.backends();
    if let (Some(n), false) = (args.engine.shards, backends.is_empty()) {
        if n as usize != backends.len() {
            return Err(UsageError(format!(
                "--shards {n}, but the scenario's [engine] backends lists {} servers; drop \
                 --shards",
                backends.len()
            ))
            .into());
        }
    }
    args.engine.backends = backends.into_iter().map(crate::args::UrlArg::new).collect();
    // A scenario's run whose key the engine has no column type for is left out, said so
    // (E3's bin-swap on PostgreSQL); a scenario left with no run is refused.
    let before = plans.len();
    plans.retain(|plan| match check_variant_on(args.engine.engine, &plan.variant) {
        Ok(()) => true,
        Err(e) => {
            let text = format!("run `{}` left out: {e}", plan.label);
            eprintln!("keylab: {}", keylab_report::escape_controls(&text, true));
            false
        }
    });
    if plans.is_empty() && before > 0 {
        return Err(UsageError(format!(
            "no run of the scenario can run on --engine {}",
            args.engine.engine
        ))
        .into());
    }
    if let (Some(model), true) = (
        plans.iter().find_map(|p| p.settings.model),
        args.engine.engine != keylab_core::EngineKind::Sim,
    ) {
        eprintln!(
            "keylab: the scenario's [engine] model = \"{model}\" is for --engine sim; --engine {} \
             measures the server itself",
            args.engine.engine
        );
    }
    for plan in &plans {
        let loads: Vec<&LoadPlan> = plan
            .phases
            .iter()
            .filter_map(|p| match p {
                PhasePlan::Load { plan, .. } => Some(plan),
                _ => None,
            })
            .collect();
        check_run(&format!("run `{}`", plan.label), plan.table(), &plan.settings, &loads)?;
    }
    check_memory(&args, &plans)?;
    let mut report: Option<Report> = None;
    let bars = Bars::new();
    let new_report = |engine: EngineInfo| Report {
        keylab: env!("CARGO_PKG_VERSION").to_string(),
        schema_version: keylab_core::REPORT_SCHEMA_VERSION,
        scenario: scenario.name().to_string(),
        seed: args.seed,
        engine,
        runs: Vec::new(),
        schema: None,
    };
    let outcome = if args.engine.engine == EngineKind::Sim {
        // Every run on its own simulator. The engine block folds every run's engine
        // description in run order, as `EngineSeries` folds its engines (a simulator's notes
        // only grow, so one engine per run describes the same).
        let jobs = args.jobs.unwrap_or_else(parallel::default_jobs);
        let mut engines: Option<EngineInfo> = None;
        parallel::run_ordered(
            jobs,
            plans.len(),
            &bars,
            |n| parallel::plan_cost(&plans[n]),
            |n, progress| {
                let plan = &plans[n];
                let mut eng = make_engine(&args.engine, &plan.settings, None)?;
                let run = keylab_scenario::execute(eng.as_mut(), plan, args.seed, progress)
                    .map_err(|err| anyhow!(err).context(format!("run `{}` failed", plan.label)))?;
                Ok((run, eng.info()))
            },
            |n, (run, info)| {
                match &mut engines {
                    Some(all) => all.absorb(&info),
                    None => engines = Some(info),
                }
                let all = engines.clone().expect("set above");
                let report = report.get_or_insert_with(|| new_report(all.clone()));
                report.engine = all;
                report.runs.push(run);
                let stage = if n + 1 == plans.len() { Stage::Final } else { Stage::Partial };
                output::write_exports(report, &args.output, stage)
            },
        )
    } else {
        // One server (one per distinct server settings, in turn): one run at a time, each
        // `repeats` times on a fresh table with the same rows, folded into one run with every
        // timing's spread.
        let mut engines = EngineSeries::new(&args.engine);
        let mut progress = bars.bar();
        plans.iter().enumerate().try_for_each(|(n, plan)| {
            let mut runs = Vec::new();
            for r in 1..=repeats {
                let eng = engines.engine_for(&plan.settings).map_err(Failure::Job)?;
                report.get_or_insert_with(|| new_report(eng.info()));
                let run = keylab_scenario::execute(eng, plan, args.seed, &mut progress).map_err(
                    |err| {
                        let what = match repeats {
                            1 => format!("run `{}` failed", plan.label),
                            _ => format!("run `{}` failed (repeat {r} of {repeats})", plan.label),
                        };
                        Failure::Job(anyhow!(err).context(what))
                    },
                )?;
                runs.push(run);
            }
            let run = keylab_core::fold_repeats(runs);
            let report = report.as_mut().expect("set above");
            // Engines add notes while they run (purge waits, file writes): read them now.
            report.engine = engines.info().expect("an engine ran");
            report.runs.push(run);
            let stage = if n + 1 == plans.len() { Stage::Final } else { Stage::Partial };
            output::write_exports(report, &args.output, stage).map_err(Failure::Sink)
        })
    };
    match outcome {
        Ok(()) => {}
        Err(Failure::Sink(err)) => return Err(err),
        Err(Failure::Job(err)) => {
            // Keep what finished: print it before failing.
            if let Some(report) = report.as_ref().filter(|r| !r.runs.is_empty()) {
                output::write_exports(report, &args.output, Stage::Final)?;
                output::print(report, &args.output)?;
            }
            return Err(err);
        }
    }
    match &report {
        Some(report) => output::print(report, &args.output),
        None => Err(anyhow!("scenario {} has no runs", scenario.name())),
    }
}

/// Refuses (exit 2) a run the machine has not the memory for: on the simulator, the runs'
/// tables held at once (one per job) with every row their loads insert; on a private server,
/// the largest buffer pool of a run.
fn check_memory(args: &RunArgs, plans: &[keylab_scenario::RunPlan]) -> Result<(), UsageError> {
    if args.engine.engine != EngineKind::Sim {
        let pool = plans.iter().filter_map(|p| p.settings.buffer_pool_bytes).max();
        return match (pool, &args.engine.url) {
            (Some(bytes), None) => {
                let flag = match args.buffer_pool {
                    Some(_) => "--buffer-pool",
                    None => "the scenario's [engine] buffer_pool",
                };
                crate::memory::check_server_pool(
                    flag,
                    bytes,
                    args.engine.engine == EngineKind::Postgres,
                )
            }
            _ => Ok(()),
        };
    }
    let tables: Vec<u64> = plans
        .iter()
        .map(|plan| {
            let rows = plan
                .phases
                .iter()
                .map(|p| match p {
                    PhasePlan::Load { rows, .. } => *rows,
                    _ => 0,
                })
                .fold(0, u64::saturating_add);
            crate::memory::table_bytes(plan.table(), Some(&plan.variant), rows)
        })
        .collect();
    let jobs = args.jobs.unwrap_or_else(parallel::default_jobs);
    let need = crate::memory::held_at_once(tables, jobs);
    let what = format!("--scale {} on {} job(s)", args.scale, jobs.min(plans.len()));
    crate::memory::check_model(&what, need, "--scale (or --jobs: each job holds a table)")
}
