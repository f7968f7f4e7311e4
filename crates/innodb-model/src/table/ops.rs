//! [`SimTable`] operations beyond INSERT: deletes as purge applies them, rebuilds by sorted
//! index builds, per-index MERGE_THRESHOLD, and the cheap counter reads a churn loop makes
//! every round.

use crate::layout::Layout;
use crate::page::PageNo;
use crate::table::pk_map_key;
use crate::tree::Tree;
use crate::{Counters, PoolCounters, SimError, SimTable};
use keylab_schema::Value;

impl SimTable {
    /// Deletes the row whose primary key is `pk` (values in key column order) from every
    /// index, as purge removes a committed delete: optimistic delete, else pessimistic with
    /// page discards and merge attempts. Returns false (nothing changed) when no such row.
    /// Fails on an [`crate::SimSettings::insert_only`] table (it kept no row to delete from).
    pub fn delete(&mut self, pk: &[Value]) -> Result<bool, SimError> {
        if self.settings.insert_only {
            return Err(SimError::BadSetting(
                "delete on an insert-only table (SimSettings::insert_only keeps no row's \
                 secondary-index values)"
                    .into(),
            ));
        }
        // Reused buffers: the row holds only the key (and then the secondary) columns.
        let mut row = self.take_key_row(pk)?;
        let found = self.delete_row(&mut row, pk);
        self.del_row = row;
        if !found {
            return Ok(false);
        }
        self.rows -= 1;
        self.after_op();
        Ok(true)
    }

    /// The table's reused row buffer (`del_row`, give it back) with `pk` in its key columns,
    /// the others left as they were: deletes and reads encode keys from it without
    /// allocating once the buffers have grown.
    pub(super) fn take_key_row(&mut self, pk: &[Value]) -> Result<Vec<Value>, SimError> {
        let key_cols = &self.table.primary_key;
        if pk.len() != key_cols.len() {
            return Err(SimError::BadRow {
                table: self.table.name.clone(),
                reason: format!(
                    "{} primary-key values for {} key columns",
                    pk.len(),
                    key_cols.len()
                ),
            });
        }
        let mut row = std::mem::take(&mut self.del_row);
        row.resize(self.table.columns.len(), Value::Null);
        for (&c, v) in key_cols.iter().zip(pk) {
            match (&mut row[c], v) {
                (Value::Bytes(dst), Value::Bytes(src)) => {
                    dst.clear();
                    dst.extend_from_slice(src);
                }
                (dst, src) => *dst = src.clone(),
            }
        }
        Ok(row)
    }

    /// The delete of [`SimTable::delete`] with the key columns of `row` set.
    fn delete_row(&mut self, row: &mut [Value], pk: &[Value]) -> bool {
        // A key longer than every stored one cannot exist (and would not encode).
        if self.trees[0].layout.needed_widths(row).is_some() {
            return false;
        }
        let mut key = std::mem::take(&mut self.keys);
        key.clear();
        self.trees[0].layout.encode_key(row, &mut key);
        if !self.trees[0].delete_leaf(&mut self.space, &key) {
            self.keys = key;
            return false;
        }
        let mut map_key = std::mem::take(&mut self.del_map_key);
        pk_map_key(pk.iter(), &mut map_key);
        if self.trees.len() > 1 {
            let stored = self.row_sec.take_into(&map_key, &self.sec_cols, row);
            assert!(stored, "secondary values of a stored row");
            for tree in &mut self.trees[1..] {
                key.clear();
                tree.layout.encode_key(row, &mut key);
                let found = if tree.layout.unique {
                    tree.delete_leaf(&mut self.space, &key)
                } else {
                    tree.delete_secondary(&mut self.space, &key)
                };
                debug_assert!(found, "secondary record of a stored row");
            }
        }
        if let Some(pages) = self.row_blobs.remove(&map_key) {
            self.trees[0].free_blob_pages(&mut self.space, &pages);
        }
        self.keys = key;
        self.del_map_key = map_key;
        true
    }

    /// Rebuilds the table as `OPTIMIZE TABLE` / `ALTER TABLE ... FORCE` does: a new
    /// tablespace with new segments, every index built by InnoDB's sorted build (PRIMARY
    /// first, then each secondary index) with `innodb_fill_factor` = `fill_factor_pct`.
    /// Counters carry on; pages of the old table leave the buffer pool.
    pub fn rebuild(&mut self, fill_factor_pct: u8) -> Result<(), SimError> {
        if !(10..=100).contains(&fill_factor_pct) {
            return Err(SimError::BadSetting(format!(
                "fill_factor_pct {fill_factor_pct} is outside 10..=100"
            )));
        }
        let old_pool = self.space.pool.take();
        let layouts: Vec<Layout> = self.trees.iter().map(|t| t.layout.clone()).collect();
        let limits: Vec<u32> = self.trees.iter().map(|t| t.merge_limit).collect();
        let (mut space, mut trees) =
            Self::fresh_space(&self.settings, self.space.geo, layouts, self.counters());
        if let (Some(old), Some(new)) = (old_pool, space.pool.as_mut()) {
            new.counters = old.counters;
        }
        for (t, (new, old)) in trees.iter_mut().zip(&self.trees).enumerate() {
            new.merge_limit = limits[t];
            let kw = old.kw();
            let leftmost = *old.leftmost_pages(&self.space).last().expect("leaf level");
            let leaves: Vec<PageNo> = Tree::level_pages(&self.space, leftmost).collect();
            let sp = &self.space;
            let recs = leaves.iter().flat_map(|&p| {
                let page = sp.page(p);
                (0..page.len()).map(move |i| (page.key(i, kw), page.size(i) as u32))
            });
            new.bulk_build(&mut space, recs, fill_factor_pct);
            if t == 0 && !self.row_blobs.is_empty() {
                // Off-page columns are written again into the new leaf segment. (Their order
                // among the leaf pages is not modelled: they follow the leaves, row by row.)
                let mut keys: Vec<&Vec<u8>> = self.row_blobs.keys().collect();
                keys.sort();
                let mut moved = Vec::with_capacity(keys.len());
                for k in keys {
                    let n = self.row_blobs[k].len() as u32;
                    let mut pages = Vec::with_capacity(n as usize);
                    new.alloc_blob_pages(&mut space, new.root, n, &mut pages);
                    moved.push((k.clone(), pages));
                }
                self.row_blobs = moved.into_iter().collect();
            }
        }
        self.space = space;
        self.trees = trees;
        Ok(())
    }

    /// Sets MERGE_THRESHOLD of one index (`COMMENT 'MERGE_THRESHOLD=n'`, 1 to 50).
    pub fn set_merge_threshold(&mut self, index: &str, pct: u8) -> Result<(), SimError> {
        if !(1..=50).contains(&pct) {
            return Err(SimError::BadSetting(format!("MERGE_THRESHOLD {pct} is outside 1..=50")));
        }
        let g = self.space.geo;
        let tree = self.trees.iter_mut().find(|t| t.layout.name == index).ok_or_else(|| {
            SimError::BadSetting(format!("no index named {index} in table {}", self.table.name))
        })?;
        tree.merge_limit = g.page_bytes * pct as u32 / 100;
        Ok(())
    }

    /// `FLUSH TABLES ... FOR EXPORT` merges every buffered change of the table's tablespace
    /// (`row_quiesce_table_start` calls `ibuf_merge_space` until none is left), reading each
    /// page that has some, in page order. keylab's measurement on a private server runs it
    /// (the server's `ibuf_size` is 1 page after every measurement), so the simulator's
    /// measurement does too.
    pub fn merge_change_buffer(&mut self) {
        if let Some(pool) = &mut self.space.pool {
            for p in pool.ibuf.pending_page_numbers() {
                pool.access(p, true);
            }
        }
    }

    /// The cumulative counters, without walking the trees (cheap enough for every round).
    pub fn counters(&self) -> Counters {
        match &self.space.pool {
            Some(pool) => plus(self.space.counters, pool.ibuf.tree_counters()),
            None => self.space.counters,
        }
    }

    /// The buffer pool's cumulative figures, when a pool is modelled.
    pub fn pool_counters(&self) -> Option<PoolCounters> {
        self.space.pool.as_ref().map(|p| p.counters)
    }

    /// The change buffer's size in pool pages against its cap (`None` without a pool).
    pub fn ibuf_size(&self) -> Option<crate::IbufSize> {
        let p = self.space.pool.as_ref()?;
        Some(p.ibuf.size(p.capacity(), p.settings.change_buffer_max_pct))
    }

    /// Writes every dirty page now (as a clean shutdown or a checkpoint would); a no-op
    /// without a buffer pool.
    pub fn flush(&mut self) {
        if let Some(p) = &mut self.space.pool {
            p.flush_all();
        }
    }

    /// A server restart: dirty pages written, then an empty buffer pool; without a buffer
    /// pool model (every page cached, nothing read or written is counted) only the freed pages
    /// a pool would hold are forgotten.
    pub fn restart(&mut self) {
        if let Some(p) = &mut self.space.pool {
            p.restart();
        }
        self.space.freed_unreused.clear();
    }

    /// Debugging aid for fidelity work: the header fields of the PRIMARY leaf that holds (or
    /// would hold) primary key `pk`, and the insert position in it.
    #[doc(hidden)]
    pub fn debug_primary_leaf(&self, pk: &[Value]) -> String {
        let mut row = vec![Value::Null; self.table.columns.len()];
        for (&c, v) in self.table.primary_key.iter().zip(pk) {
            row[c] = v.clone();
        }
        let mut key = Vec::new();
        self.trees[0].layout.encode_key(&row, &mut key);
        let (p, pos) = self.trees[0].descend_ro(&self.space, &key, 0);
        format!("pos {pos} {}", self.debug_page(p.0))
    }

    /// Debugging aid for fidelity work: the tablespace's FSP header figures (size, free
    /// limit, extent list lengths).
    #[doc(hidden)]
    pub fn debug_fsp(&self) -> String {
        self.space.fsp.debug_header()
    }

    /// Debugging aid for fidelity work: the header fields of page `no`.
    #[doc(hidden)]
    pub fn debug_page(&self, no: u32) -> String {
        let p = PageNo(no);
        let Some(g) = self.space.pages.get(no as usize).and_then(|x| x.as_ref()) else {
            return format!("page {no} not in use");
        };
        format!(
            "page {} n_recs {} data {} heap {} n_heap {} garbage {} free {:?} \
             last_insert {:?} prev {:?} next {:?}",
            p.0,
            g.n_recs(),
            g.data_bytes,
            g.heap_bytes,
            g.n_heap,
            g.garbage_bytes,
            g.free_list.len(),
            g.last_insert,
            g.prev,
            g.next
        )
    }

    /// Debugging aid for fidelity work: (page number, level, records, DATA_SIZE) of every
    /// B-tree page of index `ix` (0 = PRIMARY), as `INNODB_BUFFER_PAGE` lists them.
    #[doc(hidden)]
    pub fn debug_pages(&self, ix: usize) -> Vec<(u32, u16, u32, u32)> {
        let t = &self.trees[ix];
        let mut out = Vec::new();
        for l in t.leftmost_pages(&self.space) {
            for p in Tree::level_pages(&self.space, l) {
                let page = self.space.page(p);
                out.push((p.0, page.level, page.n_recs(), page.data_bytes));
            }
        }
        out.sort_unstable();
        out
    }
}

/// The table's counters with the change buffer tree's (the server's index counters are
/// server-wide).
pub(super) fn plus(a: Counters, b: Counters) -> Counters {
    Counters {
        page_splits: a.page_splits + b.page_splits,
        page_reorgs: a.page_reorgs + b.page_reorgs,
        right_sibling_inserts: a.right_sibling_inserts + b.right_sibling_inserts,
        root_raises: a.root_raises + b.root_raises,
        merge_attempts: a.merge_attempts + b.merge_attempts,
        merges: a.merges + b.merges,
        page_discards: a.page_discards + b.page_discards,
    }
}
