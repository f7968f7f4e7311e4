//! Creating and dropping keylab's own tables on a `MariaDbEngine`: the ownership list in
//! `keylab_owner`, the lock and tracking that let a later run or a signal handler clean up
//! after an interrupted one, and the per-table baselines taken at creation.
//!
//! This module does not load, measure or change a table's rows (see `load_run`, `measure`,
//! `churn`), and drops only tables on the ownership list.

use super::open::base_opts;
use super::{sql_err, Baseline, MariaDbEngine, Target, CONNECT_TIMEOUT};
use crate::metrics;
use crate::owner::{self, list_tables, OWNER_TABLE};
use crate::sql::quote_ident;
use keylab_schema::Table;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;

impl MariaDbEngine {
    pub(super) fn create(&mut self, table: &Table) -> Result<(), ServerError> {
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
        if let Target::Url(_) = self.target {
            owner::mark_table(&mut self.conn, &self.database, &name)?;
        }
        self.create_id_source(&name)?;
        self.track(&name, &[]);
        let baseline = Baseline {
            counters: self.counters_now(),
            file_io: metrics::table_file_io(&mut self.conn, &self.database, &name),
            io_carried: metrics::FileIo::default(),
            checks: Default::default(),
        };
        self.baselines.insert(name.clone(), baseline);
        self.file_writes.remove(&name);
        self.contents.insert(name.clone(), (0, 0));
        Ok(())
    }

    /// On a user's server: remembers that `name` is keylab's work in progress, and which
    /// connections work on it (this engine's and `writers`), so that a signal stops them and
    /// drops the table (see `owner::drop_interrupted_tables`).
    pub(super) fn track(&self, name: &str, writers: &[u32]) {
        if let Target::Url(_) = self.target {
            let ids = [writers, &[self.conn.connection_id()]].concat();
            let opts = base_opts(&self.target, CONNECT_TIMEOUT).into();
            owner::track_table(opts, &self.target.to_string(), &self.database, name, ids);
        }
    }

    /// The table's name when keylab created it: loads, measurements (`ANALYZE TABLE`) and
    /// phase operations touch nothing else.
    pub(super) fn owned_name(&self, table: &Table) -> Result<String, ServerError> {
        let name = self.table_name(table)?;
        if !self.owned_tables.contains(name) {
            return Err(ServerError::Refused(format!(
                "keylab did not create `{}`.`{name}` and will not load, measure or change it",
                self.database
            )));
        }
        Ok(name.to_string())
    }

    pub(super) fn drop_owned(&mut self, table: &Table) -> Result<(), ServerError> {
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
}
