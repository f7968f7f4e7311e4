//! keylab's model of PostgreSQL 15's storage for one table: a heap and its nbtree indexes,
//! page by page, with the server's rules for tuple sizes, split points, suffix truncation,
//! sorted builds, VACUUM's page deletion and recycling, and full-page images after each
//! checkpoint. Rules are read from PostgreSQL's source (REL_15_STABLE: nbtsplitloc.c,
//! nbtinsert.c, nbtdedup.c, nbtutils.c, nbtsort.c, nbtpage.c, nbtree.c, hio.c) and described
//! in our own words at the code that follows each; `docs/model-rules-nbtree.md` lists them.
//! A page keeps its items behind line pointers in key order (`page.rs`); a posting list is
//! a run of items whose first carries the tuple's bytes and the others size 0 (`dedup.rs`).
//!
//! Indexes have one or more key columns (composite keys compare column by column and their
//! pivots are truncated by column); non-unique indexes deduplicate into posting lists as
//! `deduplicate_items = on` does (nbtdedup.c).
//!
//! It does no I/O, reads no clock and no entropy. It does not model unique indexes'
//! deduplication of version duplicates or bottom-up deletion, collations other than "C",
//! TOAST, HOT updates, LP_DEAD hints, WAL bytes or ordinary WAL records.
//!
//! With `shared_buffers_bytes` set, every page an insert requests goes through a model of
//! PostgreSQL's shared buffers (`buffers`, fed by `cache.rs`): hits, misses (relation
//! extension included, as `pg_statio` counts it) and pages written.

pub mod buffers;
mod build;
mod cache;
mod check;
pub mod dedup;
pub mod geometry;
mod heap;
mod page;
mod scan;
pub mod split;
mod stats;
pub mod trace;
pub mod tree;
mod vacuum;
pub mod wal;

pub use stats::IndexStats;
pub use tree::{Tree, TreeError};
pub use vacuum::VacuumOutcome;
pub use wal::Wal;

use geometry::{heap_tuple_bytes, KeyLayout, KeyType};
use heap::Heap;
use keylab_schema::{ColumnType, Table, Value};
use std::collections::HashSet;

/// `BTREE_DEFAULT_FILLFACTOR`.
pub const DEFAULT_INDEX_FILLFACTOR: u8 = 90;

/// How the model is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NbtreeSettings {
    /// Every index's `fillfactor` (10..=100, default 90).
    pub index_fillfactor_pct: u8,
    /// The table's `fillfactor` (10..=100, default 100).
    pub heap_fillfactor_pct: u8,
    /// A checkpoint after every this many rows inserted (`None`: none during the run).
    pub checkpoint_every_rows: Option<u64>,
    /// Run the invariant checker after every this many operations.
    pub check_every: Option<u64>,
    /// The longest text or binary key value the indexes take, bytes (default
    /// [`geometry::DEFAULT_KEY_VALUE_BYTES`], at most [`geometry::MAX_KEY_BYTES`]): a longer
    /// value is refused. Every sort key is as wide as this, so it is kept to what the
    /// values need; it changes no figure.
    pub key_value_bytes: u32,
    /// `shared_buffers`, bytes: page requests go through the buffer model (`None`: every
    /// page cached, no requests counted).
    pub shared_buffers_bytes: Option<u64>,
}

impl Default for NbtreeSettings {
    fn default() -> Self {
        NbtreeSettings {
            index_fillfactor_pct: DEFAULT_INDEX_FILLFACTOR,
            heap_fillfactor_pct: 100,
            checkpoint_every_rows: None,
            check_every: None,
            key_value_bytes: geometry::DEFAULT_KEY_VALUE_BYTES,
            shared_buffers_bytes: None,
        }
    }
}

/// Why the model refused something.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The table or a value is outside what the model covers.
    #[error("{0}")]
    Unsupported(String),
    /// The server would refuse it (a duplicate key).
    #[error("{0}")]
    Rejected(String),
    /// The invariant checker found a broken tree (a model bug).
    #[error("nbtree model invariant broken in index {index}: {detail}")]
    Invariant {
        /// Index name.
        index: String,
        /// What broke.
        detail: String,
    },
}

/// One index of the table.
#[derive(Debug, Clone)]
pub struct IndexModel {
    /// Index name as PostgreSQL names it (`<table>_pkey` for the primary key).
    pub name: String,
    /// The indexed columns, in index order (table column positions).
    pub columns: Vec<usize>,
    /// The tree.
    pub tree: Tree,
    /// A partial index's predicate: a row not matching it gets no entry (PostgreSQL's
    /// `ExecInsertIndexTuples` skips an index whose predicate the new tuple fails).
    pub predicate: Option<keylab_schema::Predicate>,
}

/// A table: heap and indexes, primary key first.
#[derive(Debug, Clone)]
pub struct NbtreeTable {
    columns: Vec<ColumnType>,
    heap: Heap,
    indexes: Vec<IndexModel>,
    /// Heap TIDs deleted but not yet vacuumed.
    dead: HashSet<u64>,
    wal: Wal,
    /// The next transaction id.
    next_xid: u64,
    rows_inserted: u64,
    ops: u64,
    live_rows: u64,
    settings: NbtreeSettings,
    collation: Option<&'static str>,
    key: Vec<u8>,
    /// A second scratch key (a scan's upper bound).
    key_high: Vec<u8>,
    /// The first index is the primary key's (else the table is a heap with secondaries only).
    has_primary_key: bool,
    /// Shared buffers, when modelled.
    buffers: Option<buffers::SharedBuffers>,
}

/// Figures of the whole table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableStats {
    /// Per index, primary key first.
    pub indexes: Vec<(String, IndexStats)>,
    /// Heap pages.
    pub heap_pages: u64,
    /// Live rows.
    pub live_rows: u64,
    /// WAL figures.
    pub wal: Wal,
    /// Collation of text keys (`Some("C")` when a key is text).
    pub collation: Option<&'static str>,
}

fn duplicate(index: &str) -> ModelError {
    ModelError::Rejected(format!("duplicate key value violates unique constraint \"{index}\""))
}

fn check_fillfactor(what: &str, v: u8) -> Result<(), ModelError> {
    if (10..=100).contains(&v) {
        Ok(())
    } else {
        Err(ModelError::Rejected(format!(
            "{what} fillfactor {v} is out of range; valid: 10 to 100"
        )))
    }
}

impl NbtreeTable {
    /// The table, empty, with its indexes: the primary key and every secondary, each of one
    /// or more key columns.
    pub fn new(table: &Table, settings: NbtreeSettings) -> Result<Self, ModelError> {
        check_fillfactor("index", settings.index_fillfactor_pct)?;
        check_fillfactor("table", settings.heap_fillfactor_pct)?;
        // A table without a key is a heap with only its secondary indexes.
        let has_primary_key = !table.primary_key.is_empty();
        let mut defs = Vec::new();
        if has_primary_key {
            defs.push((format!("{}_pkey", table.name), table.primary_key.clone(), true, None));
        }
        for ix in &table.indexes {
            defs.push((ix.name.clone(), ix.columns.clone(), ix.unique, ix.predicate.clone()));
        }
        let mut collation = None;
        let mut indexes = Vec::new();
        for (name, columns, unique, predicate) in defs {
            let mut types = Vec::with_capacity(columns.len());
            for &c in &columns {
                let ty = &table.columns[c].ty;
                types.push(KeyType::of(ty).map_err(ModelError::Unsupported)?);
                collation = collation.or(geometry::collation_of(ty));
            }
            let cap = settings.key_value_bytes.min(geometry::MAX_KEY_BYTES);
            let layout = KeyLayout::capped(&types, cap)
                .map_err(|e| ModelError::Unsupported(format!("index {name}: {e}")))?;
            indexes.push(IndexModel {
                name,
                columns,
                tree: Tree::new(layout, settings.index_fillfactor_pct, unique, 0),
                predicate,
            });
        }
        let mut heap = Heap::new(settings.heap_fillfactor_pct);
        let buffers = settings.shared_buffers_bytes.map(buffers::SharedBuffers::new);
        if buffers.is_some() {
            heap.tracing = true;
            for ix in &mut indexes {
                ix.tree.trace.on = true;
            }
        }
        Ok(NbtreeTable {
            columns: table.columns.iter().map(|c| c.ty).collect(),
            heap,
            indexes,
            dead: HashSet::new(),
            wal: Wal::default(),
            next_xid: 1,
            rows_inserted: 0,
            ops: 0,
            live_rows: 0,
            settings,
            collation,
            key: Vec::new(),
            key_high: Vec::new(),
            has_primary_key,
            buffers,
        })
    }

    /// Inserts a row (column values in table order).
    pub fn insert(&mut self, row: &[Value]) -> Result<(), ModelError> {
        let bytes = heap_tuple_bytes(&self.columns, row);
        let tid = self.heap.next_tid(bytes);
        let dead = &self.dead;
        // Unique checks come before anything is stored: the first index (the primary key)
        // checks at its insert position, the others look their value up first.
        let checked_at_insert = usize::from(self.has_primary_key);
        let matches = |ix: &IndexModel| ix.predicate.as_ref().is_none_or(|p| p.holds(row));
        for ix in
            self.indexes.iter().skip(checked_at_insert).filter(|ix| ix.tree.unique && matches(ix))
        {
            ix.tree
                .layout
                .encode_row(&ix.columns, row, tid, &mut self.key)
                .map_err(ModelError::Unsupported)?;
            if ix.tree.has_live_value(&self.key, |t| !dead.contains(&t)) {
                return Err(duplicate(&ix.name));
            }
        }
        if !self.has_primary_key {
            // No key index to refuse the row: the heap tuple goes in first, as on the server.
            let got = self.heap.insert(bytes, &mut self.wal);
            debug_assert_eq!(got, tid);
        }
        let has_primary_key = self.has_primary_key;
        for (n, ix) in self.indexes.iter_mut().enumerate() {
            if !ix.predicate.as_ref().is_none_or(|p| p.holds(row)) {
                continue;
            }
            ix.tree
                .layout
                .encode_row(&ix.columns, row, tid, &mut self.key)
                .map_err(ModelError::Unsupported)?;
            let live = |t: u64| !dead.contains(&t);
            if let Err(TreeError::Duplicate) = ix.tree.insert(&self.key, &live, &mut self.wal) {
                debug_assert_eq!(n, 0, "only the first index can refuse here");
                return Err(duplicate(&ix.name));
            }
            if n == 0 && has_primary_key {
                // The heap tuple goes in once the primary key accepted the row (the server
                // inserts it first and aborts; the model never stores a refused row).
                let got = self.heap.insert(bytes, &mut self.wal);
                debug_assert_eq!(got, tid);
            }
        }
        self.live_rows += 1;
        self.rows_inserted += 1;
        self.feed_buffers();
        if let Some(n) = self.settings.checkpoint_every_rows.filter(|&n| n > 0) {
            if self.rows_inserted % n == 0 {
                self.checkpoint();
            }
        }
        self.after_op()
    }

    /// Deletes the row whose primary key is `pk`; false when there is none. The index
    /// entries stay until [`NbtreeTable::vacuum`].
    pub fn delete(&mut self, pk: &[Value]) -> Result<bool, ModelError> {
        if !self.has_primary_key {
            return Err(ModelError::Unsupported("deleting by key from a table without one".into()));
        }
        let ix = &self.indexes[0];
        ix.tree.layout.encode_values(pk, 1, &mut self.key).map_err(ModelError::Unsupported)?;
        let dead = &self.dead;
        let Some(tid) = ix.tree.find_value(&self.key).into_iter().find(|t| !dead.contains(t))
        else {
            return Ok(false);
        };
        self.heap.delete(tid, &mut self.wal);
        self.dead.insert(tid);
        self.live_rows -= 1;
        self.after_op()?;
        Ok(true)
    }

    /// Commits a transaction (consumes a transaction id).
    pub fn commit(&mut self) {
        self.next_xid += 1;
    }

    /// A checkpoint now.
    pub fn checkpoint(&mut self) {
        self.wal.checkpoint();
        if let Some(b) = &mut self.buffers {
            b.checkpoint();
        }
    }

    /// `VACUUM`: dead entries leave every index (empty pages are deleted, old deleted pages
    /// recycled), then the heap frees their space.
    pub fn vacuum(&mut self) -> Result<Vec<VacuumOutcome>, ModelError> {
        let mut out = Vec::new();
        for ix in &mut self.indexes {
            out.push(ix.tree.vacuum(&self.dead, self.next_xid, &mut self.wal));
        }
        self.heap.vacuum(&self.dead, &mut self.wal);
        self.dead.clear();
        self.check_all()?;
        Ok(out)
    }

    /// `REINDEX` with every index's `fillfactor` set to `fillfactor_pct` first: sorted
    /// builds from the live entries.
    pub fn rebuild(&mut self, fillfactor_pct: u8) -> Result<(), ModelError> {
        check_fillfactor("index", fillfactor_pct)?;
        for ix in &mut self.indexes {
            let layout = ix.tree.layout;
            let dead = &self.dead;
            let keys: Vec<Vec<u8>> = ix
                .tree
                .entries()
                .filter(|k| !dead.contains(&layout.tid(k)))
                .map(<[u8]>::to_vec)
                .collect();
            build::rebuild(
                &mut ix.tree,
                keys.iter().map(Vec::as_slice),
                fillfactor_pct,
                &mut self.wal,
            );
        }
        self.settings.index_fillfactor_pct = fillfactor_pct;
        self.check_all()
    }

    /// Index `index`'s own leaf `fillfactor` (0 is the primary key), as `CREATE INDEX ...
    /// WITH (fillfactor = N)` gives it: rightmost leaf splits and sorted builds of that index
    /// leave this much of a leaf used (`BTGetTargetPageFreeSpace`); internal pages keep 70.
    pub fn set_index_fillfactor(&mut self, index: usize, pct: u8) -> Result<(), ModelError> {
        check_fillfactor("index", pct)?;
        let n = self.indexes.len();
        let ix = self.indexes.get_mut(index).ok_or_else(|| {
            ModelError::Unsupported(format!("no index {index}; the table has {n}"))
        })?;
        ix.tree.leaf_fillfactor = pct;
        Ok(())
    }

    /// True when the first index is the primary key's; false for a heap without a key.
    pub fn has_primary_key(&self) -> bool {
        self.has_primary_key
    }

    /// Live rows.
    pub fn live_rows(&self) -> u64 {
        self.live_rows
    }

    /// The indexes, primary key first.
    pub fn indexes(&self) -> &[IndexModel] {
        &self.indexes
    }

    /// Per index (primary key first), the leaf block the last insert descended to.
    pub fn last_insert_leaves(&self) -> impl Iterator<Item = u32> + '_ {
        self.indexes.iter().map(|ix| ix.tree.last_leaf)
    }

    /// The table's figures.
    pub fn stats(&self) -> TableStats {
        TableStats {
            indexes: self.indexes.iter().map(|ix| (ix.name.clone(), ix.tree.stats())).collect(),
            heap_pages: self.heap.pages(),
            live_rows: self.live_rows,
            wal: self.wal.clone(),
            collation: self.collation,
        }
    }

    /// Runs the invariant checker on every index.
    pub fn check_all(&self) -> Result<(), ModelError> {
        for ix in &self.indexes {
            ix.tree
                .check()
                .map_err(|detail| ModelError::Invariant { index: ix.name.clone(), detail })?;
        }
        Ok(())
    }

    fn after_op(&mut self) -> Result<(), ModelError> {
        self.ops += 1;
        match self.settings.check_every {
            Some(n) if n > 0 && self.ops % n == 0 => self.check_all(),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
