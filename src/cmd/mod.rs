//! One module per command; each takes its parsed arguments and does the work.

mod compare;
mod inspect;
mod keys;
mod report;

use crate::args::{Cli, Command};
use anyhow::{bail, Result};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Compare(args) => compare::run(args),
        Command::Keys(args) => keys::run(args),
        Command::Report(args) => report::run(args),
        Command::Run(_) => not_built("run", "scenario files and the built-in experiments"),
        Command::Scenarios(_) => not_built("scenarios", "the built-in experiments"),
        Command::Validate(_) => not_built("validate", "the simulator-vs-server matrix"),
        Command::Inspect(args) => inspect::run(args),
    }
}

fn not_built(command: &str, what: &str) -> Result<()> {
    bail!("`keylab {command}` is not built yet ({what} is still to come); `keylab compare` works")
}
