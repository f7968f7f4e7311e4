//! [`SimTable`]: a table's clustered index and secondary indexes in one simulated
//! file-per-table tablespace, maintained row by row as INSERT does
//! (`row_ins_clust_index_entry`, then each secondary index).
//!
//! This file holds the table's state, CREATE TABLE (`SimTable::new`) and the reads. The row
//! insert (AUTO_INCREMENT values, uniqueness checked before any index changes, the key
//! encoding widened when a longer variable-length key arrives) is in `insert`, its two-pass
//! form without a buffer pool in `two_pass`, deletes, rebuilds and the other operations in
//! `ops`, the statistics in `analyze`, row validation against the columns' rules in
//! `validate`.

mod analyze;
mod insert;
mod ops;
mod purge;
mod read;
mod two_pass;
mod validate;

use crate::fsp::Fsp;
use crate::layout::Layout;
use crate::row_store::SecondaryValues;
use crate::space::Space;
use crate::stats::Counters;
use crate::tree::Tree;
use crate::{Geometry, InvariantViolation, SimError, SimSettings};
use keylab_schema::{ColumnType, Table, Value};
use std::collections::HashMap;
use validate::ColCheck;

pub use read::ReadStats;

#[cfg(test)]
pub(crate) use insert::KEYS_ENCODED_BY_INSERT;

/// Indexes per table handled without an allocation (more take a `Vec`).
pub(crate) const INLINE_TREES: usize = 8;

/// A simulated InnoDB table.
#[derive(Debug, Clone)]
pub struct SimTable {
    pub(crate) table: Table,
    pub(crate) settings: SimSettings,
    pub(crate) space: Space,
    /// PRIMARY first, then the secondary indexes in table order.
    pub(crate) trees: Vec<Tree>,
    pub(crate) rows: u64,
    /// Inserts and deletes applied.
    ops: u64,
    next_auto_inc: i64,
    pub(crate) keys: Vec<u8>,
    auto_row: Vec<Value>,
    /// Columns of secondary indexes that are not primary-key columns.
    pub(crate) sec_cols: Vec<usize>,
    /// Per row (by [`pk_map_key`]): the values of `sec_cols`, so that a delete by primary key
    /// finds the row's secondary records. Kept only when there are secondary indexes and the
    /// table is not [`SimSettings::insert_only`].
    pub(crate) row_sec: SecondaryValues,
    /// Per row with off-page columns: its BLOB pages, freed when the row is deleted.
    pub(crate) row_blobs: HashMap<Vec<u8>, Vec<u32>>,
    /// Buffers reused by every delete (no allocation per row).
    pub(crate) del_row: Vec<Value>,
    pub(crate) del_map_key: Vec<u8>,
    /// Per column, what `validate` accepts, precomputed so that a valid row costs one
    /// compare per column (a failing row is re-checked by the full rules for the message).
    col_checks: Vec<ColCheck>,
    /// Per index (PRIMARY first), the leaf page the last insert put its record on: what an
    /// insert working set is counted from.
    pub(crate) last_leaves: Vec<u32>,
    /// Inserts go into one index after the other even without a buffer pool (tests compare
    /// that path with `insert_found`'s).
    pub(crate) one_index_at_a_time: bool,
    /// The undo logs of autocommitted inserts and their purge (`insert_autocommit`).
    pub(crate) undo: crate::undo::UndoLogs,
}

/// A primary key as a hash-map key, independent of the simulator's key-slot widths (which
/// grow with longer values): per value a tag, then its bytes with their length or its
/// 8-byte sort key.
pub(crate) fn pk_map_key<'a>(values: impl Iterator<Item = &'a Value>, out: &mut Vec<u8>) {
    out.clear();
    for v in values {
        match v {
            Value::Null => out.push(0),
            Value::Bytes(b) => {
                out.push(1);
                out.extend_from_slice(&(b.len() as u32).to_le_bytes());
                out.extend_from_slice(b);
            }
            other => {
                out.push(2);
                other.write_sort_key(out);
            }
        }
    }
}

impl SimTable {
    /// Creates the empty table: one tablespace, PRIMARY's root (page 3) and each secondary
    /// index's root after it. Fails like CREATE TABLE on rows or keys that cannot fit.
    pub fn new(table: &Table, settings: SimSettings) -> Result<SimTable, SimError> {
        let bad = |reason: String| SimError::BadTable { table: table.name.clone(), reason };
        if table.columns.is_empty() {
            return Err(bad("no columns".into()));
        }
        if table.primary_key.is_empty() {
            return Err(bad("no primary key (a hidden DB_ROW_ID is not simulated)".into()));
        }
        for &c in table.primary_key.iter().chain(table.indexes.iter().flat_map(|i| &i.columns)) {
            if c >= table.columns.len() {
                return Err(bad(format!("index column {c} out of range")));
            }
        }
        if let Some(c) = table.primary_key.iter().find(|&&c| table.columns[c].nullable) {
            return Err(bad(format!("primary key column {} is nullable", table.columns[*c].name)));
        }
        if table.auto_increment
            && (table.primary_key.len() != 1
                || !matches!(
                    table.columns[table.primary_key[0]].ty,
                    ColumnType::Int | ColumnType::BigInt { .. } | ColumnType::Integer { .. }
                ))
        {
            return Err(bad("AUTO_INCREMENT needs a single integer primary-key column".into()));
        }
        if !(1..=100).contains(&settings.merge_threshold_pct) {
            return Err(SimError::BadSetting(format!(
                "merge_threshold_pct {} is outside 1..=100",
                settings.merge_threshold_pct
            )));
        }
        if !(10..=100).contains(&settings.fill_factor_pct) {
            return Err(SimError::BadSetting(format!(
                "fill_factor_pct {} is outside 10..=100",
                settings.fill_factor_pct
            )));
        }
        let geo = Geometry::new(settings.page_size, settings.merge_threshold_pct);
        let mut layouts = vec![Layout::clustered(table)];
        // The key parts the server would silently cut to a prefix (MariaDB builds `KEY (v(768))`
        // for a plain KEY on a longer column; `mysql_prepare_create_table` in sql_table.cc).
        let prefixes =
            keylab_schema::limits::check(table, settings.page_size.bytes()).unwrap_or_default();
        layouts.extend(table.indexes.iter().map(|ix| Layout::secondary(table, ix, &prefixes)));
        for l in &layouts {
            let worst = l.worst_case_bytes();
            if geo.needs_ext(worst) {
                return Err(SimError::RowTooLarge {
                    index: l.name.clone(),
                    record_bytes: worst,
                    limit_bytes: geo.max_rec_bytes(),
                });
            }
        }
        for (ix, l) in table.indexes.iter().zip(&layouts[1..]) {
            let part = |c: usize| {
                let ty = &table.columns[c].ty;
                match prefixes.iter().find(|p| p.index == ix.name && p.column == c) {
                    // A prefix part (only string columns get one) holds its characters.
                    Some(p) => match *ty {
                        ColumnType::Char { charset, .. } | ColumnType::VarChar { charset, .. } => {
                            p.chars * charset.max_bytes_per_char()
                        }
                        _ => ty.max_bytes(),
                    },
                    None => ty.max_bytes(),
                }
            };
            let key_bytes: u32 = ix.columns.iter().map(|&c| part(c)).sum();
            if key_bytes > geo.max_key_bytes() {
                return Err(SimError::KeyTooLong {
                    index: l.name.clone(),
                    key_bytes,
                    limit_bytes: geo.max_key_bytes(),
                });
            }
        }
        if settings.buffer_pool_bytes.is_some_and(|b| b < 8 * geo.page_bytes as u64) {
            return Err(SimError::BadSetting(format!(
                "buffer_pool_bytes {:?} is less than 8 pages",
                settings.buffer_pool_bytes
            )));
        }
        let (space, trees) = Self::fresh_space(&settings, geo, layouts, Counters::default());
        let pk = &table.primary_key;
        let mut sec_cols: Vec<usize> = table
            .indexes
            .iter()
            .flat_map(|i| i.columns.iter().copied())
            .filter(|c| !pk.contains(c))
            .collect();
        sec_cols.sort_unstable();
        sec_cols.dedup();
        Ok(SimTable {
            table: table.clone(),
            settings,
            space,
            trees,
            rows: 0,
            ops: 0,
            next_auto_inc: 1,
            keys: Vec::new(),
            auto_row: Vec::new(),
            sec_cols,
            row_sec: SecondaryValues::default(),
            row_blobs: HashMap::new(),
            del_row: Vec::new(),
            del_map_key: Vec::new(),
            col_checks: Self::col_checks(table),
            last_leaves: vec![0; 1 + table.indexes.len()],
            one_index_at_a_time: false,
            undo: crate::undo::UndoLogs::new(geo.page_bytes),
        })
    }

    /// A new tablespace with an empty tree per layout (CREATE TABLE, or the new table of a
    /// rebuild), with a buffer pool when the settings ask for one.
    pub(crate) fn fresh_space(
        settings: &SimSettings,
        geo: Geometry,
        layouts: Vec<Layout>,
        counters: Counters,
    ) -> (Space, Vec<Tree>) {
        let pool = settings.buffer_pool_bytes.map(|b| {
            crate::pool::Pool::new(
                crate::pool::pool_pages(b, geo.page_bytes, settings.pool.page_cleaner),
                geo.page_bytes,
                settings.pool,
                settings.change_buffering_on(),
            )
        });
        let mut space = Space {
            pages: Vec::new(),
            fsp: Fsp::new(geo.extent_pages, geo.page_bytes, settings.flavour),
            geo,
            flavour: settings.flavour,
            counters,
            pool,
            freed_unreused: Default::default(),
        };
        if let Some(pool) = &mut space.pool {
            pool.create_file_space_pages();
        }
        let trees = layouts.into_iter().map(|l| Tree::create(&mut space, l)).collect();
        (space, trees)
    }

    /// Rows in the table.
    pub fn len(&self) -> u64 {
        self.rows
    }

    /// True before the first row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Per index (PRIMARY first, then the secondary indexes in table order), the leaf page
    /// the last successful insert put its record on (0 before any insert). Counting the
    /// distinct pages over a stream of inserts gives their working set.
    pub fn last_insert_leaves(&self) -> &[u32] {
        &self.last_leaves
    }

    /// The settings the table was created with.
    pub fn settings(&self) -> &SimSettings {
        &self.settings
    }

    /// Rows whose secondary values are kept for deletes.
    #[cfg(test)]
    pub(crate) fn row_sec_rows(&self) -> usize {
        self.row_sec.len()
    }

    /// Per-operation bookkeeping: the pool's clock and the periodic invariant check.
    #[inline]
    pub(crate) fn after_op(&mut self) {
        if let Some(pool) = &mut self.space.pool {
            pool.tick();
        }
        self.ops += 1;
        if let Some(every) = self.settings.check_every {
            if every > 0 && self.ops % every == 0 {
                if let Err(v) = self.check() {
                    panic!("invariant violated after {} operations: {v}", self.ops);
                }
            }
        }
    }

    /// Records in the clustered index, as its tree counts them when records go in and out
    /// (`check` verifies the count against a walk of the leaves); [`SimTable::len`] is the
    /// table's own row count, kept apart, so the two can check each other.
    pub fn primary_records(&self) -> u64 {
        self.trees[0].records
    }

    /// Walks every index and checks the tree invariants.
    pub fn check(&self) -> Result<(), InvariantViolation> {
        for t in &self.trees {
            crate::check::check_tree(&self.space, t)?;
        }
        Ok(())
    }
}

#[cfg(test)]
impl SimTable {
    /// Every leaf key of index `ix`, in leaf-chain order (for tests).
    pub(crate) fn leaf_keys(&self, ix: usize) -> Vec<Vec<u8>> {
        let t = &self.trees[ix];
        let leftmost = *t.leftmost_pages(&self.space).last().expect("leaf level");
        let kw = t.kw();
        Tree::level_pages(&self.space, leftmost)
            .flat_map(|p| {
                let page = self.space.page(p);
                (0..page.len()).map(move |i| page.key(i, kw).to_vec())
            })
            .collect()
    }

    /// Leaf keys of index `ix` grouped by page, in leaf-chain order (for tests).
    pub(crate) fn leaf_page_keys(&self, ix: usize) -> Vec<Vec<Vec<u8>>> {
        let t = &self.trees[ix];
        let leftmost = *t.leftmost_pages(&self.space).last().expect("leaf level");
        let kw = t.kw();
        Tree::level_pages(&self.space, leftmost)
            .map(|p| {
                let page = self.space.page(p);
                (0..page.len()).map(|i| page.key(i, kw).to_vec()).collect()
            })
            .collect()
    }

    /// The encoded key of `row` in index `ix` (for tests).
    pub(crate) fn encode(&self, ix: usize, row: &[Value]) -> Vec<u8> {
        let mut k = Vec::new();
        self.trees[ix].layout.encode_key(row, &mut k);
        k
    }
}
