//! The pages one index operation requests from shared buffers, in the order the server
//! requests them, for the buffer model (`buffers`): the metapage when the backend's cached
//! copy is missing or names an old root (`_bt_getroot` keeps the metapage in the relcache,
//! `rd_amcache`), the descent from the root (`_bt_search`), the rightmost-leaf fast path
//! (`_bt_search_insert`: a backend that last inserted on the rightmost leaf of a tree of
//! root level 2 or more tries that leaf first), and a split's pages (the new page, the old
//! right sibling, the parent, a new root and the metapage). Off unless the table models
//! shared buffers; then it costs a vector push per page.

use crate::buffers::Access;
use crate::page::NONE;
use crate::tree::Tree;

/// `BTREE_FASTPATH_MIN_LEVEL`: the fast path needs a root at this level or above.
pub const FASTPATH_MIN_ROOT_LEVEL: u32 = 2;
/// `BTREE_METAPAGE`.
pub const METAPAGE: u32 = 0;

/// One index's page requests, and the backend state that decides them.
#[derive(Debug, Clone)]
pub struct Trace {
    /// Tracing on.
    pub on: bool,
    /// Requests since the caller last drained them.
    pub touches: Vec<(u32, Access)>,
    /// The rightmost leaf cached for the fast path (`RelationGetTargetBlock` of the index).
    pub fast_leaf: u32,
    /// The root the cached metapage names (`NONE`: no cached metapage).
    pub cached_root: u32,
}

impl Default for Trace {
    fn default() -> Self {
        Trace { on: false, touches: Vec::new(), fast_leaf: NONE, cached_root: NONE }
    }
}

impl Trace {
    /// Records a request (when on).
    #[inline]
    pub fn touch(&mut self, block: u32, access: Access) {
        if self.on {
            self.touches.push((block, access));
        }
    }

    /// A descent from the root to a leaf through `internal` blocks: the metapage first when
    /// the cached copy is missing, or the old root and the metapage when the root moved
    /// (`_bt_getroot` finds its cached root is no longer the root and reads the metapage).
    pub fn descend(
        &mut self,
        root: u32,
        internal: impl Iterator<Item = u32>,
        leaf: u32,
        leaf_access: Access,
    ) {
        if !self.on {
            return;
        }
        if self.cached_root == NONE {
            self.touch(METAPAGE, Access::Read);
        } else if self.cached_root != root {
            self.touch(self.cached_root, Access::Read);
            self.touch(METAPAGE, Access::Read);
        }
        self.cached_root = root;
        for b in internal {
            self.touch(b, Access::Read);
        }
        self.touch(leaf, leaf_access);
    }

    /// Takes the requests recorded so far.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (u32, Access)> {
        self.touches.drain(..)
    }
}

impl Tree {
    /// The pages an insert's search requests: the cached rightmost leaf when the fast path
    /// takes it (`_bt_search_insert`: the key above the leaf's first item and more free
    /// space than the item needs), else that leaf (tried and let go) and a descent.
    pub(crate) fn trace_insert_descent(
        &mut self,
        leaf: u32,
        key: &[u8],
        size: u16,
        path: &[(u32, usize)],
    ) {
        let fast = self.trace.fast_leaf;
        if fast != NONE {
            let p = &self.pages[fast as usize];
            let s = self.stride();
            let usable = fast == leaf
                && p.level == 0
                && p.next == NONE
                && p.free_space() > u32::from(size)
                && !p.is_empty()
                && key > p.key(s, 0);
            self.trace.touch(fast, if usable { Access::Write } else { Access::Read });
            if usable {
                return;
            }
            self.trace.fast_leaf = NONE;
        }
        self.trace.descend(self.root, path.iter().map(|&(b, _)| b), leaf, Access::Write);
    }
}
