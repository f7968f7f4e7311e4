//! Software prefetch of the memory an upcoming insert will touch, and the lookahead insert
//! that uses it ([`SimTable::insert_batch`]).
//!
//! Random inserts into a tree far larger than the CPU caches spend most of their time
//! waiting on a chain of cache misses in the leaf: its `Page` struct, then the record entries
//! it searches and shifts, then the heap slot it writes. Each miss depends on the one before,
//! so one insert cannot overlap them. Rows inserted in a batch can: while row `i` is
//! inserted, row `i + AHEAD` is located with a read-only descent and its leaf's struct is
//! prefetched; row `i + AHEAD / 2`'s leaf (whose struct is by then in cache) has its entry
//! and heap lines prefetched; row `i + AHEAD / 4` has the stored keys prefetched that its
//! search will compare (those whose prefix bits tie with its key's: frequent with text keys).
//!
//! The prefetch path only reads the tree and issues hints: it changes no page, no counter and
//! no buffer-pool access, so every figure is the one that inserting the rows one by one gives
//! (`tests/prefetch.rs` checks it). When no page split, was allocated or was freed between a
//! row's descent and its insert (`Tree::reshapes`), no non-leaf page changed, so the insert
//! starts at the leaf that descent found instead of descending again (debug builds check that
//! both give the same leaf); with a buffer pool model, where a descent's page accesses count,
//! the insert makes them on the non-leaf pages that descent passed (`Tree::path_hint`: the
//! same pages, in the same order), without searching them again.
//! Each key the lookahead encodes (PRIMARY's and, on the two-pass insert, the secondary
//! indexes') is handed to the row's insert ([`SimTable::insert_keyed`]) rather than encoded
//! again.
//!
//! Which indexes look ahead: PRIMARY when its key is given in the row (not AUTO_INCREMENT);
//! on a table with secondary indexes and no buffer pool (the two-pass insert,
//! `table/two_pass.rs`) every secondary index too, each with its own leaf hint (a random
//! secondary index, as most of advise's, waits on as many misses as a random PRIMARY).
//! Keys above the remembered rightmost leaf need no descent and get no prefetch; an index
//! whose keys in the batch's first rows are mostly such is not looked ahead in for the rest
//! of the batch, and a batch with no index left goes on row by row.
//!
//! Not for: changing what is inserted or in which order; a prefetch that finds a page freed
//! or changed since its descent is skipped (it only costs time).

use crate::cache_line::prefetch_line;
use crate::page::PageNo;
use crate::space::Space;
use crate::table::{SimTable, INLINE_TREES};
use crate::tree::{NodePath, Tree};
use crate::SimError;
use keylab_schema::Value;
use smallvec::SmallVec;

/// Rows between a row's descent-and-struct prefetch and its insert (16 measured no faster
/// at 5M random `uuid4:bin` rows: docs/benchmarks.md §6).
pub(crate) const AHEAD: usize = 8;
/// Rows between a row's entry-and-heap prefetch and its insert.
const AHEAD_LINES: usize = AHEAD / 2;
/// Rows of a batch after which the lookahead stops for the rest of the batch when fewer than
/// a quarter of the rows ahead needed a descent (ascending keys go to the cached rightmost
/// leaf: the lookahead would only add the work of encoding their keys).
const PROBE_ROWS: usize = 64;
/// Rows between a row's tied-key prefetch (its entries are in cache by then) and its insert.
const AHEAD_KEYS: usize = AHEAD / 4;

impl Tree {
    /// Stage 1: the leaf a PAGE_CUR_LE descent for `key` reaches now (no buffer-pool access;
    /// the leaf itself is not read), with its `Page` struct's first two cache lines
    /// prefetched. `None` when the key does not have this index's width or goes to the
    /// remembered rightmost leaf.
    pub(crate) fn prefetch_leaf(&self, sp: &Space, key: &[u8]) -> Option<(PageNo, NodePath)> {
        let kw = self.kw();
        if key.len() != kw {
            return None;
        }
        // An ascending key goes to the remembered rightmost leaf, in cache, without a descent
        // (`insert_unique`): nothing to prefetch, and a descent here would be all cost.
        if self.ascending_leaf(sp, key).is_some() {
            return None;
        }
        // `descend_ro` to level 0, stopping at the child pointer instead of reading the leaf.
        let mut p = self.root;
        let mut path = NodePath::default();
        let leaf = loop {
            let page = sp.page(p);
            if page.level == 0 {
                break p;
            }
            if !path.push(p) {
                return None;
            }
            let (cnt, _) = page.search(key, kw);
            let child = PageNo(page.children[cnt.saturating_sub(1)]);
            if page.level == 1 {
                break child;
            }
            p = child;
        };
        // The element's address, computed without reading it (that read is the miss).
        let at = sp.pages.as_ptr().wrapping_add(leaf.0 as usize).cast::<u8>();
        prefetch_line(at);
        prefetch_line(at.wrapping_add(64));
        Some((leaf, path))
    }

    /// Stage 2: the record-entry and heap lines an insert of `key` into leaf `p` will read
    /// and write, when `p` is still a leaf.
    pub(crate) fn prefetch_leaf_lines(&self, sp: &Space, p: PageNo, key: &[u8]) {
        if let Some(pool) = &sp.pool {
            pool.prefetch_neighbours(p.0);
        }
        match sp.pages.get(p.0 as usize) {
            Some(Some(page)) if page.level == 0 && key.len() == self.kw() => {
                page.prefetch_insert_lines(key)
            }
            _ => {}
        }
    }
}

impl Tree {
    /// Stage 3: the stored keys a search of leaf `p` for `key` will compare, when `p` is
    /// still a leaf.
    pub(crate) fn prefetch_leaf_keys(&self, sp: &Space, p: PageNo, key: &[u8]) {
        if let Some(Some(page)) = sp.pages.get(p.0 as usize) {
            if page.level == 0 {
                page.prefetch_tied_keys(key);
            }
        }
    }
}

impl SimTable {
    /// Inserts `rows` in order, exactly as calling [`SimTable::insert`] on each would (same
    /// tree, counters and errors), while prefetching the memory of the inserts a few rows
    /// ahead (module docs). On an error, the rows before the failing one are inserted and
    /// `Err((their count, error))` is returned.
    pub fn insert_batch(&mut self, rows: &[Vec<Value>]) -> Result<(), (usize, SimError)> {
        self.insert_batch_each(rows, &mut |_| {})
    }

    /// [`SimTable::insert_batch`], calling `after(leaves)` after each row's insert with
    /// [`SimTable::last_insert_leaves`]. On a table with secondary indexes and no buffer
    /// pool (the two-pass insert, `table/two_pass.rs`), every index's leaf is prefetched ahead,
    /// not only PRIMARY's: there the random secondary indexes wait on the most misses.
    pub fn insert_batch_each(
        &mut self,
        rows: &[Vec<Value>],
        after: &mut dyn FnMut(&[u32]),
    ) -> Result<(), (usize, SimError)> {
        let every_index = self.space.pool.is_none() && !self.one_index_at_a_time;
        if !(self.prefetch_applies() || every_index && self.trees.len() > 1) {
            for (i, row) in rows.iter().enumerate() {
                self.insert(row).map_err(|e| (i, e))?;
                after(&self.last_leaves);
            }
            return Ok(());
        }
        // The indexes looked ahead in: PRIMARY (when its key is given in the row), and with
        // `every_index` the secondary ones too.
        let first = if self.prefetch_applies() { 0 } else { 1 };
        let last = if every_index { self.trees.len() } else { 1 };
        let mut ahead: Vec<Ahead> =
            (first..last).map(|t| Ahead::new(t, self.trees[t].kw())).collect();
        let columns = self.table.columns.len();
        for (j, row) in rows.iter().enumerate().take(AHEAD) {
            for a in &mut ahead {
                a.stage1(self, row, j, columns);
            }
        }
        for i in 0..rows.len() {
            for a in &ahead {
                a.stage2_and_3(self, i, rows.len());
            }
            // No non-leaf page of an index changed since row i's descent in it: its insert
            // there starts at that leaf (`insert_unique`, `insert_found`).
            for a in &ahead {
                let tree = &self.trees[a.tree];
                if let Some((p, reshapes)) = a.leaves[i % AHEAD] {
                    if reshapes == tree.reshapes.get() && tree.kw() == a.kw {
                        tree.leaf_hint.set(Some(p));
                        tree.path_hint.set(a.paths[i % AHEAD]);
                    }
                }
            }
            // Each looked-ahead index's key as its lookahead encoded it, not encoded again.
            let inserted = {
                let mut pre_keys = SmallVec::<[Option<&[u8]>; INLINE_TREES]>::from_elem(None, last);
                for a in ahead.iter().filter(|a| a.encoded[i % AHEAD]) {
                    pre_keys[a.tree] = Some(a.key(i));
                }
                self.insert_keyed(&rows[i], &pre_keys)
            };
            // Unused when the row was refused before its inserts, or went to the rightmost
            // leaf.
            for a in &ahead {
                self.trees[a.tree].leaf_hint.set(None);
            }
            if let Err(e) = inserted {
                return Err((i, e));
            }
            after(&self.last_leaves);
            // Row i's slot is free now: row i + AHEAD takes it.
            let j = i + AHEAD;
            for a in &mut ahead {
                a.leaves[i % AHEAD] = None;
                a.encoded[i % AHEAD] = false;
                if j < rows.len() {
                    a.stage1(self, &rows[j], j, columns);
                }
            }
            if i + 1 == PROBE_ROWS {
                // Mostly ascending keys go to the rightmost leaf without a descent: such an
                // index is not looked ahead in for the rest of the batch.
                ahead.retain(|a| a.leaves.iter().filter(|l| l.is_some()).count() * 4 >= AHEAD);
                if ahead.is_empty() {
                    for (k, row) in rows.iter().enumerate().skip(PROBE_ROWS) {
                        self.insert(row).map_err(|e| (k, e))?;
                        after(&self.last_leaves);
                    }
                    break;
                }
            }
        }
        Ok(())
    }

    /// True when [`SimTable::insert_batch`] prefetches: a PRIMARY key given in every row (not
    /// AUTO_INCREMENT). The lookahead reads pages without a buffer-pool access; with a pool
    /// the insert makes the accesses of the descent it skips (`Tree::insert_unique`).
    fn prefetch_applies(&self) -> bool {
        !self.table.auto_increment
    }
}

/// The lookahead of one index: the keys and leaves of the rows ahead, by row index mod
/// AHEAD.
struct Ahead {
    tree: usize,
    /// The index's key width when the lookahead started (a widening stops it).
    kw: usize,
    /// Each row's encoded key, encoded in place: a copy of a text key (38 bytes) from a
    /// scratch buffer just written waited on its stores (a 32-byte load over several smaller
    /// stores is not forwarded): 3% of `uuid4:text`'s user time.
    keys: Vec<Vec<u8>>,
    /// Each row's leaf, with the tree's reshape count when it was found.
    leaves: [Option<(PageNo, u64)>; AHEAD],
    /// Each row's descent's non-leaf pages (the buffer-pool accesses its insert makes).
    paths: [NodePath; AHEAD],
    /// Whether each row's slot in `keys` holds its encoded key (the row's insert reuses it).
    encoded: [bool; AHEAD],
}

impl Ahead {
    fn new(tree: usize, kw: usize) -> Ahead {
        Ahead {
            tree,
            kw,
            keys: (0..AHEAD).map(|_| Vec::with_capacity(kw)).collect(),
            leaves: [None; AHEAD],
            paths: [NodePath::default(); AHEAD],
            encoded: [false; AHEAD],
        }
    }

    fn key(&self, j: usize) -> &[u8] {
        &self.keys[j % AHEAD]
    }

    /// Encodes row j's key into its slot and prefetches its leaf's struct.
    fn stage1(&mut self, t: &SimTable, row: &[Value], j: usize, columns: usize) {
        let tree = &t.trees[self.tree];
        // A row that `insert` will refuse is not encoded (encoding assumes every column),
        // nor one whose AUTO_INCREMENT key the insert assigns (a secondary key ends with it).
        if row.len() != columns || tree.kw() != self.kw {
            return;
        }
        if t.table.auto_increment && t.table.primary_key.iter().any(|&c| row[c].is_null()) {
            return;
        }
        let slot = &mut self.keys[j % AHEAD];
        slot.clear();
        tree.layout.encode_key(row, slot);
        if slot.len() != self.kw {
            return;
        }
        self.encoded[j % AHEAD] = true;
        let slot = &self.keys[j % AHEAD];
        let reshapes = tree.reshapes.get();
        let Some((leaf, path)) = tree.prefetch_leaf(&t.space, slot) else { return };
        if let Some(pool) = &t.space.pool {
            pool.prefetch_node(leaf.0);
        }
        self.leaves[j % AHEAD] = Some((leaf, reshapes));
        self.paths[j % AHEAD] = path;
    }

    /// Before row i's insert: the entry and heap lines of row i + AHEAD_LINES's leaf, and the
    /// tied keys of row i + AHEAD_KEYS's.
    fn stage2_and_3(&self, t: &SimTable, i: usize, rows: usize) {
        let tree = &t.trees[self.tree];
        if tree.kw() != self.kw {
            return;
        }
        let j = i + AHEAD_LINES;
        if let (true, Some((p, _))) = (j < rows, self.leaves[j % AHEAD]) {
            tree.prefetch_leaf_lines(&t.space, p, self.key(j));
        }
        let j = i + AHEAD_KEYS;
        if let (true, Some((p, _))) = (j < rows, self.leaves[j % AHEAD]) {
            tree.prefetch_leaf_keys(&t.space, p, self.key(j));
        }
    }
}
