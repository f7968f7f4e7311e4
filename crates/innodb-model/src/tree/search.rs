//! Finding things in a tree without changing it: PAGE_CUR_LE descents (with or without
//! buffer-pool accesses), the unique-prefix check, the remembered rightmost leaf of an
//! ascending load, the pages of a level, and `btr_page_get_father`.
//!
//! Not for inserting or deleting records (`tree/mod.rs`, `tree/delete.rs`).

use crate::page::PageNo;
use crate::space::Space;
use crate::tree::Tree;

impl Tree {
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
