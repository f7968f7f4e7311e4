//! keylab's command-line entry point: parse, dispatch, map errors to exit codes.
//!
//! Exit codes: 0 success, 1 run failed, 2 bad usage or bad scenario (clap's own usage errors
//! also exit 2), 128 + N when signal N stopped it (130 for Ctrl-C, 143 for SIGTERM) after
//! cleaning up.

mod alloc;
mod applies;
mod args;
mod checks;
mod cmd;
mod engines;
mod input;
mod memory;
mod output;
mod parallel;
mod progress;

use std::process::ExitCode;

/// An error caused by what the user asked for (bad flag value, bad file), not by the run:
/// exits 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn main() -> ExitCode {
    keep_freed_memory();
    let (cli, given) = parse_args();
    // Ctrl-C and the other signals that end a program must stop any private server this
    // run starts and remove its files.
    if let Err(err) = keylab_server_common::install_signal_cleanup() {
        eprintln!("keylab: warning: {err}");
    }
    // What no handler saw (a keylab killed with SIGKILL) is removed here, at the next start.
    for base in keylab_server_common::sweep::sweep_bases() {
        for swept in keylab_server_common::sweep_orphans(&base) {
            eprintln!("keylab: {swept}");
        }
    }
    match cmd::run(cli, &given) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            if keylab_server_common::interrupted() {
                // The work failed because a signal stopped its server; the handler is
                // removing the server's files and exits with 128 + the signal when done.
                eprintln!("keylab: interrupted; cleaning up");
                loop {
                    std::thread::park();
                }
            }
            // Errors quote input (file names, identifiers): its control characters escaped.
            let text = format!("{err:#}");
            eprintln!("keylab: error: {}", keylab_report::escape_controls(&text, true));
            if err.chain().any(|c| c.is::<UsageError>()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The command line, parsed, and the flags the user typed (not defaulted). When an argument
/// holds a control character (a value quoting `ESC [2J`), clap's error is drawn unstyled with
/// every control character escaped, so the echoed value cannot drive the terminal; otherwise
/// clap prints its own (coloured) errors.
fn parse_args() -> (args::Cli, applies::Given) {
    use clap::{CommandFactory, FromArgMatches};
    let controls = std::env::args_os().any(|a| a.to_string_lossy().chars().any(char::is_control));
    let mut cmd = args::Cli::command();
    if controls {
        cmd = cmd.styles(clap::builder::Styles::plain());
    }
    let parsed = cmd.try_get_matches().and_then(|mut m| {
        let given = m.subcommand().map(|(_, sub)| applies::Given::from_matches(sub));
        let cli = args::Cli::from_arg_matches_mut(&mut m)
            .map_err(|e| e.format(&mut args::Cli::command()))?;
        Ok((cli, given.unwrap_or_default()))
    });
    match parsed {
        Ok(parsed) => parsed,
        Err(e) if controls && e.use_stderr() => {
            let text = e.render().ansi().to_string();
            eprint!("{}", keylab_report::escape_controls(&text, true));
            std::process::exit(e.exit_code())
        }
        Err(e) => e.exit(),
    }
}

/// `keylab keys ... | head` closes the pipe early; that is success, as in ripgrep.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let pipe = Some(std::io::ErrorKind::BrokenPipe);
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().map(std::io::Error::kind) == pipe
            || c.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind)
                == pipe
    })
}

/// mimalloc instead of the system allocator: the simulator allocates and frees a row per
/// insert and a page per split, and glibc's malloc/free were ~8% of a 10M-row load. Through
/// `alloc::Mimalloc`, which skips mimalloc's aligned calls where they are not needed.
#[global_allocator]
static ALLOCATOR: alloc::Mimalloc = alloc::Mimalloc;

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (mimalloc.h; the crate pins the
/// version in Cargo.lock). Declared here: `libmimalloc-sys` exports it only with a feature
/// that needs another crate. A test checks the number against the linked mimalloc.
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Tells mimalloc never to return freed memory to the OS (`purge_delay` -1): the simulator's
/// trees only grow, and a page buffer freed when it grows is soon reused; purging it made the
/// kernel fault in and zero it again (`clear_page_erms`, most of the run's system time).
/// Peak memory is unchanged: the memory is reused, not added (docs/benchmarks.md §4).
fn keep_freed_memory() {
    // SAFETY: sets one documented integer option; mimalloc reads options at any time and
    // `mi_option_set` is safe to call from any thread.
    #[allow(unsafe_code)]
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, -1);
    }
}

#[cfg(test)]
mod tests {
    use super::{keep_freed_memory, MI_OPTION_PURGE_DELAY};
    use std::process::Command;

    extern "C" {
        fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    }

    fn purge_delay() -> std::ffi::c_long {
        // SAFETY: reads one integer option; `mi_option_get` takes any option number below
        // mimalloc's last and is safe to call from any thread.
        #[allow(unsafe_code)]
        unsafe {
            mi_option_get(MI_OPTION_PURGE_DELAY)
        }
    }

    /// Set in the child this test starts, with `MIMALLOC_PURGE_DELAY`.
    const CHILD: &str = "KEYLAB_TEST_PURGE_DELAY_CHILD";

    /// `MI_OPTION_PURGE_DELAY` is the option mimalloc reads from `MIMALLOC_PURGE_DELAY`, in
    /// the mimalloc this binary links: a crate update that renumbers `mi_option_t` fails here
    /// instead of `keep_freed_memory` setting another option. The test runs itself again
    /// with that variable set (mimalloc reads it when it starts) and reads the option back.
    #[test]
    fn purge_delay_option_number_matches_the_linked_mimalloc() {
        if std::env::var_os(CHILD).is_some() {
            assert_eq!(purge_delay(), 4321, "option {MI_OPTION_PURGE_DELAY} is not purge_delay");
            keep_freed_memory();
            assert_eq!(purge_delay(), -1);
            return;
        }
        let name = "tests::purge_delay_option_number_matches_the_linked_mimalloc";
        let out = Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--test-threads", "1"])
            .env(CHILD, "1")
            .env("MIMALLOC_PURGE_DELAY", "4321")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
        assert!(stdout.contains("1 passed"), "the child ran no test:\n{stdout}");
    }
}
