//! One index B+tree and InnoDB's insert path over it: descent, optimistic insert
//! (`btr_cur_optimistic_insert`), root raise (`btr_root_raise_and_insert`) and page split
//! (`btr_page_split_and_insert`, with the right-sibling attempt and the split-point
//! heuristics), node-pointer inserts on the levels above (innodb-internals.md §3).
//!
//! Node-pointer deletes and non-leaf merges that the right-sibling path triggers live in
//! `tree_delete.rs`. Pages live in the table-wide arena (`Space`).

use crate::fsp::{Dir, SegId};
use crate::layout::Layout;
use crate::page::{Page, PageNo};
use crate::{Counters, Flavour, Geometry};

/// Every page of the table's tablespace (indexed by page number) plus the allocator and
/// the counters all indexes share.
#[derive(Debug, Clone)]
pub(crate) struct Space {
    pub pages: Vec<Option<Page>>,
    pub fsp: crate::fsp::Fsp,
    pub geo: Geometry,
    pub flavour: Flavour,
    pub counters: Counters,
    /// The buffer pool (and change buffer) model; `None` = every page cached, no I/O.
    pub pool: Option<crate::pool::Pool>,
}

impl Space {
    #[inline]
    pub fn page(&self, p: PageNo) -> &Page {
        self.pages[p.0 as usize].as_ref().expect("live page")
    }
    /// A page about to change: the buffer pool sees an access that dirties it.
    #[inline]
    pub fn page_mut(&mut self, p: PageNo) -> &mut Page {
        if let Some(pool) = &mut self.pool {
            pool.access(p.0, true);
        }
        self.pages[p.0 as usize].as_mut().expect("live page")
    }
    /// A page read (descent, sibling check) without a change.
    #[inline]
    pub fn touch_read(&mut self, p: PageNo) {
        if let Some(pool) = &mut self.pool {
            pool.access(p.0, false);
        }
    }
    /// A page changed through a path that does not go through `page_mut`.
    #[inline]
    pub fn touch_dirty(&mut self, p: PageNo) {
        if let Some(pool) = &mut self.pool {
            pool.access(p.0, true);
        }
    }
}

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
    /// Page capacity reservations (records) for leaf and non-leaf pages.
    cap_leaf: usize,
    cap_nonleaf: usize,
}

/// Where a split puts the upper half's first record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SplitAt {
    /// A record index: records from here on (UP) / before here (DOWN) move.
    Rec(usize),
    /// The tuple is the first record of the upper half (`split_rec == NULL`).
    Tuple,
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
        };
        let root = sp.fsp.alloc_page(seg_top, 0, Dir::Neither);
        t.install_page(sp, root, 0);
        t.root = PageNo(root);
        t
    }

    #[inline]
    pub fn kw(&self) -> usize {
        self.layout.key_width
    }

    fn install_page(&self, sp: &mut Space, no: u32, level: u16) {
        let cap = if level == 0 { self.cap_leaf } else { self.cap_nonleaf };
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

    /// `btr_page_alloc`: leaf pages from the leaf segment, others from the top segment.
    pub(crate) fn alloc(&self, sp: &mut Space, level: u16, hint: u32, dir: Dir) -> PageNo {
        let seg = if level == 0 { self.seg_leaf } else { self.seg_top };
        let no = sp.fsp.alloc_page(seg, hint, dir);
        self.install_page(sp, no, level);
        PageNo(no)
    }

    /// `btr_page_free`.
    pub(crate) fn free(&self, sp: &mut Space, p: PageNo) {
        let level = sp.page(p).level;
        let seg = if level == 0 { self.seg_leaf } else { self.seg_top };
        sp.fsp.free_page(seg, p.0);
        sp.pages[p.0 as usize] = None;
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
        let kw = self.kw();
        let (p, pos) = self.descend_ro(sp, key, 0);
        let page = sp.page(p);
        let same = |k: &[u8]| k[..prefix] == key[..prefix];
        if pos > 0 && same(page.key(pos - 1, kw))
            || pos < page.sizes.len() && same(page.key(pos, kw))
        {
            return true;
        }
        if pos == 0 {
            if let Some(prev) = page.prev {
                let pp = sp.page(prev);
                if let Some(n) = pp.sizes.len().checked_sub(1) {
                    return same(pp.key(n, kw));
                }
            }
        }
        if pos == page.sizes.len() {
            if let Some(next) = page.next {
                let np = sp.page(next);
                return !np.sizes.is_empty() && same(np.key(0, kw));
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
        let (p, pos) = self.descend(sp, key, 0);
        if pos > 0 && sp.page(p).key(pos - 1, self.kw()) == key {
            return None;
        }
        Some(self.insert_at(sp, p, pos, key, size, 0))
    }

    fn insert_at(
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
    fn sequential_at(page: &Page, pos: usize) -> bool {
        match page.last_insert {
            Some(l) => (pos >= 1 && l as usize == pos - 1) || l as usize == pos,
            None => false,
        }
    }

    /// `btr_cur_optimistic_insert` rules 1–5 (§3.2). Inserts and returns true, or false
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
            root.copy_to_new(0..root.sizes.len(), kw, np);
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

    /// `btr_page_split_and_insert` (§3.5) for an insert at `pos` of page `p`.
    pub(crate) fn split_and_insert(
        &mut self,
        sp: &mut Space,
        mut p: PageNo,
        mut pos: usize,
        key: &[u8],
        size: u32,
        child: u32,
    ) -> PageNo {
        let kw = self.kw();
        let g = sp.geo;
        // MariaDB 10.11 counts every call (buf_pool.pages_split++ at entry, so right-sibling
        // inserts count too); MySQL 8.0 counts a completed split at the end.
        if sp.flavour == Flavour::MariaDb1011 {
            sp.counters.page_splits += 1;
        }
        let mut iteration = 0u32;
        loop {
            if let Some(r) = self.try_right_sibling(sp, p, pos, key, size, child) {
                return r;
            }
            let page = sp.page(p);
            let n = page.sizes.len();
            let level = page.level;
            let mut dir = Dir::Up;
            let at = if iteration > 0 {
                self.size_split_rec(page, pos, size, &g)
            } else if pos >= 1 && page.last_insert == Some(pos as u32 - 1) {
                // btr_page_get_split_rec_to_right: keep one record after the insert point.
                if pos + 1 >= n {
                    SplitAt::Tuple
                } else {
                    SplitAt::Rec(pos + 1)
                }
            } else if page.last_insert == Some(pos as u32) {
                // btr_page_get_split_rec_to_left.
                dir = Dir::Down;
                SplitAt::Rec(if pos <= 1 { pos } else { pos - 1 })
            } else if n > 1 {
                // page_get_middle_rec: the lower half keeps floor(n/2) records.
                SplitAt::Rec(n / 2)
            } else if pos == 0 {
                SplitAt::Rec(0)
            } else {
                SplitAt::Tuple
            };
            let insert_left = match at {
                SplitAt::Rec(s) => pos <= s,
                SplitAt::Tuple => iteration > 0 && pos == 0,
            };
            let hint = if dir == Dir::Down { p.0.wrapping_sub(1) } else { p.0 + 1 };
            let new = self.alloc(sp, level, hint, dir);
            // Node pointer of the upper half; InnoDB attaches before moving records.
            let page = sp.page(p);
            let upper_key: Vec<u8> = match at {
                SplitAt::Rec(s) => page.key(s, kw).to_vec(),
                SplitAt::Tuple if insert_left => page.key(0, kw).to_vec(),
                SplitAt::Tuple => key.to_vec(),
            };
            let nptr = match at {
                SplitAt::Rec(s) => self.node_ptr_size_of(page, s),
                SplitAt::Tuple if insert_left => self.node_ptr_size_of(page, 0),
                SplitAt::Tuple if level > 0 => size,
                SplitAt::Tuple => self.layout.node_ptr_size(key),
            };
            let (lower, upper) = if dir == Dir::Down { (new, p) } else { (p, new) };
            if dir == Dir::Down {
                let (f, fpos) = self.find_father(sp, p);
                sp.page_mut(f).children[fpos] = new.0;
            }
            self.insert(sp, level + 1, &upper_key, nptr, upper.0);
            // Move the records (btr_page_split_and_insert step 5).
            sp.touch_dirty(p);
            let old = sp.pages[p.0 as usize].take().expect("split page");
            let mut old = old;
            {
                let np = sp.page_mut(new);
                match (dir, at) {
                    (Dir::Down, SplitAt::Rec(s)) => {
                        old.copy_to_new(0..s, kw, np);
                        old.remove_head(s, kw);
                    }
                    (_, SplitAt::Rec(s)) => {
                        old.copy_to_new(s..n, kw, np);
                        old.remove_tail(s, kw);
                    }
                    (_, SplitAt::Tuple) => {
                        old.copy_to_new(pos..n, kw, np);
                        old.remove_tail(pos, kw);
                    }
                }
            }
            // Sibling links.
            if dir == Dir::Down {
                let prev = old.prev;
                old.prev = Some(new);
                sp.page_mut(new).prev = prev;
                sp.page_mut(new).next = Some(p);
                if let Some(pp) = prev {
                    sp.page_mut(pp).next = Some(new);
                }
            } else {
                let next = old.next;
                old.next = Some(new);
                sp.page_mut(new).prev = Some(p);
                sp.page_mut(new).next = next;
                if let Some(nn) = next {
                    sp.page_mut(nn).prev = Some(new);
                }
            }
            sp.pages[p.0 as usize] = Some(old);
            // Insert the tuple into its half; reorganize once if needed, else split again.
            let target = if insert_left { lower } else { upper };
            let tp = sp.page_mut(target);
            let tpos = tp.insert_pos(key, kw);
            let mut ok = tp.place(&g, size);
            if !ok {
                tp.reorganize();
                ok = tp.place(&g, size);
                sp.counters.page_reorgs += 1;
            }
            if ok {
                sp.page_mut(target).insert_placed(tpos, key, size, child);
                if sp.flavour == Flavour::Mysql80 {
                    sp.counters.page_splits += 1;
                }
                return target;
            }
            iteration += 1;
            p = target;
            pos = tpos;
        }
    }

    /// `btr_insert_into_right_sibling`: when the insert point is the end of the page, place
    /// the record first on the right sibling if it has room without reorganizing, then
    /// replace the sibling's node pointer.
    fn try_right_sibling(
        &mut self,
        sp: &mut Space,
        p: PageNo,
        pos: usize,
        key: &[u8],
        size: u32,
        child: u32,
    ) -> Option<PageNo> {
        let page = sp.page(p);
        let r = page.next?;
        if pos != page.sizes.len() {
            return None;
        }
        let g = sp.geo;
        let level = page.level;
        let (f, fpos) = self.find_father(sp, r);
        let rp = sp.page_mut(r);
        let rpos = rp.insert_pos(key, self.kw());
        if !rp.place(&g, size) {
            return None;
        }
        rp.insert_placed(rpos, key, size, child);
        sp.counters.right_sibling_inserts += 1;
        let compressed = self.delete_node_ptr(sp, f, fpos);
        if !compressed && sp.pages[f.0 as usize].is_some() {
            self.compress_if_useful(sp, f);
        }
        // A node pointer built from a node pointer has the same fields: the same size.
        let nptr = if level > 0 { size } else { self.layout.node_ptr_size(key) };
        self.insert(sp, level + 1, key, nptr, r.0);
        Some(r)
    }

    /// `btr_page_get_split_rec` (§3.5 rule 4): the size-based split point.
    fn size_split_rec(&self, page: &Page, pos: usize, size: u32, g: &Geometry) -> SplitAt {
        let n = page.sizes.len();
        let total_data = page.data_bytes + size;
        let total_space = total_data + crate::page::dir_res(n as u32 + 1);
        // Items in page order with the tuple at `pos`: j < pos → rec j, j == pos → tuple,
        // j > pos → rec j-1.
        let item_size = |j: usize| {
            if j == pos {
                size
            } else if j < pos {
                page.sizes[j] as u32
            } else {
                page.sizes[j - 1] as u32
            }
        };
        let mut incl = 0u32;
        let mut j = 0usize;
        loop {
            incl += item_size(j);
            let count = j as u32 + 1;
            if incl + crate::page::dir_res(count) >= total_space / 2 || j == n {
                break;
            }
            j += 1;
        }
        let count = j as u32 + 1;
        let as_rec = |j: usize| if j < pos { j } else { j - 1 };
        if incl + crate::page::dir_res(count) <= g.free_empty {
            if pos >= 1 && j == pos - 1 {
                return SplitAt::Tuple;
            }
            if j < n {
                // The next item is a record (it cannot be the tuple: that case returned above).
                return SplitAt::Rec(as_rec(j + 1));
            }
            if j == pos {
                return SplitAt::Tuple;
            }
            return SplitAt::Rec(as_rec(j));
        }
        if j == pos {
            SplitAt::Tuple
        } else {
            SplitAt::Rec(as_rec(j))
        }
    }

    /// Size of the node pointer built from record `i` of `page` (`dict_index_build_node_ptr`):
    /// a non-leaf record already is one (its key may be zeroed as the min-rec).
    pub(crate) fn node_ptr_size_of(&self, page: &Page, i: usize) -> u32 {
        if page.level > 0 {
            page.sizes[i] as u32
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
