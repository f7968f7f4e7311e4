//! Server-side statement time and plans for timed queries: each statement's `TIMER_WAIT`
//! from performance_schema's `events_statements_history_long` (the successor of
//! `SHOW PROFILES`), and `EXPLAIN`'s access type, key and row estimate.
//!
//! A [`StatementClock`] reads only this connection's statements, and only top-level ones
//! (`NESTING_EVENT_ID IS NULL`), so a prepared statement's execution counts once. Its own
//! reads of the history are told apart by their text and left out. It never turns a
//! consumer on: a private server is configured with them (see `private::config`); on a
//! user's server the timing is `None` with a note when they are off. This module does not
//! time anything on the client.

use super::sql_err;
use keylab_core::QueryPlan;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;

/// The text every history read carries, so the reads can be left out of the sums.
const OWN_READ_TAG: &str = "keylab_statement_clock";

/// Reads the server-side time of the statements this connection ran since the last read.
pub struct StatementClock {
    thread_id: u64,
    last_event_id: u64,
}

impl StatementClock {
    /// A clock for `conn`, or why there is none (performance_schema or the statement
    /// history consumers are off).
    pub fn start(conn: &mut Conn) -> Result<StatementClock, String> {
        let on: Option<u64> = conn.query_first("SELECT @@performance_schema").ok().flatten();
        if on != Some(1) {
            return Err("performance_schema is off on this server, so no server-side \
                        statement times (a private server turns it on with the scenario's \
                        `performance_schema = true` or `compare --perf-schema`)"
                .into());
        }
        let consumers: Vec<(String, String)> = conn
            .query(
                "SELECT NAME, ENABLED FROM performance_schema.setup_consumers WHERE NAME IN \
                 ('events_statements_current', 'events_statements_history_long')",
            )
            .unwrap_or_default();
        let off: Vec<&str> =
            consumers.iter().filter(|(_, e)| e != "YES").map(|(n, _)| n.as_str()).collect();
        if consumers.len() < 2 || !off.is_empty() {
            return Err(format!(
                "performance_schema consumer(s) {} are off on this server, so no server-side \
                 statement times (keylab does not change a server's settings)",
                if off.is_empty() { "events_statements_*".to_string() } else { off.join(", ") }
            ));
        }
        let thread_id: Option<u64> = conn
            .query_first(
                "SELECT THREAD_ID FROM performance_schema.threads \
                 WHERE PROCESSLIST_ID = CONNECTION_ID()",
            )
            .map_err(|e| format!("reading this connection's thread id failed: {e}"))?;
        let thread_id = thread_id.ok_or("this connection has no performance_schema thread")?;
        let mut clock = StatementClock { thread_id, last_event_id: 0 };
        clock.read(conn).map_err(|e| e.to_string())?;
        Ok(clock)
    }

    /// Milliseconds of server time of the top-level statements run since the last read,
    /// and how many there were.
    pub fn read(&mut self, conn: &mut Conn) -> Result<(f64, u64), ServerError> {
        let rows: Vec<(u64, Option<u64>, Option<String>)> = conn
            .query(format!(
                "SELECT /* {OWN_READ_TAG} */ EVENT_ID, TIMER_WAIT, SQL_TEXT \
                 FROM performance_schema.events_statements_history_long \
                 WHERE THREAD_ID = {} AND EVENT_ID > {} AND NESTING_EVENT_ID IS NULL \
                 ORDER BY EVENT_ID",
                self.thread_id, self.last_event_id
            ))
            .map_err(|e| sql_err("reading statement times failed", e))?;
        let mut ps = 0u128;
        let mut count = 0u64;
        for (event_id, wait_ps, text) in rows {
            self.last_event_id = self.last_event_id.max(event_id);
            if text.as_deref().is_some_and(|t| t.contains(OWN_READ_TAG)) {
                continue;
            }
            ps += u128::from(wait_ps.unwrap_or(0));
            count += 1;
        }
        Ok((ps as f64 / 1e9, count))
    }
}

/// `EXPLAIN`'s first row for `sql` run with `params`: access type, key, estimated rows.
pub fn explain<P: Into<mysql::Params>>(
    conn: &mut Conn,
    sql: &str,
    params: P,
) -> Result<QueryPlan, ServerError> {
    let rows: Vec<mysql::Row> = conn
        .exec(format!("EXPLAIN {sql}"), params)
        .map_err(|e| sql_err("EXPLAIN of the query failed", e))?;
    let first = rows.into_iter().next();
    let text = |name: &str| -> Option<String> {
        match first.as_ref()?.get_opt::<mysql::Value, _>(name)?.ok()? {
            mysql::Value::NULL => None,
            mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            other => Some(other.as_sql(true).trim_matches('\'').to_string()),
        }
    };
    Ok(QueryPlan {
        access_type: text("type"),
        key: text("key"),
        rows: text("rows").and_then(|r| r.parse().ok()),
        key_len: text("key_len"),
        extra: text("Extra"),
    })
}
