//! Measuring a partitioned table: each partition is a relation of its own (its heap and its
//! indexes, named by `sql::create_statements`), measured as the table it is; the table's
//! figures are their sums. This module changes no row.

use super::{sql_err, PgEngine};
use keylab_core::{Counters, Engine, EngineError, Measurement};
use keylab_schema::Table;

impl PgEngine {
    /// A partitioned table: each partition measured as the table it is (its heap and its
    /// indexes, by the names `create_statements` gave them), the table's figures their sums.
    /// WAL, split and buffer figures are the whole run's (the WAL does not say which
    /// partition a record was for), so each partition's counters are unknown.
    pub(super) fn measure_partitions(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        let parts = table.partitioning.as_ref().expect("a partitioned table");
        let mut shards = Vec::new();
        let mut whole: Option<Measurement> = None;
        let mut heap_pages = Some(0u64);
        for k in 0..parts.partitions.len() {
            let part = table.partition_table(k);
            let m = self.measure(&part)?;
            let n: i64 = self
                .client
                .query_one(&format!("SELECT count(*) FROM {}", self.table_ref(&part)), &[])
                .map_err(|e| sql_err("counting a partition's rows failed", e))?
                .get(0);
            heap_pages =
                heap_pages.zip(m.postgres.as_ref().and_then(|p| p.heap_pages)).map(|(a, b)| a + b);
            shards.push(keylab_core::ShardResult {
                shard: k as u32,
                bound: Some(parts.describe(k, &table.columns)),
                rows: Some(n as u64),
                counters: Counters::default(),
                table: m.table.clone(),
                indexes: m.indexes.clone(),
            });
            whole.get_or_insert(m);
        }
        let result = keylab_core::ShardsResult {
            sharding: parts.method.sql().to_ascii_lowercase(),
            partitioning: parts.postgres_clause(&table.columns),
            shards,
            windows_from: "measured: rows per partition counted on the server".into(),
            partitions: true,
            ..keylab_core::ShardsResult::default()
        };
        let mut m = result.into_measurement();
        if let Some(w) = whole {
            // Splits are counted from the WAL of the whole run; reads and hits were the
            // first partition's only, so they are left unknown.
            m.counters = Counters { page_splits: w.counters.page_splits, ..Counters::default() };
            m.postgres = w.postgres.map(|mut p| {
                p.heap_pages = heap_pages;
                p
            });
        }
        Ok(m)
    }
}
