//! `keylab completions SHELL` and `keylab man`: what an installed command-line tool ships
//! beside its binary, generated from the one clap definition of the command line
//! (clap_complete, clap_mangen) so they cannot drift from `--help`. Nothing is installed:
//! both print on standard output.

use crate::args::{Cli, CompletionShell};
use anyhow::Result;
use clap::CommandFactory;
use std::io::Write;

/// Prints the completion script of `shell`.
pub fn completions(shell: CompletionShell) -> Result<()> {
    use clap_complete::Shell;
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    // Into memory first: clap_complete panics when its writer fails (`| head`), while a
    // closed pipe on our own write is an ordinary success (main.rs).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "keylab", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// Prints the man page: keylab's page with a section per subcommand (its options included).
pub fn man() -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(&man_page()?)?;
    out.flush()?;
    Ok(())
}

/// keylab(1) as roff: the top-level page, then each subcommand's description, synopsis and
/// options under a `KEYLAB COMMAND` section of its own, then the exit codes and version.
pub fn man_page() -> Result<Vec<u8>> {
    let mut cmd = Cli::command();
    // Built: every subcommand gets its --help and its full name (`keylab compare`).
    cmd.build();
    let mut page = Vec::new();
    let top = clap_mangen::Man::new(cmd.clone());
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    // The subcommands are sections of this page (clap_mangen's own list would point at
    // keylab-compare(1) and others, pages keylab does not install).
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("keylab {}", sub.get_name());
        let man = clap_mangen::Man::new(sub.clone());
        writeln!(page, ".SH \"{}\"", name.to_uppercase())?;
        man.render_description_section(&mut page)?;
        man.render_synopsis_section(&mut page)?;
        man.render_options_section(&mut page)?;
    }
    top.render_extra_section(&mut page)?;
    top.render_version_section(&mut page)?;
    Ok(page)
}
