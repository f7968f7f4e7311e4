//! Churn sent in another shape than the default ([`ChurnStyle`]): inserts one row per
//! autocommitted statement from one or several connections, deletes of a call in one
//! transaction. The operations, and so the rows deleted, are the caller's; with several
//! writers the server sees the inserts in an order of its own (the threads race), which the
//! simulator cannot follow. This module does not choose the operations.

use super::OPS_PER_COMMIT;
use crate::engine::{sql_err, work_opts, MariaDbEngine};
use crate::sql::{self, quote_ident};
use keylab_core::{ChurnDelete, ChurnInsert, ChurnStyle, Op, Row};
use keylab_schema::{Table, Value};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::sync::Mutex;

impl MariaDbEngine {
    /// Applies `ops` to `table` in order as `style` says, then waits for purge.
    pub(in crate::engine) fn apply_styled_ops(
        &mut self,
        table: &Table,
        style: &ChurnStyle,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), ServerError> {
        if *style == ChurnStyle::default() {
            return self.apply_ops(table, ops, on_ops);
        }
        let concurrent = style.insert == ChurnInsert::Row && style.writers > 1;
        if concurrent && table.auto_increment {
            return Err(ServerError::Refused(
                "churn with several writers cannot insert into an AUTO_INCREMENT table: the \
                 values the server assigns would not be the ones keylab deletes by later"
                    .into(),
            ));
        }
        let name = self.owned_name(table)?;
        self.contents.remove(&name);
        let delete_sql =
            format!("DELETE FROM {} WHERE {}", quote_ident(&name), sql::pk_equals_params(table));
        let delete = self
            .conn
            .prep(delete_sql)
            .map_err(|e| sql_err("preparing the churn DELETE failed", e))?;
        let mut ops = ops.peekable();
        while let Some(first) = ops.next() {
            match first {
                Op::Insert(row) => {
                    let mut rows = vec![row];
                    while let Some(Op::Insert(_)) = ops.peek() {
                        if let Some(Op::Insert(r)) = ops.next() {
                            rows.push(r);
                        }
                    }
                    let n = rows.len() as u64;
                    match style.insert {
                        ChurnInsert::Multi => {
                            for chunk in rows.chunks(OPS_PER_COMMIT) {
                                self.in_transaction(|e| {
                                    e.flush_inserts(table, &mut chunk.to_vec())
                                })?;
                            }
                        }
                        ChurnInsert::Row if style.writers <= 1 => {
                            // Autocommit: no transaction is opened around them.
                            for row in rows {
                                self.flush_inserts(table, &mut vec![row])?;
                            }
                        }
                        ChurnInsert::Row => self.insert_concurrently(table, rows, style.writers)?,
                    }
                    on_ops(n);
                }
                Op::Delete(key) => {
                    let mut keys = vec![key];
                    while let Some(Op::Delete(_)) = ops.peek() {
                        if let Some(Op::Delete(k)) = ops.next() {
                            keys.push(k);
                        }
                    }
                    let per_commit = match style.delete {
                        ChurnDelete::ByKey => OPS_PER_COMMIT,
                        ChurnDelete::OneTransaction => keys.len(),
                    };
                    for chunk in keys.chunks(per_commit.max(1)) {
                        self.in_transaction(|e| {
                            for key in chunk {
                                e.delete_one(table, &name, &delete, key)?;
                            }
                            Ok(())
                        })?;
                        on_ops(chunk.len() as u64);
                    }
                }
            }
        }
        self.wait_for_purge()
    }

    /// Runs `f` in a transaction, rolled back when it fails.
    fn in_transaction(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<(), ServerError>,
    ) -> Result<(), ServerError> {
        self.conn
            .query_drop("START TRANSACTION")
            .map_err(|e| sql_err("START TRANSACTION failed", e))?;
        match f(self) {
            Ok(()) => self.conn.query_drop("COMMIT").map_err(|e| sql_err("COMMIT failed", e)),
            Err(e) => {
                // The failed transaction's changes are undone; the error is what matters.
                let _ = self.conn.query_drop("ROLLBACK");
                Err(e)
            }
        }
    }

    /// `rows` as autocommitted single-row INSERTs from `writers` connections at once, each
    /// taking the next row when it is free (a pool of application connections).
    fn insert_concurrently(
        &mut self,
        table: &Table,
        rows: Vec<Row>,
        writers: u32,
    ) -> Result<(), ServerError> {
        let mut conns = Vec::new();
        for _ in 0..writers {
            conns.push(Conn::new(work_opts(&self.target, &self.database, self.flavour)).map_err(
                |e| ServerError::Connect(format!("cannot open a churn writer's connection: {e}")),
            )?);
        }
        let queue = Mutex::new(rows.into_iter());
        let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for mut conn in conns {
                let (queue, failures) = (&queue, &failures);
                s.spawn(move || loop {
                    let Some(row) = queue.lock().expect("no writer panics").next() else { break };
                    if let Err(e) = conn.query_drop(sql::multi_insert_sql(table, &[row])) {
                        failures.lock().expect("no writer panics").push(e.to_string());
                        break;
                    }
                });
            }
        });
        match failures.into_inner().expect("no writer panics").first() {
            Some(e) => Err(ServerError::sql("churn INSERT failed", e)),
            None => Ok(()),
        }
    }

    /// Deletes the row with primary key `key`, which must exist.
    fn delete_one(
        &mut self,
        table: &Table,
        name: &str,
        delete: &mysql::Statement,
        key: &[Value],
    ) -> Result<(), ServerError> {
        let params: Vec<mysql::Value> = key
            .iter()
            .zip(&table.primary_key)
            .map(|(v, &c)| sql::param(v, &table.columns[c].ty))
            .collect();
        self.conn.exec_drop(delete, params).map_err(|e| sql_err("churn DELETE failed", e))?;
        if self.conn.affected_rows() != 1 {
            return Err(ServerError::Sql(format!(
                "churn: deleting primary key ({}) from `{name}` removed {} rows instead of one; \
                 the server's rows differ from the ones keylab tracks",
                super::show_key(key),
                self.conn.affected_rows()
            )));
        }
        Ok(())
    }
}
