//! Finding the installed PostgreSQL programs a private instance is made from.
//!
//! This module does not start servers.

use keylab_server_common::ServerError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to install PostgreSQL, for the error when it is missing.
pub const INSTALL_HINT: &str =
    "install PostgreSQL 15 or later with its contrib modules (Debian/Ubuntu: \
     `apt-get install postgresql postgresql-contrib`), or give a server with --url postgres://...";

/// The installed PostgreSQL programs keylab runs.
#[derive(Debug, Clone)]
pub struct PgBinaries {
    /// The directory holding `initdb`, `postgres` and `pg_waldump`.
    pub bindir: PathBuf,
    /// Major version (`15`).
    pub major: u32,
}

impl PgBinaries {
    /// Finds the binaries: `pg_config --bindir`, then the newest `/usr/lib/postgresql/*/bin`,
    /// then `PATH`.
    pub fn find() -> Result<PgBinaries, ServerError> {
        let mut candidates = Vec::new();
        if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
            if out.status.success() {
                candidates.push(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
            }
        }
        let mut versioned: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let e = e.ok()?;
                Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin")))
            })
            .collect();
        versioned.sort();
        candidates.extend(versioned.into_iter().rev().map(|(_, p)| p));
        if let Some(path) = std::env::var_os("PATH") {
            candidates.extend(std::env::split_paths(&path));
        }
        for dir in candidates {
            if dir.join("initdb").is_file() && dir.join("postgres").is_file() {
                let major = version_of(&dir.join("postgres")).ok_or_else(|| {
                    ServerError::NotInstalled(format!(
                        "{} does not tell its version",
                        dir.join("postgres").display()
                    ))
                })?;
                return Ok(PgBinaries { bindir: dir, major });
            }
        }
        Err(ServerError::NotInstalled(format!(
            "no PostgreSQL server binaries (initdb, postgres) found in `pg_config --bindir`, \
             /usr/lib/postgresql/*/bin or PATH; {INSTALL_HINT}"
        )))
    }

    /// A program of the installation.
    pub fn program(&self, name: &str) -> PathBuf {
        self.bindir.join(name)
    }
}

/// `postgres (PostgreSQL) 15.14 (...)` → 15.
fn version_of(postgres: &Path) -> Option<u32> {
    let out = Command::new(postgres).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let number = text.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    number.split('.').next()?.parse().ok()
}

/// For test suites that need PostgreSQL: true when its binaries are installed; otherwise
/// prints `SKIPPED: <test>: ...` and returns false, except under `CI` (see
/// `keylab_server_common::is_ci`), where a missing PostgreSQL is a failure (a panic).
pub fn installed_or_skip(test: &str) -> bool {
    match PgBinaries::find() {
        Ok(_) => true,
        Err(e) => {
            let ci = std::env::var("CI").ok();
            assert!(
                !keylab_server_common::is_ci(ci.as_deref()),
                "{test}: CI={} but PostgreSQL is not installed: {e}",
                ci.unwrap_or_default()
            );
            eprintln!("SKIPPED: {test}: PostgreSQL is not installed: {e}");
            false
        }
    }
}
