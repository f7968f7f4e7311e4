//! keylab's claim on a database of a user's server: the `keylab_owner` marker table that
//! lists the tables keylab created, and the check that refuses a database holding anything
//! else. The engine drops only listed tables; the one drop made here is of a table this
//! process created and was still working on when a signal interrupted it
//! ([`drop_interrupted_tables`], which the signal handler of keylab-server-common runs), so a
//! Ctrl-C leaves no half-loaded table behind.
//!
//! Anyone who may create a table in a database could write a `keylab_owner` listing a user's
//! tables: the list alone proves nothing. So every table keylab creates on a user's server
//! also carries keylab's [`MARK`] as its comment, which only a user allowed to ALTER that
//! table could forge, and a listed table without it counts as a table keylab did not create.

use crate::client::sql_err;
use crate::sql::quote_ident;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, Once};
use std::time::Duration;

/// The table marking a database as keylab's, and listing the tables keylab created in it.
pub const OWNER_TABLE: &str = "keylab_owner";

/// The comment on every table keylab creates on a user's server: with the listing in
/// `keylab_owner`, what makes a table keylab's (see the module docs).
pub const MARK: &str = "keylab: created by a keylab run, dropped by keylab runs in this database";

/// Gives `db`.`name` keylab's [`MARK`] (`ALTER TABLE ... COMMENT`: metadata only).
pub(crate) fn mark_table(conn: &mut Conn, db: &str, name: &str) -> Result<(), ServerError> {
    conn.query_drop(format!(
        "ALTER TABLE {}.{} COMMENT = '{MARK}'",
        quote_ident(db),
        quote_ident(name)
    ))
    .map_err(|e| sql_err(&format!("marking `{name}` as keylab's failed"), e))
}

/// The tables of `db` with their comments.
fn table_comments(conn: &mut Conn, db: &str) -> Result<BTreeMap<String, String>, ServerError> {
    conn.exec::<(String, String), _, _>(
        "SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
        (db,),
    )
    .map(|v| v.into_iter().collect())
    .map_err(|e| sql_err("listing tables failed", e))
}

/// The tables and views of `db`.
pub fn list_tables(conn: &mut Conn, db: &str) -> Result<BTreeSet<String>, ServerError> {
    conn.exec::<String, _, _>(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
        (db,),
    )
    .map(|v| v.into_iter().collect())
    .map_err(|e| sql_err("listing tables failed", e))
}

/// What [`claim_database`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claim {
    /// The tables keylab owns in the database.
    pub owned: BTreeSet<String>,
    /// Tables an interrupted keylab run left behind, dropped now.
    pub dropped_leftovers: Vec<String>,
}

/// The user-level lock (`GET_LOCK`) a run holds while `db`.`table` is its work in progress.
/// Lock names are server-wide and at most 64 characters: long pairs go by checksum.
fn lock_name(db: &str, table: &str) -> String {
    let name = format!("keylab:{db}.{table}");
    if name.len() <= 64 {
        name
    } else {
        format!("keylab:{:08x}", crc32fast::hash(format!("{db}.{table}").as_bytes()))
    }
}

/// Takes the work-in-progress lock of `db`.`table` on `conn` (held until released or until
/// the connection ends, however the program holding it ends).
pub(crate) fn lock_table(conn: &mut Conn, db: &str, table: &str) -> Result<(), ServerError> {
    let got: Option<Option<i64>> = conn
        .exec_first("SELECT GET_LOCK(?, 0)", (lock_name(db, table),))
        .map_err(|e| sql_err("GET_LOCK failed", e))?;
    match got.flatten() {
        Some(1) => Ok(()),
        _ => Err(ServerError::Refused(format!(
            "another keylab run is working on `{db}`.`{table}` on this server; wait for it or \
             use another --database"
        ))),
    }
}

/// Releases what [`lock_table`] took (a failure only means the connection is gone, and
/// with it the lock).
pub(crate) fn unlock_table(conn: &mut Conn, db: &str, table: &str) {
    let _ = conn.exec_drop("SELECT RELEASE_LOCK(?)", (lock_name(db, table),));
}

/// Makes `db` keylab's: creates and marks it when absent, marks it when empty, and refuses
/// it when it holds tables keylab did not create. Drops the listed tables no running keylab
/// holds (left by an interrupted run, see `lock_table`). Returns what it found.
pub fn claim_database(conn: &mut Conn, db: &str, where_: &str) -> Result<Claim, ServerError> {
    let exists: Option<String> = conn
        .exec_first(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
            (db,),
        )
        .map_err(|e| sql_err("reading the database list failed", e))?;
    if exists.is_none() {
        conn.query_drop(format!("CREATE DATABASE {}", quote_ident(db))).map_err(|e| {
            sql_err(&format!("cannot create database `{db}` on {where_} (name one you may create, or an empty one, in the --url)"), e)
        })?;
    }
    let comments = table_comments(conn, db)?;
    let tables: BTreeSet<String> = comments.keys().cloned().collect();
    let owner = format!("{}.{}", quote_ident(db), quote_ident(OWNER_TABLE));
    let mut owned: BTreeSet<String> = if tables.contains(OWNER_TABLE) {
        conn.query::<String, _>(format!("SELECT table_name FROM {owner}"))
            .map_err(|e| {
                ServerError::Refused(format!(
                    "database `{db}` on {where_} has a `{OWNER_TABLE}` table keylab cannot read \
                     ({e}); keylab refuses to work in it"
                ))
            })?
            .into_iter()
            .collect()
    } else {
        BTreeSet::new()
    };
    // Listed but without keylab's mark: not keylab's, whatever the list says.
    owned.retain(|t| comments.get(t).is_none_or(|c| c == MARK));
    let foreign: Vec<&String> =
        tables.iter().filter(|t| *t != OWNER_TABLE && !owned.contains(*t)).collect();
    if !foreign.is_empty() {
        let list = foreign.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
        return Err(ServerError::Refused(format!(
            "database `{db}` on {where_} holds tables keylab did not create ({list}); keylab \
             works only in a database of its own and leaves this one untouched. Name another \
             database in the --url (e.g. .../keylab_bench)"
        )));
    }
    let mut dropped_leftovers = Vec::new();
    for table in owned.clone() {
        let free: Option<Option<i64>> = conn
            .exec_first("SELECT IS_FREE_LOCK(?)", (lock_name(db, &table),))
            .map_err(|e| sql_err("IS_FREE_LOCK failed", e))?;
        if free.flatten() != Some(1) {
            continue; // a running keylab is working on it
        }
        conn.query_drop(format!(
            "DROP TABLE IF EXISTS {}.{}",
            quote_ident(db),
            quote_ident(&table)
        ))
        .map_err(|e| sql_err("dropping a table an interrupted run left failed", e))?;
        conn.exec_drop(format!("DELETE FROM {owner} WHERE table_name = ?"), (&table,))
            .map_err(|e| sql_err("unregistering a table an interrupted run left failed", e))?;
        owned.remove(&table);
        if tables.contains(&table) {
            dropped_leftovers.push(table);
        }
    }
    if !tables.contains(OWNER_TABLE) {
        conn.query_drop(format!(
            "CREATE TABLE {owner} (table_name VARCHAR(64) NOT NULL PRIMARY KEY, \
             created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP) \
             COMMENT = 'keylab owns this database; it drops only the tables listed here'"
        ))
        .map_err(|e| sql_err("marking the database as keylab's failed", e))?;
    }
    Ok(Claim { owned, dropped_leftovers })
}

/// A table keylab created on a user's server and has not dropped yet.
struct InFlight {
    opts: mysql::Opts,
    /// Where, for messages (the password masked).
    where_: String,
    /// Connections working on it (killed first, so the drop need not wait for them).
    connections: Vec<u32>,
}

/// Per (server, database, table): the tables this process created on users' servers.
static IN_FLIGHT: Mutex<BTreeMap<(String, String, String), InFlight>> = Mutex::new(BTreeMap::new());

fn in_flight() -> std::sync::MutexGuard<'static, BTreeMap<(String, String, String), InFlight>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remembers that this process created `db`.`table` at `where_` (reached with `opts`) and
/// that `connections` work on it, until [`forget_table`]. The first call hands
/// [`drop_interrupted_tables`] to the signal handler.
pub(crate) fn track_table(
    opts: mysql::Opts,
    where_: &str,
    db: &str,
    table: &str,
    connections: Vec<u32>,
) {
    static HOOKED: Once = Once::new();
    HOOKED.call_once(|| keylab_server_common::on_interrupt(drop_interrupted_tables));
    let key = (where_.to_string(), db.to_string(), table.to_string());
    in_flight().insert(key, InFlight { opts, where_: where_.to_string(), connections });
}

/// The table was dropped the ordinary way.
pub(crate) fn forget_table(where_: &str, db: &str, table: &str) {
    in_flight().remove(&(where_.to_string(), db.to_string(), table.to_string()));
}

/// Drops every table this process created on a user's server and has not dropped (after
/// stopping the statements still working on it) and takes it off `keylab_owner`; returns a
/// line per table saying what happened. Called by the signal handler (an interrupt hook).
pub fn drop_interrupted_tables() -> Vec<String> {
    let tables = std::mem::take(&mut *in_flight());
    tables
        .into_iter()
        .map(|((_, db, table), t)| match drop_one(&t, &db, &table) {
            Ok(()) => format!(
                "dropped the half-done table `{db}`.`{table}` keylab created on {}",
                t.where_
            ),
            Err(e) => format!(
                "could not drop keylab's half-done table `{db}`.`{table}` on {} ({e}); it is \
                 listed in `{db}`.`{OWNER_TABLE}`, and the next keylab run in `{db}` on that \
                 server drops it",
                t.where_
            ),
        })
        .collect()
}

fn drop_one(t: &InFlight, db: &str, table: &str) -> Result<(), ServerError> {
    let opts = mysql::OptsBuilder::from_opts(t.opts.clone())
        .tcp_connect_timeout(Some(Duration::from_secs(5)))
        .read_timeout(Some(Duration::from_secs(30)))
        .write_timeout(Some(Duration::from_secs(30)));
    let mut conn = Conn::new(opts).map_err(|e| sql_err("cannot connect", e))?;
    for id in &t.connections {
        // Gone already, or never got that far: nothing to stop.
        let _ = conn.query_drop(format!("KILL {id}"));
    }
    conn.query_drop("SET SESSION lock_wait_timeout = 20")
        .map_err(|e| sql_err("SET lock_wait_timeout failed", e))?;
    conn.query_drop(format!("DROP TABLE IF EXISTS {}.{}", quote_ident(db), quote_ident(table)))
        .map_err(|e| sql_err("DROP TABLE failed", e))?;
    conn.exec_drop(
        format!(
            "DELETE FROM {}.{} WHERE table_name = ?",
            quote_ident(db),
            quote_ident(OWNER_TABLE)
        ),
        (table,),
    )
    .map_err(|e| sql_err("unregistering the table failed", e))
}
