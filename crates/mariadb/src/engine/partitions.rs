//! Measuring a partitioned table: each partition is its own tablespace (`t#P#p.ibd`, one
//! `ha_innobase` per partition under `ha_partition`), so each is read as a table of its
//! own (statistics under `t#P#p`, per-level figures from its file), and the table's figures
//! are their sums. This module changes no row.

use super::{sql_err, MariaDbEngine};
use crate::metrics::get_u64;
use crate::sql::quote_ident;
use keylab_core::{Measurement, ShardResult, ShardsResult, TableSizes};
use keylab_schema::Table;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;

impl MariaDbEngine {
    /// Every partition of `table` (created here as `name`), analyzed already.
    pub(super) fn measure_partitions(
        &mut self,
        table: &Table,
        name: &str,
    ) -> Result<Measurement, ServerError> {
        let parts = table.partitioning.as_ref().expect("a partitioned table");
        let mut shards = Vec::new();
        for (k, p) in parts.partitions.iter().enumerate() {
            let row: Option<mysql::Row> = self
                .conn
                .exec_first(
                    "SELECT DATA_LENGTH, INDEX_LENGTH, DATA_FREE FROM information_schema.PARTITIONS \
                     WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND PARTITION_NAME = ?",
                    (&self.database, name, &p.name),
                )
                .map_err(|e| sql_err("reading partition sizes failed", e))?;
            let table_sizes = row.map_or_else(TableSizes::default, |r| TableSizes {
                data_length: get_u64(&r, "DATA_LENGTH"),
                index_length: get_u64(&r, "INDEX_LENGTH"),
                data_free: get_u64(&r, "DATA_FREE"),
            });
            let rows: Option<u64> = self
                .conn
                .query_first(format!(
                    "SELECT COUNT(*) FROM {} PARTITION ({})",
                    quote_ident(name),
                    quote_ident(&p.name)
                ))
                .map_err(|e| sql_err("counting a partition's rows failed", e))?;
            let inner = format!("{name}#P#{}", p.name);
            let indexes = self.index_results(table, &inner);
            shards.push(ShardResult {
                shard: k as u32,
                bound: Some(parts.describe(k, &table.columns)),
                rows,
                counters: Default::default(),
                table: table_sizes,
                indexes,
            });
        }
        if self.server.is_some() {
            // One FLUSH ... FOR EXPORT quiesces every partition's tablespace.
            self.conn
                .query_drop(format!("FLUSH TABLES {} FOR EXPORT", quote_ident(name)))
                .map_err(|e| sql_err("FLUSH TABLES FOR EXPORT failed", e))?;
            let mut read = Ok(());
            for (s, p) in shards.iter_mut().zip(&parts.partitions) {
                read = self.fill_from_file(&format!("{name}#P#{}", p.name), &mut s.indexes, None);
                if read.is_err() {
                    break;
                }
            }
            self.conn
                .query_drop("UNLOCK TABLES")
                .map_err(|e| sql_err("UNLOCK TABLES failed", e))?;
            read?;
        }
        for s in &mut shards {
            if let Some(ix) = s.indexes.first_mut() {
                ix.name = "PRIMARY".into();
            }
        }
        let (counters, buffer_pool) = self.counters_since_create(name);
        let mut m = ShardsResult {
            sharding: parts.method.sql().to_ascii_lowercase(),
            partitioning: parts.mysql_clause(&table.columns),
            shards,
            windows_from: "measured: rows per partition counted on the server".into(),
            partitions: true,
            ..ShardsResult::default()
        }
        .into_measurement();
        m.counters = counters;
        m.buffer_pool = buffer_pool;
        Ok(m)
    }
}
