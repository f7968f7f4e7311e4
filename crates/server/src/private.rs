//! Private, throwaway MariaDB/MySQL instances: keylab's default real server.
//!
//! A [`PrivateServer`] is created from the locally installed binaries in its own temporary
//! directory (data directory, unix socket, error log, config file), listens on a free
//! loopback port, and is configured with the start-only settings of a [`ServerSettings`].
//! It is stopped and its directory removed on drop, which also covers errors and panics
//! (drop runs during unwinding); [`install_signal_cleanup`] covers Ctrl-C and SIGTERM.
//! It never touches the system service's data directory, socket or port.
//!
//! This module does not run workloads or read metrics; see the engine for that.

use crate::error::ServerError;
use crate::url::ServerUrl;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Start-only settings of a private instance (the ones a shared server cannot change).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSettings {
    /// `innodb_page_size`: 4096, 8192, 16384, 32768 or 65536 (fixed at creation).
    pub page_size_bytes: u32,
    /// `innodb_buffer_pool_size`.
    pub buffer_pool_bytes: u64,
    /// `innodb_fill_factor` (10..=100): how full sorted index builds leave pages.
    pub fill_factor_pct: u32,
    /// Redo log size: `innodb_log_file_size`, or `innodb_redo_log_capacity` on MySQL 8.0.30+.
    pub log_file_bytes: u64,
    /// `innodb_change_buffering` (`none`, `all`, ...); `None` keeps the server default. Not
    /// written for servers without it (MariaDB 11.0+), which report it as not applied.
    pub change_buffering: Option<String>,
    /// `performance_schema` on or off.
    pub performance_schema: bool,
    /// `innodb_stats_persistent` (statistics in `mysql.innodb_index_stats`).
    pub stats_persistent: bool,
    /// `innodb_flush_log_at_trx_commit` (1 = durable at every commit, the server default).
    pub flush_log_at_trx_commit: u8,
    /// Further `name=value` server options, written as they are.
    pub extra: Vec<(String, String)>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            page_size_bytes: 16384,
            buffer_pool_bytes: 256 << 20,
            fill_factor_pct: 100,
            log_file_bytes: 256 << 20,
            change_buffering: None,
            performance_schema: false,
            stats_persistent: true,
            flush_log_at_trx_commit: 1,
            extra: Vec::new(),
        }
    }
}

impl ServerSettings {
    fn check(&self) -> Result<(), ServerError> {
        if ![4096, 8192, 16384, 32768, 65536].contains(&self.page_size_bytes) {
            return Err(ServerError::Start(format!(
                "innodb_page_size {} is not one of 4096, 8192, 16384, 32768, 65536",
                self.page_size_bytes
            )));
        }
        if !(10..=100).contains(&self.fill_factor_pct) {
            return Err(ServerError::Start(format!(
                "innodb_fill_factor {} is outside 10..=100",
                self.fill_factor_pct
            )));
        }
        Ok(())
    }
}

/// MariaDB or MySQL binaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// MariaDB (`mariadbd`, `mariadb-install-db`).
    Mariadb,
    /// MySQL (`mysqld --initialize-insecure`).
    Mysql,
}

/// The installed server binaries a private instance is made from.
#[derive(Debug, Clone)]
pub struct ServerBinaries {
    /// The server (`mariadbd` or `mysqld`).
    pub server: PathBuf,
    /// `mariadb-install-db`/`mysql_install_db` (MariaDB only; MySQL initialises itself).
    pub install_db: Option<PathBuf>,
    /// Flavour, from `--version`.
    pub flavour: Flavour,
    /// The `--version` line.
    pub version: String,
}

/// A server version (`major.minor.patch`), as `--version` or `SELECT VERSION()` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServerVersion {
    /// Major version (8 in 8.0.36, 10 in 10.11.19).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch level (0 when the text names none).
    pub patch: u32,
}

impl ServerVersion {
    /// A version from its parts.
    pub const fn new(major: u32, minor: u32, patch: u32) -> ServerVersion {
        ServerVersion { major, minor, patch }
    }

    /// The version in a `--version` line (`mysqld  Ver 8.0.36 for Linux ...`, `mariadbd  Ver
    /// 10.11.19-MariaDB-0+deb12u1 ...`) or a `VERSION()` value (`10.11.19-MariaDB`): the word
    /// after `Ver`, else the first word that starts with `N.N`; `None` if there is none.
    pub fn parse(text: &str) -> Option<ServerVersion> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let after_ver = words.iter().position(|w| *w == "Ver").and_then(|i| words.get(i + 1));
        after_ver
            .and_then(|w| Self::parse_word(w))
            .or_else(|| words.iter().find_map(|w| Self::parse_word(w)))
    }

    fn parse_word(word: &str) -> Option<ServerVersion> {
        // `10.11.19-MariaDB-0+deb12u1`: the leading digits and dots are the version.
        let end = word.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(word.len());
        let mut parts = word[..end].split('.').map(str::parse::<u32>);
        let major = parts.next()?.ok()?;
        let minor = parts.next()?.ok()?;
        let patch = match parts.next() {
            Some(p) => p.ok()?,
            None => 0,
        };
        Some(ServerVersion { major, minor, patch })
    }
}

impl std::fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Whether the server has `innodb_change_buffering`: MariaDB removed it in 11.0 (an unknown
/// option stops the server from starting); MySQL still has it in 8.4. An unknown MariaDB
/// version is taken as the newest, so the worst case is a setting reported as not applied.
pub fn has_change_buffering(flavour: Flavour, version: Option<ServerVersion>) -> bool {
    match flavour {
        Flavour::Mariadb => version.is_some_and(|v| v < ServerVersion::new(11, 0, 0)),
        Flavour::Mysql => true,
    }
}

/// Directories searched for server binaries: `PATH`, then the usual install places.
fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    for d in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/local/mysql/bin"]
    {
        dirs.push(PathBuf::from(d));
    }
    dirs
}

fn find_binary(dirs: &[PathBuf], names: &[&str]) -> Option<PathBuf> {
    names.iter().find_map(|n| dirs.iter().map(|d| d.join(n)).find(|p| p.is_file()))
}

impl ServerBinaries {
    /// Finds `mariadbd`/`mysqld` and the matching initialiser on `PATH`, `/usr/sbin`,
    /// `/usr/bin` and `/usr/local`.
    pub fn find() -> Result<ServerBinaries, ServerError> {
        Self::find_in(&search_dirs())
    }

    /// Finds the binaries in `dirs` only (in order), so tests can search where none are.
    pub fn find_in(dirs: &[PathBuf]) -> Result<ServerBinaries, ServerError> {
        let server = find_binary(dirs, &["mariadbd", "mysqld"]).ok_or_else(|| {
            let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            ServerError::NotInstalled(format!(
                "no MariaDB or MySQL server binary (mariadbd, mysqld) found in {}; install one \
                 (e.g. `apt-get install mariadb-server`) or pass --url to use a running server",
                if searched.is_empty() { "no directory".into() } else { searched.join(", ") }
            ))
        })?;
        let out = Command::new(&server).arg("--version").output().map_err(|e| {
            ServerError::NotInstalled(format!("cannot run `{} --version`: {e}", server.display()))
        })?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let flavour = if version.contains("MariaDB") { Flavour::Mariadb } else { Flavour::Mysql };
        let install_db = match flavour {
            Flavour::Mariadb => {
                Some(find_binary(dirs, &["mariadb-install-db", "mysql_install_db"]).ok_or_else(
                    || {
                        ServerError::NotInstalled(format!(
                            "found {} but not mariadb-install-db; install the full server \
                             package (`apt-get install mariadb-server`)",
                            server.display()
                        ))
                    },
                )?)
            }
            Flavour::Mysql => None,
        };
        Ok(ServerBinaries { server, install_db, flavour, version })
    }

    /// The version in the `--version` line, if it names one.
    pub fn server_version(&self) -> Option<ServerVersion> {
        ServerVersion::parse(&self.version)
    }
}

/// One live private instance, as the signal handler needs to know it.
struct LiveEntry {
    pid: Option<i32>,
    dir: PathBuf,
}

static LIVE: Mutex<BTreeMap<u64, LiveEntry>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static HANDLER_SET: AtomicBool = AtomicBool::new(false);

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

/// Installs a Ctrl-C / SIGTERM handler that stops every live private server, removes its
/// directory and exits with code 130. Call once at program start; later calls do nothing.
pub fn install_signal_cleanup() -> Result<(), ServerError> {
    if HANDLER_SET.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        cleanup_all_live();
        std::process::exit(130);
    })
    .map_err(|e| ServerError::Io(format!("cannot install the Ctrl-C handler: {e}")))
}

/// Stops every registered private server and removes its directory (what the signal handler
/// does before exiting).
pub fn cleanup_all_live() {
    let entries: Vec<LiveEntry> = std::mem::take(&mut *live()).into_values().collect();
    for e in entries {
        if let Some(pid) = e.pid {
            stop_pid(pid, Duration::from_secs(10));
        }
        let _ = std::fs::remove_dir_all(&e.dir);
    }
}

/// Set by the Ctrl-C handler before it stops the servers: work that fails from then on failed
/// because of the interruption (its server went away), not on its own.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// True once Ctrl-C or SIGTERM arrived; the handler is then stopping the servers and will
/// exit with code 130, so the caller should wait for it rather than report its own error.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Number of private servers currently alive in this process (for tests and diagnostics).
pub fn live_private_servers() -> usize {
    live().len()
}

/// SIGTERM (the server's clean shutdown, same as `SHUTDOWN`), then SIGKILL after `grace`.
fn stop_pid(pid: i32, grace: Duration) {
    let pid = Pid::from_raw(pid);
    if kill(pid, Signal::SIGTERM).is_err() {
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

/// Where a private instance keeps its files and how it runs: what its my.cnf needs besides
/// the settings.
#[derive(Debug, Clone)]
struct Layout {
    dir: PathBuf,
    datadir: PathBuf,
    socket: PathBuf,
    error_log: PathBuf,
    port: u16,
    as_root: bool,
}

/// The my.cnf of a private instance. Options differ by flavour and version, and a server
/// refuses to start on an option it does not know, so only options this server has are
/// written. An unparsable version is taken as the newest of its flavour.
fn config_text(
    flavour: Flavour,
    version: Option<ServerVersion>,
    s: &ServerSettings,
    layout: &Layout,
) -> String {
    let at_least = |v: ServerVersion| version.is_none_or(|have| have >= v);
    let mut cnf = String::from("[mysqld]\n");
    let mut set = |k: &str, v: &dyn std::fmt::Display| {
        let _ = writeln!(cnf, "{k}={v}");
    };
    set("datadir", &layout.datadir.display());
    set("socket", &layout.socket.display());
    set("port", &layout.port);
    set("bind-address", &"127.0.0.1");
    set("pid-file", &layout.dir.join("mysqld.pid").display());
    set("log-error", &layout.error_log.display());
    set("tmpdir", &layout.dir.display());
    if layout.as_root {
        set("user", &"root");
    }
    set("innodb_page_size", &s.page_size_bytes);
    set("innodb_buffer_pool_size", &s.buffer_pool_bytes);
    set("innodb_fill_factor", &s.fill_factor_pct);
    set("innodb_flush_log_at_trx_commit", &s.flush_log_at_trx_commit);
    match flavour {
        Flavour::Mariadb => set("innodb_log_file_size", &s.log_file_bytes),
        Flavour::Mysql => {
            // 8.0.30 replaced innodb_log_file_size (and _files_in_group) with one capacity.
            if at_least(ServerVersion::new(8, 0, 30)) {
                set("innodb_redo_log_capacity", &s.log_file_bytes);
            } else {
                set("innodb_log_file_size", &s.log_file_bytes);
            }
            set("skip-log-bin", &"ON");
            // The X plugin (on by default since 8.0) would bind the system's port 33060 and
            // /tmp/mysqlx.sock: a private instance must not share those with a system server.
            if at_least(ServerVersion::new(8, 0, 0)) {
                set("mysqlx", &"OFF");
            }
        }
    }
    set("innodb_monitor_enable", &"module_index");
    set("local_infile", &1);
    set("performance_schema", &if s.performance_schema { "ON" } else { "OFF" });
    set("innodb_stats_persistent", &if s.stats_persistent { "ON" } else { "OFF" });
    if let Some(cb) = &s.change_buffering {
        // Where the option is gone the engine reports the setting under `not_applied`.
        if has_change_buffering(flavour, version) {
            set("innodb_change_buffering", cb);
        }
    }
    set("max_allowed_packet", &(256u64 << 20));
    set("innodb_buffer_pool_load_at_startup", &"OFF");
    set("innodb_buffer_pool_dump_at_shutdown", &"OFF");
    for (k, v) in &s.extra {
        set(k, v);
    }
    cnf
}

impl PrivateServer {
    /// Creates and starts an instance; returns once it answers on its socket.
    pub fn start(settings: &ServerSettings) -> Result<PrivateServer, ServerError> {
        settings.check()?;
        let binaries = ServerBinaries::find()?;
        let dir = tempfile::Builder::new()
            .prefix("keylab-server-")
            .tempdir()
            .map_err(|e| ServerError::Start(format!("cannot create a temporary directory: {e}")))?;
        let registry_id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
        live().insert(registry_id, LiveEntry { pid: None, dir: dir.path().to_path_buf() });
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

    fn initialise(&mut self) -> Result<(), ServerError> {
        let defaults = format!("--defaults-file={}", self.config_path().display());
        let mut cmd = match self.binaries.flavour {
            Flavour::Mariadb => {
                let mut c = Command::new(self.binaries.install_db.as_ref().expect("found"));
                c.arg(&defaults)
                    .arg("--auth-root-authentication-method=normal")
                    .arg("--skip-test-db");
                c
            }
            Flavour::Mysql => {
                let mut c = Command::new(&self.binaries.server);
                c.arg(&defaults).arg("--initialize-insecure");
                c
            }
        };
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let child = cmd
            .spawn()
            .map_err(|e| ServerError::Start(format!("cannot run {:?}: {e}", cmd.get_program())))?;
        self.set_live_pid(Some(child.id()));
        let out = child
            .wait_with_output()
            .map_err(|e| ServerError::Start(format!("server initialisation failed: {e}")))?;
        self.set_live_pid(None);
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
        let mut cmd = Command::new(&self.binaries.server);
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
        let child = cmd.spawn().map_err(|e| {
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

    const MYSQL_80_36: &str =
        "mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)";
    const MYSQL_80_28: &str =
        "mysqld  Ver 8.0.28 for Linux on x86_64 (MySQL Community Server - GPL)";
    const MYSQL_84: &str = "mysqld  Ver 8.4.3 for Linux on x86_64 (MySQL Community Server - GPL)";
    const MARIADB_1011: &str = "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu \
                                on x86_64 (Debian 12)";
    const MARIADB_114: &str = "mariadbd Ver 11.4.2-MariaDB for Linux on x86_64 (MariaDB Server)";

    #[test]
    fn versions_parse_from_real_version_lines() {
        let v = |t| ServerVersion::parse(t);
        assert_eq!(v(MYSQL_80_36), Some(ServerVersion::new(8, 0, 36)));
        assert_eq!(v(MYSQL_80_28), Some(ServerVersion::new(8, 0, 28)));
        assert_eq!(v(MYSQL_84), Some(ServerVersion::new(8, 4, 3)));
        assert_eq!(v(MARIADB_1011), Some(ServerVersion::new(10, 11, 19)));
        assert_eq!(v(MARIADB_114), Some(ServerVersion::new(11, 4, 2)));
        // SELECT VERSION() values, and text without a version.
        assert_eq!(v("10.11.19-MariaDB-0+deb12u1"), Some(ServerVersion::new(10, 11, 19)));
        assert_eq!(v("8.4"), Some(ServerVersion::new(8, 4, 0)));
        assert_eq!(v("mysqld Ver unknown"), None);
        assert_eq!(v(""), None);
        assert!(ServerVersion::new(8, 0, 30) > ServerVersion::new(8, 0, 28));
        assert!(ServerVersion::new(10, 11, 19) < ServerVersion::new(11, 0, 0));
        assert_eq!(ServerVersion::new(8, 0, 36).to_string(), "8.0.36");
    }

    fn config_for(flavour: Flavour, line: &str) -> String {
        let layout = Layout {
            dir: PathBuf::from("/tmp/kl"),
            datadir: PathBuf::from("/tmp/kl/data"),
            socket: PathBuf::from("/tmp/kl/mysqld.sock"),
            error_log: PathBuf::from("/tmp/kl/error.log"),
            port: 40000,
            as_root: false,
        };
        let settings =
            ServerSettings { change_buffering: Some("none".into()), ..ServerSettings::default() };
        config_text(flavour, ServerVersion::parse(line), &settings, &layout)
    }

    fn has_option(cnf: &str, name: &str) -> bool {
        cnf.lines().any(|l| l.split('=').next() == Some(name))
    }

    #[test]
    fn mariadb_10_11_config() {
        let cnf = config_for(Flavour::Mariadb, MARIADB_1011);
        assert!(cnf.starts_with("[mysqld]\n"), "{cnf}");
        assert!(cnf.contains("\nport=40000\n") && cnf.contains("\nbind-address=127.0.0.1\n"));
        assert!(cnf.contains("\ninnodb_log_file_size=268435456\n"), "{cnf}");
        assert!(cnf.contains("\ninnodb_change_buffering=none\n"), "{cnf}");
        for absent in ["innodb_redo_log_capacity", "mysqlx", "skip-log-bin", "user"] {
            assert!(!has_option(&cnf, absent), "{absent} in\n{cnf}");
        }
    }

    #[test]
    fn mariadb_11_4_config_has_no_change_buffering() {
        let cnf = config_for(Flavour::Mariadb, MARIADB_114);
        assert!(cnf.contains("\ninnodb_log_file_size=268435456\n"), "{cnf}");
        assert!(!has_option(&cnf, "innodb_change_buffering"), "{cnf}");
        assert!(!has_option(&cnf, "mysqlx"), "{cnf}");
    }

    #[test]
    fn mysql_8_0_28_config_uses_log_file_size() {
        let cnf = config_for(Flavour::Mysql, MYSQL_80_28);
        assert!(cnf.contains("\ninnodb_log_file_size=268435456\n"), "{cnf}");
        assert!(!has_option(&cnf, "innodb_redo_log_capacity"), "{cnf}");
        assert!(cnf.contains("\nmysqlx=OFF\n") && cnf.contains("\nskip-log-bin=ON\n"), "{cnf}");
        assert!(cnf.contains("\ninnodb_change_buffering=none\n"), "{cnf}");
    }

    #[test]
    fn mysql_8_0_36_and_8_4_configs_use_redo_log_capacity() {
        for line in [MYSQL_80_36, MYSQL_84] {
            let cnf = config_for(Flavour::Mysql, line);
            assert!(cnf.contains("\ninnodb_redo_log_capacity=268435456\n"), "{cnf}");
            assert!(!has_option(&cnf, "innodb_log_file_size"), "{cnf}");
            assert!(cnf.contains("\nmysqlx=OFF\n"), "{cnf}");
            // MySQL 8.4 still has innodb_change_buffering (default none).
            assert!(cnf.contains("\ninnodb_change_buffering=none\n"), "{cnf}");
        }
    }

    #[test]
    fn change_buffering_exists_where_the_server_has_it() {
        let v = ServerVersion::parse;
        assert!(has_change_buffering(Flavour::Mariadb, v(MARIADB_1011)));
        assert!(!has_change_buffering(Flavour::Mariadb, v(MARIADB_114)));
        assert!(!has_change_buffering(Flavour::Mariadb, v("11.0.0-MariaDB")));
        assert!(has_change_buffering(Flavour::Mysql, v(MYSQL_84)));
        assert!(has_change_buffering(Flavour::Mysql, v(MYSQL_80_28)));
    }

    #[test]
    fn no_server_in_the_searched_dirs_says_how_to_get_one() {
        let empty = tempfile::tempdir().expect("temp dir");
        let err = ServerBinaries::find_in(&[empty.path().to_path_buf()]).unwrap_err();
        assert!(matches!(err, ServerError::NotInstalled(_)), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("apt-get install mariadb-server"), "{msg}");
        assert!(msg.contains("--url"), "{msg}");
        assert!(msg.contains(&empty.path().display().to_string()), "{msg}");
    }

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
