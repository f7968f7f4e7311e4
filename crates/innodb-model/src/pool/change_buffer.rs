//! The change buffer's state in the buffer pool (docs/model-rules.md §8): the changes
//! buffered per page, their records in the change buffer's own B-tree (`ibuf_tree.rs`),
//! whose pages are the pool pages it takes, and the pages written at a checkpoint; merged
//! (their records deleted from the tree) when the pool reads the page.
//!
//! Not here: when a change is buffered and how it is applied to its page (`ibuf.rs`, the
//! change buffer's rules over the trees).

use super::ibuf_tree::IbufTree;
use crate::{Counters, Flavour, Geometry};
use std::collections::HashMap;

/// Buffered changes of one page.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    /// The free space the ibuf bitmap promised when the first change was buffered.
    pub(crate) promised: u32,
    /// Volume of buffered inserts (record + one directory slot each).
    pub(crate) volume: u32,
    /// Bytes of the ibuf records.
    pub(crate) entry_bytes: u32,
    /// Changes buffered for the page.
    pub(crate) changes: u32,
    /// The distinct records of the buffered inserts and delete-marks (hashes of their keys):
    /// `ibuf_get_volume_buffered_count` counts a record once however many operations name it.
    records: Vec<u64>,
    /// Buffered purges.
    purges: u32,
    /// The counters of this page's records in the change buffer tree.
    seqs: Vec<u64>,
}

impl Pending {
    /// A buffered insert or delete-mark names the record `key`.
    pub(crate) fn note_record(&mut self, key: &[u8]) {
        let h = key_hash(key);
        if !self.records.contains(&h) {
            self.records.push(h);
        }
    }
}

/// A key's hash, to tell buffered records apart (the server hashes the record's fields
/// with CRC-32C into a 1,024-bit filter; an exact set here: a page holds few buffered ones).
fn key_hash(key: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(key)
}

/// Change-buffer state.
#[derive(Debug, Clone)]
pub struct ChangeBuffer {
    pub on: bool,
    /// Buffered changes per page.
    /// (Looked up per buffered change, never iterated: a fast fixed-seed hasher changes
    /// no figure.)
    pub(crate) pending: HashMap<u32, Pending, foldhash::fast::FixedState>,
    /// Bytes of ibuf records held.
    pub(crate) bytes: u64,
    /// The change buffer tree, made at the first buffered change.
    tree: Option<Box<IbufTree>>,
    pub(crate) changes_since_flush: u64,
    /// The most pool pages the change buffer has taken.
    pub(crate) max_pages: usize,
}

/// The change buffer's size in pool pages: now, at its largest, and its cap
/// (`innodb_change_buffer_max_size` percent of the pool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IbufSize {
    /// Pool pages it holds now.
    pub pages: u64,
    /// The most it has held.
    pub max_pages: u64,
    /// The most it may hold.
    pub cap_pages: u64,
}

impl ChangeBuffer {
    pub fn new(on: bool) -> ChangeBuffer {
        ChangeBuffer {
            on,
            pending: HashMap::default(),
            bytes: 0,
            tree: None,
            changes_since_flush: 0,
            max_pages: 0,
        }
    }

    /// Pool pages the change buffer occupies: its tree's pages (`ibuf.size`), none before
    /// the first buffered change.
    pub fn pool_pages(&self, _capacity: usize) -> usize {
        self.tree.as_ref().map_or(0, |t| t.pages())
    }

    /// The splits, merges and reorganizations of the change buffer's own tree, which the
    /// server's index counters count with every other index's.
    pub(crate) fn tree_counters(&self) -> Counters {
        self.tree.as_ref().map_or_else(Counters::default, |t| t.counters())
    }

    /// The buffered changes of page `p`, made empty with the bitmap's promise when there
    /// are none.
    pub(crate) fn slot(&mut self, p: u32, promised: u32) -> &mut Pending {
        self.pending.entry(p).or_insert(Pending {
            promised,
            volume: 0,
            entry_bytes: 0,
            changes: 0,
            records: Vec::new(),
            purges: 0,
            seqs: Vec::new(),
        })
    }

    /// Drops page `p`'s slot when nothing was buffered in it.
    pub(crate) fn drop_if_empty(&mut self, p: u32) {
        if self.pending.get(&p).is_some_and(|x| x.changes == 0) {
            self.pending.remove(&p);
        }
    }

    /// One more change for page `p` (its slot exists), an ibuf record of `entry` bytes
    /// inserted into the change buffer tree (made with `geo` and `flavour` the first time).
    pub(crate) fn buffered(&mut self, p: u32, entry: u32, geo: Geometry, flavour: Flavour) {
        let tree = self.tree.get_or_insert_with(|| Box::new(IbufTree::new(geo, flavour)));
        let seq = tree.insert(p, entry);
        let slot = self.pending.get_mut(&p).expect("slot");
        slot.seqs.push(seq);
        slot.entry_bytes += entry;
        slot.changes += 1;
        self.bytes += entry as u64;
        self.max_pages = self.max_pages.max(self.pool_pages(0));
        self.changes_since_flush += 1;
    }

    /// A buffered purge for page `p`.
    pub(crate) fn buffered_purge(&mut self, p: u32, entry: u32, geo: Geometry, flavour: Flavour) {
        self.pending.get_mut(&p).expect("slot").purges += 1;
        self.buffered(p, entry, geo, flavour);
    }

    /// Page `p`'s buffered changes leave: their records are deleted from the tree.
    fn take(&mut self, p: u32) -> Option<Pending> {
        let x = self.pending.remove(&p)?;
        self.bytes -= x.entry_bytes as u64;
        if let Some(tree) = &mut self.tree {
            for &seq in &x.seqs {
                tree.delete(p, seq);
            }
        }
        Some(x)
    }

    /// `min_n_recs` of `ibuf_insert_low` for a purge: the records page `p` keeps by its
    /// buffered operations alone (distinct inserted or delete-marked records less purges).
    pub(crate) fn min_recs_after_buffered(&self, p: u32) -> i64 {
        self.pending.get(&p).map_or(0, |x| x.records.len() as i64 - x.purges as i64)
    }

    /// Buffered changes merged on reading `p` (`ibuf_merge_or_delete_for_page`): how many.
    pub fn merge_on_read(&mut self, p: u32) -> u32 {
        self.take(p).map_or(0, |x| x.changes)
    }

    pub fn forget(&mut self, p: u32) {
        self.take(p);
    }

    /// Change-buffer pages written at a checkpoint.
    pub fn take_dirty_pages(&mut self) -> u64 {
        let n = self.changes_since_flush.min(self.pool_pages(0) as u64);
        self.changes_since_flush = 0;
        n
    }

    /// The pages with buffered changes, in page order (`ibuf_merge_space` walks the tree).
    pub(crate) fn pending_page_numbers(&self) -> Vec<u32> {
        let mut pages: Vec<u32> = self.pending.keys().copied().collect();
        pages.sort_unstable();
        pages
    }

    /// Pages with buffered changes.
    pub fn pending_pages(&self) -> usize {
        self.pending.len()
    }

    /// Its size against its cap in a pool of `capacity` pages holding at most `max_pct` %.
    pub fn size(&self, capacity: usize, max_pct: u8) -> IbufSize {
        IbufSize {
            pages: self.pool_pages(capacity) as u64,
            max_pages: self.max_pages as u64,
            cap_pages: (capacity * max_pct as usize / 100) as u64,
        }
    }
}
