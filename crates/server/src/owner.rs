//! keylab's claim on a database of a user's server: the `keylab_owner` marker table that
//! lists the tables keylab created, and the check that refuses a database holding anything
//! else. This module never drops or alters anything; the engine drops only listed tables.

use crate::error::ServerError;
use crate::sql::quote_ident;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::collections::BTreeSet;

/// The table marking a database as keylab's, and listing the tables keylab created in it.
pub const OWNER_TABLE: &str = "keylab_owner";

fn sql_err(what: &str, e: mysql::Error) -> ServerError {
    ServerError::Sql(format!("{what}: {e}"))
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

/// Makes `db` keylab's: creates and marks it when absent, marks it when empty, and refuses
/// it when it holds tables keylab did not create. Returns the tables keylab owns in it.
pub fn claim_database(
    conn: &mut Conn,
    db: &str,
    where_: &str,
) -> Result<BTreeSet<String>, ServerError> {
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
    let tables = list_tables(conn, db)?;
    let owner = format!("{}.{}", quote_ident(db), quote_ident(OWNER_TABLE));
    let owned: BTreeSet<String> = if tables.contains(OWNER_TABLE) {
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
    if !tables.contains(OWNER_TABLE) {
        conn.query_drop(format!(
            "CREATE TABLE {owner} (table_name VARCHAR(64) NOT NULL PRIMARY KEY, \
             created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP) \
             COMMENT = 'keylab owns this database; it drops only the tables listed here'"
        ))
        .map_err(|e| sql_err("marking the database as keylab's failed", e))?;
    }
    Ok(owned)
}
