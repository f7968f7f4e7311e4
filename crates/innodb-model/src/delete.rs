//! The purge of one leaf record (`row_purge_remove_clust_if_poss` /
//! `row_purge_remove_sec_if_poss`): the optimistic delete when the page stays above the merge
//! threshold and has siblings, else the pessimistic delete with its page discard or compress
//! attempt (docs/model-rules.md §4). Lift-up of a page alone on its level and the
//! discard of the last page of a level also live here.
//!
//! Records are found by their full index key (secondary keys include the primary key, so
//! every key is unique). Off-page columns of a deleted row are freed by the caller.

use crate::page::PageNo;
use crate::space::Space;
use crate::tree::Tree;

impl Tree {
    /// Deletes the leaf record whose key is `key`; false when there is none.
    pub fn delete_leaf(&mut self, sp: &mut Space, key: &[u8]) -> bool {
        let kw = self.kw();
        let (p, pos) = self.descend(sp, key, 0);
        let page = sp.page(p);
        if pos == 0 || page.key(pos - 1, kw) != key {
            return false;
        }
        let i = pos - 1;
        let size = page.size(i) as u32;
        let has_siblings = page.prev.is_some() || page.next.is_some();
        let n = page.n_recs();
        self.records -= 1;
        // btr_cur_can_delete_without_compress: siblings, ≥ 2 records, and the page stays at or
        // above BTR_CUR_PAGE_COMPRESS_LIMIT (record bytes, MERGE_THRESHOLD of this index).
        if p != self.root && has_siblings && n >= 2 && page.data_bytes - size >= self.merge_limit {
            sp.page_mut(p).delete_rec(i);
            return true;
        }
        if p == self.root {
            // The root never merges; its last record leaves an empty page (btr_page_empty).
            let rp = sp.page_mut(p);
            if n == 1 {
                rp.make_empty();
            } else {
                rp.delete_rec(i);
            }
            return true;
        }
        // btr_cur_optimistic_delete failed: btr_cur_prefetch_siblings reads both siblings.
        let (prev, next) = (page.prev, page.next);
        for s in [prev, next].into_iter().flatten() {
            sp.touch_read(s);
        }
        // btr_cur_pessimistic_delete: a page losing its only record is discarded.
        if n < 2 {
            self.discard_page(sp, p);
            return true;
        }
        sp.page_mut(p).delete_rec(i);
        self.compress_if_useful(sp, p);
        true
    }

    /// `btr_lift_page_up`: `p` is alone on its level (not the root). Its parent is emptied and
    /// takes its records and level; the levels above drop by one; `p` is freed. A leaf whose
    /// parent is not the root lifts the parent first (a leaf may only become the root).
    pub(crate) fn lift_up(&mut self, sp: &mut Space, p: PageNo) -> bool {
        let kw = self.kw();
        // Ancestors from the parent up to the root.
        let mut chain = vec![self.find_father(sp, p).0];
        while *chain.last().expect("parent") != self.root {
            let up = self.find_father(sp, *chain.last().expect("parent")).0;
            chain.push(up);
        }
        let lift_father = chain.len() > 1 && sp.page(p).level == 0;
        let (block, father, above) = if lift_father {
            (chain[0], chain[1], &chain[2..])
        } else {
            (p, chain[0], &chain[1..])
        };
        let above = above.to_vec();
        sp.touch_dirty(father);
        let src = sp.pages[block.0 as usize].take().expect("lifted page");
        {
            let fp = sp.page_mut(father);
            fp.make_empty();
            fp.level = src.level;
            src.copy_to_new(0..src.len(), kw, fp);
        }
        sp.pages[block.0 as usize] = Some(src);
        for a in above {
            sp.page_mut(a).level -= 1;
        }
        self.free(sp, block);
        sp.counters.merges += 1;
        true
    }

    /// `btr_discard_only_page_on_level`: the last record of a page alone on its level goes;
    /// the page and its single-record ancestors are freed and the root is left an empty leaf.
    pub(crate) fn discard_only_page_on_level(&mut self, sp: &mut Space, p: PageNo) {
        let mut b = p;
        while b != self.root {
            let f = self.find_father(sp, b).0;
            self.free(sp, b);
            b = f;
        }
        let root = sp.page_mut(self.root);
        root.make_empty();
        root.level = 0;
    }
}
