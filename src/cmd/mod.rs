//! One module per command; each takes its parsed arguments and does the work.

mod advise;
mod compare;
mod inspect;
mod install;
mod keys;
mod report;
mod run;
mod scenarios;
mod validate;

use crate::args::{Cli, Command};
use anyhow::Result;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Advise(args) => advise::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Keys(args) => keys::run(args),
        Command::Report(args) => report::run(args),
        Command::Run(args) => run::run(args),
        Command::Scenarios(args) => scenarios::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Completions(args) => install::completions(args.shell),
        Command::Man => install::man(),
    }
}
