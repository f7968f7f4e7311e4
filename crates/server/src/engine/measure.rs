//! Reading a table's structure after a phase: `ANALYZE TABLE`, the statistics and sizes,
//! per-level figures from the tablespace file (private instance) or the buffer pool (a
//! user's server), and the counters since the table was created.
//!
//! This module does not change the table.

use super::{sql_err, MariaDbEngine};
use crate::error::ServerError;
use crate::ibd;
use crate::metrics;
use crate::sql::quote_ident;
use keylab_core::{BufferPoolResult, Counters, IndexResult, Measurement};
use keylab_schema::Table;
use mysql::prelude::Queryable;
use serde_json::Value as Json;

impl MariaDbEngine {
    pub(super) fn measure_table(&mut self, table: &Table) -> Result<Measurement, ServerError> {
        // Only keylab's own tables: ANALYZE TABLE rewrites a table's statistics.
        let name = self.owned_name(table)?;
        self.conn
            .query_drop(format!("ANALYZE TABLE {}", quote_ident(&name)))
            .map_err(|e| sql_err("ANALYZE TABLE failed", e))?;
        let sizes = metrics::table_sizes(&mut self.conn, &self.database, &name);
        let stats = metrics::index_stats(&mut self.conn, &self.database, &name);
        let mut names = vec!["PRIMARY".to_string()];
        names.extend(table.indexes.iter().map(|i| i.name.clone()));
        let mut indexes: Vec<IndexResult> = names
            .iter()
            .map(|n| {
                let (size, leaf) = stats.get(n).copied().unwrap_or_default();
                IndexResult {
                    name: n.clone(),
                    size_pages: size,
                    leaf_pages: leaf,
                    ..IndexResult::default()
                }
            })
            .collect();
        if self.server.is_some() {
            self.fill_from_tablespace(&name, &mut indexes)?;
        } else {
            self.fill_from_buffer_pool(&name, &mut indexes);
        }
        let (counters, buffer_pool) = self.counters_since_create(&name);
        Ok(Measurement { counters, table: sizes, indexes, buffer_pool })
    }

    /// Counters and buffer pool figures since `create_table` (all `None` for a table keylab
    /// did not create here), and the table's file writes since then, also kept for
    /// [`EngineInfo::settings`].
    fn counters_since_create(&mut self, name: &str) -> (Counters, Option<BufferPoolResult>) {
        let Some(base) = self.baselines.get(name).cloned() else {
            return (Counters::default(), None);
        };
        let now = metrics::read_counters(&mut self.conn);
        let writes = metrics::table_file_writes(&mut self.conn, &self.database, name);
        let file_writes = base
            .file_writes
            .zip(writes)
            .map(|((c0, b0), (c1, b1))| (c1.saturating_sub(c0), b1.saturating_sub(b0)));
        let figure = match file_writes {
            Some((requests, bytes)) => serde_json::json!({
                "io_write_requests": requests,
                "io_write_bytes": bytes,
            }),
            None => Json::Null,
        };
        self.file_writes.insert(name.to_string(), figure);
        let mut counters = metrics::counter_delta(&base.counters, &now);
        counters.io_write_requests = file_writes.map(|w| w.0);
        counters.io_write_bytes = file_writes.map(|w| w.1);
        let pool_bytes = self.setting_u64("innodb_buffer_pool_size");
        let pool = metrics::buffer_pool_delta(&base.counters, &now, pool_bytes);
        (counters, pool)
    }

    /// Private instance: exact per-level figures from the `.ibd` file after
    /// `FLUSH TABLES ... FOR EXPORT` (which writes the table's dirty pages and quiesces it).
    fn fill_from_tablespace(
        &mut self,
        name: &str,
        indexes: &mut [IndexResult],
    ) -> Result<(), ServerError> {
        let ids = metrics::index_ids(&mut self.conn, self.flavour, &self.database, name)
            .map_err(|e| sql_err("reading index ids failed", e))?;
        let path = self.tablespace_path(name)?;
        self.conn
            .query_drop(format!("FLUSH TABLES {} FOR EXPORT", quote_ident(name)))
            .map_err(|e| sql_err("FLUSH TABLES FOR EXPORT failed", e))?;
        let report = ibd::read_tablespace(&path);
        self.conn.query_drop("UNLOCK TABLES").map_err(|e| sql_err("UNLOCK TABLES failed", e))?;
        let report = report.map_err(|e| ServerError::Io(e.to_string()))?;
        for ix in &report.indexes {
            let Some(index_name) = ids.get(&ix.index_id) else { continue };
            let Some(r) = indexes.iter_mut().find(|r| &r.name == index_name) else { continue };
            // The file gives the true leaf count; the statistic can say 1 (full-scan path of
            // dict_stats_analyze_index), so it is kept apart.
            r.n_leaf_pages_stat = r.leaf_pages;
            r.leaf_pages = Some(ix.leaf_pages);
            r.nonleaf_pages = Some(ix.nonleaf_pages);
            r.height = Some(ix.height);
            r.fill_pct = ix.fill_pct;
            r.records_per_leaf = ix.records_per_leaf;
            r.fill_histogram = Some(ix.fill_histogram.clone());
            r.pages_per_level = Some(ix.pages_per_level.clone());
        }
        Ok(())
    }

    /// Path of a table's tablespace file on a private instance.
    pub fn tablespace_path(&self, table: &str) -> Result<std::path::PathBuf, ServerError> {
        let server = self.server.as_ref().ok_or_else(|| {
            ServerError::Refused("tablespace files are read only on a private instance".into())
        })?;
        Ok(server.datadir().join(&self.database).join(format!("{table}.ibd")))
    }

    /// A user's server: figures over the buffered pages of each index, with a warning when
    /// an index is not wholly in the buffer pool.
    fn fill_from_buffer_pool(&mut self, name: &str, indexes: &mut [IndexResult]) {
        let Some(buffered) =
            metrics::buffered_pages(&mut self.conn, &self.database, name, self.page_size)
        else {
            self.notes.push(format!(
                "INNODB_BUFFER_PAGE could not be read for `{name}` (PROCESS privilege?): \
                 fill figures are null"
            ));
            return;
        };
        for r in indexes.iter_mut() {
            let Some(b) = buffered.get(&r.name) else { continue };
            if let Some(size) = r.size_pages.filter(|&s| b.pages < s.min(r.leaf_pages.unwrap_or(s)))
            {
                self.notes.push(format!(
                    "`{name}`.{}: only {} of its {size} pages are in the buffer pool; its fill \
                     figures cover only those",
                    r.name, b.pages
                ));
            }
            r.fill_pct = Some(b.fill_pct);
            r.records_per_leaf = Some(b.records_per_page);
            r.fill_histogram = Some(b.fill_histogram.clone());
        }
    }
}
