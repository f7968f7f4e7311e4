//! The System V shared memory segment a PostgreSQL instance leaves when its processes are
//! killed (a postmaster or a standalone `initdb` backend removes its segment only when it
//! exits on its own): [`release_segments`], run before an instance directory is removed,
//! by the signal handler's cleanup and by the sweep of orphans.
//!
//! A segment is removed only when it is provably the instance's: its key and id are the
//! ones the instance's own lock file (`postmaster.pid`, line 7) names, it belongs to the
//! user that owns that lock file, and no process is attached to it any more. It never looks
//! at any other segment. MariaDB uses no System V memory; its directories have no lock file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The lock file a PostgreSQL data directory holds while a server (or `initdb`'s backend)
/// uses it.
const LOCK_FILE: &str = "postmaster.pid";

/// A segment as `/proc/sysvipc/shm` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    key: i64,
    shmid: i32,
    nattch: u64,
    uid: u32,
}

/// The segments the kernel lists; empty where `/proc/sysvipc/shm` is unreadable.
fn listed_segments() -> Vec<Segment> {
    std::fs::read_to_string("/proc/sysvipc/shm").map(|t| parse_listing(&t)).unwrap_or_default()
}

/// Parses `/proc/sysvipc/shm` by its header's column names.
fn parse_listing(text: &str) -> Vec<Segment> {
    let mut lines = text.lines();
    let Some(header) = lines.next() else { return Vec::new() };
    let names: Vec<&str> = header.split_whitespace().collect();
    let col = |n: &str| names.iter().position(|&c| c == n);
    let (Some(k), Some(i), Some(a), Some(u)) =
        (col("key"), col("shmid"), col("nattch"), col("uid"))
    else {
        return Vec::new();
    };
    lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some(Segment {
                key: f.get(k)?.parse().ok()?,
                shmid: f.get(i)?.parse().ok()?,
                nattch: f.get(a)?.parse().ok()?,
                uid: f.get(u)?.parse().ok()?,
            })
        })
        .collect()
}

/// The `(key, shmid)` line 7 of a lock file names, if it has one.
fn lock_file_segment(text: &str) -> Option<(i64, i32)> {
    let line = text.lines().nth(6)?;
    let mut f = line.split_whitespace();
    let key = f.next()?.parse().ok()?;
    let shmid = f.next()?.parse().ok()?;
    Some((key, shmid))
}

/// Lock files of `dir`: its own and those of its subdirectories (an instance keeps its data
/// directory one level down).
fn lock_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = vec![dir.join(LOCK_FILE)];
    if let Ok(entries) = std::fs::read_dir(dir) {
        found.extend(
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path().join(LOCK_FILE)),
        );
    }
    found.retain(|p| p.is_file());
    found
}

/// `shmctl(shmid, IPC_RMID)`: true when the kernel removed the segment. By hand, as no
/// well-kept crate wraps System V shared memory (nix does not).
#[allow(unsafe_code)]
fn remove_segment(shmid: i32) -> bool {
    // SAFETY: IPC_RMID reads no buffer, so a null one is what shmctl(2) expects; the id is
    // one the kernel lists, checked by the caller to be the instance's with nothing attached.
    unsafe { libc::shmctl(shmid, libc::IPC_RMID, std::ptr::null_mut()) == 0 }
}

/// Removes the segments the lock files under instance directory `dir` name (see the module
/// docs), waiting up to `wait` for processes still attached (backends leaving after their
/// postmaster was killed) to go; returns the ids removed. A segment still attached after
/// `wait` is left alone.
pub fn release_segments(dir: &Path, wait: Duration) -> Vec<i32> {
    use std::os::unix::fs::MetadataExt;
    let mut removed = Vec::new();
    for lock in lock_files(dir) {
        let Ok(text) = std::fs::read_to_string(&lock) else { continue };
        let Some((key, shmid)) = lock_file_segment(&text) else { continue };
        let Ok(owner) = std::fs::metadata(&lock).map(|m| m.uid()) else { continue };
        let ours = |s: &Segment| s.shmid == shmid && s.key == key && s.uid == owner;
        let deadline = Instant::now() + wait;
        loop {
            match listed_segments().into_iter().find(ours) {
                None => break,
                Some(s) if s.nattch == 0 => {
                    if remove_segment(shmid) {
                        removed.push(shmid);
                    }
                    break;
                }
                Some(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Some(_) => break,
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap
    729204          4   600                    56  2241  2269      5   101   104   101   104 1795815178 1795815178 1795815176                  4096                     0
         0         12   600                    56  2241  2269      0     0     0     0     0 1795815178 1795815178 1795815176                  4096                     0
";

    #[test]
    fn the_kernel_listing_is_read_by_its_header() {
        let segs = parse_listing(LISTING);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[0], Segment { key: 729204, shmid: 4, nattch: 5, uid: 101 });
        assert_eq!(segs[1].nattch, 0);
        assert!(parse_listing("").is_empty());
        assert!(parse_listing("no such columns\n1 2 3\n").is_empty());
    }

    #[test]
    fn line_7_of_the_lock_file_names_the_segment() {
        let pid = "4242\n/tmp/k/data\n1795815176\n5433\n/tmp/k\n127.0.0.1\n  5433001    163850\nready   \n";
        assert_eq!(lock_file_segment(pid), Some((5433001, 163850)));
        assert_eq!(lock_file_segment("4242\n/tmp/k/data\n"), None, "initdb before the segment");
    }

    /// A segment made by `ipcmk` (util-linux), its id as it prints it.
    fn new_segment() -> i32 {
        let out = std::process::Command::new("ipcmk").args(["-M", "4096"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        text.rsplit(' ').next().and_then(|id| id.trim().parse().ok()).expect("ipcmk's id")
    }

    /// Real segments, named by a lock file in a directory: the detached one it names is
    /// removed, one whose key differs from the lock file's is left alone.
    #[test]
    fn a_detached_segment_named_by_the_lock_file_is_removed_and_no_other() {
        let (id, other) = (new_segment(), new_segment());
        let key_of = |id: i32| listed_segments().into_iter().find(|s| s.shmid == id).unwrap().key;
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("data")).unwrap();
        let lock = |key: i64, shmid: i32| format!("1\n/d\n0\n5432\n/s\n*\n{key:9} {shmid:9}\n");
        let lock_path = tmp.path().join("data").join(LOCK_FILE);
        std::fs::write(&lock_path, lock(key_of(other) + 1, other)).unwrap();
        assert!(release_segments(tmp.path(), Duration::ZERO).is_empty(), "another key");
        std::fs::write(&lock_path, lock(key_of(id), id)).unwrap();
        assert_eq!(release_segments(tmp.path(), Duration::ZERO), vec![id]);
        assert!(!listed_segments().iter().any(|s| s.shmid == id));
        assert!(listed_segments().iter().any(|s| s.shmid == other));
        assert!(remove_segment(other));
    }
}
