//! [`SimTable::insert`]: one row into every index, as INSERT does it
//! (`row_ins_clust_index_entry`, then each secondary index): AUTO_INCREMENT values, the
//! uniqueness checks before any index changes, the key encoding widened when a longer
//! variable-length key arrives, and the row's bookkeeping (its BLOB pages, the secondary
//! values a delete needs).
//!
//! Not here: row validation (`validate.rs`), the two-pass insert of a table without a buffer
//! pool (`two_pass.rs`), the prefetching batch insert (`prefetch.rs`).

use super::{pk_map_key, INLINE_TREES};
use crate::tree::Tree;
use crate::{SimError, SimTable};
use keylab_schema::Value;
use smallvec::SmallVec;

#[cfg(test)]
thread_local! {
    /// Index keys an insert encoded itself, not handed to it pre-encoded (`tests/prefetch.rs`
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

impl SimTable {
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
}
