//! [`SpiderEngine`]: keylab's [`Engine`] on a sharded MariaDB: N private backend instances,
//! each holding an ordinary InnoDB table, behind one private head whose table uses MariaDB's
//! Spider engine, partitioned by the key column (`RANGE COLUMNS` or `KEY`) with one partition
//! per backend (`COMMENT 'srv "keylab_shard<k>"'`, a `CREATE SERVER` over the backend's unix
//! socket).
//!
//! The workload goes through the head with keylab's own load pipeline (every method and
//! writer count); the figures are read on each backend with the one-server measurement and
//! summed. The share of inserts each shard received per window of rows sent (the hotspot
//! curve) is counted exactly from where the backends hold each row after the load
//! ([`windows`]); only for an AUTO_INCREMENT key with several writers (whose
//! numbering the client does not know) is each backend's `Handler_write` sampled as the load
//! passes a window edge instead (MariaDB 10.11 has no `Innodb_rows_inserted`). Every instance is a [`crate::PrivateServer`], stopped and removed like one.
//!
//! This module does not generate rows, render reports or talk to a `--url` server.

// Where the backends hold each row sent: the exact hotspot curve.
mod windows;

use crate::client::sql_err;
use crate::engine::MariaDbEngine;
use crate::private::ServerSettings;
use crate::sql::{quote_ident, write_literal};
use keylab_core::{
    range_bounds, Engine, EngineError, EngineInfo, LoadOutcome, LoadPlan, Measurement, Row,
    ShardResult, ShardWindow, Sharding, ShardsResult,
};
use keylab_schema::{Table, Value};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;
use serde_json::Value as Json;

/// Windows the load is divided into for the hotspot curve.
pub const HOTSPOT_WINDOWS: u64 = 20;
/// The most shards keylab starts (each is a private server on this machine).
pub const MAX_SHARDS: u32 = 16;

/// A Spider head over `N` private backends, as one keylab engine.
pub struct SpiderEngine {
    // Field order matters: the head (and its connections to the backends) stops first.
    head: MariaDbEngine,
    backends: Vec<MariaDbEngine>,
    sharding: Sharding,
    /// The head table's partitioning clause, per table.
    partitioning: std::collections::BTreeMap<String, (String, Vec<Option<String>>)>,
    /// The hotspot windows of the last load.
    windows: Vec<ShardWindow>,
    /// How they were counted.
    windows_from: String,
    /// The backends are existing servers (their counters are server-wide).
    shared_backends: bool,
}

/// The account the head's Spider links log in to a private backend with.
const LINK_USER: &str = "keylab_spider";

/// Creates [`LINK_USER`] on private backend `b` with a password generated for it and the
/// rights Spider's link uses (rows of keylab's database, nothing else: no FILE, no other
/// database, no account management), and returns the head's `CREATE SERVER` options for it.
/// The head's `mysql.servers` thus holds this generated password, not root's.
fn link_user_on(b: &MariaDbEngine) -> Result<String, ServerError> {
    let server = b.private_server().expect("a private backend");
    let socket = server.socket().to_string_lossy().into_owned();
    let password = keylab_server_common::Secret::generate()
        .map_err(|e| ServerError::Start(format!("cannot generate a Spider link password: {e}")))?;
    let mut conn = b.new_connection()?;
    conn.query_drop(format!(
        "CREATE OR REPLACE USER '{LINK_USER}'@'localhost' IDENTIFIED BY '{}'",
        password.expose()
    ))
    .map_err(|e| sql_err("creating the Spider link's user failed", e))?;
    conn.query_drop(format!(
        "GRANT SELECT, INSERT, UPDATE, DELETE ON {}.* TO '{LINK_USER}'@'localhost'",
        quote_ident(b.database())
    ))
    .map_err(|e| sql_err("granting the Spider link's rights failed", e))?;
    Ok(format!(
        "SOCKET '{}', USER '{LINK_USER}', PASSWORD '{}', DATABASE '{}', HOST 'localhost'",
        socket.replace('\'', "''"),
        password.expose(),
        b.database()
    ))
}

/// The server name of backend `k` on the head.
fn server_name(k: usize) -> String {
    format!("keylab_shard{k}")
}

impl SpiderEngine {
    /// Starts `shards` private backends and a private head with Spider, all with `settings`,
    /// working in `database` (default `keylab`) on each.
    pub fn private(
        settings: &ServerSettings,
        database: Option<&str>,
        shards: u32,
        sharding: Sharding,
    ) -> Result<SpiderEngine, ServerError> {
        if !(2..=MAX_SHARDS).contains(&shards) {
            return Err(ServerError::Refused(format!(
                "--shards {shards}: valid: 2 to {MAX_SHARDS} (each shard is a private server)"
            )));
        }
        // The backends start one after another: on a small machine parallel initialisation
        // gains little and doubles the memory peak.
        let backends = (0..shards)
            .map(|_| MariaDbEngine::private_in(settings, database))
            .collect::<Result<Vec<_>, _>>()?;
        let servers = backends.iter().map(link_user_on).collect::<Result<Vec<_>, _>>()?;
        Self::assemble(settings, database, backends, servers, sharding, "private")
    }

    /// A private head with Spider over existing servers (a scenario's `[engine] backends`):
    /// on each, keylab creates and marks its own database (`database`, default `keylab`) as
    /// `--url` does, works only there and never drops or alters anything else. The head
    /// reaches each backend over TCP with the URL's user and password: keylab creates no
    /// account on a user's server, so that password is what the private head's `mysql.servers`
    /// stores (readable only with the head's generated root password, removed with the head;
    /// never printed).
    pub fn with_backends(
        settings: &ServerSettings,
        database: Option<&str>,
        urls: &[keylab_server_common::ServerUrl],
        sharding: Sharding,
    ) -> Result<SpiderEngine, ServerError> {
        let n = urls.len() as u32;
        if !(2..=MAX_SHARDS).contains(&n) {
            return Err(ServerError::Refused(format!(
                "backends: {n} servers; valid: 2 to {MAX_SHARDS}"
            )));
        }
        let backends = urls
            .iter()
            .map(|u| MariaDbEngine::connect(u, database, Some(settings)))
            .collect::<Result<Vec<_>, _>>()?;
        let quote = |s: &str| s.replace('\\', "\\\\").replace('\'', "''");
        let servers = urls
            .iter()
            .zip(&backends)
            .map(|(u, b)| {
                format!(
                    "HOST '{}', PORT {}, USER '{}', PASSWORD '{}', DATABASE '{}'",
                    quote(&u.host),
                    u.port,
                    quote(&u.user),
                    quote(u.password.as_deref().unwrap_or("")),
                    b.database()
                )
            })
            .collect();
        let mut engine =
            Self::assemble(settings, database, backends, servers, sharding, "existing")?;
        engine.shared_backends = true;
        let shown: Vec<Json> = urls.iter().map(|u| Json::from(u.to_string())).collect();
        engine.head.set_setting("backends", Json::from(shown));
        Ok(engine)
    }

    /// The private head over `backends`, each reached with its `CREATE SERVER` options.
    fn assemble(
        settings: &ServerSettings,
        database: Option<&str>,
        backends: Vec<MariaDbEngine>,
        servers: Vec<String>,
        sharding: Sharding,
        kind: &str,
    ) -> Result<SpiderEngine, ServerError> {
        let shards = backends.len();
        let mut head_settings = settings.clone();
        head_settings.extra.push(("plugin-load-add".into(), "ha_spider.so".into()));
        // The head's own AUTO_INCREMENT counter: in the default mode (0) Spider reads the
        // next value from a backend under a lock, and two writers of an auto-inc key then
        // wait on each other across backends until a lock wait timeout (measured: row,
        // prepared and load-data with --writers 2 all failed with 1205/1213).
        head_settings.extra.push(("spider_auto_increment_mode".into(), "1".into()));
        let mut head = MariaDbEngine::private_in(&head_settings, database).map_err(|e| {
            ServerError::Start(format!(
                "the Spider head did not start (is mariadb-plugin-spider installed, \
                 ha_spider.so in the plugin directory?): {e}"
            ))
        })?;
        let mut conn = head.new_connection()?;
        let spider: Option<String> = conn
            .query_first(
                "SELECT PLUGIN_VERSION FROM information_schema.PLUGINS \
                 WHERE PLUGIN_NAME = 'SPIDER' AND PLUGIN_STATUS = 'ACTIVE'",
            )
            .map_err(|e| sql_err("reading the Spider plugin failed", e))?;
        let Some(spider) = spider else {
            return Err(ServerError::Unsupported(
                "the head server has no active SPIDER plugin (install mariadb-plugin-spider)"
                    .into(),
            ));
        };
        for (k, opts) in servers.iter().enumerate() {
            conn.query_drop(format!(
                "CREATE OR REPLACE SERVER {} FOREIGN DATA WRAPPER mysql OPTIONS ({opts})",
                server_name(k)
            ))
            .map_err(|e| sql_err(&format!("CREATE SERVER for shard {k} failed"), e))?;
        }
        head.set_setting("shards", Json::from(shards));
        head.set_setting(
            "spider_auto_increment_mode",
            Json::from(
                "1: the head's counter assigns AUTO_INCREMENT keys (mode 0 deadlocks \
                        two writers across backends)",
            ),
        );
        head.set_setting("sharding", Json::from(sharding.token()));
        head.set_setting(
            "spider",
            Json::from(format!(
                "Spider plugin {spider} on a private head; {shards} {kind} InnoDB backends"
            )),
        );
        Ok(SpiderEngine {
            head,
            backends,
            sharding,
            partitioning: Default::default(),
            windows: Vec::new(),
            windows_from: String::new(),
            shared_backends: false,
        })
    }

    /// The private backends, in shard order (for tests).
    pub fn backends(&self) -> &[MariaDbEngine] {
        &self.backends
    }

    /// The head (for tests).
    pub fn head(&self) -> &MariaDbEngine {
        &self.head
    }

    /// The key column the table is partitioned by: the first primary-key column.
    fn key_column(table: &Table) -> usize {
        table.primary_key[0]
    }

    /// The head's `CREATE TABLE ... ENGINE=SPIDER PARTITION BY ...` for `table`, and each
    /// shard's bound as text. Range bounds come from `keys` (see [`range_bounds`]).
    fn head_ddl(&self, table: &Table, keys: &[Value]) -> (String, String, Vec<Option<String>>) {
        let col = Self::key_column(table);
        let ty = &table.columns[col].ty;
        let n = self.backends.len();
        let key = quote_ident(&table.columns[col].name);
        let srv = |k: usize| format!("COMMENT = 'srv \"{}\"'", server_name(k));
        let (clause, bounds) = match self.sharding {
            Sharding::Hash => {
                let parts: Vec<String> =
                    (0..n).map(|k| format!("PARTITION p{k} {}", srv(k))).collect();
                (format!("PARTITION BY KEY({key}) ({})", parts.join(", ")), vec![None; n])
            }
            Sharding::Range => {
                let bounds = range_bounds(keys, n);
                let mut texts: Vec<Option<String>> = bounds
                    .iter()
                    .map(|b| {
                        let mut s = String::new();
                        write_literal(&mut s, b, ty);
                        Some(s)
                    })
                    .collect();
                texts.push(None);
                let parts: Vec<String> = texts
                    .iter()
                    .enumerate()
                    .map(|(k, b)| {
                        let less = b.as_deref().unwrap_or("MAXVALUE");
                        format!("PARTITION p{k} VALUES LESS THAN ({less}) {}", srv(k))
                    })
                    .collect();
                (format!("PARTITION BY RANGE COLUMNS({key}) ({})", parts.join(", ")), texts)
            }
        };
        let own = table.create_sql(keylab_schema::Dialect::Mariadb);
        let body = own.split(" ENGINE=").next().unwrap_or(&own);
        let ddl = format!(
            "{body} ENGINE=SPIDER COMMENT = 'wrapper \"mysql\", table \"{}\"' {clause}",
            table.name
        );
        (ddl, clause, bounds)
    }

    /// Each backend's `Handler_write`: rows inserted through its handler.
    fn rows_inserted(monitors: &mut [Conn]) -> Vec<u64> {
        monitors
            .iter_mut()
            .map(|c| {
                c.query_first::<(String, u64), _>("SHOW GLOBAL STATUS LIKE 'Handler_write'")
                    .ok()
                    .flatten()
                    .map_or(0, |(_, v)| v)
            })
            .collect()
    }
}

/// A failure of the head (a lost connection, "Broken pipe", Spider's error 1429) told with
/// the backend it comes from: every backend is tried, and the first that takes no connection
/// is named with its address; when all answer, `e` as it was.
fn naming_unreachable(backends: &[MariaDbEngine], e: EngineError) -> EngineError {
    for (k, b) in backends.iter().enumerate() {
        if let Err(why) = b.new_connection() {
            return unreachable(k, b, &format!("{why}; the head's error: {e}"));
        }
    }
    e
}

/// Backend `k` (`b`) does not answer: `why`.
fn unreachable(k: usize, b: &MariaDbEngine, why: &str) -> EngineError {
    EngineError::Failed(format!(
        "Spider backend {} ({}) is unreachable: {why}",
        k + 1,
        b.target_name()
    ))
}

impl Engine for SpiderEngine {
    fn info(&self) -> EngineInfo {
        self.head.info()
    }

    fn set_id_blocks(&mut self, blocks: Option<keylab_core::IdBlocks>) {
        self.head.set_id_blocks(blocks);
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        for b in &mut self.backends {
            b.create_table(table)?;
        }
        // The head's table is created at the load, when the keys (range bounds) are known.
        self.partitioning.remove(&table.name);
        Ok(())
    }

    fn load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        // Range bounds over generated keys need every key before the table exists, so those
        // rows are held; hash partitioning and a server-assigned key (bounds 1..=rows) need
        // only the row count (for the windows and the bounds), and when the stream knows it
        // the rows stream through.
        let create = !self.partitioning.contains_key(&table.name);
        let counted = rows.size_hint().1.is_some();
        let needs_keys =
            !counted || (create && self.sharding == Sharding::Range && !table.auto_increment);
        let held: Option<Vec<Row>> = needs_keys.then(|| rows.collect());
        let total = held.as_ref().map_or_else(|| rows.size_hint().1.unwrap_or(0), Vec::len);
        if create {
            let col = Self::key_column(table);
            let keys: Vec<Value> = match &held {
                Some(all) if !table.auto_increment => all.iter().map(|r| r[col].clone()).collect(),
                _ => vec![Value::Null; total],
            };
            let (ddl, clause, bounds) = self.head_ddl(table, &keys);
            self.head.create_with(table, Some(ddl))?;
            self.partitioning.insert(table.name.clone(), (clause, bounds));
        }
        // The client knows each row's key when it sends it, or, for a key the head's counter
        // assigns, with one writer: the head hands out 1, 2, 3... in the order rows arrive.
        // Then the curve is exact (`windows`); otherwise it is sampled.
        let col = Self::key_column(table);
        let ty = &table.columns[col].ty;
        let exact = if table.auto_increment { plan.writers == 1 } else { !ty.is_time() };
        let mut sent: Vec<Value> = Vec::new();
        if exact {
            if table.auto_increment {
                sent = (1..=total as i64).map(Value::Int).collect();
            } else if let Some(all) = &held {
                sent = all.iter().map(|r| r[col].clone()).collect();
            }
        }
        let record = exact && !table.auto_increment && held.is_none();
        let mut monitors = self
            .backends
            .iter()
            .enumerate()
            .map(|(k, b)| b.new_connection().map_err(|e| unreachable(k, b, &e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let start = Self::rows_inserted(&mut monitors);
        let window = keylab_core::window_rows(total as u64, HOTSPOT_WINDOWS, plan.batch);
        let mut windows = Vec::new();
        let mut last = start.clone();
        let mut done = 0u64;
        let mut next_edge = window;
        let mut sample = |monitors: &mut [Conn], windows: &mut Vec<ShardWindow>| {
            let now = Self::rows_inserted(monitors);
            let inserts: Vec<u64> =
                now.iter().zip(&last).map(|(a, b)| a.saturating_sub(*b)).collect();
            let rows_end = now.iter().zip(&start).map(|(a, b)| a.saturating_sub(*b)).sum();
            last = now;
            windows.push(ShardWindow { rows_end, inserts });
        };
        let outcome = {
            let mut on = |n: u64| {
                done += n;
                if !exact && done >= next_edge {
                    sample(&mut monitors, &mut windows);
                    next_edge = (done / window + 1) * window;
                }
                on_rows(n);
            };
            let loaded = match held {
                Some(all) => self.head.load(table, plan, &mut all.into_iter(), &mut on),
                None => {
                    let mut rows = rows.inspect(|r| {
                        if record {
                            sent.push(r[col].clone());
                        }
                    });
                    self.head.load(table, plan, &mut rows, &mut on)
                }
            };
            loaded.map_err(|e| naming_unreachable(&self.backends, e))?
        };
        sample(&mut monitors, &mut windows);
        if exact {
            let placed = windows::placements(&self.backends, table, &sent)?;
            let windows = keylab_core::windows_of(placed, window, self.backends.len());
            // The backends' own count of rows written over the load must agree.
            let per_shard: Vec<u64> = (0..self.backends.len())
                .map(|k| windows.iter().map(|w| w.inserts[k]).sum())
                .collect();
            let written: Vec<u64> =
                last.iter().zip(&start).map(|(a, b)| a.saturating_sub(*b)).collect();
            if per_shard != written && !self.shared_backends {
                return Err(EngineError::Failed(format!(
                    "the rows found per shard {per_shard:?} differ from the backends' \
                     Handler_write over the load {written:?}"
                )));
            }
            self.windows = windows;
            self.windows_from = format!(
                "measured: the shard each row sent was found on after the load (every backend's \
                 keys read back; {}), counted in about {HOTSPOT_WINDOWS} windows of rows sent, \
                 whole statements each; {}",
                if table.auto_increment {
                    "the head's counter numbered the rows 1, 2, 3... in the order one writer sent them"
                } else {
                    "the client knows each row's key"
                },
                if self.shared_backends {
                    "every backend holding exactly the rows sent to it (its Handler_write is \
                     server-wide on an existing server, so not compared)"
                } else {
                    "per shard equal to the backend's Handler_write over the load"
                }
            );
        } else {
            windows.retain(|w| w.inserts.iter().any(|&i| i > 0));
            self.windows = windows;
            self.windows_from = format!(
                "measured: each backend's Handler_write (rows written through the handler; \
                 keylab writes nothing else there during a load), sampled as the client's load \
                 passed each of about {HOTSPOT_WINDOWS} row windows, whole statements each (a \
                 statement in flight at a sample counts in the window it ran in; the last \
                 windows can merge). Sampled, not exact, because the head's counter numbers \
                 the rows of several writers in an order the client does not know"
            );
        }
        Ok(outcome)
    }

    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        let (clause, bounds) = self.partitioning.get(&table.name).cloned().unwrap_or_default();
        let mut shards = Vec::new();
        for (k, b) in self.backends.iter_mut().enumerate() {
            let m = b.measure(table)?;
            let mut conn = b.new_connection()?;
            let rows: Option<u64> = conn
                .query_first(format!("SELECT COUNT(*) FROM {}", quote_ident(&table.name)))
                .map_err(|e| EngineError::Failed(format!("counting shard {k}'s rows: {e}")))?;
            shards.push(ShardResult {
                shard: k as u32,
                bound: bounds.get(k).cloned().flatten(),
                rows,
                counters: m.counters,
                table: m.table,
                indexes: m.indexes,
            });
        }
        Ok(ShardsResult {
            sharding: self.sharding.token().into(),
            partitioning: clause,
            shards,
            windows: self.windows.clone(),
            windows_from: self.windows_from.clone(),
            ..ShardsResult::default()
        }
        .into_measurement())
    }

    fn work(
        &mut self,
        _table: &Table,
        _ops: &mut dyn Iterator<Item = keylab_core::WorkOp>,
        _on_ops: &mut dyn FnMut(u64),
    ) -> Result<keylab_core::WorkOutcome, EngineError> {
        // The head's counters say nothing of the backends' pages, and summing N backends'
        // server-wide counters per read is not done yet.
        Err(EngineError::Unsupported(
            "reads on a sharded (Spider) server: the backends' buffer pool counters are not \
             gathered per read phase yet; run reads on one server (no --shards)"
                .into(),
        ))
    }

    fn drop_table(&mut self, table: &Table) -> Result<(), EngineError> {
        let head = if self.partitioning.remove(&table.name).is_some() {
            self.head.drop_table(table)
        } else {
            Ok(())
        };
        for b in &mut self.backends {
            b.drop_table(table)?;
        }
        head
    }
}
