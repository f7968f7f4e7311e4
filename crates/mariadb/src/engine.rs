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
//! Child modules: `open` (starting or connecting, settings), `tables` (creating and dropping
//! keylab's tables), `load_run` (a load and its check), `key_check` (the check of a
//! server-assigned key), `measure` (reading a table's shape and
//! counters) and the phase
//! operations after a load, `churn` (`apply`, waiting for purge), `rebuild`
//! (`OPTIMIZE TABLE` under a fill factor, and online DDL), `ddl_writes` (online DDL
//! while writers insert), `query` (timed queries) and
//! `stmt_time` (their server-side times and plans), `work` (reads and autocommitted inserts
//! with the buffer pool's counters around them).

mod check_io;
mod churn;
mod ddl_writes;
mod id_blocks;
mod key_check;
mod load_run;
mod measure;
mod open;
mod partitions;
mod query;
mod rebuild;
mod restart;
mod stmt_time;
mod tables;
mod timed;
mod work;

use crate::client::sql_err;
use crate::metrics::{self, CounterSnapshot};
pub use crate::owner::OWNER_TABLE;
use crate::private::{Flavour, PrivateServer};
use keylab_core::{
    ChurnStyle, DdlOutcome, DdlSpec, Engine, EngineError, EngineInfo, EngineKind, LoadOutcome,
    LoadPlan, Measurement, Op, QueryOutcome, QuerySpec, Row,
};
use keylab_schema::{Dialect, Table};
use keylab_server_common::url::{valid_identifier, ServerUrl};
use keylab_server_common::ServerError;
use mysql::Conn;
use open::work_opts;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// How long a server may take to accept a connection.
pub const CONNECT_TIMEOUT: Duration = keylab_server_common::CONNECT_TIMEOUT;

/// Where the connections go.
enum Target {
    /// A private instance's socket, and its root password (never shown).
    Private {
        socket: String,
        secret: keylab_server_common::Secret,
    },
    Url(ServerUrl),
}

/// Where the connections go, for messages: the URL's `Display` masks the password.
impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Private { socket, .. } => write!(f, "the private server (socket {socket})"),
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
    /// Buffer pool reads of keylab's own checks on the table since creation (`check_io`),
    /// left out of its figures.
    checks: CounterSnapshot,
}

impl MariaDbEngine {
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
}

impl Engine for MariaDbEngine {
    fn bulk_autoinc_gaps(&self) -> bool {
        // Modes 1 and 2 reserve blocks (unread: the servers' defaults are 1 and 2).
        !matches!(self.setting_u64("innodb_autoinc_lock_mode"), Some(0))
    }

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
        Ok(self.measure_table(table, true)?)
    }

    fn sample(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        Ok(self.measure_table(table, false)?)
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

    fn timed_inserts(
        &mut self,
        table: &Table,
        plan: &keylab_core::TimedPlan,
        rows: &mut (dyn Iterator<Item = keylab_core::Row> + Send),
    ) -> Result<keylab_core::TimedOutcome, EngineError> {
        Ok(self.insert_for_a_time(table, plan, rows)?)
    }

    fn work(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = keylab_core::WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<keylab_core::WorkOutcome, EngineError> {
        Ok(self.run_work(table, ops, on_ops)?)
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
    use super::open::change_buffering_unapplied;
    use super::*;
    use crate::private::ServerSettings;

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
        let secret = keylab_server_common::Secret::generate().unwrap();
        let password = secret.expose().to_string();
        let private = Target::Private { socket: "/tmp/k/mysqld.sock".into(), secret };
        assert!(private.to_string().contains("/tmp/k/mysqld.sock"));
        assert!(!private.to_string().contains(&password));
    }
}
