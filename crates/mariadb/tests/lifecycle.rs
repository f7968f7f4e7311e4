//! Private instances leave nothing behind: no process and no directory, after a normal drop,
//! after a failed start and after a panic.

use keylab_mariadb::{PrivateServer, ServerSettings};
use keylab_server_common::live_private_servers;
use keylab_server_common::ServerError;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

/// The tests compare the temp directory before and after: run them one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// True when a server is installed; SKIPPED otherwise (a failure under `CI=true`).
fn server_installed() -> bool {
    keylab_mariadb::installed_or_skip(module_path!())
}

/// This process's instance directories (by their owner file: other programs on the machine
/// make and remove their own in the same temp dir meanwhile).
fn our_temp_dirs() -> BTreeSet<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("keylab-server-"))
                })
                .filter(|p| {
                    keylab_server_common::sweep::read_owner(p)
                        .is_some_and(|o| o.pid == std::process::id())
                })
                .collect()
        })
        .unwrap_or_default()
}

fn process_alive(pid: u32) -> bool {
    // A reaped process has no /proc entry; a zombie would show state Z.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s.split_whitespace().nth(2).is_none_or(|st| st != "Z"),
        Err(_) => false,
    }
}

#[test]
fn drop_stops_the_server_and_removes_its_directory() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !server_installed() {
        return;
    }
    let before = our_temp_dirs();
    let server = PrivateServer::start(&ServerSettings::default()).expect("start");
    let pid = server.pid().expect("running");
    let dir = server.dir().to_path_buf();
    assert!(process_alive(pid));
    assert!(dir.join("data").is_dir());
    assert_eq!(live_private_servers(), 1);
    // It answers on its TCP port too, as a user's server would.
    let mut conn = mysql::Conn::new(keylab_mariadb::url_opts(
        &server.tcp_url(None),
        std::time::Duration::from_secs(5),
    ))
    .expect("tcp connect");
    let v: Option<String> =
        mysql::prelude::Queryable::query_first(&mut conn, "SELECT VERSION()").expect("query");
    assert!(v.is_some());
    drop(conn);
    drop(server);
    assert!(!process_alive(pid), "server process {pid} still alive");
    assert!(!dir.exists(), "{} still exists", dir.display());
    assert_eq!(live_private_servers(), 0);
    assert_eq!(our_temp_dirs(), before);
}

#[test]
fn a_failed_start_leaves_nothing() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !server_installed() {
        return;
    }
    let before = our_temp_dirs();
    // An option the server does not know makes it exit during start-up.
    let settings = ServerSettings {
        extra: vec![("keylab_no_such_option".into(), "1".into())],
        ..ServerSettings::default()
    };
    let err = PrivateServer::start(&settings).expect_err("must fail");
    let msg = err.to_string();
    assert!(matches!(err, ServerError::Start(_)), "{msg}");
    assert!(msg.contains("keylab_no_such_option"), "error log tail missing: {msg}");
    assert_eq!(live_private_servers(), 0);
    assert_eq!(our_temp_dirs(), before);
}

#[test]
fn a_panic_leaves_nothing() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !server_installed() {
        return;
    }
    let before = our_temp_dirs();
    let seen = std::sync::Mutex::new(None);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let server = PrivateServer::start(&ServerSettings::default()).expect("start");
        *seen.lock().unwrap() = Some((server.pid().unwrap(), server.dir().to_path_buf()));
        panic!("a failure in the middle of a run");
    }));
    assert!(result.is_err());
    let (pid, dir) = seen.lock().unwrap().take().expect("server started");
    assert!(!process_alive(pid), "server process {pid} still alive");
    assert!(!dir.exists());
    assert_eq!(live_private_servers(), 0);
    assert_eq!(our_temp_dirs(), before);
}

#[test]
fn bad_settings_are_rejected_before_starting() {
    let settings = ServerSettings { page_size_bytes: 12345, ..ServerSettings::default() };
    let err = PrivateServer::start(&settings).unwrap_err().to_string();
    assert!(err.contains("innodb_page_size"), "{err}");
}

/// Run as a child process by `ctrl_c_stops_the_server_and_removes_its_directory`: installs
/// the handler, starts a server, prints its pid and directory, and waits to be interrupted.
#[test]
fn ctrl_c_child() {
    if std::env::var("KEYLAB_CTRL_C_CHILD").is_err() {
        return;
    }
    keylab_server_common::install_signal_cleanup().expect("handler");
    let server = PrivateServer::start(&ServerSettings::default()).expect("start");
    println!("SERVER {} {}", server.pid().unwrap(), server.dir().display());
    std::thread::sleep(std::time::Duration::from_secs(120));
    unreachable!("not interrupted");
}

#[test]
fn ctrl_c_stops_the_server_and_removes_its_directory() {
    use std::io::BufRead;
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !server_installed() {
        return;
    }
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "ctrl_c_child", "--nocapture", "--test-threads=1"])
        .env("KEYLAB_CTRL_C_CHILD", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut line = String::new();
    let mut reader = std::io::BufReader::new(out);
    let (pid, dir) = loop {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "child ended before starting a server");
        // libtest prints `test ctrl_c_child ... ` before the child's own output.
        if let Some(rest) = line.trim().split_once("SERVER ").map(|(_, r)| r) {
            let (pid, dir) = rest.split_once(' ').unwrap();
            break (pid.parse::<u32>().unwrap(), PathBuf::from(dir));
        }
    };
    assert!(process_alive(pid));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // The server was the child's child; once stopped it is gone from /proc.
    assert!(!process_alive(pid), "server process {pid} still alive");
    assert!(!dir.exists(), "{} still exists", dir.display());
}
