//! Node-pointer deletes and the page merges they can trigger on non-leaf levels.
//!
//! The insert path needs these because `btr_insert_into_right_sibling` deletes the
//! sibling's node pointer (a pessimistic delete, `btr_cur_pessimistic_delete`) and the parent
//! may then be compressed (`btr_compress`, docs/model-rules.md §4). Leaf-level deletes
//! (purge) start in `src/delete.rs` and end here; lift-up and the discard of a lone page live
//! there too.

use crate::page::PageNo;
use crate::space::Space;
use crate::tree::Tree;
use crate::Flavour;

impl Tree {
    /// `btr_cur_pessimistic_delete` of the node pointer at `pos` on non-leaf page `f`,
    /// followed by the compress attempt it makes. Returns true when `f` was discarded or
    /// merged away.
    pub(crate) fn delete_node_ptr(&mut self, sp: &mut Space, f: PageNo, pos: usize) -> bool {
        let kw = self.kw();
        let page = sp.page(f);
        if page.n_recs() < 2 && f != self.root {
            self.discard_page(sp, f);
            return true;
        }
        let parent_rebuilt = pos == 0 && page.prev.is_some() && page.n_recs() >= 2;
        if parent_rebuilt {
            // The leftmost node pointer goes: the parent's pointer to `f` is rebuilt from the
            // new first record. (On the leftmost page the next record just becomes min-rec.)
            let new_first = page.key(1, kw).to_vec();
            let nptr = self.node_ptr_size_of(page, 1);
            let level = page.level;
            self.node_ptr_delete(sp, f);
            self.insert(sp, level + 1, &new_first, nptr, f.0);
        }
        let fp = sp.page_mut(f);
        fp.delete_rec(pos);
        if pos == 0 && fp.prev.is_none() {
            fp.set_min_rec(kw);
        }
        if parent_rebuilt && sp.flavour == Flavour::MariaDb1011 {
            // MariaDB 10.11's btr_cur_pessimistic_delete then makes no compress attempt on
            // `f` and reports it as compressed, so its caller makes none either (measured:
            // 0 merge attempts where a compress of `f` was recommended). MySQL 8.0 tries.
            return true;
        }
        self.compress_if_useful(sp, f)
    }

    /// `btr_node_ptr_delete`: the pessimistic delete of `child`'s node pointer, then, when
    /// that did not compress the parent, one more compress attempt on it (the server makes
    /// both calls, so a parent that stays under the threshold counts two attempts).
    pub(crate) fn node_ptr_delete(&mut self, sp: &mut Space, child: PageNo) {
        let (f, fpos) = self.find_father(sp, child);
        let compressed = self.delete_node_ptr(sp, f, fpos);
        if !compressed && sp.pages[f.0 as usize].is_some() {
            self.compress_if_useful(sp, f);
        }
    }

    /// `btr_cur_compress_if_useful`: compress a non-root page that is the only one on its
    /// level or whose data fell below the merge threshold.
    pub(crate) fn compress_if_useful(&mut self, sp: &mut Space, p: PageNo) -> bool {
        if p == self.root {
            return false;
        }
        let page = sp.page(p);
        let alone = page.prev.is_none() && page.next.is_none();
        if alone || page.data_bytes < self.merge_limit {
            self.compress(sp, p)
        } else {
            false
        }
    }

    /// `btr_compress`: lift the page up if it is alone on its level, else merge it into the
    /// left sibling, else into the right one, if the sibling can take all its records.
    pub(crate) fn compress(&mut self, sp: &mut Space, p: PageNo) -> bool {
        sp.counters.merge_attempts += 1;
        let kw = self.kw();
        let g = sp.geo;
        let page = sp.page(p);
        let (prev, next, n, data) = (page.prev, page.next, page.n_recs(), page.data_bytes);
        if prev.is_none() && next.is_none() {
            return self.lift_up(sp, p);
        }
        let fits = |sp: &Space, s: PageNo| sp.page(s).max_insert_after_reorg(&g, n) >= data as i64;
        // btr_can_merge_with_page reads the sibling.
        if let Some(l) = prev {
            sp.touch_read(l);
        }
        if let Some(l) = prev.filter(|&l| fits(sp, l)) {
            if sp.page(l).max_insert(&g, n) < data as i64 {
                sp.page_mut(l).reorganize();
                sp.counters.page_reorgs += 1;
            }
            let src = sp.pages[p.0 as usize].take().expect("merged page");
            let lp = sp.page_mut(l);
            for i in 0..src.len() {
                let size = src.size(i) as u32;
                let placed = lp.place(&g, size);
                debug_assert!(placed);
                let child = src.children.get(i).copied().unwrap_or(0);
                let at = lp.len();
                lp.insert_placed(at, src.key(i, kw), size, child);
            }
            lp.next = src.next;
            if let Some(nn) = src.next {
                sp.page_mut(nn).prev = Some(l);
            }
            sp.pages[p.0 as usize] = Some(src);
            self.node_ptr_delete(sp, p);
            self.free(sp, p);
            sp.counters.merges += 1;
            return true;
        }
        if let Some(r) = next {
            sp.touch_read(r);
        }
        if let Some(r) = next.filter(|&r| fits(sp, r)) {
            let (fq, fqpos) = self.find_father(sp, p);
            let (fr, frpos) = self.find_father(sp, r);
            if sp.page(r).max_insert(&g, n) < data as i64 {
                sp.page_mut(r).reorganize();
                sp.counters.page_reorgs += 1;
            }
            let src = sp.pages[p.0 as usize].take().expect("merged page");
            let rp = sp.page_mut(r);
            for i in 0..src.len() {
                let size = src.size(i) as u32;
                let placed = rp.place(&g, size);
                debug_assert!(placed);
                let child = src.children.get(i).copied().unwrap_or(0);
                rp.insert_placed(i, src.key(i, kw), size, child);
            }
            rp.prev = src.prev;
            if let Some(pp) = src.prev {
                sp.page_mut(pp).next = Some(r);
            }
            sp.pages[p.0 as usize] = Some(src);
            // The pointer to `p` now leads to `r`; the old pointer to `r` goes.
            sp.page_mut(fq).children[fqpos] = r.0;
            let compressed = self.delete_node_ptr(sp, fr, frpos);
            if !compressed && sp.pages[fr.0 as usize].is_some() {
                self.compress_if_useful(sp, fr);
            }
            self.free(sp, p);
            sp.counters.merges += 1;
            return true;
        }
        false
    }

    /// `btr_discard_page`: a non-root page losing its last record leaves the tree.
    pub(crate) fn discard_page(&mut self, sp: &mut Space, p: PageNo) {
        let page = sp.page(p);
        let (prev, next) = (page.prev, page.next);
        if prev.is_none() && next.is_none() {
            sp.counters.page_discards += 1;
            self.discard_only_page_on_level(sp, p);
            return;
        }
        let (f, fpos) = self.find_father(sp, p);
        if let Some(l) = prev {
            sp.page_mut(l).next = next;
        }
        if let Some(r) = next {
            let rp = sp.page_mut(r);
            rp.prev = prev;
            if prev.is_none() && rp.level > 0 {
                rp.set_min_rec(self.kw());
            }
        }
        sp.counters.page_discards += 1;
        let compressed = self.delete_node_ptr(sp, f, fpos);
        if !compressed && sp.pages[f.0 as usize].is_some() {
            self.compress_if_useful(sp, f);
        }
        self.free(sp, p);
    }
}
