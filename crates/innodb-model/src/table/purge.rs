//! Autocommitted inserts with their undo logs and purge (docs/model-rules.md §15): what a
//! mixed workload's inserts cost a server besides the index changes. The undo bookkeeping
//! is `crate::undo`; this file runs it against the table's buffer pool. Without a buffer
//! pool nothing here counts (every page cached, no reads).

use super::SimTable;
use crate::undo::{LoggedInsert, PURGE_BATCH_LOGS};
use crate::SimError;
use keylab_schema::Value;

impl SimTable {
    /// An `INSERT` in its own transaction (autocommit): [`SimTable::insert`], then the undo
    /// log the insert writes and its commit (`trx_undo_report_row_operation`,
    /// `trx_commit`); purge runs a batch when one is due.
    pub fn insert_autocommit(&mut self, row: &[Value]) -> Result<(), SimError> {
        self.insert(row)?;
        let Some(pool) = self.space.pool.as_mut() else { return Ok(()) };
        let key_bytes: u32 = self
            .table
            .primary_key
            .iter()
            .map(|&c| {
                let ty = &self.table.columns[c].ty;
                match &row[c] {
                    // The value AUTO_INCREMENT gave the row.
                    Value::Null => Value::Int(self.next_auto_inc - 1).stored_len(ty),
                    v => v.stored_len(ty),
                }
            })
            .sum();
        self.undo.log_insert(pool, key_bytes);
        if self.undo.purge_due() {
            self.purge_logs(PURGE_BATCH_LOGS);
        }
        Ok(())
    }

    /// Purges every waiting undo log, as a server does before keylab's work phase starts
    /// (it waits for an empty history).
    pub fn purge_all(&mut self) {
        while self.undo.history_len() > 0 && self.space.pool.is_some() {
            self.purge_logs(PURGE_BATCH_LOGS);
        }
    }

    /// Undo logs waiting for purge.
    pub fn purge_history_len(&self) -> usize {
        self.undo.history_len()
    }

    /// One purge batch of up to `n` logs, oldest first: each log's record is read from its
    /// undo page (`trx_purge_fetch_next_rec`), then the history is truncated.
    fn purge_logs(&mut self, n: usize) {
        let Some(pool) = self.space.pool.as_mut() else { return };
        let mut purged: Vec<LoggedInsert> = Vec::with_capacity(n);
        while purged.len() < n {
            let Some(log) = self.undo.next_to_purge(pool) else { break };
            purged.push(log);
        }
        self.undo.truncate(pool, &purged);
    }
}

#[cfg(test)]
mod tests {
    use crate::{SimSettings, SimTable};
    use keylab_schema::{ColumnType, Table, Value};

    /// E1's table with an AUTO_INCREMENT BIGINT key.
    fn table() -> Table {
        let mut t = crate::testkit::e1::e1_table(ColumnType::BigInt { unsigned: false }, false);
        t.auto_increment = true;
        t
    }

    #[test]
    fn autocommitted_inserts_write_undo_pages_and_purge_frees_them() {
        let settings = SimSettings { buffer_pool_bytes: Some(64 << 20), ..SimSettings::default() };
        let mut sim = SimTable::new(&table(), settings).unwrap();
        for _ in 0..126 {
            sim.insert_autocommit(&[Value::Null, Value::Null]).unwrap();
        }
        assert_eq!(sim.purge_history_len(), 126);
        let before = sim.pool_counters().unwrap().page_accesses;
        sim.insert_autocommit(&[Value::Null, Value::Null]).unwrap();
        // The 127th log makes a batch: every log purged (its undo page read and changed,
        // its rollback segment's header changed), its undo page freed.
        assert_eq!(sim.purge_history_len(), 0);
        let accesses = sim.pool_counters().unwrap().page_accesses - before;
        assert!(accesses > 127 * 3, "{accesses}");
        sim.purge_all();
        assert_eq!(sim.len(), 127);
    }

    #[test]
    fn without_a_pool_no_undo_is_kept() {
        let mut sim = SimTable::new(&table(), SimSettings::default()).unwrap();
        sim.insert_autocommit(&[Value::Null, Value::Null]).unwrap();
        assert_eq!(sim.purge_history_len(), 0);
    }
}
