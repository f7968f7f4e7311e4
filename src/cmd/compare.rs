//! `keylab compare`: load the same rows under several key variants and report them side by
//! side.

use crate::args::CompareArgs;
use crate::cmd::keys::gen_config;
use crate::engines::make_engine;
use crate::output;
use crate::progress::LoadProgress;
use crate::UsageError;
use anyhow::{Context, Result};
use keylab_core::{run_variant, EngineSettings, KeySource, LoadPlan, Payload, Report, Workload};
use keylab_keys::{Key, Variant};
use std::path::Path;

/// Runs `keylab compare`.
pub fn run(args: CompareArgs) -> Result<()> {
    let replay = match &args.keys_file {
        Some(path) => {
            let [variant] = args.keys.as_slice() else {
                return Err(UsageError(format!(
                    "--keys-file needs exactly one variant in --keys (got {})",
                    args.keys.len()
                ))
                .into());
            };
            Some(read_keys_file(path, *variant)?)
        }
        None => None,
    };
    let settings =
        EngineSettings { page_size_bytes: args.page_size.bytes(), ..EngineSettings::default() };
    check_limits(&args, settings.page_size_bytes)?;
    let mut engine = make_engine(&args.engine, &settings, args.check_every)?;
    let plan = LoadPlan { method: args.method, batch: args.batch, writers: args.writers };
    let mut report = Report {
        keylab: env!("CARGO_PKG_VERSION").to_string(),
        schema_version: keylab_core::REPORT_SCHEMA_VERSION,
        scenario: "compare".into(),
        seed: args.gen.seed,
        engine: engine.info(),
        runs: Vec::new(),
    };
    let mut progress = LoadProgress::new();
    let mut replay = replay;
    for variant in &args.keys {
        let (keys, rows) = match replay.take() {
            Some(list) => {
                let rows = args.rows.min(list.len() as u64);
                (KeySource::Replay(list), rows)
            }
            None => (KeySource::Generated(gen_config(&args.gen)), args.rows),
        };
        let workload = Workload {
            variant: *variant,
            placement: args.placement,
            payload: Payload::Data { bytes: args.payload_bytes },
            rows,
            table_name: table_name(variant),
        };
        let result = run_variant(engine.as_mut(), &workload, keys, &plan, &mut progress);
        match result {
            Ok(run) => {
                report.runs.push(run);
                output::write_exports(&report, &args.output)?;
            }
            Err(err) => {
                // Keep what finished: print and export it before failing.
                if !report.runs.is_empty() {
                    output::write_exports(&report, &args.output)?;
                    output::print(&report, &args.output)?;
                }
                return Err(err).with_context(|| format!("variant {variant} failed"));
            }
        }
    }
    output::print(&report, &args.output)
}

/// Refuses, before any engine starts, a table the server would refuse: `--payload-bytes`
/// sizes the `data` column, so a too-long column or row names that flag and the limit.
fn check_limits(args: &CompareArgs, page_size_bytes: u32) -> Result<()> {
    for variant in &args.keys {
        let workload = Workload {
            variant: *variant,
            placement: args.placement,
            payload: Payload::Data { bytes: args.payload_bytes },
            rows: args.rows,
            table_name: table_name(variant),
        };
        let table = workload.table();
        if let Err(e) = keylab_schema::limits::check(&table, page_size_bytes) {
            let column = match e {
                keylab_schema::limits::LimitError::ColumnTooLong { column, .. } => {
                    format!("column `{}`: ", table.columns[column].name)
                }
                _ => String::new(),
            };
            return Err(UsageError(format!(
                "--payload-bytes {}: the table for {variant} ({} placement) is not one MariaDB \
                 creates: {column}{e}",
                args.payload_bytes, args.placement
            ))
            .into());
        }
    }
    Ok(())
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

/// Reads ids, one per line as `keylab keys` prints them; errors name the file, line and column.
fn read_keys_file(path: &Path, variant: Variant) -> Result<Vec<Key>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("{}: cannot read: {e}", path.display())))?;
    let mut keys = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let column = line.len() - line.trim_start().len() + 1;
        let key = Key::parse(variant, trimmed)
            .map_err(|e| UsageError(format!("{}:{}:{}: {e}", path.display(), n + 1, column)))?;
        keys.push(key);
    }
    if keys.is_empty() {
        return Err(UsageError(format!("{}: no ids in the file", path.display())).into());
    }
    Ok(keys)
}
