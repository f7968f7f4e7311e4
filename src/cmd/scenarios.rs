//! `keylab scenarios`: the built-in experiments, one line each; `show NAME` prints one as
//! TOML to copy and edit.

use crate::args::{ScenariosAction, ScenariosArgs};
use crate::UsageError;
use anyhow::Result;
use keylab_scenario::{builtin, builtin_names, BUILTINS};
use std::io::Write;

/// Runs `keylab scenarios`.
pub fn run(args: ScenariosArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match args.action {
        None => {
            let width = BUILTINS.iter().map(|b| b.name.len()).max().unwrap_or(0);
            for b in BUILTINS {
                let s = b.scenario().map_err(|e| anyhow::anyhow!("built-in is broken: {e}"))?;
                writeln!(out, "{:<width$}  {}", b.name, s.description())?;
            }
            writeln!(
                out,
                "\nRun one with `keylab run NAME`; `keylab scenarios show NAME` prints its TOML."
            )?;
        }
        Some(ScenariosAction::Show { name }) => {
            let b = builtin(&name).ok_or_else(|| {
                UsageError(format!("no built-in scenario `{name}`; valid: {}", builtin_names()))
            })?;
            out.write_all(b.toml.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}
