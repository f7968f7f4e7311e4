//! One index B+tree and InnoDB's insert path over it: descent, optimistic insert
//! (`btr_cur_optimistic_insert`), root raise (`btr_root_raise_and_insert`) and page split
//! (`btr_page_split_and_insert`, with the right-sibling attempt and the split-point
//! heuristics), node-pointer inserts on the levels above (docs/model-rules.md §3).
//!
//! The split itself is in `split.rs`; node-pointer deletes and non-leaf merges that the
//! right-sibling path triggers live in `tree/delete.rs`; page allocation and freeing in
//! `tree/pages.rs`; descents and level walks in `tree/search.rs`. Pages live in the table-wide arena
//! (`Space`, `space.rs`).

mod delete;
mod pages;
mod search;

use crate::fsp::{Dir, SegId};
use crate::layout::Layout;
use crate::page::{Page, PageNo};
use crate::space::Space;

/// One index tree.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    pub layout: Layout,
    pub root: PageNo,
    pub seg_leaf: SegId,
    pub seg_top: SegId,
    pub records: u64,
    pub blob_pages: u64,
    /// `BTR_CUR_PAGE_COMPRESS_LIMIT` of this index: page bytes × MERGE_THRESHOLD / 100.
    pub merge_limit: u32,
    /// The most records a leaf and a non-leaf page could hold (rows of minimum size).
    cap_leaf: usize,
    cap_nonleaf: usize,
    /// The most records a leaf and a non-leaf page held when it split: a new page reserves
    /// room for about that many. Reserving the most that could ever fit cost gigabytes on
    /// indexes of nullable columns, whose minimum record is tiny (E5: 3.2 GB for 1M rows).
    split_recs: [std::cell::Cell<usize>; 2],
    /// The leaf the last `insert_unique` (or, for any index, `SimTable::insert_found`) went
    /// to: when it is still the rightmost leaf and the new key is above its last key, the
    /// descent would end there, so an ascending load skips it. Validated on every use;
    /// cleared when the page is freed (its number may be reused).
    pub(crate) last_leaf: std::cell::Cell<Option<PageNo>>,
    /// Pessimistic inserts, page allocations and frees so far: while it stays the same, no
    /// non-leaf page changed, so a descent for a key ends at the leaf it ended at before.
    pub(crate) reshapes: std::cell::Cell<u64>,
    /// The leaf a descent for the next insert's key ends at, found by the caller with no
    /// reshape since (`SimTable::insert_batch_each`); consumed by that insert
    /// (`insert_unique`, or the two-pass `SimTable::insert_found`).
    pub(crate) leaf_hint: std::cell::Cell<Option<PageNo>>,
    /// The non-leaf pages of the descent that found `leaf_hint`, root first: with a buffer
    /// pool the insert makes their page accesses without searching them again.
    pub(crate) path_hint: std::cell::Cell<NodePath>,
}

/// The non-leaf pages a descent passed, root first (a tree deeper than its capacity is
/// never hinted: `push` refuses). By hand rather than `SmallVec`: a `Cell` hands out copies,
/// and this is `Copy`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NodePath {
    pages: [u32; 8],
    len: u8,
}

impl NodePath {
    /// Adds a page below the last; false when the path is full.
    pub(crate) fn push(&mut self, p: PageNo) -> bool {
        let Some(slot) = self.pages.get_mut(self.len as usize) else { return false };
        *slot = p.0;
        self.len += 1;
        true
    }

    pub(crate) fn pages(&self) -> &[u32] {
        &self.pages[..self.len as usize]
    }
}

impl Tree {
    /// Creates an empty index: a top segment whose first page is the root (a leaf), and an
    /// empty leaf segment (`btr_create`).
    pub fn create(sp: &mut Space, layout: Layout) -> Tree {
        let seg_top = sp.fsp.create_segment();
        let seg_leaf = sp.fsp.create_segment();
        let g = sp.geo;
        let cap = |min: u32| ((g.free_empty / (min.max(5) + 1)) as usize).min(8192);
        let mut t = Tree {
            cap_leaf: cap(layout.min_leaf_bytes()),
            cap_nonleaf: cap(layout.min_node_ptr_bytes()),
            layout,
            root: PageNo(0),
            seg_leaf,
            seg_top,
            records: 0,
            blob_pages: 0,
            merge_limit: g.merge_limit,
            last_leaf: std::cell::Cell::new(None),
            split_recs: Default::default(),
            reshapes: std::cell::Cell::new(0),
            leaf_hint: std::cell::Cell::new(None),
            path_hint: std::cell::Cell::new(NodePath::default()),
        };
        let root = sp.fsp.alloc_page(seg_top, 0, Dir::Neither);
        sp.touch_file_space(root);
        t.install_page(sp, root, 0);
        t.root = PageNo(root);
        t
    }

    #[inline]
    pub fn kw(&self) -> usize {
        self.layout.key_width
    }

    /// Inserts a record at `level` (0 = a leaf record of `size` bytes; above, a node pointer
    /// to `child`) through the optimistic path, else the pessimistic one. Returns the page
    /// that received it.
    pub fn insert(
        &mut self,
        sp: &mut Space,
        level: u16,
        key: &[u8],
        size: u32,
        child: u32,
    ) -> PageNo {
        let (p, pos) = self.descend(sp, key, level);
        self.insert_at(sp, p, pos, key, size, child)
    }

    /// Inserts a leaf record unless its key exists (one descent serves both); `None` on a
    /// duplicate, with nothing changed.
    pub fn insert_unique(&mut self, sp: &mut Space, key: &[u8], size: u32) -> Option<PageNo> {
        let kw = self.kw();
        let hint = self.leaf_hint.take();
        if let Some(p) = self.rightmost_leaf_below(sp, key) {
            let pos = sp.page(p).len();
            let p = self.insert_at(sp, p, pos, key, size, 0);
            self.last_leaf.set(Some(p));
            return Some(p);
        }
        // A hinted leaf (where the descent would end) skips the descent's searches. Without a
        // buffer pool its page accesses count nothing; with one they are made on the pages the
        // hint's descent passed (the same pages, since no non-leaf page changed), in order.
        let mut p = match hint {
            Some(leaf) => {
                debug_assert_eq!(self.descend_ro(sp, key, 0).0, leaf, "stale leaf hint");
                if sp.pool.is_some() {
                    for &node in self.path_hint.get().pages() {
                        sp.touch_read(PageNo(node));
                    }
                }
                leaf
            }
            None => self.root,
        };
        // The descent of `descend` to the leaf, keeping the leaf search's equality flag (the
        // record before the cursor equals `key`) so the key is not read again.
        let (pos, dup) = loop {
            sp.touch_read(p);
            let page = sp.page(p);
            if page.level == 0 {
                page.load_free_head();
                break page.search_for_insert(key, kw);
            }
            let (cnt, _) = page.search(key, kw);
            p = PageNo(page.children[cnt.saturating_sub(1)]);
        };
        if dup {
            return None;
        }
        let p = self.insert_at(sp, p, pos, key, size, 0);
        self.last_leaf.set(Some(p));
        Some(p)
    }

    pub(crate) fn insert_at(
        &mut self,
        sp: &mut Space,
        p: PageNo,
        pos: usize,
        key: &[u8],
        size: u32,
        child: u32,
    ) -> PageNo {
        if self.optimistic(sp, p, pos, key, size, child) {
            return p;
        }
        self.note_reshape();
        if sp.page(p).level == 0 {
            // btr_cur_pessimistic_insert reserves tree_height / 16 + 3 extents first.
            let height = sp.page(self.root).level as u32 + 1;
            sp.fsp.reserve_free_extents(height / 16 + 3);
        }
        if p == self.root {
            self.root_raise_and_insert(sp, key, size, child)
        } else {
            self.split_and_insert(sp, p, pos, key, size, child)
        }
    }

    /// True when the sequential-insert heuristics of `btr_page_get_split_rec_to_right` or
    /// `_to_left` fire for an insert at `pos`.
    pub(crate) fn sequential_at(page: &Page, pos: usize) -> bool {
        match page.last_insert {
            Some(l) => (pos >= 1 && l as usize == pos - 1) || l as usize == pos,
            None => false,
        }
    }

    /// `btr_cur_optimistic_insert` rules (docs/model-rules.md §3). Inserts and returns true, or false
    /// (DB_FAIL) without changing the page.
    fn optimistic(
        &self,
        sp: &mut Space,
        p: PageNo,
        pos: usize,
        key: &[u8],
        size: u32,
        child: u32,
    ) -> bool {
        let g = sp.geo;
        let clustered = self.layout.clustered;
        let page = sp.page_mut(p);
        let n = page.n_recs();
        let ms = page.max_insert_after_reorg(&g, 1);
        if ms < size as i64 {
            return false;
        }
        if g.page_bytes == 65536 && n >= 8189 {
            return false;
        }
        if page.garbage_bytes > 0
            && ms < g.reorg_limit as i64
            && n > 1
            && page.max_insert(&g, 1) < size as i64
        {
            return false;
        }
        // The 1/16 reserve on clustered leaves under sequential inserts.
        if page.level == 0
            && clustered
            && n >= 2
            && (g.reserve as i64 + size as i64) > ms
            && Self::sequential_at(page, pos)
        {
            return false;
        }
        if !page.place(&g, size) {
            page.reorganize();
            sp.counters.page_reorgs += 1;
            let page = sp.page_mut(p);
            let placed = page.place(&g, size);
            debug_assert!(placed, "fits after reorganize");
        }
        sp.page_mut(p).insert_placed(pos, key, size, child);
        true
    }

    /// `btr_root_raise_and_insert`: the root's records move to a new page at the root's level,
    /// the root becomes one level higher with a single node pointer, and the new page is split.
    fn root_raise_and_insert(
        &mut self,
        sp: &mut Space,
        key: &[u8],
        size: u32,
        child: u32,
    ) -> PageNo {
        let kw = self.kw();
        let level = sp.page(self.root).level;
        let new = self.alloc(sp, level, 0, Dir::Neither);
        sp.touch_dirty(self.root);
        let root = sp.pages[self.root.0 as usize].take().expect("root");
        {
            let np = sp.page_mut(new);
            root.copy_to_new(0..root.len(), kw, np);
        }
        let mut root = root;
        root.make_empty();
        root.level = level + 1;
        root.children = Vec::with_capacity(self.cap_nonleaf);
        let first = sp.page(new).key(0, kw).to_vec();
        let nptr = self.node_ptr_size_of(sp.page(new), 0);
        let placed = root.place(&sp.geo, nptr);
        debug_assert!(placed);
        root.insert_placed(0, &first, nptr, new.0);
        root.set_min_rec(kw);
        sp.pages[self.root.0 as usize] = Some(root);
        sp.counters.root_raises += 1;
        let pos = sp.page(new).insert_pos(key, kw);
        self.split_and_insert(sp, new, pos, key, size, child)
    }

    /// Size of the node pointer built from record `i` of `page` (`dict_index_build_node_ptr`):
    /// a non-leaf record already is one (its key may be zeroed as the min-rec).
    pub(crate) fn node_ptr_size_of(&self, page: &Page, i: usize) -> u32 {
        if page.level > 0 {
            page.size(i) as u32
        } else {
            self.layout.node_ptr_size(page.key(i, self.kw()))
        }
    }

    /// Re-encodes every stored key for wider variable-length key slots.
    pub(crate) fn rewiden(&mut self, sp: &mut Space, widths: &[u32]) {
        let kw = self.kw();
        let pages: Vec<PageNo> = self
            .leftmost_pages(sp)
            .into_iter()
            .flat_map(|l| Self::level_pages(sp, l).collect::<Vec<_>>())
            .collect();
        let mut wider = self.layout.clone();
        wider.set_widths(widths);
        let new_kw = wider.key_width;
        for p in pages {
            // A simulator re-encoding, not a server page change: no buffer-pool access.
            let page = sp.pages[p.0 as usize].as_mut().expect("live page");
            page.map_keys(kw, new_kw, |k, out| self.layout.reencode(k, widths, out));
        }
        self.layout = wider;
        // A hint found for the narrower key is not used for the wider one.
        self.leaf_hint.set(None);
    }
}
