//! Figures of one index as pageinspect and pgstattuple's `pgstatindex` report them: leaf
//! and internal pages, deleted pages, height, `avg_leaf_density` (100 minus the leaves'
//! `PageGetFreeSpace` over their usable bytes, rightmost leaf included) and
//! `leaf_fragmentation` (leaves whose right sibling has a lower block number).

use crate::geometry::BT_USABLE_BYTES;
use crate::tree::{Tree, NONE};

/// One index's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexStats {
    /// Blocks of the index file, metapage and deleted pages included.
    pub size_pages: u64,
    /// Live leaf pages.
    pub leaf_pages: u64,
    /// Live internal pages, the root included.
    pub internal_pages: u64,
    /// Deleted pages (`btpo_flags` BTP_DELETED).
    pub deleted_pages: u64,
    /// Deleted pages in the free space map, reusable by the next split.
    pub recyclable_pages: u64,
    /// Levels, leaves included (0 when empty).
    pub height: u32,
    /// Live pages per level, leaves first.
    pub pages_per_level: Vec<u64>,
    /// `pgstatindex`'s `avg_leaf_density`, percent.
    pub avg_leaf_density: f64,
    /// `pgstatindex`'s `leaf_fragmentation`, percent.
    pub leaf_fragmentation: f64,
    /// Leaf items (high keys excluded; a posting list is one item, as pageinspect counts).
    pub entries: u64,
    /// Heap TIDs in the leaves (a posting list counts each of its TIDs).
    pub heap_tids: u64,
    /// Leaf items per leaf.
    pub entries_per_leaf: f64,
    /// Leaves by used share of their usable bytes, in tenths (0-10 %, ..., 90-100 %).
    pub fill_histogram: [u64; 10],
}

impl Tree {
    /// The index's figures.
    pub fn stats(&self) -> IndexStats {
        let mut st = IndexStats {
            size_pages: self.pages.len() as u64,
            leaf_pages: 0,
            internal_pages: 0,
            deleted_pages: 0,
            recyclable_pages: self.fsm.len() as u64,
            height: self.height(),
            pages_per_level: vec![0; self.height() as usize],
            avg_leaf_density: 0.0,
            leaf_fragmentation: 0.0,
            entries: 0,
            heap_tids: 0,
            entries_per_leaf: 0.0,
            fill_histogram: [0; 10],
        };
        let (mut free, mut fragments) = (0u64, 0u64);
        for (b, p) in self.pages.iter().enumerate().skip(1) {
            if p.deleted_xid.is_some() {
                st.deleted_pages += 1;
                continue;
            }
            if let Some(n) = st.pages_per_level.get_mut(p.level as usize) {
                *n += 1;
            }
            if p.level > 0 {
                st.internal_pages += 1;
                continue;
            }
            st.leaf_pages += 1;
            st.entries += p.tuple_count() as u64;
            st.heap_tids += p.len() as u64;
            free += u64::from(p.free_space());
            if p.next != NONE && (p.next as usize) < b {
                fragments += 1;
            }
            let tenth = (u64::from(p.used) * 10 / u64::from(BT_USABLE_BYTES)) as usize;
            st.fill_histogram[tenth.min(9)] += 1;
        }
        if st.leaf_pages > 0 {
            let avail = st.leaf_pages as f64 * f64::from(BT_USABLE_BYTES);
            st.avg_leaf_density = 100.0 - free as f64 * 100.0 / avail;
            st.leaf_fragmentation = fragments as f64 * 100.0 / st.leaf_pages as f64;
            st.entries_per_leaf = st.entries as f64 / st.leaf_pages as f64;
        }
        st
    }
}
