//! Private instances whose keylab is gone: each instance directory holds an owner file naming
//! the process that made it (pid and start time), and [`sweep_orphans`], run at every keylab
//! start, stops the processes of every instance whose owner no longer runs and removes its
//! directory. This is what catches a keylab killed with SIGKILL, which no handler sees.
//!
//! A PostgreSQL instance's shared memory segment goes with its directory
//! ([`crate::shm::release_segments`]). It never touches an instance whose owner still runs, a directory that is not a private
//! instance's (by name), or a process whose command line does not name the directory.

use crate::process::{kill_all_naming, parent_of, processes_naming, running, start_ticks};
use nix::sys::signal::Signal;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The prefix of every private instance's directory under the temp dir (MariaDB, MySQL and
/// PostgreSQL alike: one sweep serves them all).
pub const DIR_PREFIX: &str = "keylab-server-";

/// Where a private PostgreSQL instance goes when the server's user (`postgres`, keylab
/// running as root) cannot enter the temp dir; [`sweep_bases`] includes them.
pub const FALLBACK_BASES: [&str; 2] = ["/tmp", "/var/tmp"];

/// The directories the sweep at start looks in: the temp dir, and for root (whose PostgreSQL
/// instances may have gone to a [`FALLBACK_BASES`] entry) those too.
pub fn sweep_bases() -> Vec<PathBuf> {
    let mut bases = vec![std::env::temp_dir()];
    if nix::unistd::geteuid().is_root() {
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        for f in FALLBACK_BASES.map(PathBuf::from) {
            if f.is_dir() && !bases.iter().any(|b| same(b, &f)) {
                bases.push(f);
            }
        }
    }
    bases
}

/// The owner file in an instance directory.
pub const OWNER_FILE: &str = "keylab-owner";

/// A directory without an owner file (made by a keylab before owner files, or one just
/// created whose owner file is being written) counts only once it is this old.
const NO_OWNER_GRACE: Duration = Duration::from_secs(60);

/// The process that owns an instance directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// Its pid.
    pub pid: u32,
    /// Its start time (see [`start_ticks`]); `None` where `/proc` is not readable.
    pub start_ticks: Option<u64>,
    /// Its pid namespace (`/proc/self/ns/pid`): a keylab in another container sharing the
    /// temp dir has pids this process cannot see.
    pub pid_ns: Option<String>,
}

fn pid_namespace() -> Option<String> {
    Some(std::fs::read_link("/proc/self/ns/pid").ok()?.to_string_lossy().into_owned())
}

impl Owner {
    /// This process.
    pub fn current() -> Owner {
        let pid = std::process::id();
        Owner { pid, start_ticks: start_ticks(pid), pid_ns: pid_namespace() }
    }

    /// True while the process that wrote the owner file runs (same pid, same start time), and
    /// when it cannot be told (it ran in another pid namespace).
    pub fn alive(&self) -> bool {
        if self.pid_ns.is_some() && self.pid_ns != pid_namespace() {
            return true;
        }
        running(self.pid)
            && match self.start_ticks {
                Some(t) => start_ticks(self.pid) == Some(t),
                None => true,
            }
    }

    fn text(&self) -> String {
        let ticks = self.start_ticks.map(|t| t.to_string()).unwrap_or_else(|| "-".into());
        let ns = self.pid_ns.as_deref().unwrap_or("-");
        format!(
            "keylab private instance owner\npid {}\nstart_ticks {ticks}\npid_ns {ns}\n",
            self.pid
        )
    }

    fn parse(text: &str) -> Option<Owner> {
        let field = |name: &str| {
            text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')).map(str::trim)
        };
        let pid = field("pid")?.parse().ok()?;
        let start_ticks = match field("start_ticks")? {
            "-" => None,
            t => Some(t.parse().ok()?),
        };
        let pid_ns = field("pid_ns").filter(|&n| n != "-").map(str::to_string);
        Some(Owner { pid, start_ticks, pid_ns })
    }
}

/// Writes the owner file of `dir` for this process.
pub fn write_owner(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join(OWNER_FILE), Owner::current().text())
}

/// Reads the owner file of `dir`.
pub fn read_owner(dir: &Path) -> Option<Owner> {
    Owner::parse(&std::fs::read_to_string(dir.join(OWNER_FILE)).ok()?)
}

/// Why an instance directory is an orphan, or `None` while someone may still use it.
fn orphaned_because(dir: &Path) -> Option<String> {
    if let Some(owner) = read_owner(dir) {
        return (!owner.alive()).then(|| format!("keylab process {} is gone", owner.pid));
    }
    let age = std::fs::metadata(dir)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())?;
    if age < NO_OWNER_GRACE {
        return None;
    }
    // No owner file: orphaned when every process of the instance was handed to init, i.e.
    // the program that started it is gone.
    let procs = processes_naming(dir);
    procs
        .iter()
        .all(|&p| parent_of(p).is_none_or(|pp| pp == 1))
        .then(|| "no owner file and no program holds it".to_string())
}

fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// What one sweep did to one orphaned instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swept {
    /// The instance directory.
    pub dir: PathBuf,
    /// Why it was an orphan.
    pub reason: String,
    /// The processes stopped.
    pub stopped: Vec<u32>,
    /// Bytes the directory held.
    pub bytes: u64,
    /// Why the directory could not be removed, if it could not.
    pub error: Option<String>,
}

impl std::fmt::Display for Swept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let procs = match self.stopped.as_slice() {
            [] => "no process was running".to_string(),
            pids => format!(
                "stopped {} ({})",
                if pids.len() == 1 { "its process" } else { "its processes" },
                pids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
        };
        let mb = self.bytes as f64 / (1024.0 * 1024.0);
        match &self.error {
            None => write!(
                f,
                "removed a private server left behind ({}): {procs}, deleted {} ({mb:.0} MiB)",
                self.reason,
                self.dir.display()
            ),
            Some(e) => write!(
                f,
                "a private server was left behind ({}): {procs}, but {} could not be deleted: {e}",
                self.reason,
                self.dir.display()
            ),
        }
    }
}

/// Stops and removes every private instance under `temp_dir` whose owner is gone (see the
/// module docs); returns what it did, one entry per instance.
pub fn sweep_orphans(temp_dir: &Path) -> Vec<Swept> {
    let Ok(entries) = std::fs::read_dir(temp_dir) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(DIR_PREFIX)))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    let mut swept = Vec::new();
    for dir in dirs {
        let Some(reason) = orphaned_because(&dir) else { continue };
        // The data is thrown away, so no clean shutdown: SIGKILL, and look again until the
        // initialiser's children are gone too.
        let stopped = kill_all_naming(&dir, Signal::SIGKILL, Duration::from_secs(10));
        // Backends of a killed postmaster detach as they notice it is gone.
        crate::shm::release_segments(&dir, Duration::from_secs(10));
        let bytes = dir_bytes(&dir);
        let error = match std::fs::remove_dir_all(&dir) {
            Ok(()) => None,
            // Another keylab swept it at the same moment.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => Some(e.to_string()),
        };
        swept.push(Swept { dir, reason, stopped, bytes, error });
    }
    swept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_file_round_trip() {
        let me = Owner::current();
        assert_eq!(Owner::parse(&me.text()), Some(me.clone()));
        assert!(me.alive());
        let old = Owner { start_ticks: me.start_ticks.map(|t| t + 1), ..me.clone() };
        assert!(!old.alive(), "same pid, another start time: a recycled pid");
        let gone = Owner { pid: u32::MAX, start_ticks: None, pid_ns: None };
        assert!(!gone.alive());
        let elsewhere = Owner { pid_ns: Some("pid:[1]".into()), ..gone.clone() };
        assert!(elsewhere.alive(), "another pid namespace: cannot tell, so left alone");
        let unknown = Some(Owner { pid: 12, start_ticks: None, pid_ns: None });
        assert_eq!(Owner::parse("pid 12\nstart_ticks -\npid_ns -\n"), unknown);
        assert_eq!(Owner::parse("pid 12\nstart_ticks -\n"), unknown, "no pid_ns line");
        assert_eq!(Owner::parse("pid x\n"), None);
    }

    #[test]
    fn only_instances_whose_owner_is_gone_are_swept() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = tmp.path().join(format!("{DIR_PREFIX}mine"));
        let gone = tmp.path().join(format!("{DIR_PREFIX}gone"));
        let young = tmp.path().join(format!("{DIR_PREFIX}young"));
        let other = tmp.path().join("not-keylab");
        for d in [&mine, &gone, &young, &other] {
            std::fs::create_dir_all(d.join("data")).unwrap();
        }
        write_owner(&mine).unwrap();
        let dead = Owner { pid: u32::MAX - 1, start_ticks: Some(1), pid_ns: pid_namespace() };
        std::fs::write(gone.join(OWNER_FILE), dead.text()).unwrap();
        std::fs::write(gone.join("data/ibdata1"), vec![0u8; 4096]).unwrap();
        std::fs::write(other.join(OWNER_FILE), dead.text()).unwrap();
        let swept = sweep_orphans(tmp.path());
        assert_eq!(swept.len(), 1, "{swept:?}");
        assert_eq!(swept[0].dir, gone);
        assert_eq!(swept[0].bytes, 4096 + dead.text().len() as u64, "the data and the owner file");
        assert!(swept[0].error.is_none());
        assert!(swept[0].to_string().contains("keylab process 4294967294 is gone"));
        assert!(!gone.exists());
        assert!(mine.exists() && young.exists() && other.exists());
    }

    /// Where no parent-death signal stopped it (no `setpriv`), an orphan's server still runs:
    /// the sweep stops it before removing the directory.
    #[test]
    fn the_sweep_stops_an_orphans_running_process() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(format!("{DIR_PREFIX}running"));
        std::fs::create_dir(&dir).unwrap();
        let dead = Owner { pid: u32::MAX - 1, start_ticks: Some(1), pid_ns: pid_namespace() };
        std::fs::write(dir.join(OWNER_FILE), dead.text()).unwrap();
        // A stand-in server: its command line names the instance's config file. It waits in
        // the shell's builtin `read` (on a pipe kept open), so no forked child shares that
        // command line (with `sleep`, the fork before its exec did, and the sweep saw two).
        let mut server = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg("read line")
            .stdin(std::process::Stdio::piped())
            .arg(format!("--defaults-file={}/my.cnf", dir.display()))
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while processes_naming(&dir).is_empty() {
            assert!(started.elapsed() < Duration::from_secs(5), "stand-in not seen");
            std::thread::sleep(Duration::from_millis(10));
        }
        let swept = sweep_orphans(tmp.path());
        assert_eq!(swept.len(), 1, "{swept:?}");
        assert_eq!(swept[0].stopped, vec![server.id()]);
        assert!(swept[0].to_string().contains(&format!("stopped its process ({})", server.id())));
        assert!(!dir.exists());
        assert!(server.wait().unwrap().code().is_none(), "killed by a signal");
    }
}
