//! The server objects of an ORM's block id generators (`sequence` and `table` strategies):
//! a sequence `CREATE SEQUENCE ... INCREMENT BY block`, or an id table holding the next
//! value, created beside the loaded table as `<table>_ids`, registered and dropped with it.
//!
//! A writer takes a block with `SELECT NEXTVAL(seq)` (one round trip), or, as an ORM's
//! `TABLE` generator does, in a transaction of its own: read the row `FOR UPDATE`, add the
//! block, commit (four round trips). The ids loaded are keylab's, handed out in the same
//! blocks (`keylab_keys`), so the load stays checkable; the server pays the round trips.
//! This module does not run loads (see `crate::load`).

use super::{sql_err, MariaDbEngine};
use crate::load::IdFetch;
use crate::owner::OWNER_TABLE;
use crate::private::Flavour;
use crate::sql::quote_ident;
use keylab_core::IdBlockSource;
use keylab_server_common::url::valid_identifier;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;

/// The id source's name for table `name`.
fn source_name(name: &str) -> String {
    format!("{name}_ids")
}

impl MariaDbEngine {
    /// Creates (afresh) the id source of table `name` when the next loads take id blocks.
    pub(super) fn create_id_source(&mut self, name: &str) -> Result<(), ServerError> {
        let Some(blocks) = self.id_blocks else { return Ok(()) };
        let src = source_name(name);
        if !valid_identifier(&src) {
            return Err(ServerError::Refused(format!(
                "the id source `{src}` of table `{name}` is not a name keylab may use"
            )));
        }
        if blocks.source == IdBlockSource::Sequence && self.flavour == Flavour::Mysql {
            return Err(ServerError::Unsupported(
                "MySQL has no CREATE SEQUENCE; the `sequence` strategy needs MariaDB (the \
                 `table` strategy works on both)"
                    .into(),
            ));
        }
        if !self.owned_tables.contains(&src)
            && crate::owner::list_tables(&mut self.conn, &self.database)?.contains(&src)
        {
            return Err(ServerError::Refused(format!(
                "`{}`.`{src}` exists and keylab did not create it; keylab leaves it alone",
                self.database
            )));
        }
        // Registered before it exists, like a table: a crash in between leaves only a name.
        self.conn
            .exec_drop(
                format!("INSERT IGNORE INTO {} (table_name) VALUES (?)", quote_ident(OWNER_TABLE)),
                (&src,),
            )
            .map_err(|e| sql_err("registering the id source failed", e))?;
        self.owned_tables.insert(src.clone());
        let q = quote_ident(&src);
        // DROP TABLE also drops a MariaDB sequence.
        self.conn
            .query_drop(format!("DROP TABLE IF EXISTS {q}"))
            .map_err(|e| sql_err("dropping keylab's earlier id source failed", e))?;
        let create = match blocks.source {
            IdBlockSource::Sequence => vec![format!(
                "CREATE SEQUENCE {q} START WITH 1 INCREMENT BY {} NOCACHE",
                blocks.block
            )],
            IdBlockSource::Table => vec![
                format!("CREATE TABLE {q} (next_val BIGINT NOT NULL) ENGINE=InnoDB"),
                format!("INSERT INTO {q} VALUES (1)"),
            ],
        };
        for s in create {
            self.conn.query_drop(&s).map_err(|e| sql_err("creating the id source failed", e))?;
        }
        if let super::Target::Url(_) = self.target {
            crate::owner::mark_table(&mut self.conn, &self.database, &src)?;
        }
        Ok(())
    }

    /// Drops table `name`'s id source if keylab created one.
    pub(super) fn drop_id_source(&mut self, name: &str) -> Result<(), ServerError> {
        let src = source_name(name);
        if !self.owned_tables.contains(&src) {
            return Ok(());
        }
        self.conn
            .query_drop(format!("DROP TABLE IF EXISTS {}", quote_ident(&src)))
            .map_err(|e| sql_err("dropping the id source failed", e))?;
        self.conn
            .exec_drop(
                format!("DELETE FROM {} WHERE table_name = ?", quote_ident(OWNER_TABLE)),
                (&src,),
            )
            .map_err(|e| sql_err("unregistering the id source failed", e))?;
        self.owned_tables.remove(&src);
        Ok(())
    }

    /// What a writer runs per block of table `name`'s ids, when its loads take blocks.
    pub(super) fn id_fetch(&self, name: &str) -> Option<IdFetch> {
        let blocks = self.id_blocks?;
        let src = source_name(name);
        if !self.owned_tables.contains(&src) {
            return None;
        }
        let q = quote_ident(&src);
        let statements = match blocks.source {
            IdBlockSource::Sequence => vec![format!("SELECT NEXTVAL({q})")],
            IdBlockSource::Table => vec![
                "START TRANSACTION".to_string(),
                format!("SELECT next_val FROM {q} FOR UPDATE"),
                format!("UPDATE {q} SET next_val = next_val + {}", blocks.block),
                "COMMIT".to_string(),
            ],
        };
        Some(IdFetch { statements, block: u64::from(blocks.block) })
    }
}
