//! Finding the installed server binaries a private instance is made from, and telling
//! their flavour and version apart (options and figures differ between them).
//!
//! This module does not start servers.

use keylab_server_common::ServerError;
use std::path::PathBuf;
use std::process::Command;

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

/// `--version` lines of real servers, for tests here and in the config module.
#[cfg(test)]
pub(crate) mod version_lines {
    pub(crate) const MYSQL_80_36: &str =
        "mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)";
    pub(crate) const MYSQL_80_28: &str =
        "mysqld  Ver 8.0.28 for Linux on x86_64 (MySQL Community Server - GPL)";
    pub(crate) const MYSQL_84: &str =
        "mysqld  Ver 8.4.3 for Linux on x86_64 (MySQL Community Server - GPL)";
    pub(crate) const MARIADB_1011: &str =
        "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu \
                                on x86_64 (Debian 12)";
    pub(crate) const MARIADB_114: &str =
        "mariadbd Ver 11.4.2-MariaDB for Linux on x86_64 (MariaDB Server)";
}

#[cfg(test)]
mod tests {
    use super::version_lines::*;
    use super::*;

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
}
