//! Restarting a private server between phases (the `restart` phase): a clean shutdown, then
//! the same data directory started again with a cold buffer pool. The counters keylab
//! reports continue across it: the server's own start again from zero, so the counts before
//! the restart are carried. A user's server (`--url`) is never restarted.

use super::{sql_err, work_opts, MariaDbEngine};
use crate::metrics::{self, CounterSnapshot};
use keylab_core::EngineError;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::time::Duration;

/// How long a clean shutdown may take (it writes back every dirty page).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(600);

impl MariaDbEngine {
    /// The server-wide counters now, continued across restarts.
    pub(super) fn counters_now(&mut self) -> CounterSnapshot {
        metrics::read_counters(&mut self.conn).plus(&self.carried)
    }

    /// Shuts the private server down cleanly and starts it again on the same data directory.
    pub(super) fn restart_server(&mut self) -> Result<(), EngineError> {
        if self.server.is_none() {
            return Err(EngineError::Unsupported(
                "keylab restarts only a private server it started; it never restarts the \
                 server of a --url"
                    .into(),
            ));
        }
        let raw = metrics::read_counters(&mut self.conn);
        let names: Vec<String> = self.baselines.keys().cloned().collect();
        for name in &names {
            let now = metrics::table_file_io(&mut self.conn, &self.database, name);
            if let Some(b) = self.baselines.get_mut(name) {
                if let (Some(base), Some(now)) = (b.file_io, now) {
                    b.io_carried = b.io_carried.plus(&now.since(&base));
                }
            }
        }
        // The private server is launched with innodb_fast_shutdown = 2 (its data is thrown
        // away afterwards); a restart keeps the data, so this shutdown is the normal one.
        self.conn
            .query_drop("SET GLOBAL innodb_fast_shutdown = 1")
            .map_err(|e| sql_err("SET GLOBAL innodb_fast_shutdown failed", e))?;
        // The connection ends with the server: its error says nothing more.
        let _ = self.conn.query_drop("SHUTDOWN");
        self.carried = raw.plus(&self.carried);
        let server = self.server.as_mut().expect("checked above");
        server.relaunch_after_shutdown(SHUTDOWN_WAIT)?;
        self.conn =
            Conn::new(work_opts(&self.target, &self.database, self.flavour)).map_err(|e| {
                ServerError::Connect(format!("cannot reconnect after the restart: {e}"))
            })?;
        for name in &names {
            let now = metrics::table_file_io(&mut self.conn, &self.database, name);
            if let Some(b) = self.baselines.get_mut(name) {
                if b.file_io.is_some() {
                    b.file_io = now;
                }
            }
        }
        Ok(())
    }
}
