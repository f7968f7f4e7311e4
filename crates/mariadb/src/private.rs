//! Private, throwaway MariaDB/MySQL instances: keylab's default real server.
//!
//! A [`PrivateServer`] is created from the locally installed binaries in its own temporary
//! directory (data directory, unix socket, error log, config file), listens on a free
//! loopback port, and is configured with the start-only settings of a [`ServerSettings`].
//! It is stopped and its directory removed on drop, which also covers errors and panics
//! (drop runs during unwinding); keylab-server-common's `install_signal_cleanup` covers
//! Ctrl-C, SIGTERM and the other signals that terminate by default, through its registry of
//! live instances. What no handler sees (SIGKILL) is covered twice: the server processes get
//! a parent-death signal, and each instance directory names its owner so that the common
//! crate's `sweep_orphans` at the next keylab start removes it.
//! It never touches the system service's data directory, socket or port.
//!
//! Only keylab can use it: the directory (socket, data, logs) is mode 0700 and keylab's
//! user's; the only account left after bootstrap is `root@localhost`, whose password is a
//! [`Secret`] generated for this instance and set during bootstrap, before the server ever
//! listens on TCP (MariaDB's `--extra-file`, MySQL's `--init-file` with `--initialize`);
//! `secure_file_priv` points at an empty directory of the instance, so `SELECT ... INTO
//! OUTFILE` and `LOAD_FILE` reach no file elsewhere (keylab's loads stream with `LOAD DATA
//! LOCAL`, which the client reads).
//!
//! This module does not run workloads or read metrics; see the engine for that.

mod binaries;
mod config;

pub use binaries::{Flavour, ServerBinaries, ServerVersion};
pub use config::ServerSettings;
use config::{config_text, Layout};

use keylab_server_common::registry::{free_port, stop_pid_with, tail_of, LiveInstance};
use keylab_server_common::secret::{write_private_file, Secret};
use keylab_server_common::sweep::{self, DIR_PREFIX};
use keylab_server_common::{is_ci, process, ServerError, ServerUrl};
use nix::sys::signal::Signal;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

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

/// SIGTERM (the server's clean shutdown, same as `SHUTDOWN`), then SIGKILL after `grace`.
fn stop_pid(pid: i32, grace: Duration) {
    stop_pid_with(pid, Signal::SIGTERM, grace)
}

/// A throwaway server with its own data directory, socket and loopback port.
pub struct PrivateServer {
    dir: Option<tempfile::TempDir>,
    child: Option<Child>,
    /// Its entry in the registry the signal handler stops servers from (dropped once the
    /// server is stopped, before its directory is removed).
    registry: Option<LiveInstance>,
    port: u16,
    socket: PathBuf,
    datadir: PathBuf,
    binaries: ServerBinaries,
    settings: ServerSettings,
    /// `root@localhost`'s password, the only way in.
    secret: Secret,
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

impl PrivateServer {
    /// Creates and starts an instance; returns once it answers on its socket.
    pub fn start(settings: &ServerSettings) -> Result<PrivateServer, ServerError> {
        settings.check()?;
        let binaries = ServerBinaries::find()?;
        if binaries.flavour == Flavour::Mariadb {
            check_tmpdir_for_install_db(&std::env::temp_dir())?;
        }
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            // Only keylab's user (and, once handed over, the server's) may enter: the socket
            // and the data are inside. tempfile's default is 0777 less the umask.
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir()
            .map_err(|e| ServerError::Start(format!("cannot create a temporary directory: {e}")))?;
        // Before anything runs in it: a later keylab sweeps it once this process is gone.
        sweep::write_owner(dir.path())
            .map_err(|e| ServerError::Start(format!("cannot write the owner file: {e}")))?;
        let registry = LiveInstance::register(dir.path(), Signal::SIGTERM);
        let secret = Secret::generate().map_err(|e| {
            ServerError::Start(format!("cannot generate the instance's password: {e}"))
        })?;
        let socket = dir.path().join("mysqld.sock");
        let datadir = dir.path().join("data");
        let mut server = PrivateServer {
            port: 0,
            socket,
            datadir,
            dir: Some(dir),
            child: None,
            registry: Some(registry),
            binaries,
            settings: settings.clone(),
            secret,
        };
        // On any error below, dropping `server` stops what was started and removes the dir.
        server.port = free_port()?;
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

    /// `root@localhost`'s password, generated for this instance.
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// A URL for its TCP port as `root` with the instance's password, as a user would give it
    /// with `--url`.
    pub fn tcp_url(&self, database: Option<&str>) -> ServerUrl {
        ServerUrl {
            user: "root".into(),
            password: Some(self.secret.expose().to_string()),
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
            .pass(Some(self.secret.expose()))
            .prefer_socket(true)
            .tcp_connect_timeout(Some(Duration::from_secs(5)))
    }

    fn error_log(&self) -> PathBuf {
        self.dir().join("error.log")
    }

    fn config_path(&self) -> PathBuf {
        self.dir().join("my.cnf")
    }

    /// The SQL file bootstrap runs (0600, removed once the data directory exists).
    fn bootstrap_sql_path(&self) -> PathBuf {
        self.dir().join("bootstrap.sql")
    }

    /// `secure_file_priv`: an empty directory, the only place server-side file SQL reaches.
    fn files_dir(&self) -> PathBuf {
        self.dir().join("files")
    }

    fn write_config(&self) -> Result<(), ServerError> {
        let layout = Layout {
            dir: self.dir().to_path_buf(),
            datadir: self.datadir.clone(),
            socket: self.socket.clone(),
            error_log: self.error_log(),
            secure_file_priv: self.files_dir(),
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
            .map_err(|e| ServerError::Start(format!("cannot write the server config: {e}")))?;
        std::fs::create_dir(self.files_dir())
            .map_err(|e| ServerError::Start(format!("cannot create the files directory: {e}")))
    }

    fn set_live_pid(&self, pid: Option<u32>) {
        if let Some(r) = &self.registry {
            r.set_pid(pid);
        }
    }

    fn set_live_init_group(&self, group: Option<u32>) {
        if let Some(r) = &self.registry {
            r.set_init_group(group);
        }
    }

    fn initialise(&mut self) -> Result<(), ServerError> {
        let bootstrap = self.bootstrap_sql_path();
        write_private_file(&bootstrap, &bootstrap_sql(self.binaries.flavour, &self.secret), None)
            .map_err(|e| ServerError::Start(format!("cannot write the bootstrap SQL: {e}")))?;
        let result = self.run_initialiser(&bootstrap);
        let _ = std::fs::remove_file(&bootstrap);
        result
    }

    /// Runs the initialiser, which also runs `bootstrap` (no network in either mode).
    fn run_initialiser(&mut self, bootstrap: &Path) -> Result<(), ServerError> {
        let defaults = format!("--defaults-file={}", self.config_path().display());
        let mut cmd = match self.binaries.flavour {
            Flavour::Mariadb => {
                let mut c = process::command_dying_with_keylab(
                    self.binaries.install_db.as_ref().expect("found"),
                );
                c.arg(&defaults)
                    .arg("--auth-root-authentication-method=normal")
                    .arg("--skip-test-db")
                    .arg(format!("--extra-file={}", bootstrap.display()));
                c
            }
            Flavour::Mysql => {
                let mut c = process::command_dying_with_keylab(&self.binaries.server);
                c.arg(&defaults)
                    .arg("--initialize-insecure")
                    .arg(format!("--init-file={}", bootstrap.display()));
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
                tail_of(&self.error_log(), 15)
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
                        tail_of(&self.error_log(), 20)
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
                    tail_of(&self.error_log(), 20)
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
        self.registry = None;
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

/// Characters `mariadb-install-db` (a shell script that splits the option values it reads
/// into words) cannot take in a path, besides whitespace and control characters. `#` and
/// quotes are fine: the config quotes every path.
const INSTALL_DB_UNSAFE: &[char] = &['"', '\\', '$', '`', '*', '?', '['];

/// Refuses a TMPDIR the initialiser would misread (it then worked on another directory and
/// left the datadir outside TMPDIR), naming the character and the way out.
fn check_tmpdir_for_install_db(tmp: &Path) -> Result<(), ServerError> {
    let text = tmp.to_string_lossy();
    match text
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || INSTALL_DB_UNSAFE.contains(c))
    {
        None => Ok(()),
        Some(c) => Err(ServerError::Refused(format!(
            "TMPDIR {text:?} holds {c:?}, which mariadb-install-db (a shell script) cannot take \
             in a path; set TMPDIR to a directory whose path has no spaces, quotes, `\\`, `$`, \
             backquotes or `*?[` (e.g. TMPDIR=/tmp)"
        ))),
    }
}

/// The SQL run during bootstrap: every account but `root@localhost` (and MariaDB's locked
/// `mariadb.sys`, the definer of its system views, and the `PUBLIC` role of 11.1+, which
/// cannot log in) dropped, and root's password set to the
/// instance's secret. MariaDB's bootstrap runs without loaded grant tables: `FLUSH PRIVILEGES`
/// loads them so that `ALTER USER` works (as for a password reset under skip-grant-tables).
fn bootstrap_sql(flavour: Flavour, secret: &Secret) -> String {
    let password = secret.expose();
    match flavour {
        Flavour::Mariadb => format!(
            "DELETE FROM mysql.global_priv WHERE NOT (Host = 'localhost' AND User IN ('root', \
             'mariadb.sys')) AND User <> 'PUBLIC';\nFLUSH PRIVILEGES;\n\
             ALTER USER 'root'@'localhost' IDENTIFIED BY '{password}';\n"
        ),
        Flavour::Mysql => format!("ALTER USER 'root'@'localhost' IDENTIFIED BY '{password}';\n"),
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
    fn a_tmpdir_the_initialiser_would_misread_is_refused() {
        assert!(check_tmpdir_for_install_db(Path::new("/tmp/a#b'c")).is_ok());
        for bad in ["/tmp/a #b'c", "/tmp/a\tb", "/tmp/a\"b", "/tmp/$x", "/tmp/a*"] {
            let e = check_tmpdir_for_install_db(Path::new(bad)).unwrap_err();
            assert!(matches!(e, ServerError::Refused(_)), "{bad}: {e:?}");
            assert!(e.to_string().contains("TMPDIR"), "{e}");
        }
    }
}
