//! Autocommitted inserts with their undo logs, and purge's visit to each inserted row
//! (docs/model-rules.md §15): what a mixed workload's inserts cost a server besides the
//! index changes. The undo bookkeeping is `crate::undo`; this file runs it against the
//! table's buffer pool and clustered index. Without a buffer pool nothing here counts
//! (every page cached, no reads).

use super::SimTable;
use crate::page::PageNo;
use crate::undo::{LoggedInsert, PURGE_BATCH_LOGS};
use crate::SimError;
use keylab_schema::Value;

impl SimTable {
    /// An `INSERT` in its own transaction (autocommit): [`SimTable::insert`], then the undo
    /// log the insert writes and its commit (`trx_undo_report_row_operation`,
    /// `trx_commit`); purge runs a batch when one is due.
    pub fn insert_autocommit(&mut self, row: &[Value]) -> Result<(), SimError> {
        self.insert(row)?;
        if self.space.pool.is_none() {
            return Ok(());
        }
        let pk: Vec<Value> = self
            .table
            .primary_key
            .iter()
            .map(|&c| match &row[c] {
                // The value AUTO_INCREMENT gave the row.
                Value::Null => Value::Int(self.next_auto_inc - 1),
                v => v.clone(),
            })
            .collect();
        let key_bytes: u32 = self
            .table
            .primary_key
            .iter()
            .zip(&pk)
            .map(|(&c, v)| v.stored_len(&self.table.columns[c].ty))
            .sum();
        let pool = self.space.pool.as_mut().expect("checked above");
        self.undo.log_insert(pool, pk, key_bytes);
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
    /// undo page and its row visited, then the history is truncated.
    fn purge_logs(&mut self, n: usize) {
        let mut purged: Vec<LoggedInsert> = Vec::with_capacity(n);
        while purged.len() < n {
            let Some(pool) = self.space.pool.as_mut() else { return };
            let Some(log) = self.undo.next_to_purge(pool) else { break };
            self.purge_visit(&log.pk);
            purged.push(log);
        }
        if let Some(pool) = self.space.pool.as_mut() {
            self.undo.truncate(pool, &purged);
        }
    }

    /// `row_purge_reset_trx_id`: the row's clustered record gets DB_TRX_ID 0, through a
    /// search to its leaf (`row_purge_reposition_pcur`, BTR_MODIFY_LEAF), which it changes.
    fn purge_visit(&mut self, pk: &[Value]) {
        let Ok(key) = self.pk_search_key(pk) else { return };
        let tree = &self.trees[0];
        let kw = tree.kw();
        let mut p = tree.root;
        loop {
            let page = self.space.page(p);
            if page.level == 0 {
                self.space.touch_dirty(p);
                break;
            }
            let (le, _) = page.search(&key, kw);
            let child = PageNo(page.children[le.saturating_sub(1)]);
            self.space.touch_read(p);
            p = child;
        }
        self.keys = key;
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
    fn autocommitted_inserts_write_undo_pages_and_purge_visits_their_rows() {
        let settings = SimSettings { buffer_pool_bytes: Some(64 << 20), ..SimSettings::default() };
        let mut sim = SimTable::new(&table(), settings).unwrap();
        for _ in 0..126 {
            sim.insert_autocommit(&[Value::Null, Value::Null]).unwrap();
        }
        assert_eq!(sim.purge_history_len(), 126);
        let before = sim.pool_counters().unwrap().page_accesses;
        sim.insert_autocommit(&[Value::Null, Value::Null]).unwrap();
        // The 127th log makes a batch: every log purged, its undo page freed.
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
