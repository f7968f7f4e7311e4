//! [`SimTable`]: a table's clustered index and secondary indexes in one simulated
//! file-per-table tablespace, maintained row by row as INSERT does
//! (`row_ins_clust_index_entry`, then each secondary index).
//!
//! It validates rows, assigns AUTO_INCREMENT values, checks uniqueness before changing any
//! index, and widens the key encoding when a longer variable-length key arrives.
//! Row validation against the columns' rules is in `validate`.

mod ops;
mod two_pass;
mod validate;

use crate::fsp::Fsp;
use crate::layout::Layout;
use crate::row_store::SecondaryValues;
use crate::stats::Counters;
use crate::tree::{Space, Tree};
use crate::{Geometry, InvariantViolation, SimError, SimSettings, TableStats};
use keylab_schema::{ColumnType, Table, Value};
use smallvec::SmallVec;
use std::collections::HashMap;
use validate::ColCheck;

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
}

#[cfg(test)]
thread_local! {
    /// Index keys an insert encoded itself, not handed to it pre-encoded (`tests_prefetch`
    /// checks that the lookahead's keys are reused).
    pub(crate) static KEYS_ENCODED_BY_INSERT: std::cell::Cell<u64> =
        const { std::cell::Cell::new(0) };
}

/// `encode_key` of `row` in `tree` by an insert, counted in tests.
#[inline]
fn encode_for_insert(tree: &Tree, row: &[Value], out: &mut Vec<u8>) {
    #[cfg(test)]
    KEYS_ENCODED_BY_INSERT.with(|n| n.set(n.get() + 1));
    tree.layout.encode_key(row, out);
}

/// `key`, handed to an insert as already encoded, when it has `tree`'s current width: slot
/// widths only grow, so such a key was encoded in them (debug builds check it is `row`'s).
#[inline]
fn pre_encoded<'k>(tree: &Tree, row: &[Value], key: Option<&'k [u8]>) -> Option<&'k [u8]> {
    let key = key.filter(|k| k.len() == tree.kw())?;
    #[cfg(debug_assertions)]
    {
        let mut k = Vec::new();
        tree.layout.encode_key(row, &mut k);
        debug_assert_eq!(k, key, "a pre-encoded key is this row's key");
    }
    let _ = row;
    Some(key)
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
                    ColumnType::Int | ColumnType::BigInt { .. }
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

    /// Inserts one row (values in table column order) into every index. A NULL in an
    /// AUTO_INCREMENT key takes the next value. Fails without changing anything on a
    /// duplicate key or a row that does not fit the table.
    pub fn insert(&mut self, row: &[Value]) -> Result<(), SimError> {
        self.insert_keyed(row, &[])
    }

    /// [`SimTable::insert`] of a row some of whose index keys the caller has already encoded
    /// (`pre_keys[t]` for index `t`, PRIMARY first, as `encode_key` wrote it; shorter than
    /// the index list, or `None`, where not given): `insert_batch`'s lookahead encodes each
    /// looked-ahead index's key once. A key is used only while it has its tree's current
    /// width (a wider slot since means a new encoding), never for a key the insert assigns
    /// (AUTO_INCREMENT).
    pub(crate) fn insert_keyed(
        &mut self,
        row: &[Value],
        pre_keys: &[Option<&[u8]>],
    ) -> Result<(), SimError> {
        self.validate(row)?;
        let pk0 = self.table.primary_key[0];
        if !self.table.auto_increment {
            return self.insert_row(row, pre_keys);
        }
        match row[pk0] {
            Value::Null if self.trees.len() == 1 => self.insert_auto_clustered_only(row),
            Value::Null => self.insert_auto_copied(row),
            Value::Int(v) => {
                self.insert_row(row, pre_keys)?;
                self.next_auto_inc = self.next_auto_inc.max(v.saturating_add(1));
                Ok(())
            }
            Value::UInt(v) => {
                self.insert_row(row, pre_keys)?;
                let v = i64::try_from(v).unwrap_or(i64::MAX);
                self.next_auto_inc = self.next_auto_inc.max(v.saturating_add(1));
                Ok(())
            }
            _ => self.insert_row(row, pre_keys),
        }
    }

    /// The AUTO_INCREMENT insert of a table with PRIMARY only: the row as given (its NULL
    /// key counts nothing in the record size) plus the key column's fixed bytes, and the key
    /// encoded straight from the counter, without copying the row into one with the value.
    /// Rows that go off-page take the general path.
    fn insert_auto_clustered_only(&mut self, row: &[Value]) -> Result<(), SimError> {
        let pk0 = self.table.primary_key[0];
        let v = self.next_auto_inc;
        let Ok(rec) = self.trees[0].layout.leaf_record(row, &self.table, &self.space.geo) else {
            // The general path reports the error with the full record's size.
            return self.insert_auto_copied(row);
        };
        // An integer key column is a fixed-length field: its bytes and no length byte.
        let key_bytes = Value::Int(v).stored_len(&self.table.columns[pk0].ty);
        let size = rec.size_bytes + key_bytes;
        if rec.blob_pages > 0 || self.space.geo.needs_ext(size) {
            return self.insert_auto_copied(row);
        }
        // `Value::write_sort_key` of `Value::Int(v)`: the single 8-byte key slot of an
        // integer primary key (not nullable, fixed width).
        let key = ((v as u64) ^ (1 << 63)).to_be_bytes();
        #[cfg(debug_assertions)]
        {
            let mut full = row.to_vec();
            full[pk0] = Value::Int(v);
            let mut k = Vec::new();
            self.trees[0].layout.encode_key(&full, &mut k);
            debug_assert_eq!(k, key);
            let r = self.trees[0].layout.leaf_record(&full, &self.table, &self.space.geo);
            debug_assert!(r.is_ok_and(|r| r.size_bytes == size && r.blob_pages == 0));
        }
        let tree = &mut self.trees[0];
        let Some(page) = tree.insert_unique(&mut self.space, &key, size) else {
            return Err(SimError::DuplicateKey { index: tree.layout.name.clone() });
        };
        self.last_leaves[0] = page.0;
        tree.records += 1;
        self.rows += 1;
        self.next_auto_inc += 1;
        self.after_op();
        Ok(())
    }

    /// The AUTO_INCREMENT insert through a copy of the row that holds the next value.
    fn insert_auto_copied(&mut self, row: &[Value]) -> Result<(), SimError> {
        let pk0 = self.table.primary_key[0];
        let mut owned = std::mem::take(&mut self.auto_row);
        // Reuse the buffers of the previous row: no allocation per row.
        owned.resize(row.len(), Value::Null);
        for (o, v) in owned.iter_mut().zip(row) {
            match (o, v) {
                (Value::Bytes(ob), Value::Bytes(vb)) => {
                    ob.clear();
                    ob.extend_from_slice(vb);
                }
                (o, v) => *o = v.clone(),
            }
        }
        owned[pk0] = Value::Int(self.next_auto_inc);
        let r = self.insert_row(&owned, &[]);
        self.auto_row = owned;
        if r.is_ok() {
            self.next_auto_inc += 1;
        }
        r
    }

    /// [`SimTable::insert_row`] of a table whose only index is PRIMARY: one key, one record
    /// size, no other index to check first (the same steps with none of the per-index
    /// bookkeeping).
    fn insert_row_primary_only(
        &mut self,
        row: &[Value],
        pk_key: Option<&[u8]>,
    ) -> Result<(), SimError> {
        if let Some(w) = self.trees[0].layout.needed_widths(row) {
            self.trees[0].rewiden(&mut self.space, &w);
        }
        let tree = &mut self.trees[0];
        let rec = tree.layout.leaf_record(row, &self.table, &self.space.geo)?;
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        let key = match pre_encoded(tree, row, pk_key) {
            Some(k) => k,
            None => {
                encode_for_insert(tree, row, &mut keys);
                &keys[..]
            }
        };
        let inserted = tree.insert_unique(&mut self.space, key, rec.size_bytes);
        self.keys = keys;
        let Some(page) = inserted else {
            return Err(SimError::DuplicateKey { index: tree.layout.name.clone() });
        };
        self.last_leaves[0] = page.0;
        tree.records += 1;
        if rec.blob_pages > 0 {
            let mut blob_pages = Vec::new();
            tree.alloc_blob_pages(&mut self.space, page, rec.blob_pages, &mut blob_pages);
            let mut k = Vec::new();
            pk_map_key(self.table.primary_key.iter().map(|&c| &row[c]), &mut k);
            self.row_blobs.insert(k, blob_pages);
        }
        self.rows += 1;
        self.after_op();
        Ok(())
    }

    /// The insert of a row with its PRIMARY key value, into every index; `pre_keys` as in
    /// [`SimTable::insert_keyed`].
    fn insert_row(&mut self, row: &[Value], pre_keys: &[Option<&[u8]>]) -> Result<(), SimError> {
        if self.trees.len() == 1 {
            return self.insert_row_primary_only(row, pre_keys.first().copied().flatten());
        }
        // Widen variable-length key slots first (re-encodes stored keys; rare).
        for t in 0..self.trees.len() {
            if let Some(w) = self.trees[t].layout.needed_widths(row) {
                self.trees[t].rewiden(&mut self.space, &w);
            }
        }
        let two_pass = self.space.pool.is_none() && !self.one_index_at_a_time;
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        // Per index; up to 8 indexes without an allocation.
        let mut bounds =
            SmallVec::<[(usize, u32, u32); INLINE_TREES]>::from_elem((0, 0, 0), self.trees.len());
        let bounds = &mut bounds[..];
        let result = (|| {
            for (t, tree) in self.trees.iter().enumerate() {
                let start = keys.len();
                match pre_encoded(tree, row, pre_keys.get(t).copied().flatten()) {
                    Some(k) => keys.extend_from_slice(k),
                    None => encode_for_insert(tree, row, &mut keys),
                }
                let rec = tree.layout.leaf_record(row, &self.table, &self.space.geo)?;
                bounds[t] = (start, rec.size_bytes, rec.blob_pages);
            }
            if two_pass {
                // `insert_found` checks uniqueness at the positions it finds.
                return Ok(());
            }
            // Uniqueness before any change (row_ins_duplicate_error_in_clust / _scan_sec).
            for (t, tree) in self.trees.iter().enumerate() {
                let (start, _, _) = bounds[t];
                let key = &keys[start..start + tree.kw()];
                // PRIMARY is checked by its insert descent below.
                let dup = t > 0
                    && tree.layout.unique
                    && tree.layout.unique_applies(row)
                    && tree.contains_prefix(&self.space, key, tree.layout.unique_prefix_width());
                if dup {
                    return Err(SimError::DuplicateKey { index: tree.layout.name.clone() });
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            self.keys = keys;
            return Err(e);
        }
        if two_pass {
            let found = self.insert_found(row, &keys, bounds);
            self.keys = keys;
            let blob_pages = found?;
            self.after_insert_row(row, blob_pages);
            return Ok(());
        }
        let mut blob_pages = Vec::new();
        for (t, tree) in self.trees.iter_mut().enumerate() {
            let (start, size, blobs) = bounds[t];
            let key = &keys[start..start + tree.kw()];
            let page = if t == 0 {
                match tree.insert_unique(&mut self.space, key, size) {
                    Some(p) => p,
                    None => {
                        let index = tree.layout.name.clone();
                        self.keys = keys;
                        return Err(SimError::DuplicateKey { index });
                    }
                }
            } else if !tree.layout.unique {
                tree.insert_secondary(&mut self.space, key, size)
            } else {
                tree.insert(&mut self.space, 0, key, size, 0)
            };
            self.last_leaves[t] = page.0;
            tree.records += 1;
            if blobs > 0 {
                tree.alloc_blob_pages(&mut self.space, page, blobs, &mut blob_pages);
            }
        }
        self.keys = keys;
        self.after_insert_row(row, blob_pages);
        Ok(())
    }

    /// The bookkeeping of a row inserted into every index: the row count, its BLOB pages and
    /// (for deletes) its secondary-index values.
    fn after_insert_row(&mut self, row: &[Value], blob_pages: Vec<u32>) {
        self.rows += 1;
        if self.trees.len() > 1 || !blob_pages.is_empty() {
            let pk = &self.table.primary_key;
            // The delete path's buffer: no allocation per row.
            let mut k = std::mem::take(&mut self.del_map_key);
            pk_map_key(pk.iter().map(|&c| &row[c]), &mut k);
            if !blob_pages.is_empty() {
                self.row_blobs.insert(k.clone(), blob_pages);
            }
            if self.trees.len() > 1 && !self.settings.insert_only {
                self.row_sec.insert(&k, self.sec_cols.iter().map(|&c| &row[c]));
            }
            self.del_map_key = k;
        }
        self.after_op();
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

    /// Statistics as after ANALYZE TABLE (`mysql.innodb_index_stats`, `TABLES`), the
    /// counters, and page-level figures per index.
    pub fn stats(&self) -> TableStats {
        crate::stats::table_stats(&self.space, &self.trees, &self.settings)
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
