//! A private instance's start-only settings and the my.cnf written from them.
//!
//! This module does not start servers or write files.

use super::binaries::{has_change_buffering, Flavour, ServerVersion};
use keylab_server_common::ServerError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Start-only settings of a private instance (the ones a shared server cannot change).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSettings {
    /// `innodb_page_size`: 4096, 8192, 16384, 32768 or 65536 (fixed at creation).
    pub page_size_bytes: u32,
    /// `innodb_buffer_pool_size`.
    pub buffer_pool_bytes: u64,
    /// `innodb_fill_factor` (10..=100): how full sorted index builds leave pages.
    pub fill_factor_pct: u32,
    /// Redo log size: `innodb_log_file_size`, or `innodb_redo_log_capacity` on MySQL 8.0.30+.
    pub log_file_bytes: u64,
    /// `innodb_change_buffering` (`none`, `all`, ...); `None` keeps the server default. Not
    /// written for servers without it (MariaDB 11.0+), which report it as not applied.
    pub change_buffering: Option<String>,
    /// `performance_schema` on or off.
    pub performance_schema: bool,
    /// `innodb_autoinc_lock_mode` (0, 1, 2); `None` keeps the server default.
    pub autoinc_lock_mode: Option<u8>,
    /// `innodb_stats_persistent` (statistics in `mysql.innodb_index_stats`).
    pub stats_persistent: bool,
    /// `innodb_flush_log_at_trx_commit` (1 = durable at every commit, the server default).
    pub flush_log_at_trx_commit: u8,
    /// Further `name=value` server options, written as they are.
    pub extra: Vec<(String, String)>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            page_size_bytes: 16384,
            buffer_pool_bytes: 256 << 20,
            fill_factor_pct: 100,
            log_file_bytes: 256 << 20,
            change_buffering: None,
            performance_schema: false,
            autoinc_lock_mode: None,
            stats_persistent: true,
            flush_log_at_trx_commit: 1,
            extra: Vec::new(),
        }
    }
}

impl ServerSettings {
    pub(super) fn check(&self) -> Result<(), ServerError> {
        if ![4096, 8192, 16384, 32768, 65536].contains(&self.page_size_bytes) {
            return Err(ServerError::Start(format!(
                "innodb_page_size {} is not one of 4096, 8192, 16384, 32768, 65536",
                self.page_size_bytes
            )));
        }
        if !(10..=100).contains(&self.fill_factor_pct) {
            return Err(ServerError::Start(format!(
                "innodb_fill_factor {} is outside 10..=100",
                self.fill_factor_pct
            )));
        }
        Ok(())
    }
}

/// Where a private instance keeps its files and how it runs: what its my.cnf needs besides
/// the settings.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub(super) dir: PathBuf,
    pub(super) datadir: PathBuf,
    pub(super) socket: PathBuf,
    pub(super) error_log: PathBuf,
    /// An empty directory of the instance: the only place `INTO OUTFILE` may write.
    pub(super) secure_file_priv: PathBuf,
    pub(super) port: u16,
    pub(super) as_root: bool,
}

/// The my.cnf of a private instance. Options differ by flavour and version, and a server
/// refuses to start on an option it does not know, so only options this server has are
/// written. An unparsable version is taken as the newest of its flavour.
pub(super) fn config_text(
    flavour: Flavour,
    version: Option<ServerVersion>,
    s: &ServerSettings,
    layout: &Layout,
) -> String {
    let at_least = |v: ServerVersion| version.is_none_or(|have| have >= v);
    let mut cnf = String::from("[mysqld]\n");
    let mut set = |k: &str, v: &dyn std::fmt::Display| {
        let _ = writeln!(cnf, "{k}={v}");
    };
    set("datadir", &option_path(&layout.datadir));
    set("socket", &option_path(&layout.socket));
    set("port", &layout.port);
    set("bind-address", &"127.0.0.1");
    set("pid-file", &option_path(&layout.dir.join("mysqld.pid")));
    set("log-error", &option_path(&layout.error_log));
    set("tmpdir", &option_path(&layout.dir));
    set("secure_file_priv", &option_path(&layout.secure_file_priv));
    if layout.as_root {
        set("user", &"root");
    }
    set("innodb_page_size", &s.page_size_bytes);
    set("innodb_buffer_pool_size", &s.buffer_pool_bytes);
    set("innodb_fill_factor", &s.fill_factor_pct);
    set("innodb_flush_log_at_trx_commit", &s.flush_log_at_trx_commit);
    match flavour {
        Flavour::Mariadb => set("innodb_log_file_size", &s.log_file_bytes),
        Flavour::Mysql => {
            // 8.0.30 replaced innodb_log_file_size (and _files_in_group) with one capacity.
            if at_least(ServerVersion::new(8, 0, 30)) {
                set("innodb_redo_log_capacity", &s.log_file_bytes);
            } else {
                set("innodb_log_file_size", &s.log_file_bytes);
            }
            set("skip-log-bin", &"ON");
            // The X plugin (on by default since 8.0) would bind the system's port 33060 and
            // /tmp/mysqlx.sock: a private instance must not share those with a system server.
            if at_least(ServerVersion::new(8, 0, 0)) {
                set("mysqlx", &"OFF");
            }
        }
    }
    // Every writer a load may open, this engine's own connections and a few spare (the
    // default, 151, made --writers 152..256 fail only after the server started).
    set("max_connections", &(keylab_server_common::MAX_WRITERS + 16));
    // Index counters (splits, merges) and the pages read by page type (`index_pages_read`).
    set("innodb_monitor_enable", &"module_index,module_buffer_page");
    set("local_infile", &1);
    set("performance_schema", &if s.performance_schema { "ON" } else { "OFF" });
    if s.performance_schema {
        // Server-side query timings read each statement's TIMER_WAIT from the long history;
        // MariaDB records history only while the `current` consumer is on too.
        set("performance_schema_consumer_events_statements_current", &"ON");
        set("performance_schema_consumer_events_statements_history_long", &"ON");
    }
    set("innodb_stats_persistent", &if s.stats_persistent { "ON" } else { "OFF" });
    if let Some(cb) = &s.change_buffering {
        // Where the option is gone the engine reports the setting under `not_applied`.
        if has_change_buffering(flavour, version) {
            set("innodb_change_buffering", cb);
        }
    }
    if let Some(mode) = s.autoinc_lock_mode {
        set("innodb_autoinc_lock_mode", &mode);
    }
    set("max_allowed_packet", &(256u64 << 20));
    set("innodb_buffer_pool_load_at_startup", &"OFF");
    set("innodb_buffer_pool_dump_at_shutdown", &"OFF");
    for (k, v) in &s.extra {
        set(k, v);
    }
    cnf
}

/// `path` as an option-file value that reads back as exactly `path`, whatever TMPDIR holds
/// (`#`, quotes, spaces, backslashes). The server's option-file reader (mysys
/// `search_default_file_with_ext`) ends a value at a `#` outside quotes, trims spaces, strips
/// one pair of enclosing quotes, then turns `\\`, `\"`, `\'`, `\n`, `\t`, `\r`, `\b` and
/// `\s` into their characters: so the path goes in double quotes with those escaped.
fn option_path(path: &Path) -> String {
    let mut out = String::from("\"");
    for c in path.to_string_lossy().chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::super::binaries::version_lines::*;
    use super::*;

    fn config_for(flavour: Flavour, line: &str) -> String {
        let layout = Layout {
            dir: PathBuf::from("/tmp/kl"),
            datadir: PathBuf::from("/tmp/kl/data"),
            socket: PathBuf::from("/tmp/kl/mysqld.sock"),
            error_log: PathBuf::from("/tmp/kl/error.log"),
            secure_file_priv: PathBuf::from("/tmp/kl/files"),
            port: 40000,
            as_root: false,
        };
        let settings =
            ServerSettings { change_buffering: Some("none".into()), ..ServerSettings::default() };
        config_text(flavour, ServerVersion::parse(line), &settings, &layout)
    }

    fn has_option(cnf: &str, name: &str) -> bool {
        cnf.lines().any(|l| l.split('=').next() == Some(name))
    }

    #[test]
    fn paths_are_quoted_so_the_reader_gets_them_back() {
        assert_eq!(option_path(Path::new("/tmp/kl/data")), r#""/tmp/kl/data""#);
        assert_eq!(option_path(Path::new("/tmp/a #b'c/x")), r#""/tmp/a #b\'c/x""#);
        assert_eq!(option_path(Path::new(r#"/t/"q"\n"#)), r#""/t/\"q\"\\n""#);
    }

    #[test]
    fn mariadb_10_11_config() {
        let cnf = config_for(Flavour::Mariadb, MARIADB_1011);
        assert!(cnf.starts_with("[mysqld]\n"), "{cnf}");
        assert!(cnf.contains("\nport=40000\n") && cnf.contains("\nbind-address=127.0.0.1\n"));
        assert!(cnf.contains("\ninnodb_log_file_size=268435456\n"), "{cnf}");
        assert!(cnf.contains("\ninnodb_change_buffering=none\n"), "{cnf}");
        for absent in ["innodb_redo_log_capacity", "mysqlx", "skip-log-bin", "user"] {
            assert!(!has_option(&cnf, absent), "{absent} in\n{cnf}");
        }
    }

    #[test]
    fn mariadb_11_4_config_has_no_change_buffering() {
        let cnf = config_for(Flavour::Mariadb, MARIADB_114);
        assert!(cnf.contains("\ninnodb_log_file_size=268435456\n"), "{cnf}");
        assert!(!has_option(&cnf, "innodb_change_buffering"), "{cnf}");
        assert!(!has_option(&cnf, "mysqlx"), "{cnf}");
    }

    #[test]
    fn mysql_8_0_28_config_uses_log_file_size() {
        let cnf = config_for(Flavour::Mysql, MYSQL_80_28);
        assert!(cnf.contains("\ninnodb_log_file_size=268435456\n"), "{cnf}");
        assert!(!has_option(&cnf, "innodb_redo_log_capacity"), "{cnf}");
        assert!(cnf.contains("\nmysqlx=OFF\n") && cnf.contains("\nskip-log-bin=ON\n"), "{cnf}");
        assert!(cnf.contains("\ninnodb_change_buffering=none\n"), "{cnf}");
    }

    #[test]
    fn mysql_8_0_36_and_8_4_configs_use_redo_log_capacity() {
        for line in [MYSQL_80_36, MYSQL_84] {
            let cnf = config_for(Flavour::Mysql, line);
            assert!(cnf.contains("\ninnodb_redo_log_capacity=268435456\n"), "{cnf}");
            assert!(!has_option(&cnf, "innodb_log_file_size"), "{cnf}");
            assert!(cnf.contains("\nmysqlx=OFF\n"), "{cnf}");
            // MySQL 8.4 still has innodb_change_buffering (default none).
            assert!(cnf.contains("\ninnodb_change_buffering=none\n"), "{cnf}");
        }
    }
}
