//! What happens when a signal would end keylab: one thread waits for every signal whose
//! default action terminates the process, and on the first one drops the tables an
//! interrupted `--url` run left half-done ([`crate::owner::drop_interrupted_tables`]), stops
//! every private server this process started, removes its directory
//! ([`crate::private::cleanup_all_live`]) and exits with 128 + the signal number.
//!
//! It cannot see SIGKILL (nor SIGSEGV and the like, which signal-hook refuses to take over):
//! the parent-death signal and the sweep at the next start ([`crate::private::sweep_orphans`])
//! cover those.

use nix::sys::signal::Signal;
use signal_hook::iterator::Signals;
use std::sync::atomic::{AtomicBool, Ordering};

/// The signals whose default action ends the process and that a program may catch. Left
/// out: SIGPIPE (Rust ignores it, so a closed pipe is an error, not a death) and SIGPROF
/// (sampling profilers deliver it by the thousand); the sweep at the next start covers them.
pub const CLEANUP_SIGNALS: [Signal; 12] = [
    Signal::SIGINT,
    Signal::SIGTERM,
    Signal::SIGHUP,
    Signal::SIGQUIT,
    Signal::SIGUSR1,
    Signal::SIGUSR2,
    Signal::SIGALRM,
    Signal::SIGVTALRM,
    Signal::SIGIO,
    Signal::SIGPWR,
    Signal::SIGXCPU,
    Signal::SIGXFSZ,
];

static HANDLER_SET: AtomicBool = AtomicBool::new(false);

/// Set when a signal arrived, before the servers are stopped: work that fails from then on
/// failed because of the interruption (its server went away), not on its own.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// True once a signal arrived; the handler is then cleaning up and will exit with 128 + the
/// signal, so the caller should wait for it rather than report its own error.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Installs the handler for [`CLEANUP_SIGNALS`] (see the module docs). Call once at program
/// start; later calls do nothing.
pub fn install_signal_cleanup() -> Result<(), crate::ServerError> {
    if HANDLER_SET.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    let err = |e: std::io::Error| {
        crate::ServerError::Io(format!("cannot install the signal handler: {e}"))
    };
    let mut signals = Signals::new(CLEANUP_SIGNALS.map(|s| s as i32)).map_err(err)?;
    std::thread::Builder::new()
        .name("keylab-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                for line in crate::owner::drop_interrupted_tables() {
                    eprintln!("keylab: interrupted: {line}");
                }
                crate::private::cleanup_all_live();
                std::process::exit(128 + signal);
            }
        })
        .map_err(err)?;
    Ok(())
}
