//! The pool's per-page LRU nodes, indexed by page id: the table's own tablespace from 0 up,
//! and the system tablespace's pages (rollback-segment headers, undo log pages: `undo.rs`)
//! from [`SYS_PAGE_BASE`] up, each in its own vector so that neither grows into the other.

use super::Node;
use std::ops::{Index, IndexMut};

/// First page id of the system tablespace in the pool (table pages stay below it: 2^30 pages
/// is 16 TiB at 16 KiB).
pub const SYS_PAGE_BASE: u32 = 1 << 30;

#[derive(Debug, Clone, Default)]
pub(super) struct Nodes {
    table: Vec<Node>,
    sys: Vec<Node>,
}

impl Nodes {
    fn split(p: usize) -> (bool, usize) {
        let base = SYS_PAGE_BASE as usize;
        if p < base {
            (false, p)
        } else {
            (true, p - base)
        }
    }

    pub(super) fn get(&self, p: usize) -> Option<&Node> {
        match Self::split(p) {
            (false, i) => self.table.get(i),
            (true, i) => self.sys.get(i),
        }
    }

    /// The node of `p`, added (empty) when `p` is new.
    pub(super) fn get_or_add(&mut self, p: usize, empty: Node) -> &mut Node {
        let (sys, i) = Self::split(p);
        let v = if sys { &mut self.sys } else { &mut self.table };
        if v.len() <= i {
            v.resize(i + 1, empty);
        }
        &mut v[i]
    }

    pub(super) fn clear(&mut self) {
        self.table.clear();
        self.sys.clear();
    }
}

impl Index<usize> for Nodes {
    type Output = Node;
    fn index(&self, p: usize) -> &Node {
        match Self::split(p) {
            (false, i) => &self.table[i],
            (true, i) => &self.sys[i],
        }
    }
}

impl IndexMut<usize> for Nodes {
    fn index_mut(&mut self, p: usize) -> &mut Node {
        match Self::split(p) {
            (false, i) => &mut self.table[i],
            (true, i) => &mut self.sys[i],
        }
    }
}
