//! A keylab stopped by a signal leaves nothing behind: no server process, no instance
//! directory, no half-loaded table on a user's server. What a handler cannot see (SIGKILL)
//! is removed by the next keylab start, which says so. Each test gives keylab a TMPDIR of its
//! own, so that what is left there is what that run left. They need MariaDB's server
//! binaries: without them they print SKIPPED, except under `CI=true`, where that fails.

use crate::util::{server_installed, users_server, Dir};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A test's directory with an empty `tmp/` for keylab's TMPDIR.
fn dir_with_tmp() -> (Dir, PathBuf) {
    let d = Dir::new();
    let tmp = d.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    (d, tmp)
}

/// Starts `keylab ARGS` in the background with `tmp` as its TMPDIR.
fn spawn_keylab(d: &Dir, tmp: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(args)
        .env("TMPDIR", tmp)
        .current_dir(d.root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A slow load that a test interrupts: it never finishes on its own.
const SLOW_LOAD: [&str; 11] = [
    "compare",
    "--engine",
    "mariadb",
    "--keys",
    "uuid4:text",
    "--rows",
    "50000000",
    "--method",
    "row",
    "--batch",
    "1",
];

/// Running processes whose command line names something under `path`.
fn processes_under(path: &Path) -> Vec<String> {
    let needle = path.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.parse::<u32>().is_ok()))
        .filter(|e| {
            // A zombie has finished; only its exit status is left for its parent.
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            stat.rsplit(')').next().and_then(|s| s.split_whitespace().next()) != Some("Z")
        })
        .map(|e| std::fs::read(e.path().join("cmdline")).unwrap_or_default())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&needle))
        .collect()
}

/// Waits until `ready` holds, failing after a minute.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// True once a private server under `tmp` answers on its socket.
fn server_up(tmp: &Path) -> bool {
    std::fs::read_dir(tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.path().join("mysqld.sock").exists())
}

/// True while the initialiser's bootstrap server runs under `tmp`.
fn initialising(tmp: &Path) -> bool {
    processes_under(tmp).iter().any(|c| c.contains("--bootstrap"))
}

fn signal(child: &Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
}

/// Asserts that nothing of keylab's is left under `tmp`: no file, no process.
#[track_caller]
fn nothing_left(tmp: &Path, context: &str) {
    let left: Vec<_> = std::fs::read_dir(tmp).unwrap().filter_map(|e| e.ok()).collect();
    assert!(left.is_empty(), "{context}: left in TMPDIR: {left:?}");
    let procs = processes_under(tmp);
    assert!(procs.is_empty(), "{context}: still running: {procs:?}");
}

/// SIGKILL, which no handler sees, while the initialiser runs and in the middle of a load:
/// the next keylab start (here `keylab keys`) stops what still runs, removes the instance
/// directory within seconds, and says so in one line.
#[test]
fn kill_9_leaves_nothing_after_the_next_start() {
    if !server_installed("kill_9_leaves_nothing_after_the_next_start") {
        return;
    }
    for during_startup in [true, false] {
        let when = if during_startup { "start-up" } else { "the load" };
        let (d, tmp) = dir_with_tmp();
        let child = spawn_keylab(&d, &tmp, &SLOW_LOAD);
        if during_startup {
            wait_for("the initialiser", || initialising(&tmp));
        } else {
            wait_for("the private server", || server_up(&tmp));
            std::thread::sleep(Duration::from_millis(1500));
        }
        signal(&child, nix::sys::signal::Signal::SIGKILL);
        child.wait_with_output().unwrap();
        let started = Instant::now();
        let next = Command::new(env!("CARGO_BIN_EXE_keylab"))
            .args(["keys", "uuid4", "--count", "1"])
            .env("TMPDIR", &tmp)
            .current_dir(d.root())
            .output()
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{when}: took {:?}",
            started.elapsed()
        );
        let stderr = String::from_utf8_lossy(&next.stderr);
        assert_eq!(next.status.code(), Some(0), "{when}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("left behind")).collect();
        assert_eq!(lines.len(), 1, "{when}: one line per removed instance:\n{stderr}");
        assert!(lines[0].contains("keylab-server-") && lines[0].contains("MiB"), "{stderr}");
        nothing_left(&tmp, &format!("kill -9 during {when}, after the next start"));
    }
}

/// Every signal whose default would end keylab (SIGINT and SIGTERM and the rarer ones),
/// sent while the initialiser creates the data directory or in the middle of a load: keylab
/// stops what it started, removes its directory, and exits with 128 + the signal.
fn a_signal_leaves_nothing(test: &str, during_startup: bool, signals: &[i32]) {
    if !server_installed(test) {
        return;
    }
    for &sig in signals {
        let (d, tmp) = dir_with_tmp();
        let child = spawn_keylab(&d, &tmp, &SLOW_LOAD);
        if during_startup {
            wait_for("the initialiser", || initialising(&tmp));
        } else {
            wait_for("the private server", || server_up(&tmp));
            std::thread::sleep(Duration::from_millis(1000));
        }
        let sent = Command::new("kill").arg(format!("-{sig}")).arg(child.id().to_string()).status();
        assert!(sent.unwrap().success(), "kill -{sig}");
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + sig), "signal {sig}: {stderr}");
        nothing_left(
            &tmp,
            &format!(
                "signal {sig} during {}",
                if during_startup { "start-up" } else { "the load" }
            ),
        );
    }
}

/// SIGQUIT, SIGUSR1, SIGALRM, SIGTERM.
fn common_signals() -> Vec<i32> {
    use nix::sys::signal::Signal;
    [Signal::SIGQUIT, Signal::SIGUSR1, Signal::SIGALRM, Signal::SIGTERM].map(|s| s as i32).into()
}

#[test]
fn signals_during_start_up_leave_nothing() {
    // Mid-load Ctrl-C is `server::ctrl_c_during_a_load_stops_the_private_server`.
    let mut signals = common_signals();
    signals.push(libc::SIGINT);
    a_signal_leaves_nothing("signals_during_start_up_leave_nothing", true, &signals);
}

#[test]
fn signals_during_a_load_leave_nothing() {
    a_signal_leaves_nothing("signals_during_a_load_leave_nothing", false, &common_signals());
}

/// The terminating signals outside the common set (a profiler's, the stack fault, a
/// real-time one, a bad system call, `kill -ABRT`) clean up the same way.
#[test]
fn rarer_signals_during_a_load_leave_nothing() {
    let signals =
        [libc::SIGPROF, libc::SIGSTKFLT, libc::SIGRTMIN() + 2, libc::SIGSYS, libc::SIGABRT];
    a_signal_leaves_nothing("rarer_signals_during_a_load_leave_nothing", false, &signals);
}

/// A second private server stands in for a user's server, with a password user.
struct UsersServer {
    server: keylab_mariadb::PrivateServer,
    admin: mysql::Conn,
    url: String,
}

const PASSWORD: &str = "pw-Int3rrupt-secret";

impl UsersServer {
    fn start() -> UsersServer {
        use mysql::prelude::Queryable;
        let (server, mut admin) = users_server();
        admin
            .query_drop(format!(
                "CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'; \
                 GRANT ALL ON *.* TO 'bench'@'127.0.0.1'"
            ))
            .unwrap();
        let url = format!("mysql://bench:{PASSWORD}@127.0.0.1:{}", server.port());
        UsersServer { server, admin, url }
    }

    fn tables(&mut self, db: &str) -> Vec<String> {
        use mysql::prelude::Queryable;
        self.admin.query(format!("SHOW TABLES FROM {db}")).unwrap()
    }

    /// Rows in `db`'s tables other than keylab's marker (from the statistics: a lower bound
    /// good enough to see that a load has begun).
    fn loading(&mut self, db: &str) -> bool {
        use mysql::prelude::Queryable;
        let n: Option<u64> = self
            .admin
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? \
                 AND TABLE_NAME <> 'keylab_owner'",
                (db,),
            )
            .unwrap();
        n.unwrap_or(0) > 0
    }
}

fn url_load<'a>(url: &'a str, db: &'a str, keys: &'a str, rows: &'a str) -> Vec<&'a str> {
    let mut args = vec!["compare", "--engine", "mariadb", "--url", url, "--database", db];
    args.extend(["--keys", keys, "--rows", rows, "--method", "row", "--batch", "1"]);
    args
}

/// Ctrl-C during a `--url` load: the half-loaded table keylab created is dropped (and taken
/// off `keylab_owner`) before keylab exits 130, with a line saying so and no password.
#[test]
fn ctrl_c_during_a_url_load_drops_the_half_loaded_table() {
    if !server_installed("ctrl_c_during_a_url_load_drops_the_half_loaded_table") {
        return;
    }
    let mut users = UsersServer::start();
    let (d, tmp) = dir_with_tmp();
    let child = spawn_keylab(&d, &tmp, &url_load(&users.url, "kl_int", "uuid4:text", "50000000"));
    wait_for("the load", || users.loading("kl_int"));
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child, nix::sys::signal::Signal::SIGINT);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("dropped the half-done table `kl_int`."), "{stderr}");
    assert!(!stderr.contains(PASSWORD), "{stderr}");
    assert_eq!(users.tables("kl_int"), vec!["keylab_owner".to_string()]);
    use mysql::prelude::Queryable;
    let listed: Vec<String> =
        users.admin.query("SELECT table_name FROM kl_int.keylab_owner").unwrap();
    assert!(listed.is_empty(), "{listed:?}");
    drop(users.server);
}

/// SIGKILL during a `--url` load leaves the table (no handler runs), but the next run in the
/// same database, of another variant, drops it and says so.
#[test]
fn the_next_url_run_drops_what_a_killed_run_left() {
    if !server_installed("the_next_url_run_drops_what_a_killed_run_left") {
        return;
    }
    let mut users = UsersServer::start();
    let (d, tmp) = dir_with_tmp();
    let child = spawn_keylab(&d, &tmp, &url_load(&users.url, "kl_kill", "uuid4:text", "50000000"));
    wait_for("the load", || users.loading("kl_kill"));
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child, nix::sys::signal::Signal::SIGKILL);
    child.wait_with_output().unwrap();
    let left = users.tables("kl_kill");
    assert_eq!(left.len(), 2, "the killed run's table is there: {left:?}");
    let next = d.keylab(&url_load(&users.url, "kl_kill", "ulid:text", "500")).expect_code(0);
    assert!(next.stderr.contains("left half-done by an interrupted keylab run"), "{}", next.stderr);
    assert!(!next.stderr.contains(PASSWORD), "{}", next.stderr);
    assert_eq!(users.tables("kl_kill"), vec!["keylab_owner".to_string()]);
}

/// A signal ignored when keylab starts stays ignored (`nohup keylab ...` outlives its
/// terminal): SIGHUP then does nothing, and SIGTERM still cleans up.
#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    use nix::sys::signal::Signal;
    if !server_installed("a_signal_ignored_at_start_stays_ignored") {
        return;
    }
    let (d, tmp) = dir_with_tmp();
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("trap '' HUP; exec {} \"$@\"", env!("CARGO_BIN_EXE_keylab")))
        .arg("keylab")
        .args(SLOW_LOAD)
        .env("TMPDIR", &tmp)
        .current_dir(d.root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the private server", || server_up(&tmp));
    signal(&child, Signal::SIGHUP);
    std::thread::sleep(Duration::from_millis(1000));
    assert!(child.try_wait().unwrap().is_none(), "SIGHUP ended a keylab that ignored it");
    signal(&child, Signal::SIGTERM);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    nothing_left(&tmp, "SIGTERM after an ignored SIGHUP");
}

/// A slow load on two Spider shards (three private servers) that a test interrupts.
const SLOW_SHARDED_LOAD: [&str; 15] = [
    "compare",
    "--engine",
    "mariadb",
    "--shards",
    "2",
    "--sharding",
    "hash",
    "--keys",
    "uuid4:bin",
    "--rows",
    "50000000",
    "--method",
    "row",
    "--batch",
    "1",
];

/// Private servers under `tmp` that answer on their sockets.
fn servers_up(tmp: &Path) -> usize {
    std::fs::read_dir(tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("mysqld.sock").exists())
        .count()
}

/// `--shards`: SIGTERM while the backends start and in the middle of the load stops every
/// server of the topology and removes every directory; SIGKILL mid-load leaves them to the
/// next start, which removes all three, one line each.
#[test]
fn a_sharded_run_leaves_nothing() {
    use nix::sys::signal::Signal;
    let test = "a_sharded_run_leaves_nothing";
    if !server_installed(test) {
        return;
    }
    for during_startup in [true, false] {
        let (d, tmp) = dir_with_tmp();
        let child = spawn_keylab(&d, &tmp, &SLOW_SHARDED_LOAD);
        if during_startup {
            // The first backend is up, the second is being created.
            wait_for("the second backend", || servers_up(&tmp) >= 1 && initialising(&tmp));
        } else {
            wait_for("the head", || servers_up(&tmp) == 3);
            std::thread::sleep(Duration::from_millis(2000));
        }
        signal(&child, Signal::SIGTERM);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + Signal::SIGTERM as i32), "{stderr}");
        nothing_left(&tmp, &format!("SIGTERM, shards, start-up {during_startup}"));
    }
    let (d, tmp) = dir_with_tmp();
    let child = spawn_keylab(&d, &tmp, &SLOW_SHARDED_LOAD);
    wait_for("the head", || servers_up(&tmp) == 3);
    std::thread::sleep(Duration::from_millis(2000));
    signal(&child, Signal::SIGKILL);
    child.wait_with_output().unwrap();
    let next = Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(["keys", "uuid4", "--count", "1"])
        .env("TMPDIR", &tmp)
        .current_dir(d.root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert_eq!(next.status.code(), Some(0), "{stderr}");
    let lines = stderr.lines().filter(|l| l.contains("left behind")).count();
    assert_eq!(lines, 3, "one line per removed instance (2 backends, 1 head):\n{stderr}");
    nothing_left(&tmp, "kill -9 of a sharded run, after the next start");
}

/// Ctrl-C in the middle of a load on a private instance: keylab stops the server, removes
/// its directory and exits 130 (not 1 with the connection error the load then sees).
#[test]
fn ctrl_c_during_a_load_stops_the_private_server() {
    if !server_installed("ctrl_c_during_a_load_stops_the_private_server") {
        return;
    }
    let d = Dir::new();
    // The private server's directory goes under TMPDIR: a fresh one shows what is left behind.
    let tmp = d.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(["compare", "--engine", "mariadb", "--keys", "uuid4:text", "--rows", "50000000"])
        .args(["--method", "row", "--batch", "1"])
        .env("TMPDIR", &tmp)
        .current_dir(d.root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the server's socket, then give the load a moment to start.
    let started = std::time::Instant::now();
    let server_dir = loop {
        let dirs: Vec<_> = std::fs::read_dir(&tmp).unwrap().filter_map(|e| e.ok()).collect();
        if let Some(dir) = dirs.iter().map(|e| e.path()).find(|p| p.join("mysqld.sock").exists()) {
            break dir;
        }
        assert!(started.elapsed().as_secs() < 60, "no private server started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(!server_dir.exists(), "{} left behind", server_dir.display());
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "files left in TMPDIR");
    // No server process from that directory is still running.
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        assert!(!cmdline.contains(&*tmp.to_string_lossy()), "still running: {cmdline}");
    }
}

/// Ctrl-C during a PostgreSQL `--url` load: as on MariaDB, the half-loaded table keylab
/// created is dropped (its sessions ended first) and taken off `keylab_owner` before keylab
/// exits 130, with a line saying so and no password.
#[test]
fn ctrl_c_during_a_postgres_url_load_drops_the_half_loaded_table() {
    use keylab_pg_server::{PgInstance, PgSettings};
    let test = "ctrl_c_during_a_postgres_url_load_drops_the_half_loaded_table";
    if !keylab_pg_server::installed_or_skip(test) {
        return;
    }
    let users = PgInstance::start(&PgSettings::default()).unwrap();
    let mut admin = users.config("postgres").connect(postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "CREATE ROLE bench LOGIN PASSWORD '{PASSWORD}'; \
             GRANT CREATE ON DATABASE postgres TO bench"
        ))
        .unwrap();
    let url = format!("postgres://bench:{PASSWORD}@127.0.0.1:{}/postgres", users.port());
    let mut tables = || -> Vec<String> {
        admin
            .query(
                "SELECT tablename::text FROM pg_tables WHERE schemaname = 'kl_int' ORDER BY 1",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    let (d, tmp) = dir_with_tmp();
    let mut args = vec!["compare", "--engine", "postgres", "--url", &url, "--database", "kl_int"];
    args.extend(["--keys", "uuid4:text", "--rows", "50000000", "--method", "row", "--batch", "1"]);
    let child = spawn_keylab(&d, &tmp, &args);
    wait_for("the load", || tables().len() > 1);
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child, nix::sys::signal::Signal::SIGINT);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("dropped the half-done table `kl_int`."), "{stderr}");
    assert!(!stderr.contains(PASSWORD), "{stderr}");
    assert_eq!(tables(), vec!["keylab_owner".to_string()]);
    let listed: i64 =
        admin.query_one("SELECT count(*) FROM kl_int.keylab_owner", &[]).unwrap().get(0);
    assert_eq!(listed, 0);
}
