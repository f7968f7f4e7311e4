//! [`MariaDbEngine`]: keylab's [`Engine`] on a MariaDB or MySQL server, either a private
//! instance it starts itself or a user's server at a `--url`.
//!
//! On a user's server keylab works only inside its own database (default `keylab`): it
//! creates the database if absent and marks it with a `keylab_owner` table listing the
//! tables keylab created; it refuses a database holding any table not on that list, and it
//! only ever drops tables on the list. Server settings are read back and reported as they
//! are; nothing global is changed. This module does not start servers (see [`crate::private`])
//! or build SQL text (see [`crate::sql`]).
//!
//! Counters that [`Engine::measure`] returns are cumulative since `create_table` (server-wide
//! counters minus a baseline taken when the table was created), read at the end of the
//! measurement, so successive measurements give per-phase and per-round deltas. On a private
//! instance the measurement flushes the table's dirty pages (`FLUSH TABLES ... FOR EXPORT`),
//! so an interval's `pages_written` includes writing out the pages it dirtied.
//!
//! Child modules: `measure` (reading a table's shape and counters) and the phase
//! operations after a load, `churn` (`apply`, waiting for purge), `rebuild`
//! (`OPTIMIZE TABLE` under a fill factor, and online DDL), `ddl_writes` (online DDL
//! while writers insert), `query` (timed queries) and
//! `stmt_time` (their server-side times and plans).

mod churn;
mod churn_styled;
mod ddl_writes;
mod id_blocks;
mod measure;
mod query;
mod rebuild;
mod restart;
mod stmt_time;

use crate::error::ServerError;
use crate::load::{self, LoadStats};
use crate::metrics::{self, CounterSnapshot};
pub use crate::owner::OWNER_TABLE;
use crate::owner::{self, claim_database, list_tables};
use crate::private::{Flavour, PrivateServer, ServerSettings};
use crate::sql::{self, quote_ident};
use crate::url::{valid_identifier, ServerUrl, DEFAULT_DATABASE, IDENTIFIER_RULE};
use keylab_core::{
    ChurnStyle, DdlOutcome, DdlSpec, Engine, EngineError, EngineInfo, EngineKind, LoadOutcome,
    LoadPlan, LoadVerification, Measurement, Op, QueryOutcome, QuerySpec, Row,
};
use keylab_schema::{Dialect, Table};
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// How long a server may take to accept a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

impl From<ServerError> for EngineError {
    fn from(e: ServerError) -> Self {
        match e {
            ServerError::Refused(m) | ServerError::BadUrl(m) => EngineError::Rejected(m),
            ServerError::Unsupported(m) => EngineError::Unsupported(m),
            other => EngineError::Failed(other.to_string()),
        }
    }
}

/// Where the connections go.
enum Target {
    Private { socket: String },
    Url(ServerUrl),
}

/// Where the connections go, for messages: the URL's `Display` masks the password.
impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Private { socket } => write!(f, "the private server (socket {socket})"),
            Target::Url(u) => write!(f, "{u}"),
        }
    }
}

/// Details of the last load that the result format has no field for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadDetails {
    /// Each writer's first batch, milliseconds.
    pub first_batch_ms: Vec<f64>,
    /// Rows and `SUM(CRC32(..))` of the whole table as the server counted them after
    /// the load (what it held before, plus what the client sent).
    pub server_checksum: (u64, u64),
}

/// A MariaDB/MySQL server as a keylab engine.
pub struct MariaDbEngine {
    // Field order matters: the connection closes before a private server stops.
    conn: Conn,
    target: Target,
    database: String,
    flavour: Flavour,
    version: String,
    page_size: u32,
    settings: BTreeMap<String, Json>,
    notes: Vec<String>,
    owned_tables: BTreeSet<String>,
    /// Tables an interrupted earlier run left, dropped when this engine claimed the database.
    dropped_leftovers: Vec<String>,
    /// Per table: the server's counters when keylab created it.
    baselines: BTreeMap<String, Baseline>,
    /// Per table: writes to its `.ibd` since creation, and reads, at the last measurement
    /// (performance schema), reported under `table_file_writes` in [`EngineInfo::settings`]
    /// (the key keeps its first name; reads were added next to the writes).
    file_writes: BTreeMap<String, Json>,
    /// Per table: rows and checksum it holds, when known without asking the server (after
    /// creation and loads; churn and DDL forget it, and the next load reads it back).
    contents: BTreeMap<String, (u64, u64)>,
    last_load: Option<LoadDetails>,
    /// Per table: the buffer pool curve sampled during its last load.
    pool_curves: BTreeMap<String, Vec<keylab_core::PoolCurvePoint>>,
    /// The block id generator of the tables created next (`sequence`, `table` strategies).
    id_blocks: Option<keylab_core::IdBlocks>,
    /// Server-wide counters at the restarts so far, added to every reading: a restart sets
    /// the server's own back to zero.
    carried: CounterSnapshot,
    server: Option<PrivateServer>,
}

/// What the server's counters said when a table was created.
#[derive(Debug, Clone, Default)]
struct Baseline {
    counters: CounterSnapshot,
    /// Reads and writes of the table's file, when readable (at creation, or at the last
    /// restart).
    file_io: Option<metrics::FileIo>,
    /// Reads and writes of the table's file before the last restart (since creation).
    io_carried: metrics::FileIo,
}

/// Why `hint`'s change buffering is not in effect on a server whose variables are
/// `settings`, if it is not: the server has another value, or no such setting (MariaDB
/// removed it in 11.0).
fn change_buffering_unapplied(
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
fn check_database(db: &str) -> Result<(), ServerError> {
    if valid_identifier(db) {
        return Ok(());
    }
    Err(ServerError::BadUrl(format!("database `{db}`: {IDENTIFIER_RULE}")))
}

fn sql_err(what: &str, e: mysql::Error) -> ServerError {
    ServerError::Sql(format!("{what}: {e}"))
}

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
        let target = Target::Private { socket };
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
        // the server has no such option (see `private::has_change_buffering`).
        let unapplied = change_buffering_unapplied(&engine.settings, settings);
        engine.add_not_applied(unapplied.into_iter().collect());
        engine.server = Some(server);
        Ok(engine)
    }

    /// Connects to a user's server. `database` (from `--database`) overrides the URL's; the
    /// default is `keylab`. `settings_hint` is what the scenario would like: settings that
    /// differ on the server are listed under `not_applied` in [`EngineInfo::settings`].
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
        if let Some(hint) = settings_hint {
            engine.note_unapplied(hint);
        }
        Ok(engine)
    }

    fn setup(
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

    /// The database keylab works in.
    pub fn database(&self) -> &str {
        &self.database
    }

    /// Tables an interrupted earlier run had left half-done in keylab's database, which this
    /// engine dropped when it started (for a line saying so).
    pub fn dropped_leftovers(&self) -> &[String] {
        &self.dropped_leftovers
    }

    /// Where the engine works, for messages (a `--url` with its password masked).
    pub fn target_name(&self) -> String {
        self.target.to_string()
    }

    /// Adds a setting to [`EngineInfo::settings`] (a sharded engine's topology).
    pub(crate) fn set_setting(&mut self, name: &str, value: Json) {
        self.settings.insert(name.into(), value);
    }

    /// The private instance, when keylab started one.
    pub fn private_server(&self) -> Option<&PrivateServer> {
        self.server.as_ref()
    }

    /// Details of the last load (first batch per writer, server checksum).
    pub fn last_load(&self) -> Option<&LoadDetails> {
        self.last_load.as_ref()
    }

    /// A new connection to keylab's database (for tests and tools).
    pub fn new_connection(&self) -> Result<Conn, ServerError> {
        Conn::new(work_opts(&self.target, &self.database, self.flavour))
            .map_err(|e| ServerError::Connect(format!("cannot connect to {}: {e}", self.target)))
    }

    fn read_settings(&mut self) -> Result<(), ServerError> {
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

    fn setting_u64(&self, name: &str) -> Option<u64> {
        self.settings.get(name).and_then(Json::as_u64)
    }

    /// Adds a note for [`EngineInfo::settings`] unless the same text is there already
    /// (measurements repeat over phases and rounds).
    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    fn note_unapplied(&mut self, hint: &ServerSettings) {
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

    fn add_not_applied(&mut self, diffs: Vec<String>) {
        if !diffs.is_empty() {
            self.settings.insert("not_applied".into(), Json::from(diffs));
        }
    }

    fn table_name<'t>(&self, table: &'t Table) -> Result<&'t str, ServerError> {
        if !valid_identifier(&table.name) || table.name == OWNER_TABLE {
            return Err(ServerError::Refused(format!(
                "table name `{}` is not one keylab may use",
                table.name
            )));
        }
        Ok(&table.name)
    }

    fn dialect(&self) -> Dialect {
        match self.flavour {
            Flavour::Mariadb => Dialect::Mariadb,
            Flavour::Mysql => Dialect::Mysql,
        }
    }

    fn create(&mut self, table: &Table) -> Result<(), ServerError> {
        self.create_with(table, None)
    }

    /// Creates `table` with `ddl` in place of its own `CREATE TABLE` when given (a Spider
    /// head's partitioned table), with the same ownership bookkeeping.
    pub(crate) fn create_with(
        &mut self,
        table: &Table,
        ddl: Option<String>,
    ) -> Result<(), ServerError> {
        let name = self.table_name(table)?.to_string();
        let existing = list_tables(&mut self.conn, &self.database)?;
        if existing.contains(&name) && !self.owned_tables.contains(&name) {
            return Err(ServerError::Refused(format!(
                "table `{}`.`{name}` exists and keylab did not create it; keylab leaves it alone",
                self.database
            )));
        }
        if let Target::Url(_) = self.target {
            // Held by this connection while the table is keylab's work in progress: a later
            // run that finds the lock free knows the table was left by a run that died.
            owner::lock_table(&mut self.conn, &self.database, &name)?;
        }
        // Register before creating: a crash in between leaves only a name on the list.
        self.conn
            .exec_drop(
                format!("INSERT IGNORE INTO {} (table_name) VALUES (?)", quote_ident(OWNER_TABLE)),
                (&name,),
            )
            .map_err(|e| sql_err("registering the table failed", e))?;
        self.owned_tables.insert(name.clone());
        self.conn
            .query_drop(format!("DROP TABLE IF EXISTS {}", quote_ident(&name)))
            .map_err(|e| sql_err("dropping keylab's earlier table failed", e))?;
        self.conn
            .query_drop(ddl.unwrap_or_else(|| table.create_sql(self.dialect())))
            .map_err(|e| sql_err(&format!("CREATE TABLE {name} failed"), e))?;
        self.create_id_source(&name)?;
        self.track(&name, &[]);
        let baseline = Baseline {
            counters: self.counters_now(),
            file_io: metrics::table_file_io(&mut self.conn, &self.database, &name),
            io_carried: metrics::FileIo::default(),
        };
        self.baselines.insert(name.clone(), baseline);
        self.file_writes.remove(&name);
        self.contents.insert(name.clone(), (0, 0));
        Ok(())
    }

    /// On a user's server: remembers that `name` is keylab's work in progress, and which
    /// connections work on it (this engine's and `writers`), so that a signal stops them and
    /// drops the table (see `owner::drop_interrupted_tables`).
    fn track(&self, name: &str, writers: &[u32]) {
        if let Target::Url(_) = self.target {
            let ids = [writers, &[self.conn.connection_id()]].concat();
            let opts = base_opts(&self.target, CONNECT_TIMEOUT).into();
            owner::track_table(opts, &self.target.to_string(), &self.database, name, ids);
        }
    }

    /// The table's name when keylab created it: loads, measurements (`ANALYZE TABLE`) and
    /// phase operations touch nothing else.
    fn owned_name(&self, table: &Table) -> Result<String, ServerError> {
        let name = self.table_name(table)?;
        if !self.owned_tables.contains(name) {
            return Err(ServerError::Refused(format!(
                "keylab did not create `{}`.`{name}` and will not load, measure or change it",
                self.database
            )));
        }
        Ok(name.to_string())
    }

    fn drop_owned(&mut self, table: &Table) -> Result<(), ServerError> {
        let name = self.table_name(table)?.to_string();
        if !self.owned_tables.contains(&name) {
            return Err(ServerError::Refused(format!(
                "keylab did not create `{}`.`{name}` and will not drop it",
                self.database
            )));
        }
        self.conn
            .query_drop(format!("DROP TABLE IF EXISTS {}", quote_ident(&name)))
            .map_err(|e| sql_err("DROP TABLE failed", e))?;
        self.drop_id_source(&name)?;
        self.conn
            .exec_drop(
                format!("DELETE FROM {} WHERE table_name = ?", quote_ident(OWNER_TABLE)),
                (&name,),
            )
            .map_err(|e| sql_err("unregistering the table failed", e))?;
        if let Target::Url(_) = self.target {
            owner::forget_table(&self.target.to_string(), &self.database, &name);
            owner::unlock_table(&mut self.conn, &self.database, &name);
        }
        self.owned_tables.remove(&name);
        // Its file writes stay for the report; what the next table of this name needs is
        // set again by create_table.
        self.baselines.remove(&name);
        self.contents.remove(&name);
        Ok(())
    }

    fn run_load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, ServerError> {
        let name = self.owned_name(table)?;
        if plan.method == keylab_core::LoadMethod::LoadData {
            let on: Option<u64> = self.conn.query_first("SELECT @@local_infile").ok().flatten();
            if on == Some(0) {
                return Err(ServerError::Refused(
                    "the server has local_infile=OFF, so LOAD DATA LOCAL INFILE is refused; \
                     an administrator can SET GLOBAL local_infile=1, or use another --method"
                        .into(),
                ));
            }
        }
        let writers = plan.writers.max(1) as usize;
        let statements_before = self.server_statement_ns();
        let conns = (0..writers).map(|_| self.new_connection()).collect::<Result<Vec<_>, _>>()?;
        self.track(&name, &conns.iter().map(Conn::connection_id).collect::<Vec<_>>());
        // A table loaded in several calls (load samples), or after churn, already holds rows.
        let held = match self.contents.get(&name) {
            Some(&c) => c,
            None => self.table_checksum(table)?,
        };
        // Unknown until checked, also when the load fails half-way.
        self.contents.remove(&name);
        let fetch = self.id_fetch(&name);
        // The buffer pool curve: server-wide reads and writes, read on this engine's own
        // connection (idle while the writers load) whenever the rows sent pass a sample point.
        let conn = &mut self.conn;
        let base = metrics::read_pool_io(conn);
        let mut sampler = base.map(|_| keylab_core::PoolCurveSampler::new());
        let mut sent_rows = 0u64;
        let since = |conn: &mut Conn| {
            let (b, now) = (base?, metrics::read_pool_io(conn)?);
            Some((now.0.saturating_sub(b.0), now.1.saturating_sub(b.1)))
        };
        let mut sampled = |n: u64| {
            on_rows(n);
            sent_rows += n;
            if let Some(s) = sampler.as_mut().filter(|s| sent_rows >= s.next_due()) {
                if let Some((read, written)) = since(conn) {
                    s.offer(sent_rows, read, Some(written));
                }
            }
        };
        let stats = load::run_load_with_ids(table, plan, conns, rows, &mut sampled, fetch.as_ref());
        let curve = sampler
            .zip(since(&mut self.conn))
            .map(|(s, (read, written))| s.finish(sent_rows, read, Some(written)));
        match curve {
            Some(c) if stats.is_ok() => self.pool_curves.insert(name.clone(), c),
            _ => self.pool_curves.remove(&name),
        };
        self.track(&name, &[]);
        let stats: LoadStats = stats?;
        let server_statement_ms = statements_before
            .zip(self.server_statement_ns())
            .map(|(a, b)| b.saturating_sub(a) as f64 / 1e6);
        let (sent, sent_sum) = stats.client_checksum;
        let expected = (held.0 + sent, held.1.wrapping_add(sent_sum));
        let server_checksum = self.verify(table, held, expected)?;
        self.contents.insert(name, server_checksum);
        self.last_load =
            Some(LoadDetails { first_batch_ms: stats.first_batch_ms.clone(), server_checksum });
        let columns: Vec<&str> =
            sql::checksum_columns(table).iter().map(|&c| table.columns[c].name.as_str()).collect();
        // `verify` fails the load on any difference, so what is reported here is equal.
        let verification = LoadVerification {
            rows_expected: expected.0,
            rows_found: Some(server_checksum.0),
            checksum_equal: (!columns.is_empty()).then_some(server_checksum.1 == expected.1),
            checked: if columns.is_empty() {
                "COUNT(*) of the whole table on the server; no checksum (no column is sent)".into()
            } else {
                let assigned = if table.auto_increment {
                    format!(
                        "; the server-assigned key `{}` is counted, not checksummed (keylab does \
                         not know which row got which value)",
                        table.columns[table.primary_key[0]].name
                    )
                } else {
                    String::new()
                };
                format!(
                    "COUNT(*) and SUM(CRC32(CONCAT_WS('|', {}))) of the whole table after the \
                     load, against before the load plus the rows sent (every column keylab \
                     generated){assigned}",
                    columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                )
            },
        };
        Ok(LoadOutcome {
            rows: stats.rows,
            wall_s: Some(stats.wall_s),
            batch_latency_ms: load::latency_ms(&stats.batch_latency_us),
            first_batch_ms: Some(stats.first_batch_ms.clone()),
            other_batch_p50_ms: Some(stats.other_batch_p50_ms.clone()),
            verification: Some(verification),
            server_statement_ms,
        })
    }

    /// Server-side time of every statement the server has run, ns (performance_schema,
    /// summed over statement kinds): on a private server only keylab runs statements, so
    /// the difference over a load is the load's (plus the one read that starts it). `None`
    /// on a user's server (other sessions' statements would count) or with
    /// performance_schema off.
    fn server_statement_ns(&mut self) -> Option<u64> {
        if !matches!(self.target, Target::Private { .. }) {
            return None;
        }
        self.conn
            .query_first::<Option<u64>, _>(
                "SELECT CAST(SUM(SUM_TIMER_WAIT) DIV 1000 AS UNSIGNED) \
                 FROM performance_schema.events_statements_summary_global_by_event_name",
            )
            .ok()
            .flatten()
            .flatten()
    }

    /// Rows and `SUM(CRC32(..))` of the checksum columns (`sql::checksum_sql`) on the server.
    fn table_checksum(&mut self, table: &Table) -> Result<(u64, u64), ServerError> {
        let expr = sql::checksum_sql(table);
        let server: Option<(u64, u64)> = self
            .conn
            .query_first(format!("SELECT COUNT(*), {expr} FROM {}", quote_ident(&table.name)))
            .map_err(|e| sql_err("checking the loaded rows failed", e))?;
        Ok(server.unwrap_or_default())
    }

    /// Row count and checksum on the server must be what it `held` before the load plus
    /// what the client sent (`expected`).
    fn verify(
        &mut self,
        table: &Table,
        held: (u64, u64),
        expected: (u64, u64),
    ) -> Result<(u64, u64), ServerError> {
        let server = self.table_checksum(table)?;
        if server != expected {
            return Err(ServerError::Sql(format!(
                "load check failed on `{}`: it held {} rows, the client sent {} more (checksum \
                 {:#x} expected), the server holds {} rows (checksum {:#x}); rows were lost, \
                 duplicated or changed",
                table.name,
                held.0,
                expected.0 - held.0,
                expected.1,
                server.0,
                server.1
            )));
        }
        Ok(server)
    }
}

fn base_opts(target: &Target, timeout: Duration) -> OptsBuilder {
    match target {
        Target::Private { socket } => OptsBuilder::new()
            .socket(Some(socket.clone()))
            .user(Some("root"))
            .prefer_socket(true)
            .tcp_connect_timeout(Some(timeout)),
        Target::Url(url) => url.opts(timeout),
    }
}

fn work_opts(target: &Target, db: &str, flavour: Flavour) -> OptsBuilder {
    let mut init = vec!["SET time_zone = '+00:00'".to_string()];
    if flavour == Flavour::Mysql {
        // MySQL caches INFORMATION_SCHEMA.TABLES sizes for a day unless told not to.
        init.push("SET SESSION information_schema_stats_expiry = 0".into());
    }
    base_opts(target, CONNECT_TIMEOUT).db_name(Some(db)).init(init)
}

impl Engine for MariaDbEngine {
    fn info(&self) -> EngineInfo {
        let kind = match self.flavour {
            Flavour::Mariadb => EngineKind::Mariadb,
            Flavour::Mysql => EngineKind::Mysql,
        };
        let mut settings = self.settings.clone();
        if !self.file_writes.is_empty() {
            let map: serde_json::Map<String, Json> =
                self.file_writes.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            settings.insert("table_file_writes".into(), Json::Object(map));
        }
        if !self.notes.is_empty() {
            settings.insert("notes".into(), Json::from(self.notes.clone()));
        }
        EngineInfo {
            kind: kind.token().to_string(),
            version: self.version.clone(),
            model: None,
            settings,
        }
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        self.create(table)?;
        let page = self.setting_u64("innodb_page_size").unwrap_or(16384) as u32;
        // The server shortens such a key silently (a warning only): say so in the result.
        for p in keylab_schema::limits::check(table, page).unwrap_or_default() {
            self.note(p.note(table));
        }
        Ok(())
    }

    fn load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        Ok(self.run_load(table, plan, rows, on_rows)?)
    }

    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        Ok(self.measure_table(table)?)
    }

    fn drop_table(&mut self, table: &Table) -> Result<(), EngineError> {
        Ok(self.drop_owned(table)?)
    }

    fn apply(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        Ok(self.apply_ops(table, ops, on_ops)?)
    }

    fn apply_styled(
        &mut self,
        table: &Table,
        style: &ChurnStyle,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        Ok(self.apply_styled_ops(table, style, ops, on_ops)?)
    }

    fn rebuild(&mut self, table: &Table, fill_factor_pct: u8) -> Result<(), EngineError> {
        Ok(self.rebuild_table(table, fill_factor_pct)?)
    }

    fn set_id_blocks(&mut self, blocks: Option<keylab_core::IdBlocks>) {
        self.id_blocks = blocks;
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        self.restart_server()
    }

    fn query(
        &mut self,
        table: &Table,
        query: &QuerySpec,
        runs: u32,
    ) -> Result<QueryOutcome, EngineError> {
        Ok(self.run_query(table, query, runs)?)
    }

    fn ddl(&mut self, table: &Table, ddl: &DdlSpec) -> Result<DdlOutcome, EngineError> {
        Ok(self.run_ddl(table, ddl)?)
    }

    fn ddl_under_writes(
        &mut self,
        table: &Table,
        ddl: &DdlSpec,
        writers: u32,
        rows: &mut dyn Iterator<Item = Row>,
    ) -> Result<DdlOutcome, EngineError> {
        Ok(self.run_ddl_under_writes(table, ddl, writers, rows)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_buffering_is_reported_when_the_server_lacks_it_or_differs() {
        let hint =
            ServerSettings { change_buffering: Some("none".into()), ..ServerSettings::default() };
        let mut vars = BTreeMap::new();
        let missing = change_buffering_unapplied(&vars, &hint).expect("reported");
        assert!(missing.contains("no such setting"), "{missing}");
        vars.insert("innodb_change_buffering".to_string(), Json::from("all"));
        let differs = change_buffering_unapplied(&vars, &hint).expect("reported");
        assert!(differs.contains("wanted none, server has all"), "{differs}");
        vars.insert("innodb_change_buffering".to_string(), Json::from("none"));
        assert_eq!(change_buffering_unapplied(&vars, &hint), None);
        let default = ServerSettings::default();
        assert_eq!(change_buffering_unapplied(&BTreeMap::new(), &default), None);
    }

    #[test]
    fn targets_in_messages_never_show_the_password() {
        let url = ServerUrl::parse("mysql://app:hunter2@db.example:3307/bench").unwrap();
        let shown = Target::Url(url).to_string();
        assert_eq!(shown, "mysql://app:***@db.example:3307/bench");
        let private = Target::Private { socket: "/tmp/k/mysqld.sock".into() };
        assert!(private.to_string().contains("/tmp/k/mysqld.sock"));
    }
}
