//! The insert of one row into every index of a table that models no buffer pool, in two
//! passes: first each index's leaf and insert position (read-only descents, all indexes a
//! level at a time, so that the cache misses of different trees overlap), with the
//! uniqueness checks made at those positions; then the inserts, in index order.
//!
//! It gives the same trees and counters as inserting one index after the other
//! (`SimTable::insert_row`'s path with a pool): without a pool a descent changes nothing
//! (no access is counted), and an insert into one index changes only that index's pages and
//! the allocator, so a position found before the earlier indexes' inserts is the one a
//! descent after them would find. Not for tables with a pool: there every descent's page
//! accesses count, in the order the server makes them.

use super::INLINE_TREES;
use crate::page::PageNo;
use crate::{SimError, SimTable};
use smallvec::SmallVec;

/// One index's leaf for the row: the page, the insert position (PAGE_CUR_LE), and whether
/// the record before it has the same key (a duplicate, for PRIMARY).
#[derive(Debug, Clone, Copy)]
struct Found {
    page: PageNo,
    pos: usize,
    equal: bool,
}

impl SimTable {
    /// Inserts the row whose keys and record sizes are in `keys` and `bounds` (per index:
    /// the key's start in `keys`, the record's bytes, its BLOB pages) into every index, as
    /// `insert_row` does, on a table without a buffer pool. Returns the BLOB pages
    /// allocated; fails with nothing changed on a duplicate key (a unique secondary index's
    /// first, then PRIMARY's, as the one-index-at-a-time path reports them).
    pub(crate) fn insert_found(
        &mut self,
        row: &[keylab_schema::Value],
        keys: &[u8],
        bounds: &[(usize, u32, u32)],
    ) -> Result<Vec<u32>, SimError> {
        debug_assert!(self.space.pool.is_none());
        let n = self.trees.len();
        let empty = Found { page: PageNo(0), pos: 0, equal: false };
        let mut found = SmallVec::<[Found; INLINE_TREES]>::from_elem(empty, n);
        let key_of = |t: usize| &keys[bounds[t].0..bounds[t].0 + self.trees[t].kw()];
        self.find_leaves(&key_of, &mut found);
        // Uniqueness before any change (row_ins_duplicate_error_in_clust / _scan_sec).
        for (t, (tree, f)) in self.trees.iter().zip(found.iter()).enumerate().skip(1) {
            let dup = tree.layout.unique
                && tree.layout.unique_applies(row)
                && tree.contains_prefix_at(
                    &self.space,
                    f.page,
                    f.pos,
                    key_of(t),
                    tree.layout.unique_prefix_width(),
                );
            if dup {
                return Err(SimError::DuplicateKey { index: tree.layout.name.clone() });
            }
        }
        if found[0].equal {
            return Err(SimError::DuplicateKey { index: self.trees[0].layout.name.clone() });
        }
        let mut blob_pages = Vec::new();
        for (t, tree) in self.trees.iter_mut().enumerate() {
            let (start, size, blobs) = bounds[t];
            let key = &keys[start..start + tree.kw()];
            let f = found[t];
            let page = tree.insert_at(&mut self.space, f.page, f.pos, key, size, 0);
            tree.last_leaf.set(Some(page));
            self.last_leaves[t] = page.0;
            tree.records += 1;
            if blobs > 0 {
                tree.alloc_blob_pages(&mut self.space, page, blobs, &mut blob_pages);
            }
        }
        Ok(blob_pages)
    }

    /// Each index's leaf and insert position for its key `key_of(t)`: the remembered
    /// rightmost leaf when the key is above its last record (an ascending index), else a
    /// PAGE_CUR_LE descent from the root (or from the leaf it ends at, when the caller
    /// found it with no reshape since: `Tree::leaf_hint`). The descents run a level at a
    /// time over all indexes, each level in two rounds: load the lines every page's search
    /// will read, then search, so a row's cold pages are fetched together.
    fn find_leaves<'k>(&self, key_of: &dyn Fn(usize) -> &'k [u8], found: &mut [Found]) {
        let sp = &self.space;
        let n = self.trees.len();
        // The page each index's descent is on; `None` once its leaf is found.
        let mut at = SmallVec::<[Option<PageNo>; INLINE_TREES]>::from_elem(None, n);
        for (t, tree) in self.trees.iter().enumerate() {
            match tree.rightmost_leaf_below(sp, key_of(t)) {
                Some(p) => {
                    found[t] = Found { page: p, pos: sp.page(p).len(), equal: false };
                }
                // Without a pool a descent counts nothing: a hinted leaf (where the descent
                // would end, `SimTable::insert_batch_each`) skips it.
                None => match tree.leaf_hint.take() {
                    Some(leaf) => {
                        debug_assert_eq!(tree.descend_ro(sp, key_of(t), 0).0, leaf, "stale hint");
                        at[t] = Some(leaf);
                    }
                    None => at[t] = Some(tree.root),
                },
            }
        }
        while at.iter().any(Option::is_some) {
            for (t, p) in at.iter().enumerate() {
                if let Some(p) = *p {
                    sp.page(p).touch_for_search(key_of(t));
                }
            }
            for (t, tree) in self.trees.iter().enumerate() {
                let Some(p) = at[t] else { continue };
                let page = sp.page(p);
                let key = key_of(t);
                if page.level == 0 {
                    // `Page::insert_pos` of a leaf is its search's position.
                    let (pos, equal) = page.search_for_insert(key, tree.kw());
                    found[t] = Found { page: p, pos, equal };
                    at[t] = None;
                } else {
                    let (cnt, _) = page.search(key, tree.kw());
                    at[t] = Some(PageNo(page.children[cnt.saturating_sub(1)]));
                }
            }
        }
    }
}
