//! The tables this process created in a user's database and has not dropped yet: a signal
//! that ends keylab drops them (after ending the sessions still loading them) and takes them
//! off `keylab_owner`, as the MariaDB engine does, before keylab exits.
//!
//! keylab's own sessions on a `--url` server carry the application name [`application_name`]
//! (this process's id), which is how the hook finds the writers of a load to end them.

use crate::owner::OWNER_TABLE;
use crate::sql::qualified;
use std::collections::BTreeMap;
use std::sync::{Mutex, Once};
use std::time::Duration;

/// A table keylab created on a user's server and has not dropped yet.
struct InFlight {
    config: postgres::Config,
    /// Where, for messages (never with the password).
    where_: String,
}

/// Per (server, schema, table): the tables this process created on users' servers.
type Tables = BTreeMap<(String, String, String), InFlight>;
static IN_FLIGHT: Mutex<Tables> = Mutex::new(BTreeMap::new());

fn in_flight() -> std::sync::MutexGuard<'static, Tables> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `application_name` of this process's sessions on a user's server.
pub(crate) fn application_name() -> String {
    format!("keylab-{}", std::process::id())
}

/// Remembers that this process created `schema`.`table` at `where_` (reached with `config`),
/// until [`forget_table`]. The first call hands [`drop_interrupted_tables`] to the signal
/// handler.
pub(crate) fn track_table(config: &postgres::Config, where_: &str, schema: &str, table: &str) {
    static HOOKED: Once = Once::new();
    HOOKED.call_once(|| keylab_server_common::on_interrupt(drop_interrupted_tables));
    let key = (where_.to_string(), schema.to_string(), table.to_string());
    in_flight().insert(key, InFlight { config: config.clone(), where_: where_.to_string() });
}

/// The table was dropped the ordinary way.
pub(crate) fn forget_table(where_: &str, schema: &str, table: &str) {
    in_flight().remove(&(where_.to_string(), schema.to_string(), table.to_string()));
}

/// Drops every table this process created on a user's server and has not dropped (after
/// ending its own sessions there) and takes it off `keylab_owner`; one line per table.
/// Called by the signal handler (an interrupt hook).
pub fn drop_interrupted_tables() -> Vec<String> {
    let tables = std::mem::take(&mut *in_flight());
    tables
        .into_iter()
        .map(|((_, schema, table), t)| match drop_one(&t, &schema, &table) {
            Ok(()) => format!(
                "dropped the half-done table `{schema}`.`{table}` keylab created on {}",
                t.where_
            ),
            Err(e) => format!(
                "could not drop keylab's half-done table `{schema}`.`{table}` on {} ({e}); it \
                 is listed in `{schema}`.`{OWNER_TABLE}`, and the next keylab run in `{schema}` \
                 on that server drops it",
                t.where_
            ),
        })
        .collect()
}

fn drop_one(t: &InFlight, schema: &str, table: &str) -> Result<(), String> {
    let mut config = t.config.clone();
    config.connect_timeout(Duration::from_secs(5)).application_name("keylab-cleanup");
    let mut client = config.connect(postgres::NoTls).map_err(|e| format!("cannot connect: {e}"))?;
    // This process's other sessions (the load's writers hold locks on the table) are ended,
    // so the drop need not wait for them; pg_terminate_backend waits up to 10 s for each.
    client
        .execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity \
             WHERE application_name = $1 AND pid <> pg_backend_pid()",
            &[&application_name()],
        )
        .map_err(|e| format!("ending keylab's sessions failed: {e}"))?;
    client
        .batch_execute(&format!(
            "SET lock_timeout = '20s'; DROP TABLE IF EXISTS {}; DELETE FROM {} WHERE table_name \
             = {}",
            qualified(schema, table),
            qualified(schema, OWNER_TABLE),
            literal(table),
        ))
        .map_err(|e| format!("DROP TABLE failed: {e}"))
}

/// `text` as an SQL string literal (names are checked identifiers; quotes doubled anyway).
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_tracked_nothing_dropped() {
        forget_table("nowhere", "s", "t");
        assert!(drop_interrupted_tables().is_empty());
        assert_eq!(literal("a'b"), "'a''b'");
        assert!(application_name().starts_with("keylab-"));
    }
}
