//! Opening a `MariaDbEngine`: starting a private instance or connecting to a user's server at
//! a `--url`, claiming keylab's database there, reading back the server's settings and noting
//! which of the scenario's settings the server does not have; and the connection options for
//! either target.
//!
//! This module does not start the server process (see `crate::private`), decide what a
//! database may hold (see `crate::owner`) or create tables (see `tables`).

use super::{churn, rebuild, sql_err, MariaDbEngine, Target, CONNECT_TIMEOUT};
use crate::metrics::{self, CounterSnapshot};
use crate::owner::claim_database;
use crate::private::{Flavour, PrivateServer, ServerSettings};
use keylab_server_common::url::{valid_identifier, ServerUrl, DEFAULT_DATABASE, IDENTIFIER_RULE};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::time::Duration;

impl MariaDbEngine {
    /// Starts a private instance with `settings` and works in its `keylab` database.
    pub fn private(settings: &ServerSettings) -> Result<MariaDbEngine, ServerError> {
        Self::private_in(settings, None)
    }

    /// Starts a private instance with `settings` and works in `database` (from
    /// `--database`; default `keylab`).
    pub fn private_in(
        settings: &ServerSettings,
        database: Option<&str>,
    ) -> Result<MariaDbEngine, ServerError> {
        let db = database.unwrap_or(DEFAULT_DATABASE);
        check_database(db)?;
        let server = PrivateServer::start(settings)?;
        let socket = server.socket().to_string_lossy().into_owned();
        let flavour = server.binaries().flavour;
        let target = Target::Private { socket, secret: server.secret().clone() };
        let probe = Conn::new(base_opts(&target, CONNECT_TIMEOUT)).map_err(|e| {
            ServerError::Connect(format!("cannot connect to the private server: {e}"))
        })?;
        let mut engine = Self::setup(probe, target, db, Some(flavour))?;
        engine.settings.insert("instance".into(), Json::from("private"));
        // A private instance runs on this machine: its cores bound what more writers can gain.
        if let Ok(n) = std::thread::available_parallelism() {
            engine.settings.insert("server_cores".into(), Json::from(n.get()));
        }
        // The other start-only settings are in my.cnf; change buffering is left out where
        // the server has no such option (see `private::binaries::has_change_buffering`).
        let unapplied = change_buffering_unapplied(&engine.settings, settings);
        engine.add_not_applied(unapplied.into_iter().collect());
        engine.server = Some(server);
        Ok(engine)
    }

    /// Connects to a user's server. `database` (from `--database`) overrides the URL's; the
    /// default is `keylab`. `settings_hint` is what the scenario would like: settings that
    /// differ on the server are listed under `not_applied` in [`EngineInfo::settings`](keylab_core::EngineInfo::settings).
    pub fn connect(
        url: &ServerUrl,
        database: Option<&str>,
        settings_hint: Option<&ServerSettings>,
    ) -> Result<MariaDbEngine, ServerError> {
        let db = database.or(url.database.as_deref()).unwrap_or(DEFAULT_DATABASE).to_string();
        check_database(&db)?;
        let target = Target::Url(url.clone());
        // A read timeout on the first connection only: a port that accepts but never
        // answers fails within the same CONNECT_TIMEOUT the message names, while later
        // statements may run as long as they need.
        let probe =
            Conn::new(base_opts(&target, CONNECT_TIMEOUT).read_timeout(Some(CONNECT_TIMEOUT)))
                .map_err(|e| {
                    ServerError::Connect(format!(
                        "cannot connect to {url} within {} s: {e}",
                        CONNECT_TIMEOUT.as_secs()
                    ))
                })?;
        let mut engine = Self::setup(probe, target, &db, None)?;
        engine.settings.insert("instance".into(), Json::from("url"));
        engine.settings.insert("server".into(), Json::from(url.to_string()));
        engine.notes.push(
            "INNODB_BUFFER_PAGE has no page level: fill_pct, records_per_leaf and \
             fill_histogram cover all buffered pages of each index (leaf and non-leaf), \
             and height, nonleaf_pages and pages_per_level are null"
                .into(),
        );
        engine.notes.push(
            "counters are server-wide: other sessions' work on this server is counted too".into(),
        );
        // keylab changes no setting of a server it was given: without these counters
        // `index_pages_read` is null.
        let snap = crate::metrics::read_counters(&mut engine.conn);
        let enabled = |n: &&str| snap.metrics.get(*n).copied().flatten().is_some();
        if !crate::metrics::INDEX_READ_COUNTERS.iter().all(enabled) {
            engine.notes.push(
                "index_pages_read is null: INNODB_METRICS buffer_page_read_index_leaf and                  _non_leaf are disabled on this server (SET GLOBAL innodb_monitor_enable =                  'module_buffer_page' enables them)"
                    .into(),
            );
        }
        if let Some(hint) = settings_hint {
            engine.note_unapplied(hint);
        }
        Ok(engine)
    }

    pub(super) fn setup(
        mut probe: Conn,
        target: Target,
        db: &str,
        flavour: Option<Flavour>,
    ) -> Result<MariaDbEngine, ServerError> {
        let (version, comment): (String, String) = probe
            .query_first("SELECT VERSION(), @@version_comment")
            .map_err(|e| sql_err("SELECT VERSION() failed", e))?
            .unwrap_or_default();
        let flavour = flavour.unwrap_or(
            if version.contains("MariaDB") || comment.to_lowercase().contains("mariadb") {
                Flavour::Mariadb
            } else {
                Flavour::Mysql
            },
        );
        let where_ = target.to_string();
        let claim = claim_database(&mut probe, db, &where_)?;
        drop(probe);
        let conn = Conn::new(work_opts(&target, db, flavour))
            .map_err(|e| ServerError::Connect(format!("cannot connect to {where_}: {e}")))?;
        let mut engine = MariaDbEngine {
            conn,
            target,
            database: db.to_string(),
            flavour,
            version: format!("{version} ({comment})"),
            page_size: 16384,
            settings: BTreeMap::new(),
            notes: Vec::new(),
            owned_tables: claim.owned,
            dropped_leftovers: claim.dropped_leftovers,
            baselines: BTreeMap::new(),
            file_writes: BTreeMap::new(),
            contents: BTreeMap::new(),
            last_load: None,
            pool_curves: BTreeMap::new(),
            id_blocks: None,
            carried: CounterSnapshot::default(),
            server: None,
        };
        engine.read_settings()?;
        let purge_wait = match (&engine.target, flavour) {
            (Target::Private { .. }, Flavour::Mariadb) => {
                "churn waits with SET GLOBAL innodb_max_purge_lag_wait = 0 (private instance)"
                    .to_string()
            }
            (Target::Private { .. }, Flavour::Mysql) => format!(
                "churn polls the history list length until 0 (at most {} s per call)",
                churn::PRIVATE_PURGE_WAIT.as_secs()
            ),
            (Target::Url(_), _) => format!(
                "churn polls the history list length until 0, at most {} s per call (no global \
                 is changed on a shared server)",
                churn::URL_PURGE_WAIT.as_secs()
            ),
        };
        engine.settings.insert("purge_wait".into(), Json::from(purge_wait));
        Ok(engine)
    }

    pub(super) fn read_settings(&mut self) -> Result<(), ServerError> {
        const VARS: [&str; 19] = [
            "innodb_page_size",
            "innodb_buffer_pool_size",
            "innodb_fill_factor",
            "innodb_change_buffering",
            "innodb_log_file_size",
            "innodb_redo_log_capacity",
            "innodb_flush_log_at_trx_commit",
            "innodb_doublewrite",
            "innodb_flush_method",
            "innodb_stats_persistent",
            "innodb_stats_auto_recalc",
            "innodb_autoinc_lock_mode",
            "innodb_default_row_format",
            "local_infile",
            "performance_schema",
            "max_allowed_packet",
            // What the buffer pool's page reads count (read-ahead apart, or none) and the
            // page cleaner's free-page target, which bounds a small pool's LRU.
            "innodb_read_ahead_threshold",
            "innodb_random_read_ahead",
            "innodb_lru_scan_depth",
        ];
        let list = VARS.map(|v| format!("'{v}'")).join(",");
        let rows: Vec<(String, String)> = self
            .conn
            .query(format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})"))
            .map_err(|e| sql_err("reading server variables failed", e))?;
        for (name, value) in rows {
            let json = value.parse::<u64>().map(Json::from).unwrap_or(Json::from(value));
            self.settings.insert(name.to_lowercase(), json);
        }
        self.page_size = self.setting_u64("innodb_page_size").unwrap_or(16384) as u32;
        let snap = metrics::read_counters(&mut self.conn);
        let enabled = metrics::INDEX_COUNTERS
            .iter()
            .filter(|n| snap.metrics.get(**n).is_some_and(Option::is_some))
            .count();
        let state = match enabled {
            0 => "disabled or unavailable (page_splits and merges are null)",
            5 => "enabled",
            _ => "partly enabled",
        };
        self.settings.insert("index_page_counters".into(), Json::from(state));
        self.settings.insert("database".into(), Json::from(self.database.clone()));
        self.settings.insert(
            "instant_ddl".into(),
            Json::from(rebuild::instant_ddl_rules(self.flavour, &self.version)),
        );
        Ok(())
    }

    pub(super) fn note_unapplied(&mut self, hint: &ServerSettings) {
        let mut diffs = Vec::new();
        let mut cmp = |name: &str, wanted: u64| match self.setting_u64(name) {
            Some(have) if have != wanted => {
                diffs.push(format!("{name}: wanted {wanted}, server has {have}"))
            }
            _ => {}
        };
        cmp("innodb_page_size", u64::from(hint.page_size_bytes));
        cmp("innodb_buffer_pool_size", hint.buffer_pool_bytes);
        cmp("innodb_fill_factor", u64::from(hint.fill_factor_pct));
        diffs.extend(change_buffering_unapplied(&self.settings, hint));
        self.add_not_applied(diffs);
    }

    pub(super) fn add_not_applied(&mut self, diffs: Vec<String>) {
        if !diffs.is_empty() {
            self.settings.insert("not_applied".into(), Json::from(diffs));
        }
    }
}

/// Why `hint`'s change buffering is not in effect on a server whose variables are
/// `settings`, if it is not: the server has another value, or no such setting (MariaDB
/// removed it in 11.0).
pub(super) fn change_buffering_unapplied(
    settings: &BTreeMap<String, Json>,
    hint: &ServerSettings,
) -> Option<String> {
    let cb = hint.change_buffering.as_ref()?;
    match settings.get("innodb_change_buffering").and_then(Json::as_str) {
        Some(have) if have.eq_ignore_ascii_case(cb) => None,
        Some(have) => Some(format!("innodb_change_buffering: wanted {cb}, server has {have}")),
        None => Some(format!(
            "innodb_change_buffering: wanted {cb}, server has no such setting (MariaDB \
             removed it in 11.0)"
        )),
    }
}

/// A database name keylab accepts (checked before any server is started or contacted).
pub(super) fn check_database(db: &str) -> Result<(), ServerError> {
    if valid_identifier(db) {
        return Ok(());
    }
    Err(ServerError::BadUrl(format!("database `{db}`: {IDENTIFIER_RULE}")))
}

pub(super) fn base_opts(target: &Target, timeout: Duration) -> OptsBuilder {
    match target {
        Target::Private { socket, secret } => OptsBuilder::new()
            .socket(Some(socket.clone()))
            .user(Some("root"))
            .pass(Some(secret.expose()))
            .prefer_socket(true)
            .tcp_connect_timeout(Some(timeout)),
        Target::Url(url) => crate::client::url_opts(url, timeout),
    }
}

pub(super) fn work_opts(target: &Target, db: &str, flavour: Flavour) -> OptsBuilder {
    let mut init = vec!["SET time_zone = '+00:00'".to_string()];
    if flavour == Flavour::Mysql {
        // MySQL caches INFORMATION_SCHEMA.TABLES sizes for a day unless told not to.
        init.push("SET SESSION information_schema_stats_expiry = 0".into());
    }
    base_opts(target, CONNECT_TIMEOUT).db_name(Some(db)).init(init)
}
