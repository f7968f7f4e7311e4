//! `keylab validate --shards N`: the sharded matrix (`builtin/validate-shards.toml`) on the
//! simulator's N model tables and on a Spider head over N private MariaDB backends, then the
//! usual per-metric error over the whole table, the per-shard figures and the per-window
//! shares of the hotspot curve (`keylab_scenario::validate::shards`). Exits 1 when a held
//! figure is out of bounds. No buffer pool check: a pool is per server.

use crate::args::{EngineArgs, ValidateArgs};
use anyhow::{anyhow, Context, Result};
use keylab_core::SimModel;
use keylab_scenario::validate;
use keylab_scenario::validate::shards as validate_shards;
use std::io::Write;

/// Runs `keylab validate --shards N [--sharding RULE]`.
pub fn run(args: ValidateArgs, shards: u32) -> Result<()> {
    let scenario = keylab_scenario::validate_shards_scenario()
        .map_err(|e| anyhow!("the sharded validation matrix is broken: {e}"))?;
    let plans: Vec<_> = scenario
        .plan(1.0)
        .map_err(|e| anyhow!("{e}"))?
        .into_iter()
        .filter(|p| args.sharding.is_none_or(|s| p.settings.sharding == Some(s)))
        .collect();
    let server = EngineArgs { shards: Some(shards), ..super::engine_args(&args, None) };
    let (server_info, server_runs) = super::run_all(&server, &plans, 1).context("server runs")?;
    let sim = EngineArgs {
        shards: Some(shards),
        ..super::engine_args(&args, Some(SimModel::Mariadb1011))
    };
    let jobs = args.jobs.unwrap_or_else(crate::parallel::default_jobs);
    let (sim_info, sim_runs) = super::run_all(&sim, &plans, jobs).context("simulator runs")?;
    let labels: Vec<String> = plans.iter().map(|p| p.label.clone()).collect();
    let whole = validate::compare(&labels, &sim_runs, &server_runs);
    let per_shard = validate_shards::compare(&labels, &sim_runs, &server_runs);
    let mut out = std::io::stdout().lock();
    if args.format == "json" {
        let json = serde_json::json!({
            "simulator": sim_info,
            "server": server_info,
            "validation": whole,
            "shards": per_shard,
            "passed": per_shard.passed(),
        });
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "simulator: {} (model mariadb-10.11, {shards} shard models)\nserver:    {} {} \
             (Spider head over {shards} private backends)\n",
            sim_info.version, server_info.kind, server_info.version
        )?;
        out.write_all(validate::render_table(&whole).as_bytes())?;
        writeln!(out)?;
        out.write_all(validate_shards::render(&per_shard).as_bytes())?;
    }
    out.flush()?;
    if per_shard.passed() {
        Ok(())
    } else {
        Err(anyhow!(
            "the simulator's shards are out of bounds against the Spider run: {}",
            per_shard.failures.join("; ")
        ))
    }
}
