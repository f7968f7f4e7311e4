//! Building the engine a command asked for: the simulator, a private server instance, or a
//! user's server at `--url`.

use crate::args::EngineArgs;
use crate::sim_engine::SimEngine;
use crate::UsageError;
use anyhow::Result;
use keylab_core::{Engine, EngineKind, EngineSettings};
use keylab_sim::{PageSize, SimSettings};

/// The engine `args` name, configured with `settings`. `check_every` turns on the
/// simulator's invariant checker.
pub fn make_engine(
    args: &EngineArgs,
    settings: &EngineSettings,
    check_every: Option<u64>,
) -> Result<Box<dyn Engine>> {
    match args.engine {
        EngineKind::Sim => {
            if args.url.is_some() {
                return Err(UsageError(
                    "--url needs a server engine: add --engine mariadb or --engine mysql".into(),
                )
                .into());
            }
            let page_size = PageSize::ALL
                .into_iter()
                .find(|p| p.bytes() == settings.page_size_bytes)
                .ok_or_else(|| {
                    UsageError(format!(
                        "page size {} bytes is not an InnoDB page size; valid: 4k, 8k, 16k, 32k, 64k",
                        settings.page_size_bytes
                    ))
                })?;
            let sim = SimSettings {
                page_size,
                fill_factor_pct: settings.fill_factor_pct,
                merge_threshold_pct: settings.merge_threshold_pct,
                check_every,
                ..SimSettings::default()
            };
            Ok(Box::new(SimEngine::new(sim)))
        }
        other => Err(anyhow::anyhow!(
            "--engine {other} is not built yet; --engine sim (the default) works"
        )),
    }
}
