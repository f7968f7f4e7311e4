//! Reading a table's structure after a phase: `ANALYZE TABLE`, the statistics and sizes,
//! per-level figures from the tablespace file (private instance) or the buffer pool (a
//! user's server), and the counters since the table was created.
//!
//! On a user's server there is no file to count leaf pages in: `leaf_pages` is the
//! `n_leaf_pages` statistic only where that is the true count, else `null` with a note, and
//! fill figures cover the buffered pages, with a note when an index is not wholly buffered.
//! This module does not change the table's rows or structure (`ANALYZE TABLE` rewrites its
//! statistics).

use super::{sql_err, MariaDbEngine};
use crate::ibd;
use crate::metrics::{self, BufferedIndex};
use crate::sql::quote_ident;
use keylab_core::{BufferPoolResult, Counters, IndexResult, Measurement};
use keylab_schema::{Clustered, RowFormat, Table, ROW_ID_INDEX};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use serde_json::Value as Json;

impl MariaDbEngine {
    /// `read_file`: on a private instance, flush the table and read its tablespace file
    /// (exact per-level figures); otherwise, and always on a user's server, read the buffer
    /// pool, which writes nothing (load samples).
    pub(super) fn measure_table(
        &mut self,
        table: &Table,
        read_file: bool,
    ) -> Result<Measurement, ServerError> {
        // Only keylab's own tables: ANALYZE TABLE rewrites a table's statistics.
        let name = self.owned_name(table)?;
        // Its sampled index dives read pages the workload did not ask for.
        let analyze = format!("ANALYZE TABLE {}", quote_ident(&name));
        let (analyzed, _) = self.keep_apart(&name, |e| e.conn.query_drop(&analyze));
        analyzed.map_err(|e| sql_err("ANALYZE TABLE failed", e))?;
        if table.partitioning.is_some() {
            return self.measure_partitions(table, &name);
        }
        let sizes = metrics::table_sizes(&mut self.conn, &self.database, &name);
        let mut indexes = self.index_results(table, &name);
        // The tablespace reader reads uncompressed pages only.
        let compressed = table.row_format == RowFormat::Compressed;
        if compressed && read_file {
            self.note(format!(
                "`{name}` is ROW_FORMAT=COMPRESSED: its tablespace file is not read (compressed \
                 pages), so its figures come from the buffer pool"
            ));
        }
        if self.server.is_some() && read_file && !compressed {
            self.fill_from_tablespace(&name, &mut indexes)?;
        } else if self.server.is_some() {
            // The table was created in this instance, so a pool larger than the table holds
            // all of it; a note says when an index is only partly buffered.
            let blobs = may_store_off_page(table, self.page_size);
            self.fill_from_buffer_pool(&name, &mut indexes, blobs);
        } else {
            self.note_unknown_leaf_pages(&name, &indexes);
            let blobs = may_store_off_page(table, self.page_size);
            self.fill_from_buffer_pool(&name, &mut indexes, blobs);
        }
        indexes[0].name = "PRIMARY".into();
        let (counters, buffer_pool) = self.counters_since_create(&name);
        Ok(Measurement {
            counters,
            table: sizes,
            indexes,
            buffer_pool,
            postgres: None,
            shards: None,
        })
    }

    /// Each index of `table` with its statistics, read under the dictionary name `name` (a
    /// table, or a partition's `t#P#p`), PRIMARY first.
    pub(super) fn index_results(&mut self, table: &Table, name: &str) -> Vec<IndexResult> {
        let stats = metrics::index_stats(&mut self.conn, &self.database, name);
        // The clustered index under its name in the dictionary (a promoted UNIQUE key's, or
        // GEN_CLUST_INDEX on the hidden row id), reported as PRIMARY as on the InnoDB model.
        let clustered = table.innodb_clustered();
        let mut names = vec![match clustered {
            Clustered::PrimaryKey => "PRIMARY".to_string(),
            Clustered::Unique(i) => table.indexes[i].name.clone(),
            Clustered::RowId => ROW_ID_INDEX.to_string(),
        }];
        let secondary = table.indexes.iter().enumerate();
        names.extend(
            secondary
                .filter(|(i, _)| clustered != Clustered::Unique(*i))
                .map(|(_, ix)| ix.name.clone()),
        );
        names
            .iter()
            .map(|n| {
                let (size, leaf_stat) = stats.get(n).copied().unwrap_or_default();
                IndexResult {
                    name: n.clone(),
                    size_pages: size,
                    leaf_pages: trusted_leaf_pages(size, leaf_stat),
                    n_leaf_pages_stat: leaf_stat,
                    ..IndexResult::default()
                }
            })
            .collect()
    }

    /// Counters and buffer pool figures since `create_table` (all `None` for a table keylab
    /// did not create here), and the table's file reads and writes since then, also kept
    /// for [`EngineInfo::settings`].
    pub(super) fn counters_since_create(
        &mut self,
        name: &str,
    ) -> (Counters, Option<BufferPoolResult>) {
        let Some(base) = self.baselines.get(name).cloned() else {
            return (Counters::default(), None);
        };
        let now = self.counters_now();
        let now_io = metrics::table_file_io(&mut self.conn, &self.database, name);
        let io = base.file_io.zip(now_io).map(|(b, n)| n.since(&b).plus(&base.io_carried));
        let figure = match io {
            Some(io) => serde_json::json!({
                "io_write_requests": io.write_requests,
                "io_write_bytes": io.write_bytes,
                "io_read_requests": io.read_requests,
                "io_read_bytes": io.read_bytes,
            }),
            None => Json::Null,
        };
        self.file_writes.insert(name.to_string(), figure);
        // keylab's own checks' reads are not the workload's (`check_io`).
        let base_counters = base.counters.plus(&base.checks);
        let mut counters = metrics::counter_delta(&base_counters, &now);
        counters.io_write_requests = io.map(|io| io.write_requests);
        counters.io_write_bytes = io.map(|io| io.write_bytes);
        counters.io_read_requests = io.map(|io| io.read_requests);
        counters.io_read_bytes = io.map(|io| io.read_bytes);
        let pool_bytes = self.setting_u64("innodb_buffer_pool_size");
        let mut pool = metrics::buffer_pool_delta(&base_counters, &now, pool_bytes);
        if let Some(p) = pool.as_mut() {
            p.curve = self.pool_curves.get(name).cloned();
        }
        (counters, pool)
    }

    /// Private instance: exact per-level figures from the `.ibd` file after
    /// `FLUSH TABLES ... FOR EXPORT` (which writes the table's dirty pages and quiesces it).
    /// The clustered index's buffered pages are listed first: the flush drops its freed
    /// pages from the pool (`buf_flush_page` releases a page `buf_page_free` marked), and
    /// those the file marks free are its `freed_pages_in_pool`.
    fn fill_from_tablespace(
        &mut self,
        name: &str,
        indexes: &mut [IndexResult],
    ) -> Result<(), ServerError> {
        let clustered = indexes.first().map(|r| r.name.clone()).unwrap_or_default();
        let buffered =
            metrics::buffered_page_numbers(&mut self.conn, &self.database, name, &clustered);
        self.conn
            .query_drop(format!("FLUSH TABLES {} FOR EXPORT", quote_ident(name)))
            .map_err(|e| sql_err("FLUSH TABLES FOR EXPORT failed", e))?;
        let read = self.fill_from_file(name, indexes, buffered.as_deref());
        self.conn.query_drop("UNLOCK TABLES").map_err(|e| sql_err("UNLOCK TABLES failed", e))?;
        read
    }

    /// Per-level figures of the tablespace `name` (a table, or a partition's `t#P#p`),
    /// already flushed and quiesced.
    /// `buffered`: the clustered index's page numbers in the pool before the flush, if read.
    pub(super) fn fill_from_file(
        &mut self,
        name: &str,
        indexes: &mut [IndexResult],
        buffered: Option<&[u64]>,
    ) -> Result<(), ServerError> {
        let ids = metrics::index_ids(&mut self.conn, self.flavour, &self.database, name)
            .map_err(|e| sql_err("reading index ids failed", e))?;
        let path = self.tablespace_path(name)?;
        let report = ibd::read_tablespace(&path).map_err(|e| ServerError::Io(e.to_string()))?;
        let blob_pages = off_page_pages(&report);
        let clustered = indexes.first().map(|r| r.name.clone()).unwrap_or_default();
        if let (Some(r), Some(pages)) = (indexes.first_mut(), buffered) {
            r.freed_pages_in_pool =
                Some(pages.iter().filter(|&&p| report.is_free(p)).count() as u64);
        }
        for ix in &report.indexes {
            let Some(index_name) = ids.get(&ix.index_id) else { continue };
            let Some(r) = indexes.iter_mut().find(|r| &r.name == index_name) else { continue };
            // The file gives the true leaf count; the statistic can say 1 (full-scan path of
            // dict_stats_analyze_index) and stays apart in n_leaf_pages_stat.
            r.leaf_pages = Some(ix.leaf_pages);
            if r.name == clustered {
                // Off-page columns live only in clustered records, and their pages come from
                // the clustered index's leaf segment (`btr_store_big_rec_extern_fields` via
                // `btr_page_alloc` at level 0), so they are among its leaf pages as
                // `btr_get_size(BTR_N_LEAF_PAGES)` counts them and the contract defines them.
                r.leaf_pages = Some(ix.leaf_pages + blob_pages);
            }
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

    /// A user's server: a note for each index whose `leaf_pages` is `null`.
    fn note_unknown_leaf_pages(&mut self, name: &str, indexes: &[IndexResult]) {
        for r in indexes.iter().filter(|r| r.leaf_pages.is_none()) {
            let why = match r.n_leaf_pages_stat {
                Some(stat) => format!(
                    "mysql.innodb_index_stats says n_leaf_pages = {stat} (kept as \
                     n_leaf_pages_stat), which ANALYZE TABLE stores whatever the count when it \
                     scans the whole leaf level instead of sampling"
                ),
                None => "mysql.innodb_index_stats has no n_leaf_pages for it \
                         (innodb_stats_persistent off?)"
                    .to_string(),
            };
            self.note(format!(
                "`{name}`.{}: leaf_pages is null: {why}; a --url server has no tablespace file \
                 to count them in",
                r.name
            ));
        }
    }

    /// A user's server: figures over the buffered pages of each index, with a note when an
    /// index is not wholly in the buffer pool or has no page there. `blobs`: the table's
    /// records may keep columns off-page (see [`may_store_off_page`]).
    fn fill_from_buffer_pool(&mut self, name: &str, indexes: &mut [IndexResult], blobs: bool) {
        let Some(buffered) =
            metrics::buffered_pages(&mut self.conn, &self.database, name, self.page_size)
        else {
            self.note(format!(
                "INNODB_BUFFER_PAGE could not be read for `{name}` (PROCESS privilege?): \
                 fill figures are null"
            ));
            return;
        };
        let extent = ibd::extent_pages(self.page_size);
        for r in indexes.iter_mut() {
            let b = buffered.get(&r.name);
            // Off-page columns live in BLOB pages of the clustered index, which leaf_pages
            // and size count but INNODB_BUFFER_PAGE does not attribute to any index.
            let at_least = if blobs && r.name == "PRIMARY" {
                None
            } else {
                pages_in_use_at_least(r.size_pages, r.leaf_pages, extent)
            };
            if let Some(note) = pool_coverage_note(name, &r.name, b, at_least) {
                self.note(note);
            }
            if let Some(b) = b {
                r.fill_pct = Some(b.fill_pct);
                r.records_per_leaf = Some(b.records_per_page);
                r.fill_histogram = Some(b.fill_histogram.clone());
            }
        }
    }
}

/// `n_leaf_pages` of `mysql.innodb_index_stats` where it is the true leaf count: above 1
/// (ANALYZE TABLE's sampling path stores the count from the leaf segment), or 1 for an index
/// of one page (its root is its only leaf). Otherwise `None`: the full-scan path stores 1
/// whatever the count (`dict_stats_analyze_index`; 15 leaves stored as 1 on MariaDB 10.11).
pub(crate) fn trusted_leaf_pages(size_pages: Option<u64>, stat: Option<u64>) -> Option<u64> {
    match (size_pages, stat) {
        (_, Some(n)) if n > 1 => Some(n),
        (Some(1), _) => Some(1),
        _ => None,
    }
}

/// The fewest B-tree pages an index can be using, or `None` when nothing known bounds it.
fn pages_in_use_at_least(
    size_pages: Option<u64>,
    leaf_pages: Option<u64>,
    extent_pages: u64,
) -> Option<u64> {
    match (leaf_pages, size_pages) {
        // More than one leaf means at least a root above them.
        (Some(leaf), _) => Some(leaf + u64::from(leaf > 1)),
        // A segment holding an extent reserves at least one extent of pages; below that
        // both segments hold only fragment pages, each one in use, so `size` is exact.
        (None, Some(size)) if size < extent_pages => Some(size),
        // Otherwise `size` also counts free pages of reserved extents: an upper bound only.
        _ => None,
    }
}

/// The note on how much of index `index` of `table` the buffer pool holds, when there is
/// something to say: none of it, fewer pages than it uses, or that this cannot be told.
fn pool_coverage_note(
    table: &str,
    index: &str,
    buffered: Option<&BufferedIndex>,
    at_least: Option<u64>,
) -> Option<String> {
    let Some(b) = buffered else {
        return Some(format!(
            "`{table}`.{index}: none of its pages are in the buffer pool, so its fill_pct, \
             records_per_leaf and fill_histogram are null"
        ));
    };
    match at_least {
        Some(n) if b.pages < n => Some(format!(
            "`{table}`.{index}: only {} of the {n} or more pages it uses are in the buffer \
             pool; its fill figures cover only those",
            b.pages
        )),
        Some(_) => None,
        None => Some(format!(
            "`{table}`.{index}: whether all its pages are in the buffer pool cannot be told \
             (its leaf count is unknown and size counts reserved free pages, or it may keep \
             columns off-page); its fill figures cover the buffered ones"
        )),
    }
}

/// True when a record of `table` may be too long for its page, so that InnoDB may store
/// columns off-page (BLOB pages of the clustered index's leaf segment).
fn may_store_off_page(table: &Table, page_size: u32) -> bool {
    // Every column at its longest with 2 length bytes, plus 40 bytes for the record header,
    // the system columns and the NULL bitmap.
    let longest: u64 =
        table.columns.iter().map(|c| u64::from(c.ty.max_bytes()) + 2).sum::<u64>() + 40;
    // A record stays whole while it fits in half a page less 66 bytes (8126 of 16 KiB);
    // larger pages are taken as 16 KiB, which can only say "may" more often.
    longest > u64::from(page_size.min(16384)) / 2 - 66
}

/// Allocated pages of off-page columns in a file-per-table tablespace: `FIL_PAGE_TYPE_BLOB`
/// (10, MariaDB and MySQL 5.7) and MySQL 8.0's `FIL_PAGE_TYPE_LOB_INDEX`, `_LOB_DATA` and
/// `_LOB_FIRST` (22, 23, 24).
fn off_page_pages(report: &ibd::TablespaceReport) -> u64 {
    [10u16, 22, 23, 24].iter().filter_map(|t| report.page_types.get(t)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Charset, Column, ColumnType, RowFormat};

    #[test]
    fn the_leaf_statistic_is_used_only_where_it_is_the_true_count() {
        assert_eq!(trusted_leaf_pages(Some(40), Some(32)), Some(32));
        // The full-scan path: a 32-leaf index stored as 1.
        assert_eq!(trusted_leaf_pages(Some(40), Some(1)), None);
        assert_eq!(trusted_leaf_pages(Some(1), Some(1)), Some(1));
        assert_eq!(trusted_leaf_pages(None, None), None);
        assert_eq!(trusted_leaf_pages(Some(7), None), None);
    }

    #[test]
    fn pages_in_use_are_bounded_only_by_what_is_known() {
        assert_eq!(ibd::extent_pages(16384), 64);
        assert_eq!(ibd::extent_pages(4096), 256);
        assert_eq!(ibd::extent_pages(65536), 64);
        assert_eq!(pages_in_use_at_least(Some(200), Some(150), 64), Some(151));
        assert_eq!(pages_in_use_at_least(Some(1), Some(1), 64), Some(1));
        assert_eq!(pages_in_use_at_least(Some(30), None, 64), Some(30));
        assert_eq!(pages_in_use_at_least(Some(96), None, 64), None);
        assert_eq!(pages_in_use_at_least(None, None, 64), None);
    }

    #[test]
    fn coverage_notes_say_when_an_index_is_not_wholly_buffered() {
        let b = |pages| BufferedIndex { pages, ..BufferedIndex::default() };
        let none = pool_coverage_note("t", "k_id", None, Some(3)).unwrap();
        assert!(none.contains("none of its pages") && none.contains("null"), "{none}");
        let part = pool_coverage_note("t", "PRIMARY", Some(&b(100)), Some(151)).unwrap();
        assert!(part.contains("only 100 of the 151 or more"), "{part}");
        assert_eq!(pool_coverage_note("t", "PRIMARY", Some(&b(151)), Some(151)), None);
        let unknown = pool_coverage_note("t", "k_id", Some(&b(5)), None).unwrap();
        assert!(unknown.contains("cannot be told"), "{unknown}");
    }

    #[test]
    fn only_long_records_may_go_off_page() {
        let table = |ty| Table {
            name: "t".into(),
            columns: vec![
                Column::new("id", ColumnType::BigInt { unsigned: false }, false),
                Column::new("data", ty, true),
            ],
            primary_key: vec![0],
            auto_increment: false,
            indexes: Vec::new(),
            row_format: RowFormat::Dynamic,
            partitioning: None,
        };
        let e1 = table(ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 });
        assert!(!may_store_off_page(&e1, 16384));
        assert!(!may_store_off_page(&e1, 4096));
        let heavy = table(ColumnType::VarChar { chars: 2000, charset: Charset::Utf8mb4 });
        // 8000 bytes at most: whole on 16 KiB pages, perhaps off-page on 8 KiB ones.
        assert!(!may_store_off_page(&heavy, 16384));
        assert!(may_store_off_page(&heavy, 8192));
        assert!(may_store_off_page(&table(ColumnType::Text { charset: Charset::Utf8mb4 }), 65536));
    }
}
