//! The processes of a private instance as the operating system sees them: spawning a server
//! process that dies with keylab, recognising a process by its start time, finding the
//! processes that belong to an instance directory, and stopping them.
//!
//! Linux only (`/proc`, `PR_SET_PDEATHSIG`); elsewhere the parent-death signal is not set and
//! only the sweep at the next start (`crate::sweep`) catches what a killed keylab left.
//! This module keeps no record of live instances; `crate::registry` does.

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The program that sets a parent-death signal and then runs the real one in the same
/// process (util-linux). Setting it ourselves would need `pre_exec`, which is unsafe code.
const SETPRIV: &str = "/usr/bin/setpriv";

type SpawnReply = mpsc::Sender<io::Result<Child>>;

/// The long-lived thread every server process is forked from: the kernel sends the
/// parent-death signal when the *thread* that forked exits, so forking from a caller's
/// short-lived thread (a test, a scoped worker) would kill the server with that thread.
fn spawner() -> &'static Mutex<mpsc::Sender<(Command, SpawnReply)>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<(Command, SpawnReply)>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<(Command, SpawnReply)>();
        std::thread::Builder::new()
            .name("keylab-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("spawn the process-spawning thread");
        Mutex::new(tx)
    })
}

/// The environment variables a server, its initialiser or `setpriv` may see: where programs
/// are, the locale and the time zone, the temporary directory and who runs it. Nothing else
/// (`KEYLAB_PASSWORD`, `PGPASSWORD`, `MYSQL_PWD`, a user's tokens) reaches a server process,
/// which may run as another OS user whose `/proc/PID/environ` that user can read.
const CHILD_ENV: &[&str] = &["PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "USER", "LOGNAME"];

/// `cmd` with an environment of only [`CHILD_ENV`] and the `LC_*` variables of keylab's.
fn only_needed_env(mut cmd: Command) -> Command {
    cmd.env_clear();
    for (name, value) in std::env::vars_os() {
        let keep = name.to_str().is_some_and(|n| CHILD_ENV.contains(&n) || n.starts_with("LC_"));
        if keep {
            cmd.env(name, value);
        }
    }
    cmd
}

/// `program` with `args`, to be killed (SIGKILL) by the kernel when keylab dies, however it
/// dies: through `setpriv --pdeathsig KILL` where it is installed, else plainly. Its
/// environment holds only what a server needs (the list in `CHILD_ENV`), never a secret.
pub fn command_dying_with_keylab(program: &Path) -> Command {
    only_needed_env(if setpriv_works() {
        let mut c = Command::new(SETPRIV);
        c.arg("--pdeathsig").arg("KILL").arg("--").arg(program);
        c
    } else {
        Command::new(program)
    })
}

/// [`command_dying_with_keylab`] run as user `uid`/`gid` (no supplementary groups), for
/// servers that refuse to run as root (PostgreSQL). Needs `setpriv`; `None` without it.
/// The same environment as [`command_dying_with_keylab`]'s.
pub fn command_as_user_dying_with_keylab(program: &Path, uid: u32, gid: u32) -> Option<Command> {
    if !setpriv_works() {
        return None;
    }
    let mut c = Command::new(SETPRIV);
    c.arg(format!("--reuid={uid}"))
        .arg(format!("--regid={gid}"))
        .arg("--clear-groups")
        .arg("--pdeathsig")
        .arg("KILL")
        .arg("--")
        .arg(program);
    Some(only_needed_env(c))
}

/// True when `setpriv` is installed and knows `--pdeathsig` (util-linux 2.33 and later),
/// tried once.
fn setpriv_works() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        cfg!(target_os = "linux")
            && Command::new(SETPRIV)
                .args(["--pdeathsig", "KILL", "--", "true"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
    })
}

/// Spawns `cmd` from the long-lived spawner thread (see `spawner`).
pub fn spawn(cmd: Command) -> io::Result<Child> {
    let (tx, rx) = mpsc::channel();
    spawner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((cmd, tx))
        .map_err(|_| io::Error::other("the process-spawning thread is gone"))?;
    rx.recv().map_err(|_| io::Error::other("the process-spawning thread is gone"))?
}

/// A process's start time in clock ticks since boot (`/proc/PID/stat` field 22): with the
/// pid it names one process, so a recycled pid is not mistaken for the one recorded.
pub fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// State letter and parent pid from `/proc/PID/stat`.
fn state_and_parent(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut it = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = it.next()?.chars().next()?;
    Some((state, it.next()?.parse().ok()?))
}

/// True while `pid` runs (a zombie has finished: only its exit status is left).
pub fn running(pid: u32) -> bool {
    state_and_parent(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
}

/// The parent of a running process.
pub fn parent_of(pid: u32) -> Option<u32> {
    state_and_parent(pid).map(|(_, ppid)| ppid)
}

/// Running processes that are the instance in `dir`'s server or initialiser: an argument of
/// their command line is `--defaults-file=DIR/...` or `--datadir=DIR/...` (what keylab gives
/// MariaDB/MySQL), or `--config-file=DIR/...` or `--pgdata=DIR/...` (what it gives PostgreSQL's
/// `postgres` and `initdb`). How keylab knows a process is that instance's, not another that reuses a pid, nor
/// a user's `tail` of its error log.
pub fn processes_naming(dir: &Path) -> Vec<u32> {
    let dir = dir.as_os_str().as_encoded_bytes();
    let prefixes: Vec<Vec<u8>> = ["--defaults-file=", "--datadir=", "--config-file=", "--pgdata="]
        .iter()
        .map(|option| [option.as_bytes(), dir, b"/"].concat())
        .collect();
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found: Vec<u32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me && running(pid))
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            cmdline.split(|&b| b == 0).any(|arg| prefixes.iter().any(|p| arg.starts_with(p)))
        })
        .collect();
    found.sort_unstable();
    found
}

/// Sends `signal` to every process of `dir` (see [`processes_naming`]) until none runs or
/// `within` has passed; returns the pids that were signalled. A process may have started
/// children meanwhile (the initialiser does), so it looks again each round.
pub fn kill_all_naming(dir: &Path, signal: Signal, within: Duration) -> Vec<u32> {
    let deadline = Instant::now() + within;
    let mut signalled = Vec::new();
    loop {
        let pids = processes_naming(dir);
        if pids.is_empty() || Instant::now() >= deadline {
            return signalled;
        }
        for &pid in &pids {
            let _ = kill(Pid::from_raw(pid as i32), signal);
            if !signalled.contains(&pid) {
                signalled.push(pid);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_sees_only_the_environment_it_needs() {
        let mut cmd = Command::new("/usr/bin/env");
        cmd.env("PGPASSWORD", "pw-Env1").env("KEYLAB_PASSWORD", "pw-Env2").env("LC_ALL", "C");
        let out = only_needed_env(cmd).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("pw-Env"), "{text}");
        if std::env::var_os("PATH").is_some() {
            assert!(text.lines().any(|l| l.starts_with("PATH=")), "{text}");
        }
        let names: Vec<&str> = text.lines().filter_map(|l| l.split('=').next()).collect();
        assert!(names.iter().all(|n| CHILD_ENV.contains(n) || n.starts_with("LC_")), "{names:?}");
    }

    #[test]
    fn this_process_has_a_start_time_and_a_parent() {
        let me = std::process::id();
        assert!(start_ticks(me).is_some());
        assert!(running(me));
        assert!(parent_of(me).is_some());
        assert_eq!(start_ticks(u32::MAX), None);
        assert!(!running(u32::MAX));
    }

    #[test]
    fn a_process_is_found_by_the_directory_its_command_line_names() {
        let dir = tempfile::tempdir().unwrap();
        let option = format!("--defaults-file={}/my.cnf", dir.path().display());
        // The option is an argument of the shell script (`$0`), as in a server's command line.
        let mut cmd = command_dying_with_keylab(Path::new("/bin/sh"));
        cmd.arg("-c").arg("sleep 30").arg(&option);
        let mut tail = Command::new("/bin/sh");
        tail.arg("-c").arg("sleep 30").arg(dir.path().join("error.log"));
        let mut tail = tail.spawn().unwrap();
        let mut child = spawn(cmd).unwrap();
        let pid = child.id();
        let started = Instant::now();
        while !processes_naming(dir.path()).contains(&pid) {
            assert!(started.elapsed() < Duration::from_secs(5), "not found");
            std::thread::sleep(Duration::from_millis(10));
        }
        // A sibling directory whose name starts the same is not this one.
        let sibling = std::path::PathBuf::from(format!("{}x", dir.path().display()));
        assert!(!processes_naming(&sibling).contains(&pid));
        let killed = kill_all_naming(dir.path(), Signal::SIGKILL, Duration::from_secs(5));
        assert!(killed.contains(&pid));
        child.wait().unwrap();
        assert!(processes_naming(dir.path()).is_empty());
        assert!(running(tail.id()), "a process that only names a file there is not the server's");
        tail.kill().unwrap();
        tail.wait().unwrap();
    }
}
