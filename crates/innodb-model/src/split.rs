//! The page split of InnoDB's insert path (`btr_page_split_and_insert`, docs/model-rules.md
//! §3): the right-sibling attempt (`btr_insert_into_right_sibling`), the split-point
//! heuristics (to the right, to the left, middle, size-based), page allocation with the
//! direction hint, moving records, the node pointer on the level above, and the retry when
//! the tuple still does not fit.

use crate::fsp::Dir;
use crate::page::{Page, PageNo};
use crate::space::Space;
use crate::tree::Tree;
use crate::{Flavour, Geometry};

/// Where a split puts the upper half's first record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SplitAt {
    /// A record index: records from here on (UP) / before here (DOWN) move.
    Rec(usize),
    /// The tuple is the first record of the upper half (`split_rec == NULL`).
    Tuple,
}

impl Tree {
    /// `btr_page_split_and_insert` (docs/model-rules.md §3) for an insert at `pos` of page `p`.
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
        // inserts count too). MySQL 8.0 counts only at the end, below.
        if sp.flavour == Flavour::MariaDb1011 {
            sp.counters.page_splits += 1;
        }
        let mut iteration = 0u32;
        loop {
            if let Some(r) = self.try_right_sibling(sp, p, pos, key, size, child) {
                return r;
            }
            let page = sp.page(p);
            let n = page.len();
            let level = page.level;
            self.note_split(level, n + 1);
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
            let moving = match (dir, at) {
                (Dir::Down, SplitAt::Rec(s)) => s,
                (_, SplitAt::Rec(s)) => n - s,
                (_, SplitAt::Tuple) => n - pos,
            };
            let new = self.alloc_for(sp, level, hint, dir, Some(moving + 1));
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
                        // page_copy_rec_list_start inserts the records one by one
                        // (page_cur_insert_rec_low): PAGE_LAST_INSERT is the last of them.
                        np.last_insert = s.checked_sub(1).map(|l| l as u32);
                        old.remove_head(s);
                    }
                    (_, SplitAt::Rec(s)) => {
                        old.copy_to_new(s..n, kw, np);
                        old.remove_tail(s);
                    }
                    (_, SplitAt::Tuple) => {
                        old.copy_to_new(pos..n, kw, np);
                        old.remove_tail(pos);
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
                // MySQL 8.0 btr_page_split_and_insert: MONITOR_INC(MONITOR_INDEX_SPLIT) at
                // func_exit, after the insert fits; an insert into the right sibling returns first.
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
        if pos != page.len() {
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

    /// `btr_page_get_split_rec` (docs/model-rules.md §3, size-based split): the size-based split point.
    fn size_split_rec(&self, page: &Page, pos: usize, size: u32, g: &Geometry) -> SplitAt {
        let n = page.len();
        let total_data = page.data_bytes + size;
        let total_space = total_data + crate::page::dir_res(n as u32 + 1);
        // Items in page order with the tuple at `pos`: j < pos → rec j, j == pos → tuple,
        // j > pos → rec j-1.
        let item_size = |j: usize| {
            if j == pos {
                size
            } else if j < pos {
                page.size(j) as u32
            } else {
                page.size(j - 1) as u32
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
}
