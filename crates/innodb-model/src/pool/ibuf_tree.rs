//! The change buffer's own B-tree: the system tablespace's index `CLUST_IND` of
//! `innodb_change_buffer` (`ibuf_init_at_db_start`), which holds one record per buffered
//! operation, ordered by (space, page number, counter). It is an ordinary B-tree: its pages
//! split as records are buffered and merge as a page's records are deleted after its merge
//! (`ibuf_delete_rec`: the optimistic delete, else the pessimistic one with its
//! `btr_compress`), and the server's `index_page_splits` and merge counters count those too.
//! Its size in pages is `ibuf.size`, the figure `innodb_change_buffer_max_size` caps.
//!
//! Not here: which operations are buffered (`ibuf.rs`) and the per-page bookkeeping
//! (`change_buffer.rs`). Simplifications, stated: the tree lives in a tablespace of its own
//! with the table's page size and no buffer pool of its own (its page reads and writes are
//! not modelled); its pages have the COMPACT empty-page free space although the server
//! keeps them in the REDUNDANT format (a few bytes a page); the counter is one sequence
//! over all pages instead of one per page (the same order within a page).

use crate::layout::Layout;
use crate::space::Space;
use crate::tree::Tree;
use crate::{Counters, Flavour, Geometry};
use keylab_schema::{Column, ColumnType, RowFormat, Table, Value};

/// The change buffer tree and its key scratch.
#[derive(Debug, Clone)]
pub(crate) struct IbufTree {
    space: Space,
    tree: Tree,
    next_seq: u64,
    key: Vec<u8>,
    /// Pages in use, and the tree's reshape count when they were counted.
    pages: std::cell::Cell<(u64, usize)>,
}

impl IbufTree {
    pub(crate) fn new(geo: Geometry, flavour: Flavour) -> IbufTree {
        let table = Table {
            name: "innodb_change_buffer".into(),
            columns: vec![
                Column::new("page_no", ColumnType::BigInt { unsigned: true }, false),
                Column::new("counter", ColumnType::BigInt { unsigned: true }, false),
            ],
            primary_key: vec![0, 1],
            auto_increment: false,
            indexes: Vec::new(),
            row_format: RowFormat::Compact,
            partitioning: None,
        };
        let mut space = Space {
            pages: Vec::new(),
            fsp: crate::fsp::Fsp::new(geo.extent_pages, geo.page_bytes, flavour),
            geo,
            flavour,
            counters: Counters::default(),
            pool: None,
            freed_unreused: Default::default(),
        };
        let tree = Tree::create(&mut space, Layout::clustered(&table));
        IbufTree { space, tree, next_seq: 0, key: Vec::new(), pages: Default::default() }
    }

    fn encode(&mut self, page: u32, seq: u64) {
        self.key.clear();
        let row = [Value::UInt(page as u64), Value::UInt(seq)];
        self.tree.layout.encode_key(&row, &mut self.key);
    }

    /// Inserts the record of one buffered operation for `page`, `rec_bytes` long
    /// (`ibuf_insert_low`: `btr_cur_optimistic_insert`, else the pessimistic insert). Returns
    /// its counter.
    pub(crate) fn insert(&mut self, page: u32, rec_bytes: u32) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.encode(page, seq);
        let key = std::mem::take(&mut self.key);
        self.tree.insert(&mut self.space, 0, &key, rec_bytes, 0);
        self.tree.records += 1;
        self.key = key;
        seq
    }

    /// Deletes the record of a merged operation (`ibuf_delete_rec`).
    pub(crate) fn delete(&mut self, page: u32, seq: u64) {
        self.encode(page, seq);
        let key = std::mem::take(&mut self.key);
        let found = self.tree.delete_leaf(&mut self.space, &key);
        debug_assert!(found, "a buffered record");
        self.key = key;
    }

    /// `ibuf.size`: the tree's pages, root included.
    pub(crate) fn pages(&self) -> usize {
        let (at, n) = self.pages.get();
        let now = self.tree.reshapes.get();
        if at == now && n > 0 {
            return n;
        }
        let n = self.space.pages.iter().filter(|p| p.is_some()).count();
        self.pages.set((now, n));
        n
    }

    /// Splits, merges and reorganizations in the tree so far.
    pub(crate) fn counters(&self) -> Counters {
        self.space.counters
    }
}
