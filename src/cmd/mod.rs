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
mod work;

use crate::applies::Given;
use crate::args::{Cli, Command};
use anyhow::Result;

/// Runs the parsed command line; `given` is the flags the user typed.
pub fn run(cli: Cli, given: &Given) -> Result<()> {
    match cli.command {
        Command::Advise(args) => advise::run(args),
        Command::Compare(args) => compare::run(args, given),
        Command::Keys(args) => keys::run(args),
        Command::Report(args) => report::run(args),
        Command::Run(args) => run::run(args, given),
        Command::Scenarios(args) => scenarios::run(args),
        Command::Validate(args) => validate::run(args, given),
        Command::Inspect(args) => inspect::run(args),
        Command::Completions(args) => install::completions(args.shell),
        Command::Man => install::man(),
    }
}
