//! What happens when a signal would end keylab: one thread waits for every signal whose
//! default action terminates the process, and on the first one runs the engines' interrupt
//! hooks ([`on_interrupt`]; MariaDB's drops the tables an interrupted `--url` run left
//! half-done), stops every private server this process started, removes its directory
//! ([`crate::registry::cleanup_all_live`]) and exits with 128 + the signal number.
//!
//! It cannot see SIGKILL (nor SIGSEGV, SIGBUS and the like, faults it must not return to):
//! the parent-death signal and the sweep at the next start ([`crate::sweep::sweep_orphans`])
//! cover those. It knows no server's SQL: what a hook does is the engine's business.

use nix::sys::signal::Signal;
use signal_hook::iterator::Signals;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The named signals whose default action ends the process and that a program may catch.
/// Left out: SIGPIPE (Rust ignores it, so a closed pipe is an error, not a death), and
/// SIGBUS and SIGTRAP, which report a fault of the very instruction the handler would
/// return to (like SIGSEGV, SIGILL and SIGFPE, which signal-hook refuses to take over); the
/// sweep at the next start covers those. The real-time signals are added by
/// [`cleanup_signals`].
pub const CLEANUP_SIGNALS: [Signal; 16] = [
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
    // A profiler that uses it installs its own handler over this one.
    Signal::SIGPROF,
    Signal::SIGSTKFLT,
    Signal::SIGSYS,
    // `kill -ABRT`; an abort() of keylab itself still dies at once (abort resets it).
    Signal::SIGABRT,
];

/// Every signal the handler takes: [`CLEANUP_SIGNALS`], then SIGRTMIN..=SIGRTMAX (the C
/// library keeps the two below SIGRTMIN for its threads).
pub fn cleanup_signals() -> Vec<i32> {
    CLEANUP_SIGNALS.iter().map(|&s| s as i32).chain(libc::SIGRTMIN()..=libc::SIGRTMAX()).collect()
}

static HANDLER_SET: AtomicBool = AtomicBool::new(false);

/// What the handler runs before it stops the private servers, in the order registered.
static INTERRUPT_HOOKS: Mutex<Vec<InterruptHook>> = Mutex::new(Vec::new());

/// Work an engine must do when a signal ends keylab, before the private servers are stopped
/// (e.g. drop its half-done tables on a user's server); returns one line per thing done, which
/// the handler prints as `keylab: interrupted: LINE`.
pub type InterruptHook = fn() -> Vec<String>;

/// Registers `hook` with the signal handler (see [`InterruptHook`]). Register once per hook
/// (e.g. behind a `std::sync::Once`): a hook registered twice runs twice.
pub fn on_interrupt(hook: InterruptHook) {
    INTERRUPT_HOOKS.lock().unwrap_or_else(|e| e.into_inner()).push(hook);
}

/// Set when a signal arrived, before the servers are stopped: work that fails from then on
/// failed because of the interruption (its server went away), not on its own.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// True once a signal arrived; the handler is then cleaning up and will exit with 128 + the
/// signal, so the caller should wait for it rather than report its own error.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The signals this process ignores (`SigIgn` of `/proc/self/status`, a hex mask with bit
/// N-1 for signal N); none where that cannot be read.
fn ignored_at_start() -> Vec<i32> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .map(|mask| (1..=64).filter(|n| mask & (1u64 << (n - 1)) != 0).collect())
        .unwrap_or_default()
}

/// Installs the handler for [`cleanup_signals`] (see the module docs). Call once at program
/// start; later calls do nothing.
pub fn install_signal_cleanup() -> Result<(), crate::ServerError> {
    if HANDLER_SET.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    let err = |e: std::io::Error| {
        crate::ServerError::Io(format!("cannot install the signal handler: {e}"))
    };
    // A signal ignored when keylab started stays ignored: `nohup keylab ...` must outlive
    // the terminal, and a background job of a script ignores Ctrl-C.
    let ignored = ignored_at_start();
    let wanted = cleanup_signals().into_iter().filter(|s| !ignored.contains(s));
    let mut signals = Signals::new(wanted).map_err(err)?;
    std::thread::Builder::new()
        .name("keylab-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                let hooks = INTERRUPT_HOOKS.lock().unwrap_or_else(|e| e.into_inner()).clone();
                for line in hooks.into_iter().flat_map(|hook| hook()) {
                    eprintln!("keylab: interrupted: {line}");
                }
                crate::registry::cleanup_all_live();
                std::process::exit(128 + signal);
            }
        })
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catchable_terminating_signal_is_taken() {
        let taken = cleanup_signals();
        for s in [Signal::SIGPROF, Signal::SIGSTKFLT, Signal::SIGSYS, Signal::SIGABRT] {
            assert!(taken.contains(&(s as i32)), "{s}");
        }
        assert!(taken.contains(&libc::SIGRTMIN()) && taken.contains(&libc::SIGRTMAX()));
        for s in [Signal::SIGKILL, Signal::SIGSEGV, Signal::SIGPIPE, Signal::SIGBUS] {
            assert!(!taken.contains(&(s as i32)), "{s}");
        }
        for s in &taken {
            assert!(!signal_hook::consts::FORBIDDEN.contains(s), "{s} cannot be taken");
        }
    }

    #[test]
    fn ignored_signals_are_read_from_proc() {
        // Rust ignores SIGPIPE in every program it starts (libtest included).
        assert!(ignored_at_start().contains(&(Signal::SIGPIPE as i32)));
        assert!(!ignored_at_start().contains(&(Signal::SIGTERM as i32)));
    }
}
