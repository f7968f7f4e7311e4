//! Private, throwaway PostgreSQL instances: keylab's default PostgreSQL server.
//!
//! `initdb` makes a cluster in a temporary directory named like every private instance's
//! (`keylab-server-*`, with the owner file written first), and `postgres` runs on a unix
//! socket in that directory and a free loopback port, configured from [`PgSettings`]. The
//! instance is registered with `keylab-server-common`'s live-instance registry, so the same signal
//! handler, parent-death signal and sweep that stop MariaDB instances stop this one; it is
//! stopped and removed on drop (errors and panics included).
//!
//! PostgreSQL refuses to run as root: under root, `initdb` and `postgres` run as the
//! `postgres` system user (made by the distribution package) through `setpriv`.
//!
//! Only keylab can use it: every login, on the socket and on TCP, needs the password
//! (`scram-sha-256`) generated for this instance ([`Secret`]), which `initdb` reads from a
//! 0600 file removed right after; the socket is in the instance directory (mode 0700, the
//! server's user's) with `unix_socket_permissions = 0700`. No other role exists, so no other
//! local user can reach the superuser's `COPY ... TO PROGRAM`.
//!
//! This module does not run workloads or read metrics; see the engine.

mod binaries;

pub use binaries::{installed_or_skip, PgBinaries, INSTALL_HINT};

use keylab_server_common::process::{
    command_as_user_dying_with_keylab, command_dying_with_keylab, spawn,
};
use keylab_server_common::registry::{free_port, stop_pid_with, tail_of, LiveInstance};
use keylab_server_common::secret::{write_private_file, Secret};
use keylab_server_common::sweep::write_owner;
use keylab_server_common::sweep::{DIR_PREFIX, FALLBACK_BASES};
use keylab_server_common::ServerError;
use nix::sys::signal::Signal;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The start-only settings of a private instance.
#[derive(Debug, Clone, PartialEq)]
pub struct PgSettings {
    /// `shared_buffers`, bytes.
    pub shared_buffers_bytes: u64,
    /// `checkpoint_timeout`, seconds (30 to 86400): long by default, so that checkpoints come
    /// from `max_wal_size` or are forced, not from the clock.
    pub checkpoint_timeout_s: u32,
    /// `max_wal_size`, MiB: the WAL between checkpoints.
    pub max_wal_size_mb: u32,
    /// `full_page_writes`.
    pub full_page_writes: bool,
    /// `autovacuum`: off by default, so only the phases keylab runs change the table.
    pub autovacuum: bool,
    /// `wal_level` (`replica` or `logical`; `minimal` would skip WAL for some loads).
    pub wal_level: String,
}

impl Default for PgSettings {
    fn default() -> Self {
        PgSettings {
            shared_buffers_bytes: 128 << 20,
            checkpoint_timeout_s: 86_400,
            max_wal_size_mb: 1024,
            full_page_writes: true,
            autovacuum: false,
            wal_level: "replica".into(),
        }
    }
}

impl PgSettings {
    /// Refuses settings PostgreSQL would not start with.
    pub fn check(&self) -> Result<(), ServerError> {
        if !(30..=86_400).contains(&self.checkpoint_timeout_s) {
            return Err(ServerError::Refused(format!(
                "checkpoint_timeout {} s is out of range; valid: 30 to 86400",
                self.checkpoint_timeout_s
            )));
        }
        if self.max_wal_size_mb < 32 {
            return Err(ServerError::Refused(format!(
                "max_wal_size {} MiB is too small; valid: 32 or more",
                self.max_wal_size_mb
            )));
        }
        if !["replica", "logical"].contains(&self.wal_level.as_str()) {
            return Err(ServerError::Refused(format!(
                "wal_level `{}` is not supported; valid: replica, logical",
                self.wal_level
            )));
        }
        Ok(())
    }

    /// `postgresql.conf` lines for the instance.
    fn config_text(&self, port: u16, socket_dir: &Path) -> String {
        let on = |b: bool| if b { "on" } else { "off" };
        format!(
            "# keylab private instance: thrown away after the run\n\
             listen_addresses = '127.0.0.1'\n\
             port = {port}\n\
             unix_socket_directories = {}\n\
             unix_socket_permissions = 0700\n\
             password_encryption = scram-sha-256\n\
             max_connections = 300\n\
             shared_buffers = {}kB\n\
             checkpoint_timeout = {}s\n\
             max_wal_size = {}MB\n\
             full_page_writes = {}\n\
             autovacuum = {}\n\
             wal_level = {}\n\
             # Keep every WAL segment, so pg_waldump can read each phase's whole range.\n\
             wal_keep_size = 1000000MB\n\
             logging_collector = off\n\
             log_checkpoints = off\n\
             dynamic_shared_memory_type = posix\n",
            socket_dirs_value(socket_dir),
            self.shared_buffers_bytes / 1024,
            self.checkpoint_timeout_s,
            self.max_wal_size_mb,
            on(self.full_page_writes),
            on(self.autovacuum),
            self.wal_level,
        )
    }
}

/// `unix_socket_directories` naming only `dir`, whatever TMPDIR holds (`#`, quotes, spaces,
/// commas). The value is a list (PostgreSQL's `SplitDirectoriesString`: elements split at
/// commas, spaces trimmed, an element in double quotes taken whole with `""` for `"`) inside
/// a configuration string (`'...'`, with `''` for `'` and a backslash escaping).
fn socket_dirs_value(dir: &Path) -> String {
    let element = format!("\"{}\"", dir.to_string_lossy().replace('"', "\"\""));
    format!("'{}'", element.replace('\\', "\\\\").replace('\'', "''"))
}

/// A throwaway PostgreSQL cluster with its own directory, socket and loopback port.
pub struct PgInstance {
    dir: Option<tempfile::TempDir>,
    child: Option<Child>,
    registration: Option<LiveInstance>,
    port: u16,
    binaries: PgBinaries,
    settings: PgSettings,
    /// `(uid, gid)` the server runs as when keylab runs as root.
    run_as: Option<(u32, u32)>,
    /// The superuser's password, the only way in.
    secret: Secret,
}

impl std::fmt::Debug for PgInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgInstance")
            .field("pid", &self.pid())
            .field("port", &self.port)
            .field("dir", &self.dir())
            .finish()
    }
}

/// The user PostgreSQL runs as when keylab is root: `postgres`, made by the package.
fn unprivileged_user() -> Result<(u32, u32), ServerError> {
    let user = nix::unistd::User::from_name("postgres").ok().flatten().ok_or_else(|| {
        ServerError::Start(format!(
            "PostgreSQL refuses to run as root and there is no `postgres` user to run it as; \
             run keylab as another user, or {INSTALL_HINT}"
        ))
    })?;
    Ok((user.uid.as_raw(), user.gid.as_raw()))
}

/// The user keylab connects as on its private instances.
pub const SUPERUSER: &str = "keylab";

impl PgInstance {
    /// Creates and starts an instance; returns once it accepts connections.
    pub fn start(settings: &PgSettings) -> Result<PgInstance, ServerError> {
        settings.check()?;
        let binaries = PgBinaries::find()?;
        let run_as =
            if nix::unistd::geteuid().is_root() { Some(unprivileged_user()?) } else { None };
        let base = instance_base(std::env::temp_dir(), run_as)?;
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            // Only keylab's user (and, once handed over, the server's) may enter: the socket
            // and the data are inside. tempfile's default is 0777 less the umask.
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(&base.dir)
            .map_err(|e| ServerError::Start(format!("cannot create a temporary directory: {e}")))?;
        if let Some(blocked) = &base.instead_of {
            eprintln!(
                "keylab: PostgreSQL runs as the `postgres` user here (keylab runs as root), \
                 which cannot enter {}; its private instance is in {} instead",
                blocked.display(),
                dir.path().display()
            );
        }
        write_owner(dir.path())
            .map_err(|e| ServerError::Start(format!("cannot write the owner file: {e}")))?;
        let registration = LiveInstance::register(dir.path(), Signal::SIGINT);
        let secret = Secret::generate().map_err(|e| {
            ServerError::Start(format!("cannot generate the instance's password: {e}"))
        })?;
        if let Some((uid, gid)) = run_as {
            let chown = |p: &Path| {
                std::os::unix::fs::chown(p, Some(uid), Some(gid)).map_err(|e| {
                    ServerError::Start(format!("cannot hand {} over: {e}", p.display()))
                })
            };
            chown(dir.path())?;
            if let Some(blocked) = unreachable_ancestor(dir.path(), uid, gid) {
                return Err(ServerError::Start(format!(
                    "PostgreSQL runs as the `postgres` user here (keylab runs as root) and cannot \
                     enter {}; set TMPDIR to a directory every user can traverse (e.g. /tmp)",
                    blocked.display()
                )));
            }
        }
        let mut instance = PgInstance {
            dir: Some(dir),
            child: None,
            registration: Some(registration),
            port: 0,
            binaries,
            settings: settings.clone(),
            run_as,
            secret,
        };
        instance.port = free_port()?;
        instance.initdb()?;
        let conf = instance.settings.config_text(instance.port, instance.dir());
        let auto = instance.datadir().join("postgresql.auto.conf");
        std::fs::write(&auto, conf)
            .map_err(|e| ServerError::Start(format!("cannot write {}: {e}", auto.display())))?;
        instance.launch()?;
        instance.wait_ready(Duration::from_secs(60))?;
        Ok(instance)
    }

    /// The instance's directory (data directory, socket, log).
    pub fn dir(&self) -> &Path {
        self.dir.as_ref().map(|d| d.path()).unwrap_or(Path::new(""))
    }

    /// The data directory.
    pub fn datadir(&self) -> PathBuf {
        self.dir().join("data")
    }

    /// The WAL directory (`pg_wal`), which `pg_waldump` reads.
    pub fn waldir(&self) -> PathBuf {
        self.datadir().join("pg_wal")
    }

    /// The loopback TCP port (also the socket's name, `.s.PGSQL.PORT`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server (postmaster) pid, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// The binaries it runs.
    pub fn binaries(&self) -> &PgBinaries {
        &self.binaries
    }

    /// The settings it was started with.
    pub fn settings(&self) -> &PgSettings {
        &self.settings
    }

    /// The superuser's password, generated for this instance.
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// Connection settings for its unix socket as the superuser, database `dbname`.
    pub fn config(&self, dbname: &str) -> postgres::Config {
        let mut c = postgres::Config::new();
        c.host_path(self.dir())
            .port(self.port)
            .user(SUPERUSER)
            .password(self.secret.expose())
            .dbname(dbname)
            .connect_timeout(Duration::from_secs(5));
        c
    }

    fn log_path(&self) -> PathBuf {
        self.dir().join("server.log")
    }

    fn command(&self, program: &str) -> Result<Command, ServerError> {
        let path = self.binaries.program(program);
        match self.run_as {
            None => Ok(command_dying_with_keylab(&path)),
            Some((uid, gid)) => {
                command_as_user_dying_with_keylab(&path, uid, gid).ok_or_else(|| {
                    ServerError::Start(
                    "PostgreSQL refuses to run as root, and `setpriv` (util-linux) is needed to \
                     run it as the `postgres` user; install util-linux or run keylab as \
                     another user"
                        .into(),
                )
                })
            }
        }
    }

    /// The file `initdb` reads the superuser's password from (0600, removed after).
    fn pwfile_path(&self) -> PathBuf {
        self.dir().join("pwfile")
    }

    fn initdb(&mut self) -> Result<(), ServerError> {
        let pwfile = self.pwfile_path();
        write_private_file(&pwfile, &format!("{}\n", self.secret.expose()), self.run_as)
            .map_err(|e| ServerError::Start(format!("cannot write initdb's password file: {e}")))?;
        let result = self.run_initdb(&pwfile);
        let _ = std::fs::remove_file(&pwfile);
        result
    }

    fn run_initdb(&mut self, pwfile: &Path) -> Result<(), ServerError> {
        let mut cmd = self.command("initdb")?;
        cmd.arg(format!("--pgdata={}", self.datadir().display()))
            .arg(format!("--username={SUPERUSER}"))
            .arg(format!("--pwfile={}", pwfile.display()))
            // Every login, local or TCP, with the password: `trust` would let any local user
            // in as the superuser.
            .args(["--auth=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"])
            .env("TZ", "UTC")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let child =
            spawn(cmd).map_err(|e| ServerError::Start(format!("cannot run initdb: {e}")))?;
        self.registration.as_ref().expect("registered").set_init_group(Some(child.id()));
        let out = child
            .wait_with_output()
            .map_err(|e| ServerError::Start(format!("initdb failed: {e}")))?;
        self.registration.as_ref().expect("registered").set_init_group(None);
        if !out.status.success() {
            return Err(ServerError::Start(format!(
                "initdb failed ({}):\n{}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(())
    }

    fn launch(&mut self) -> Result<(), ServerError> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .map_err(|e| ServerError::Start(format!("cannot create the server log: {e}")))?;
        let err = log.try_clone().map_err(|e| ServerError::Start(e.to_string()))?;
        let mut cmd = self.command("postgres")?;
        // `--config-file=DIR/...` names the instance directory on the command line, which is
        // how the sweep recognises the server as this instance's.
        cmd.arg("-D")
            .arg(self.datadir())
            .arg(format!("--config-file={}", self.datadir().join("postgresql.conf").display()))
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .process_group(0);
        let child =
            spawn(cmd).map_err(|e| ServerError::Start(format!("cannot start postgres: {e}")))?;
        self.registration.as_ref().expect("registered").set_pid(Some(child.id()));
        self.child = Some(child);
        Ok(())
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<(), ServerError> {
        let deadline = Instant::now() + timeout;
        let mut last;
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    self.child = None;
                    return Err(ServerError::Start(format!(
                        "the private PostgreSQL exited during start-up ({status}); log:\n{}",
                        tail_of(&self.log_path(), 20)
                    )));
                }
            }
            match self.config("postgres").connect(postgres::NoTls) {
                Ok(_) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
            if Instant::now() >= deadline {
                return Err(ServerError::Start(format!(
                    "the private PostgreSQL did not answer within {} s ({last}); log:\n{}",
                    timeout.as_secs(),
                    tail_of(&self.log_path(), 20)
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the server (fast shutdown: a checkpoint, then exit) and starts it again on the
    /// same data: shared buffers start cold.
    pub fn restart(&mut self) -> Result<(), ServerError> {
        if let Some(child) = self.child.take() {
            stop_pid_with(child.id() as i32, Signal::SIGINT, Duration::from_secs(60));
            self.registration.as_ref().expect("registered").set_pid(None);
        }
        self.launch()?;
        self.wait_ready(Duration::from_secs(60))
    }

    /// Stops the server and removes its directory, reporting a directory that could not be
    /// removed (drop does the same silently).
    pub fn stop(mut self) -> Result<(), ServerError> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Result<(), ServerError> {
        if let Some(child) = self.child.take() {
            // Immediate shutdown: the data is thrown away, so no shutdown checkpoint.
            stop_pid_with(child.id() as i32, Signal::SIGQUIT, Duration::from_secs(30));
        }
        // Backends notice the postmaster is gone and exit; give them a moment so nothing
        // writes into the directory while it is removed.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && backends_of(self.dir()) > 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
        // A server that had to be killed leaves its shared memory segment.
        keylab_server_common::shm::release_segments(self.dir(), Duration::from_secs(2));
        self.registration.take();
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

/// Where a private instance's directory goes: the temp dir, unless the server runs as
/// another user (`run_as`) that cannot traverse it (a root-only TMPDIR), then the first of
/// [`FALLBACK_BASES`] that user can enter, with the directory it could not (`instead_of`).
struct InstanceBase {
    dir: PathBuf,
    instead_of: Option<PathBuf>,
}

fn instance_base(temp: PathBuf, run_as: Option<(u32, u32)>) -> Result<InstanceBase, ServerError> {
    let Some((uid, gid)) = run_as else { return Ok(InstanceBase { dir: temp, instead_of: None }) };
    // The instance directory itself is handed over; its base and all above must be passable.
    let Some(blocked) = unreachable_ancestor(&temp.join("x"), uid, gid) else {
        return Ok(InstanceBase { dir: temp, instead_of: None });
    };
    FALLBACK_BASES
        .iter()
        .map(PathBuf::from)
        .find(|b| b.is_dir() && unreachable_ancestor(&b.join("x"), uid, gid).is_none())
        .map(|dir| InstanceBase { dir, instead_of: Some(blocked.clone()) })
        .ok_or_else(|| {
            ServerError::Start(format!(
                "PostgreSQL runs as the `postgres` user here (keylab runs as root) and cannot \
                 enter {}, nor any of {}; set TMPDIR to a directory every user can traverse",
                blocked.display(),
                FALLBACK_BASES.join(", ")
            ))
        })
}

/// The first ancestor of `dir` that user `uid`/`gid` may not traverse (no search permission
/// for it as owner, group or other), if any.
fn unreachable_ancestor(dir: &Path, uid: u32, gid: u32) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    dir.ancestors().skip(1).find_map(|a| {
        let m = std::fs::metadata(a).ok()?;
        let mode = m.mode();
        let ok = if m.uid() == uid {
            mode & 0o100 != 0
        } else if m.gid() == gid {
            mode & 0o010 != 0
        } else {
            mode & 0o001 != 0
        };
        (!ok).then(|| a.to_path_buf())
    })
}

/// Processes whose working directory is inside `dir` (PostgreSQL's backends run in the data
/// directory); 0 where `/proc` is unreadable.
fn backends_of(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .count()
}

impl Drop for PgInstance {
    fn drop(&mut self) {
        let _ = self.stop_inner();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_and_written() {
        assert!(PgSettings::default().check().is_ok());
        let bad = PgSettings { wal_level: "minimal".into(), ..PgSettings::default() };
        assert!(bad.check().unwrap_err().to_string().contains("valid: replica, logical"));
        let text = PgSettings::default().config_text(5555, Path::new("/tmp/x"));
        assert!(text.contains("port = 5555\n"));
        assert!(text.contains("shared_buffers = 131072kB\n"));
        assert!(text.contains("autovacuum = off\n"));
        assert!(text.contains("unix_socket_directories = '\"/tmp/x\"'\n"), "{text}");
        let odd = socket_dirs_value(Path::new("/tmp/a #b'c, \"d\"\\e"));
        assert_eq!(odd, r#"'"/tmp/a #b''c, ""d""\\e"'"#);
        assert!(text.contains("unix_socket_permissions = 0700\n"));
    }
}
