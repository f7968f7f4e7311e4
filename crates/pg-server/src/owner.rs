//! keylab's claim on a schema of a user's PostgreSQL database: the `keylab_owner` marker
//! table that lists the tables keylab created there, and the check that refuses a schema
//! holding anything else. keylab creates the schema when it is absent, and drops only the
//! tables listed in the marker that also carry keylab's [`MARK`] as their comment: anyone
//! who may create a table in the schema could write a `keylab_owner` listing a user's tables,
//! but only a table's owner may comment on it.

use crate::engine::sql_err;
use crate::sql::{qualified, quote_ident};
use keylab_server_common::ServerError;
use postgres::Client;
use std::collections::BTreeSet;

/// The table marking a schema as keylab's.
pub const OWNER_TABLE: &str = "keylab_owner";

/// The comment on every table keylab creates on a user's server (see the module docs).
pub const MARK: &str = "keylab: created by a keylab run, dropped by keylab runs in this schema";

/// Gives `schema`.`table` keylab's [`MARK`].
pub fn mark_table(client: &mut Client, schema: &str, table: &str) -> Result<(), ServerError> {
    client
        .batch_execute(&format!("COMMENT ON TABLE {} IS '{MARK}'", qualified(schema, table)))
        .map_err(|e| sql_err("marking the table as keylab's failed", e))
}

/// The session-level advisory lock a run holds while `schema`.`table` is its work in
/// progress (released when the run drops the table, or when its connection ends however the
/// run ended): `hashtext` of the pair, a server-wide key.
const LOCK_KEY: &str = "hashtext('keylab:' || $1 || '.' || $2)::bigint";

/// Takes the work-in-progress lock of `schema`.`table` on `client`.
pub fn lock_table(client: &mut Client, schema: &str, table: &str) -> Result<(), ServerError> {
    let got: bool = client
        .query_one(&format!("SELECT pg_try_advisory_lock({LOCK_KEY})"), &[&schema, &table])
        .map_err(|e| sql_err("pg_try_advisory_lock failed", e))?
        .get(0);
    if got {
        Ok(())
    } else {
        Err(ServerError::Refused(format!(
            "another keylab run is working on `{schema}`.`{table}` on this server; wait for it \
             or use another --database"
        )))
    }
}

/// Releases what [`lock_table`] took.
pub fn unlock_table(client: &mut Client, schema: &str, table: &str) {
    let _ = client.execute(&format!("SELECT pg_advisory_unlock({LOCK_KEY})"), &[&schema, &table]);
}

/// What [`claim_schema`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claim {
    /// The tables keylab owns in the schema.
    pub owned: BTreeSet<String>,
    /// Tables an interrupted keylab run left behind, dropped now.
    pub dropped_leftovers: Vec<String>,
}

/// Makes `schema` keylab's: creates and marks it when absent, marks it when empty, refuses
/// it when it holds relations keylab did not create. Drops the listed tables no running
/// keylab holds (an interrupted run's, see [`lock_table`]).
pub fn claim_schema(client: &mut Client, schema: &str, where_: &str) -> Result<Claim, ServerError> {
    let exists = !client
        .query("SELECT 1 FROM pg_namespace WHERE nspname = $1", &[&schema])
        .map_err(|e| sql_err("reading the schema list failed", e))?
        .is_empty();
    if !exists {
        client.batch_execute(&format!("CREATE SCHEMA {}", quote_ident(schema))).map_err(|e| {
            sql_err(
                &format!(
                    "cannot create schema `{schema}` on {where_} (the --url user needs CREATE on \
                     the database, or name an empty schema of its own with --database)"
                ),
                e,
            )
        })?;
    }
    let comments: std::collections::BTreeMap<String, Option<String>> = client
        .query(
            "SELECT c.relname::text, obj_description(c.oid, 'pg_class') FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
            &[&schema],
        )
        .map_err(|e| sql_err("listing the schema's tables failed", e))?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let relations: BTreeSet<String> = comments.keys().cloned().collect();
    let owner = qualified(schema, OWNER_TABLE);
    let mut owned: BTreeSet<String> = if relations.contains(OWNER_TABLE) {
        client
            .query(&format!("SELECT table_name FROM {owner}"), &[])
            .map_err(|e| {
                ServerError::Refused(format!(
                    "schema `{schema}` on {where_} has a `{OWNER_TABLE}` table keylab cannot \
                     read ({}); keylab refuses to work in it",
                    crate::engine::describe(&e)
                ))
            })?
            .iter()
            .map(|r| r.get(0))
            .collect()
    } else {
        BTreeSet::new()
    };
    // Listed but without keylab's mark: not keylab's, whatever the list says.
    owned.retain(|t| comments.get(t).is_none_or(|c| c.as_deref() == Some(MARK)));
    let foreign: Vec<String> = relations
        .iter()
        .filter(|t| *t != OWNER_TABLE && !owned.contains(*t))
        .map(|t| format!("`{t}`"))
        .collect();
    if !foreign.is_empty() {
        return Err(ServerError::Refused(format!(
            "schema `{schema}` on {where_} holds tables keylab did not create ({}); keylab works \
             only in a schema of its own and leaves this one untouched. Name another schema \
             with --database (e.g. keylab_bench)",
            foreign.join(", ")
        )));
    }
    let mut dropped_leftovers = Vec::new();
    for table in owned.clone() {
        if lock_table(client, schema, &table).is_err() {
            continue; // a running keylab is working on it
        }
        client
            .batch_execute(&format!("DROP TABLE IF EXISTS {}", qualified(schema, &table)))
            .map_err(|e| sql_err("dropping a table an interrupted run left failed", e))?;
        unregister(client, schema, &table)?;
        unlock_table(client, schema, &table);
        owned.remove(&table);
        if relations.contains(&table) {
            dropped_leftovers.push(table);
        }
    }
    if !relations.contains(OWNER_TABLE) {
        client
            .batch_execute(&format!(
                "CREATE TABLE {owner} (table_name text PRIMARY KEY, created_at timestamptz NOT \
                 NULL DEFAULT now()); COMMENT ON TABLE {owner} IS 'keylab owns this schema; it \
                 drops only the tables listed here'"
            ))
            .map_err(|e| sql_err("marking the schema as keylab's failed", e))?;
    }
    Ok(Claim { owned, dropped_leftovers })
}

/// Lists `table` as keylab's in `schema`.
pub fn register(client: &mut Client, schema: &str, table: &str) -> Result<(), ServerError> {
    client
        .execute(
            &format!(
                "INSERT INTO {} (table_name) VALUES ($1) ON CONFLICT DO NOTHING",
                qualified(schema, OWNER_TABLE)
            ),
            &[&table],
        )
        .map(|_| ())
        .map_err(|e| sql_err("registering the table failed", e))
}

/// Takes `table` off the list (after it was dropped).
pub fn unregister(client: &mut Client, schema: &str, table: &str) -> Result<(), ServerError> {
    client
        .execute(
            &format!("DELETE FROM {} WHERE table_name = $1", qualified(schema, OWNER_TABLE)),
            &[&table],
        )
        .map(|_| ())
        .map_err(|e| sql_err("unregistering the table failed", e))
}
