//! The private instances alive in this process, of every server kind (MariaDB/MySQL and
//! PostgreSQL): each engine registers an instance's directory before anything runs in it
//! ([`LiveInstance::register`]) and tells the registry its server's pid and its initialiser's
//! process group while they run, so that one piece of code, [`cleanup_all_live`] (run by the
//! signal handler), stops every kind and removes its directory. Also the small steps every
//! kind of instance takes to start and stop: a free loopback port, the tail of a log, stopping
//! a pid with the server's own shutdown signal; and whether tests run in CI ([`is_ci`]).
//!
//! It does not start servers nor know their configuration; each engine's crate does.

use crate::error::ServerError;
use crate::process;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One live private instance, as the signal handler needs to know it.
struct LiveEntry {
    /// The running server.
    pid: Option<i32>,
    /// The signal that stops it at once (SIGTERM for MariaDB/MySQL; PostgreSQL's fast
    /// shutdown is SIGINT, its SIGTERM waits for clients).
    stop_signal: Signal,
    /// The initialiser's process group, while it runs.
    init_group: Option<i32>,
    dir: PathBuf,
}

static LIVE: Mutex<BTreeMap<u64, LiveEntry>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn live() -> std::sync::MutexGuard<'static, BTreeMap<u64, LiveEntry>> {
    // A panic while holding the lock must not stop later cleanup.
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Stops every registered private server and its initialiser, and removes its directory
/// (what the signal handler does before exiting).
pub fn cleanup_all_live() {
    let entries: Vec<LiveEntry> = std::mem::take(&mut *live()).into_values().collect();
    for e in entries {
        if let Some(pid) = e.pid {
            stop_pid_with(pid, e.stop_signal, Duration::from_secs(10));
        }
        if let Some(group) = e.init_group {
            // The initialiser is a script with a bootstrap server below it: the whole group.
            let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
        }
        // Anything else still running from the directory, then wait until none runs, so
        // that no process writes into the directory while it is removed.
        process::kill_all_naming(&e.dir, Signal::SIGKILL, Duration::from_secs(10));
        // A killed initdb backend or server leaves its shared memory segment.
        crate::shm::release_segments(&e.dir, Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&e.dir);
    }
}

/// A private instance in the registry the signal handler and [`cleanup_all_live`] work from:
/// one piece of code stops every kind. Register before anything runs in `dir`; drop the
/// registration once the instance is stopped and its directory removed.
#[derive(Debug)]
pub struct LiveInstance {
    id: u64,
}

impl LiveInstance {
    /// Registers the instance directory `dir`, whose server stops on `stop_signal`.
    pub fn register(dir: &Path, stop_signal: Signal) -> LiveInstance {
        let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
        live().insert(
            id,
            LiveEntry { pid: None, stop_signal, init_group: None, dir: dir.to_path_buf() },
        );
        LiveInstance { id }
    }

    /// The server's pid, while it runs.
    pub fn set_pid(&self, pid: Option<u32>) {
        if let Some(e) = live().get_mut(&self.id) {
            e.pid = pid.map(|p| p as i32);
        }
    }

    /// The initialiser's process group, while it runs.
    pub fn set_init_group(&self, group: Option<u32>) {
        if let Some(e) = live().get_mut(&self.id) {
            e.init_group = group.map(|p| p as i32);
        }
    }
}

impl Drop for LiveInstance {
    fn drop(&mut self) {
        live().remove(&self.id);
    }
}

/// Number of private servers currently alive in this process (for tests and diagnostics).
pub fn live_private_servers() -> usize {
    live().len()
}

/// A free TCP port on 127.0.0.1 (free when asked; the server binds it next).
pub fn free_port() -> Result<u16, ServerError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| ServerError::Start(format!("cannot find a free loopback port: {e}")))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| ServerError::Start(format!("cannot find a free loopback port: {e}")))
}

/// The last `lines` lines of a log file (empty when unreadable), for error messages.
pub fn tail_of(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Sends `signal` (the server's own shutdown signal), then SIGKILL after `grace`; reaps the
/// process when it is this process's child.
pub fn stop_pid_with(pid: i32, signal: Signal, grace: Duration) {
    let pid = Pid::from_raw(pid);
    if kill(pid, signal).is_err() {
        let _ = waitpid(pid, Some(WaitPidFlag::WNOHANG));
        return;
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(50)),
            // Exited, or not our child any more (already reaped elsewhere).
            _ => return,
        }
    }
    let _ = kill(pid, Signal::SIGKILL);
    let _ = waitpid(pid, None);
}

/// True when the value of `CI` says tests run in CI: CI services set `true`, `1` or other
/// values, so any non-empty value except `false` and `0` (any case) counts. Each engine's
/// `installed_or_skip` fails instead of skipping there.
pub fn is_ci(value: Option<&str>) -> bool {
    value
        .map(str::trim)
        .is_some_and(|v| !v.is_empty() && !v.eq_ignore_ascii_case("false") && v != "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_values() {
        for yes in ["true", "TRUE", "True", "1", "yes", "github"] {
            assert!(is_ci(Some(yes)), "{yes}");
        }
        for no in [None, Some(""), Some(" "), Some("false"), Some("FALSE"), Some("0")] {
            assert!(!is_ci(no), "{no:?}");
        }
    }
}
