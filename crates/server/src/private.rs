//! Private, throwaway MariaDB/MySQL instances: keylab's default real server.
//!
//! A [`PrivateServer`] is created from the locally installed binaries in its own temporary
//! directory (data directory, unix socket, error log, config file), listens on a free
//! loopback port, and is configured with the start-only settings of a [`ServerSettings`].
//! It is stopped and its directory removed on drop, which also covers errors and panics
//! (drop runs during unwinding); [`install_signal_cleanup`] covers Ctrl-C, SIGTERM and the
//! other signals that terminate by default. What no handler sees (SIGKILL) is covered twice:
//! the server processes get a parent-death signal, and each instance directory names its
//! owner so that [`sweep_orphans`] at the next keylab start removes it.
//! It never touches the system service's data directory, socket or port.
//!
//! This module does not run workloads or read metrics; see the engine for that.

mod binaries;
mod config;
pub mod process;
mod sweep;

pub use crate::signals::{install_signal_cleanup, interrupted};
pub use binaries::{has_change_buffering, Flavour, ServerBinaries, ServerVersion};
pub use config::ServerSettings;
use config::{config_text, Layout};
pub use sweep::{read_owner, sweep_orphans, write_owner, Owner, Swept, DIR_PREFIX, OWNER_FILE};

use crate::error::ServerError;
use crate::url::ServerUrl;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
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

/// True when the value of `CI` says tests run in CI: CI services set `true`, `1` or other
/// values, so any non-empty value except `false` and `0` (any case) counts.
pub fn is_ci(value: Option<&str>) -> bool {
    value
        .map(str::trim)
        .is_some_and(|v| !v.is_empty() && !v.eq_ignore_ascii_case("false") && v != "0")
}

/// For test suites that need a server: true when server binaries are installed; otherwise
/// prints `SKIPPED: <test>: ...` and returns false, except in CI (see [`is_ci`]), where a
/// missing server is a failure (a panic), never a silent pass.
pub fn installed_or_skip(test: &str) -> bool {
    match ServerBinaries::find() {
        Ok(_) => true,
        Err(e) => {
            let ci = std::env::var("CI").ok();
            assert!(
                !is_ci(ci.as_deref()),
                "{test}: CI={} but no MariaDB/MySQL server is installed: {e}",
                ci.unwrap_or_default()
            );
            eprintln!("SKIPPED: {test}: no MariaDB/MySQL server installed: {e}");
            false
        }
    }
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
        let _ = std::fs::remove_dir_all(&e.dir);
    }
}

/// A private instance of another server kind (PostgreSQL) in the registry the signal handler
/// and [`cleanup_all_live`] work from: one piece of code stops every kind. Register before
/// anything runs in `dir`; drop the registration once the instance is stopped and its
/// directory removed.
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

/// A free TCP port on 127.0.0.1 (free when asked; the server binds it next).
pub fn free_port() -> Result<u16, ServerError> {
    free_loopback_port()
}

/// The last `lines` lines of a log file (empty when unreadable), for error messages.
pub fn tail_of(path: &Path, lines: usize) -> String {
    log_tail(path, lines)
}

/// Number of private servers currently alive in this process (for tests and diagnostics).
pub fn live_private_servers() -> usize {
    live().len()
}

/// SIGTERM (the server's clean shutdown, same as `SHUTDOWN`), then SIGKILL after `grace`.
fn stop_pid(pid: i32, grace: Duration) {
    stop_pid_with(pid, Signal::SIGTERM, grace)
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

/// A throwaway server with its own data directory, socket and loopback port.
pub struct PrivateServer {
    dir: Option<tempfile::TempDir>,
    child: Option<Child>,
    registry_id: u64,
    port: u16,
    socket: PathBuf,
    datadir: PathBuf,
    binaries: ServerBinaries,
    settings: ServerSettings,
}

impl std::fmt::Debug for PrivateServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateServer")
            .field("pid", &self.pid())
            .field("port", &self.port)
            .field("dir", &self.dir())
            .finish()
    }
}

fn free_loopback_port() -> Result<u16, ServerError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| ServerError::Start(format!("cannot find a free loopback port: {e}")))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| ServerError::Start(format!("cannot find a free loopback port: {e}")))
}

fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

impl PrivateServer {
    /// Creates and starts an instance; returns once it answers on its socket.
    pub fn start(settings: &ServerSettings) -> Result<PrivateServer, ServerError> {
        settings.check()?;
        let binaries = ServerBinaries::find()?;
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            .tempdir()
            .map_err(|e| ServerError::Start(format!("cannot create a temporary directory: {e}")))?;
        // Before anything runs in it: a later keylab sweeps it once this process is gone.
        sweep::write_owner(dir.path())
            .map_err(|e| ServerError::Start(format!("cannot write the owner file: {e}")))?;
        let registry_id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
        live().insert(
            registry_id,
            LiveEntry {
                pid: None,
                stop_signal: Signal::SIGTERM,
                init_group: None,
                dir: dir.path().to_path_buf(),
            },
        );
        let socket = dir.path().join("mysqld.sock");
        let datadir = dir.path().join("data");
        let mut server = PrivateServer {
            port: 0,
            socket,
            datadir,
            dir: Some(dir),
            child: None,
            registry_id,
            binaries,
            settings: settings.clone(),
        };
        // On any error below, dropping `server` stops what was started and removes the dir.
        server.port = free_loopback_port()?;
        if server.socket.as_os_str().len() > 100 {
            return Err(ServerError::Start(format!(
                "socket path {} is too long for a unix socket; set TMPDIR to a shorter path",
                server.socket.display()
            )));
        }
        server.write_config()?;
        server.initialise()?;
        server.launch()?;
        server.wait_ready(Duration::from_secs(90))?;
        Ok(server)
    }

    /// The instance's directory (config, data directory, socket, error log).
    pub fn dir(&self) -> &Path {
        self.dir.as_ref().map(|d| d.path()).unwrap_or(Path::new(""))
    }

    /// The data directory (tablespace files are `<datadir>/<database>/<table>.ibd`).
    pub fn datadir(&self) -> &Path {
        &self.datadir
    }

    /// The unix socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The loopback TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// Server binaries and flavour.
    pub fn binaries(&self) -> &ServerBinaries {
        &self.binaries
    }

    /// The settings it was started with.
    pub fn settings(&self) -> &ServerSettings {
        &self.settings
    }

    /// A URL for its TCP port as `root` (no password), as a user would give it with `--url`.
    pub fn tcp_url(&self, database: Option<&str>) -> ServerUrl {
        ServerUrl {
            user: "root".into(),
            password: None,
            host: "127.0.0.1".into(),
            port: self.port,
            database: database.map(str::to_string),
        }
    }

    /// Connection options for its unix socket as `root`.
    pub fn socket_opts(&self) -> mysql::OptsBuilder {
        mysql::OptsBuilder::new()
            .socket(Some(self.socket.to_string_lossy().into_owned()))
            .user(Some("root"))
            .prefer_socket(true)
            .tcp_connect_timeout(Some(Duration::from_secs(5)))
    }

    fn error_log(&self) -> PathBuf {
        self.dir().join("error.log")
    }

    fn config_path(&self) -> PathBuf {
        self.dir().join("my.cnf")
    }

    fn write_config(&self) -> Result<(), ServerError> {
        let layout = Layout {
            dir: self.dir().to_path_buf(),
            datadir: self.datadir.clone(),
            socket: self.socket.clone(),
            error_log: self.error_log(),
            port: self.port,
            // mariadbd/mysqld refuse to run as root unless told to.
            as_root: nix::unistd::geteuid().is_root(),
        };
        let cnf = config_text(
            self.binaries.flavour,
            self.binaries.server_version(),
            &self.settings,
            &layout,
        );
        std::fs::write(self.config_path(), cnf)
            .map_err(|e| ServerError::Start(format!("cannot write the server config: {e}")))
    }

    fn set_live_pid(&self, pid: Option<u32>) {
        if let Some(e) = live().get_mut(&self.registry_id) {
            e.pid = pid.map(|p| p as i32);
        }
    }

    fn set_live_init_group(&self, group: Option<u32>) {
        if let Some(e) = live().get_mut(&self.registry_id) {
            e.init_group = group.map(|p| p as i32);
        }
    }

    fn initialise(&mut self) -> Result<(), ServerError> {
        let defaults = format!("--defaults-file={}", self.config_path().display());
        let mut cmd = match self.binaries.flavour {
            Flavour::Mariadb => {
                let mut c = process::command_dying_with_keylab(
                    self.binaries.install_db.as_ref().expect("found"),
                );
                c.arg(&defaults)
                    .arg("--auth-root-authentication-method=normal")
                    .arg("--skip-test-db");
                c
            }
            Flavour::Mysql => {
                let mut c = process::command_dying_with_keylab(&self.binaries.server);
                c.arg(&defaults).arg("--initialize-insecure");
                c
            }
        };
        // Its own process group, so that a cancellation stops the script and what it started.
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let program = format!("{:?}", cmd.get_program());
        let child = process::spawn(cmd)
            .map_err(|e| ServerError::Start(format!("cannot run {program}: {e}")))?;
        self.set_live_init_group(Some(child.id()));
        let out = child
            .wait_with_output()
            .map_err(|e| ServerError::Start(format!("server initialisation failed: {e}")))?;
        self.set_live_init_group(None);
        if !out.status.success() {
            let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
            msg.push_str(&String::from_utf8_lossy(&out.stdout));
            let tail: Vec<&str> = msg.lines().rev().take(15).collect();
            return Err(ServerError::Start(format!(
                "creating the private instance's data directory failed ({}):\n{}\n{}",
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
                log_tail(&self.error_log(), 15)
            )));
        }
        Ok(())
    }

    fn launch(&mut self) -> Result<(), ServerError> {
        let out = std::fs::File::create(self.dir().join("stdout.log"))
            .map_err(|e| ServerError::Start(format!("cannot create the server log: {e}")))?;
        let err = out.try_clone().map_err(|e| ServerError::Start(e.to_string()))?;
        let mut cmd = process::command_dying_with_keylab(&self.binaries.server);
        cmd.arg(format!("--defaults-file={}", self.config_path().display()))
            // The data is deleted after shutdown: skip the final flush. Not in my.cnf, where
            // the initialiser would also skip it and leave an unreadable system tablespace.
            .arg("--innodb-fast-shutdown=2")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            // Its own process group: a terminal Ctrl-C reaches keylab only, which then stops
            // the server itself and removes its directory.
            .process_group(0);
        let child = process::spawn(cmd).map_err(|e| {
            ServerError::Start(format!("cannot start {}: {e}", self.binaries.server.display()))
        })?;
        self.set_live_pid(Some(child.id()));
        self.child = Some(child);
        Ok(())
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<(), ServerError> {
        let deadline = Instant::now() + timeout;
        let mut last_err = String::new();
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    self.child = None;
                    self.set_live_pid(None);
                    return Err(ServerError::Start(format!(
                        "the private server exited during start-up ({status}); error log:\n{}",
                        log_tail(&self.error_log(), 20)
                    )));
                }
            }
            if self.socket.exists() {
                match mysql::Conn::new(self.socket_opts()) {
                    Ok(_) => return Ok(()),
                    Err(e) => last_err = e.to_string(),
                }
            }
            if Instant::now() >= deadline {
                return Err(ServerError::Start(format!(
                    "the private server did not answer within {} s ({last_err}); error log:\n{}",
                    timeout.as_secs(),
                    log_tail(&self.error_log(), 20)
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Starts the server again on the same data directory once it has shut down (the caller
    /// sent `SHUTDOWN`): waits up to `within` for the process to end, then launches it and
    /// waits until it answers. The buffer pool starts cold: the config loads no dump.
    pub fn relaunch_after_shutdown(&mut self, within: Duration) -> Result<(), ServerError> {
        let deadline = Instant::now() + within;
        if let Some(mut child) = self.child.take() {
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(100))
                    }
                    Ok(None) => {
                        self.child = Some(child);
                        return Err(ServerError::Start(format!(
                            "the private server did not shut down within {} s for the restart",
                            within.as_secs()
                        )));
                    }
                    Err(e) => return Err(ServerError::Start(format!("waiting for shutdown: {e}"))),
                }
            }
            self.set_live_pid(None);
        }
        // The socket file may outlive the process briefly; wait_ready must not see it.
        let _ = std::fs::remove_file(&self.socket);
        self.launch()?;
        self.wait_ready(Duration::from_secs(90))
    }

    /// Stops the server and removes its directory, reporting a directory that could not be
    /// removed (drop does the same silently).
    pub fn stop(mut self) -> Result<(), ServerError> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Result<(), ServerError> {
        if let Some(mut child) = self.child.take() {
            stop_pid(child.id() as i32, Duration::from_secs(30));
            // Reap it if stop_pid's waitpid raced with nothing (harmless when already reaped).
            let _ = child.try_wait();
        }
        live().remove(&self.registry_id);
        match self.dir.take() {
            Some(dir) => {
                let path = dir.path().to_path_buf();
                dir.close()
                    .map_err(|e| ServerError::Io(format!("cannot remove {}: {e}", path.display())))
            }
            None => Ok(()),
        }
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = self.stop_inner();
    }
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
