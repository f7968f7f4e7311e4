//! System V shared memory: a private PostgreSQL killed with keylab (`kill -9`) or an
//! `initdb` interrupted part way leaves its segment, which keylab removes (the next start's
//! sweep, or the signal handler's cleanup). Segments are recognised by the key and id line 7
//! of the instance's `postmaster.pid` names.

use super::{open_dir, pg_up};
use keylab_pg_server::installed_or_skip;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `(key, shmid)` the lock file of the instance under `tmp` names, once it names one.
fn instance_segment(tmp: &Path) -> Option<(i64, i32)> {
    std::fs::read_dir(tmp).ok()?.filter_map(|e| e.ok()).find_map(|e| {
        let text = std::fs::read_to_string(e.path().join("data/postmaster.pid")).ok()?;
        let mut f = text.lines().nth(6)?.split_whitespace();
        Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
    })
}

/// True while the kernel lists segment `shmid` with key `key`.
fn listed(key: i64, shmid: i32) -> bool {
    let text = std::fs::read_to_string("/proc/sysvipc/shm").unwrap();
    text.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.first().and_then(|k| k.parse::<i64>().ok()) == Some(key)
            && f.get(1).and_then(|i| i.parse::<i32>().ok()) == Some(shmid)
    })
}

/// True while an `initdb` child of process `parent` runs.
fn initdb_running(parent: u32) -> bool {
    std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()).any(|e| {
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let Some((comm, rest)) = stat.split_once(") ") else { return false };
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        comm.ends_with("(initdb") && ppid == Some(parent)
    })
}

fn slow_load(d: &crate::util::Dir, tmp: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(["compare", "--engine", "postgres", "--keys", "uuid4:text"])
        .args(["--rows", "50000000", "--method", "row", "--batch", "1"])
        .env("TMPDIR", tmp)
        .current_dir(d.root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `kill -9` of keylab mid-load: the server dies with it and its segment stays until the
/// next keylab start, whose sweep removes it with the directory.
#[test]
fn kill_9_leaves_no_shared_memory_after_the_next_start() {
    if !installed_or_skip("kill_9_leaves_no_shared_memory_after_the_next_start") {
        return;
    }
    let (d, tmp) = open_dir();
    let child = slow_load(&d, &tmp);
    let started = Instant::now();
    while !pg_up(&tmp) {
        assert!(started.elapsed() < Duration::from_secs(60), "no server came up");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1000));
    let (key, shmid) = instance_segment(&tmp).expect("the running server's segment");
    assert!(listed(key, shmid));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL).unwrap();
    child.wait_with_output().unwrap();
    let next = Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(["keys", "uuid4", "--count", "1"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(stderr.contains("removed a private server left behind"), "{stderr}");
    assert!(!listed(key, shmid), "segment {shmid} (key {key}) left after the sweep");
}

/// SIGTERM while `initdb`'s standalone backend holds its segment: keylab kills the
/// initialiser and removes the segment with the directory before it exits.
#[test]
fn an_interrupted_initdb_leaves_no_shared_memory() {
    if !installed_or_skip("an_interrupted_initdb_leaves_no_shared_memory") {
        return;
    }
    let (d, tmp) = open_dir();
    let child = slow_load(&d, &tmp);
    let started = Instant::now();
    let (key, shmid) = loop {
        if let Some(seg) = instance_segment(&tmp).filter(|_| initdb_running(child.id())) {
            break seg;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "initdb never made a segment");
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(!pg_up(&tmp), "caught the server, not initdb");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!listed(key, shmid), "segment {shmid} (key {key}) left after the interrupt");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().filter_map(|e| e.ok()).collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}
