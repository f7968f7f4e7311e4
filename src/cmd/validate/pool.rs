//! `keylab validate`'s buffer pool check: the same seeded loads, a random key and an ordered
//! one, on the simulator and on the server under a small buffer pool, and the simulator's
//! page reads and writes against the server's (`Innodb_buffer_pool_reads`, read-ahead off on
//! a private server so that both count every page read; `Innodb_pages_written`).
//!
//! Reads are the check (the model follows the server's LRU and page cleaner rules, 10.11.9's
//! by default, and the tablespace's file-space pages; the server's figure also counts the
//! system tablespace's pages, rollback-segment headers read by purge above all, and the ibuf
//! bitmap, 4 to 10 % of it at 16 MiB, which the model does not hold: on 10.11.19 the model's
//! reads were 5.5 to 7.2 % under the server's, 0.7 to 2.4 % under its index-page reads);
//! writes are compared and explained, not held to a bound: in these loads every page the
//! server writes is an LRU batch write (no adaptive flush-list flushing), and a page the
//! batch wrote stays cached until the next batch, so an insert can dirty it again and it is
//! written again; the model follows this and writes 4 to 5 % fewer pages (docs/model-rules.md
//! §9).

use crate::args::EngineArgs;
use crate::engines::make_engine;
use crate::progress::Bars;
use anyhow::{anyhow, Result};
use keylab_core::{
    run_variant, EngineSettings, KeySource, LoadPlan, Payload, Placement, RunResult, Workload,
};
use keylab_keys::{GenConfig, Variant};
use keylab_scenario::validate::pool::{error_pct, PoolCheck, POOL_BYTES, ROWS, VARIANTS};

/// Runs the loads on the server described by `server` and on the simulator with `model`.
pub fn run(server: &EngineArgs, sim: &EngineArgs) -> Result<Vec<PoolCheck>> {
    let settings =
        EngineSettings { buffer_pool_bytes: Some(POOL_BYTES), ..EngineSettings::default() };
    let server_runs = load_all(server, &settings)?;
    let sim_runs = load_all(sim, &settings)?;
    Ok(VARIANTS
        .iter()
        .zip(server_runs.iter().zip(&sim_runs))
        .map(|(v, (srv, sim))| {
            let (sp, mp) = (srv.buffer_pool.clone(), sim.buffer_pool.clone());
            let (sp, mp) = (sp.unwrap_or_default(), mp.unwrap_or_default());
            PoolCheck {
                variant: v.to_string(),
                rows: ROWS,
                pool_bytes: sp.pool_bytes,
                sim_pages_read: mp.pages_read,
                server_pages_read: sp.pages_read,
                reads_error_pct: error_pct(mp.pages_read, sp.pages_read),
                sim_pages_written: mp.pages_written,
                server_pages_written: sp.pages_written,
                writes_error_pct: error_pct(mp.pages_written, sp.pages_written),
            }
        })
        .collect())
}

fn load_all(args: &EngineArgs, settings: &EngineSettings) -> Result<Vec<RunResult>> {
    let mut engine = make_engine(args, settings, None)?;
    let mut progress = Bars::new().bar();
    let plan = LoadPlan::default();
    VARIANTS
        .iter()
        .map(|v| {
            let variant: Variant = v.parse().map_err(|e| anyhow!("{v}: {e}"))?;
            let workload = Workload {
                variant,
                placement: Placement::Pk,
                payload: Payload::Data { bytes: 4 },
                rows: ROWS,
                table_name: format!("pool_{}", v.replace(':', "_")),
            };
            let keys = KeySource::Generated(GenConfig::default());
            run_variant(engine.as_mut(), &workload, keys, &plan, &mut progress)
                .map_err(|e| anyhow!("buffer pool check, {v}: {e}"))
        })
        .collect()
}
