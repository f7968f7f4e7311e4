//! Churn on a server: [`Op`]s applied in order as committed transactions, then a wait until
//! purge has removed the delete-marked records, so the tree is in its final shape and the
//! merge counters include the merges purge made.
//!
//! Deletes run one row at a time through a prepared `DELETE ... WHERE pk = ?` (keeping the
//! order of deletes, which is the order purge later visits them); consecutive inserts go
//! as one multi-row `INSERT`. Every delete must remove exactly one row and every
//! server-assigned `AUTO_INCREMENT` must be the value the caller's row carries, so the live
//! row count the caller tracks is the server's. This module does not choose the operations.

// Churn in another statement shape than the default (`ChurnStyle`).
mod styled;

use super::{sql_err, MariaDbEngine, Target};
use crate::metrics;
use crate::private::Flavour;
use crate::sql::{self, quote_ident};
use keylab_core::{Op, Row};
use keylab_schema::{Table, Value};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

/// Operations per transaction.
pub const OPS_PER_COMMIT: usize = 1000;
/// How long `apply` waits for purge on a user's server, where other sessions may keep the
/// history from ever reaching zero.
pub const URL_PURGE_WAIT: Duration = Duration::from_secs(60);
/// How long `apply` polls on a private instance that has no `innodb_max_purge_lag_wait`.
pub const PRIVATE_PURGE_WAIT: Duration = Duration::from_secs(300);

/// MySQL error: unknown system variable.
const ER_UNKNOWN_SYSTEM_VARIABLE: u16 = 1193;

/// A key for messages: printable text as is, other bytes as hex.
pub(super) fn show_key(key: &[Value]) -> String {
    let parts: Vec<String> = key
        .iter()
        .map(|v| match v {
            Value::Null => "NULL".into(),
            Value::Int(n) | Value::Time(n) => n.to_string(),
            Value::UInt(n) => n.to_string(),
            Value::Bytes(b) if b.iter().all(|c| (0x20..0x7f).contains(c)) => {
                format!("'{}'", String::from_utf8_lossy(b))
            }
            Value::Bytes(b) => {
                format!("X'{}'", b.iter().map(|c| format!("{c:02x}")).collect::<String>())
            }
        })
        .collect();
    parts.join(", ")
}

impl MariaDbEngine {
    /// Applies `ops` to `table` in order, [`OPS_PER_COMMIT`] per transaction, then waits
    /// for purge. `on_ops` gets the number of operations of each committed transaction.
    pub(super) fn apply_ops(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), ServerError> {
        let name = self.owned_name(table)?;
        // Deleted rows' checksum values are unknown here: the next load reads the table's.
        self.contents.remove(&name);
        let delete = self
            .conn
            .prep(format!(
                "DELETE FROM {} WHERE {}",
                quote_ident(&name),
                sql::pk_equals_params(table)
            ))
            .map_err(|e| sql_err("preparing the churn DELETE failed", e))?;
        let mut batch = Batch { inserts: Vec::new(), ops: 0, open: false };
        let outcome = (|| {
            for op in ops {
                if !batch.open {
                    self.conn
                        .query_drop("START TRANSACTION")
                        .map_err(|e| sql_err("START TRANSACTION failed", e))?;
                    batch.open = true;
                }
                match op {
                    Op::Insert(row) => batch.inserts.push(row),
                    Op::Delete(key) => {
                        self.flush_inserts(table, &mut batch.inserts)?;
                        let params: Vec<mysql::Value> = key
                            .iter()
                            .zip(&table.primary_key)
                            .map(|(v, &c)| sql::param(v, &table.columns[c].ty))
                            .collect();
                        self.conn
                            .exec_drop(&delete, params)
                            .map_err(|e| sql_err("churn DELETE failed", e))?;
                        if self.conn.affected_rows() != 1 {
                            return Err(ServerError::Sql(format!(
                                "churn: deleting primary key ({}) from `{name}` removed {} rows \
                                 instead of one; the server's rows differ from the ones keylab \
                                 tracks",
                                show_key(&key),
                                self.conn.affected_rows()
                            )));
                        }
                    }
                }
                batch.ops += 1;
                if batch.ops == OPS_PER_COMMIT {
                    self.commit(table, &mut batch, on_ops)?;
                }
            }
            self.commit(table, &mut batch, on_ops)
        })();
        if outcome.is_err() && batch.open {
            // The failed transaction's changes are undone; the error is what matters.
            let _ = self.conn.query_drop("ROLLBACK");
        }
        outcome?;
        self.wait_for_purge()
    }

    fn commit(
        &mut self,
        table: &Table,
        batch: &mut Batch,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), ServerError> {
        if !batch.open {
            return Ok(());
        }
        self.flush_inserts(table, &mut batch.inserts)?;
        self.conn.query_drop("COMMIT").map_err(|e| sql_err("COMMIT failed", e))?;
        batch.open = false;
        on_ops(batch.ops as u64);
        batch.ops = 0;
        Ok(())
    }

    /// Sends the pending inserts as one multi-row `INSERT`.
    pub(super) fn flush_inserts(
        &mut self,
        table: &Table,
        rows: &mut Vec<Row>,
    ) -> Result<(), ServerError> {
        if rows.is_empty() {
            return Ok(());
        }
        self.conn
            .query_drop(sql::multi_insert_sql(table, rows))
            .map_err(|e| sql_err("churn INSERT failed", e))?;
        if table.auto_increment && table.primary_key.len() == 1 {
            // A multi-row INSERT reports the first value it assigned; the rest follow on.
            let wanted = match rows[0][table.primary_key[0]] {
                Value::Int(n) => u64::try_from(n).ok(),
                Value::UInt(n) => Some(n),
                _ => None,
            };
            let got = self.conn.last_insert_id();
            if wanted.is_some_and(|w| w != got) {
                return Err(ServerError::Sql(format!(
                    "churn: the server assigned AUTO_INCREMENT {got} to the row keylab numbered \
                     {}; later deletes by key would miss rows (were ids skipped by an earlier \
                     load?)",
                    wanted.unwrap_or_default()
                )));
            }
        }
        rows.clear();
        Ok(())
    }

    /// Blocks until purge has processed every committed transaction. A private MariaDB
    /// instance is told to wait (`innodb_max_purge_lag_wait = 0`); otherwise the history
    /// list length is polled until zero, for at most [`URL_PURGE_WAIT`] on a user's server
    /// (whose globals keylab never changes), with a note when it does not get there.
    pub(super) fn wait_for_purge(&mut self) -> Result<(), ServerError> {
        let private = matches!(self.target, Target::Private { .. });
        if private && self.flavour == Flavour::Mariadb {
            match self.conn.query_drop("SET GLOBAL innodb_max_purge_lag_wait = 0") {
                Ok(()) => return Ok(()),
                Err(mysql::Error::MySqlError(e)) if e.code == ER_UNKNOWN_SYSTEM_VARIABLE => {}
                Err(e) => return Err(sql_err("waiting for purge failed", e)),
            }
        }
        let limit = if private { PRIVATE_PURGE_WAIT } else { URL_PURGE_WAIT };
        let start = Instant::now();
        loop {
            match metrics::history_length(&mut self.conn) {
                Some(0) => return Ok(()),
                Some(n) if start.elapsed() >= limit => {
                    self.note_once(format!(
                        "purge did not finish within {} s after a churn call (history list \
                         length still {n}); merge counters of a round may include purge work \
                         of earlier rounds",
                        limit.as_secs()
                    ));
                    return Ok(());
                }
                Some(_) => std::thread::sleep(Duration::from_millis(50)),
                None => {
                    self.note_once(
                        "the history list length cannot be read (INNODB_METRICS \
                         trx_rseg_history_len disabled and no PROCESS privilege): churn does \
                         not wait for purge, so merge counters may lag"
                            .into(),
                    );
                    return Ok(());
                }
            }
        }
    }

    /// Adds a note unless one starting the same way is there already.
    pub(super) fn note_once(&mut self, note: String) {
        let head: String = note.chars().take(40).collect();
        if !self.notes.iter().any(|n| n.starts_with(&head)) {
            self.notes.push(note);
        }
    }
}

/// The transaction being built.
struct Batch {
    inserts: Vec<Row>,
    ops: usize,
    open: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_show_as_text_or_hex() {
        assert_eq!(show_key(&[Value::Bytes(b"abc".to_vec()), Value::Int(-3)]), "'abc', -3");
        assert_eq!(show_key(&[Value::Bytes(vec![0, 255])]), "X'00ff'");
    }
}
