//! One index B+tree and InnoDB's insert path over it: descent, optimistic insert
//! (`btr_cur_optimistic_insert`), root raise (`btr_root_raise_and_insert`) and page split
//! (`btr_page_split_and_insert`, with the right-sibling attempt and the split-point
//! heuristics), node-pointer inserts on the levels above (docs/model-rules.md §3).
//!
//! The split itself is in `split.rs`; node-pointer deletes and non-leaf merges that the
//! right-sibling path triggers live in `tree/delete.rs`. Pages live in the table-wide arena
//! (`Space`, `space.rs`).

mod delete;

use crate::fsp::{Dir, SegId};
use crate::layout::Layout;
use crate::page::{Page, PageNo};
use crate::space::Space;
use crate::Flavour;

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

    pub(crate) fn install_page(&self, sp: &mut Space, no: u32, level: u16) {
        self.install_page_for(sp, no, level, None);
    }

    /// [`Tree::install_page`] for a page that will first receive `moving` records (a split's
    /// new half): the page's buffers are sized by what it will hold, not by a full page.
    pub(crate) fn install_page_for(
        &self,
        sp: &mut Space,
        no: u32,
        level: u16,
        moving: Option<usize>,
    ) {
        let (most, seen) = if level == 0 {
            (self.cap_leaf, self.split_recs[0].get())
        } else {
            (self.cap_nonleaf, self.split_recs[1].get())
        };
        // Before the first split, a small reservation that grows as records arrive. A split's
        // new half that gets a large share of the records (a middle split, random keys) is
        // sized for them plus a quarter, and grows in quarters (`Page::grow`): a new page of
        // a random load rarely fills, and a full-page reservation left ~35% of page memory
        // unused. A half that gets few records (ascending keys) fills: it is sized full.
        let full = if seen == 0 { most.min(64) } else { most.min(seen + seen / 8 + 1) };
        let cap = match moving {
            Some(m) if 4 * m >= seen && seen > 0 => full.min(m + m / 4 + 1),
            _ => full,
        };
        // Only MariaDB lowers PAGE_HEAP_TOP on delete (`Page::heap_top_shrinks`).
        let page = Page::new(level, self.kw(), cap, sp.flavour == Flavour::MariaDb1011);
        let i = no as usize;
        if sp.pages.len() <= i {
            sp.pages.resize_with(i + 1, || None);
        }
        debug_assert!(sp.pages[i].is_none());
        sp.pages[i] = Some(page);
        if let Some(pool) = &mut sp.pool {
            pool.create(no);
        }
    }

    /// Notes a change that may change non-leaf pages (see `reshapes`).
    #[inline]
    pub(crate) fn note_reshape(&self) {
        self.reshapes.set(self.reshapes.get() + 1);
    }

    /// Notes that a page of `level` splits holding `n_recs` records (sizes later pages).
    #[inline]
    pub(crate) fn note_split(&self, level: u16, n_recs: usize) {
        let seen = &self.split_recs[usize::from(level > 0)];
        if n_recs > seen.get() {
            seen.set(n_recs);
        }
    }

    /// `btr_page_alloc`: leaf pages from the leaf segment, others from the top segment.
    pub(crate) fn alloc(&self, sp: &mut Space, level: u16, hint: u32, dir: Dir) -> PageNo {
        self.alloc_for(sp, level, hint, dir, None)
    }

    /// [`Tree::alloc`] of a split's new half, which first receives `moving` records.
    pub(crate) fn alloc_for(
        &self,
        sp: &mut Space,
        level: u16,
        hint: u32,
        dir: Dir,
        moving: Option<usize>,
    ) -> PageNo {
        let seg = if level == 0 { self.seg_leaf } else { self.seg_top };
        self.note_reshape();
        let no = sp.fsp.alloc_page(seg, hint, dir);
        sp.note_allocated(no);
        sp.touch_file_space(no);
        self.install_page_for(sp, no, level, moving);
        PageNo(no)
    }

    /// `btr_page_free`.
    pub(crate) fn free(&self, sp: &mut Space, p: PageNo) {
        let level = sp.page(p).level;
        let seg = if level == 0 { self.seg_leaf } else { self.seg_top };
        self.note_reshape();
        sp.fsp.free_page(seg, p.0);
        sp.freed_unreused.insert(p.0, seg);
        sp.touch_file_space(p.0);
        sp.pages[p.0 as usize] = None;
        if self.last_leaf.get() == Some(p) {
            self.last_leaf.set(None);
        }
        if let Some(pool) = &mut sp.pool {
            pool.forget(p.0);
        }
    }

    /// Allocates BLOB pages for one record's off-page columns (`btr_store_big_rec_extern_fields`:
    /// leaf segment, hint = the record's page + 1, then the previous BLOB page + 1).
    /// Their page numbers are appended to `out`.
    pub fn alloc_blob_pages(&mut self, sp: &mut Space, near: PageNo, n: u32, out: &mut Vec<u32>) {
        let mut hint = near.0 + 1;
        for _ in 0..n {
            let p = sp.fsp.alloc_page(self.seg_leaf, hint, Dir::Neither);
            sp.note_allocated(p);
            sp.touch_file_space(p);
            if let Some(pool) = &mut sp.pool {
                pool.create(p);
            }
            out.push(p);
            hint = p + 1;
            self.blob_pages += 1;
        }
    }

    /// Frees a deleted record's BLOB pages (`btr_free_externally_stored_field`).
    pub fn free_blob_pages(&mut self, sp: &mut Space, pages: &[u32]) {
        for &p in pages {
            sp.fsp.free_page(self.seg_leaf, p);
            sp.touch_file_space(p);
            if let Some(pool) = &mut sp.pool {
                pool.forget(p);
            }
            self.blob_pages -= 1;
        }
    }

    /// Descends with PAGE_CUR_LE to `level`; returns the page and the insert position. Every
    /// page on the path is an access for the buffer pool.
    pub fn descend(&self, sp: &mut Space, key: &[u8], level: u16) -> (PageNo, usize) {
        if sp.pool.is_none() {
            return self.descend_ro(sp, key, level);
        }
        let kw = self.kw();
        let mut p = self.root;
        loop {
            sp.touch_read(p);
            let page = sp.page(p);
            if page.level == level {
                return (p, page.insert_pos(key, kw));
            }
            let (cnt, _) = page.search(key, kw);
            p = PageNo(page.children[cnt.saturating_sub(1)]);
        }
    }

    /// [`Tree::descend`] without buffer-pool accesses (a search on pages already latched).
    pub fn descend_ro(&self, sp: &Space, key: &[u8], level: u16) -> (PageNo, usize) {
        let kw = self.kw();
        let mut p = self.root;
        loop {
            let page = sp.page(p);
            if page.level == level {
                return (p, page.insert_pos(key, kw));
            }
            let (cnt, _) = page.search(key, kw);
            p = PageNo(page.children[cnt.saturating_sub(1)]);
        }
    }

    /// True when a record whose key starts with `prefix` exists (unique secondary check):
    /// such records sit together, around the position of `key`.
    pub fn contains_prefix(&self, sp: &Space, key: &[u8], prefix: usize) -> bool {
        let (p, pos) = self.descend_ro(sp, key, 0);
        self.contains_prefix_at(sp, p, pos, key, prefix)
    }

    /// [`Tree::contains_prefix`] from the leaf and insert position a descent for `key`
    /// found: the records before and after that position, on this leaf or its neighbours.
    pub(crate) fn contains_prefix_at(
        &self,
        sp: &Space,
        p: PageNo,
        pos: usize,
        key: &[u8],
        prefix: usize,
    ) -> bool {
        let kw = self.kw();
        let page = sp.page(p);
        let same = |k: &[u8]| k[..prefix] == key[..prefix];
        // Between two records of the page, an entry whose prefix bits differ rules its record
        // out without reading its key.
        let inside = pos > 0 && pos < page.len();
        let same_at = |i: usize| {
            !(inside && page.entry_differs_within(i, key, prefix)) && same(page.key(i, kw))
        };
        let found = pos > 0 && same_at(pos - 1) || pos < page.len() && same_at(pos);
        debug_assert_eq!(
            found,
            pos > 0 && same(page.key(pos - 1, kw)) || pos < page.len() && same(page.key(pos, kw))
        );
        if found {
            return true;
        }
        if pos == 0 {
            if let Some(prev) = page.prev {
                let pp = sp.page(prev);
                if let Some(n) = pp.len().checked_sub(1) {
                    return same(pp.key(n, kw));
                }
            }
        }
        if pos == page.len() {
            if let Some(next) = page.next {
                let np = sp.page(next);
                return !np.is_empty() && same(np.key(0, kw));
            }
        }
        false
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

    /// The remembered leaf when it is the rightmost leaf, not empty, and `key` is above its
    /// last key: every node pointer on the right edge is then ≤ `key`, so a PAGE_CUR_LE
    /// descent would take the last child at every level and end there, after the last record.
    /// `None` (search from the root) with a buffer pool, whose accesses the descent makes.
    pub(crate) fn rightmost_leaf_below(&self, sp: &Space, key: &[u8]) -> Option<PageNo> {
        if sp.pool.is_some() {
            return None;
        }
        self.ascending_leaf(sp, key)
    }

    /// Where a descent for `key` ends when it goes to the remembered rightmost leaf (as
    /// [`Tree::rightmost_leaf_below`], with or without a buffer pool).
    pub(crate) fn ascending_leaf(&self, sp: &Space, key: &[u8]) -> Option<PageNo> {
        let p = self.last_leaf.get()?;
        let page = sp.pages.get(p.0 as usize)?.as_ref()?;
        let n = page.len();
        let above = page.level == 0
            && page.next.is_none()
            && n > 0
            && !crate::page::key_le(key, page.key(n - 1, self.kw()));
        above.then_some(p)
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

    /// The leftmost page of every level, root level first.
    pub(crate) fn leftmost_pages(&self, sp: &Space) -> Vec<PageNo> {
        let mut out = vec![self.root];
        let mut p = self.root;
        while sp.page(p).level > 0 {
            p = PageNo(sp.page(p).children[0]);
            out.push(p);
        }
        out
    }

    /// Page numbers of one level, left to right, following the sibling links.
    pub(crate) fn level_pages(sp: &Space, leftmost: PageNo) -> impl Iterator<Item = PageNo> + '_ {
        std::iter::successors(Some(leftmost), move |&p| sp.page(p).next)
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

    /// `btr_page_get_father`: the parent page and the position of the node pointer to `p`.
    pub(crate) fn find_father(&self, sp: &Space, p: PageNo) -> (PageNo, usize) {
        let page = sp.page(p);
        let key = page.key(0, self.kw()).to_vec();
        let (f, pos) = self.descend_ro(sp, &key, page.level + 1);
        let fp = sp.page(f);
        let i = pos.saturating_sub(1);
        if fp.children.get(i) == Some(&p.0) {
            return (f, i);
        }
        // The first key of `p` is at least its node pointer's key, so the LE search lands on
        // it; reaching here means the tree is corrupt.
        panic!("node pointer to page {} not found under page {}", p.0, f.0);
    }
}
