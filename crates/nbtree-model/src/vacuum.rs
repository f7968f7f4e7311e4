//! VACUUM of one index (`btvacuumscan`, `_bt_pagedel` in nbtree.c and nbtpage.c, in our own
//! words): leaf entries whose heap tuples are dead are removed page by page in block order;
//! a leaf left empty is deleted when it is not the rightmost page of its level and its
//! keyspace can move into its right sibling under the same parent (a parent left with no
//! other child goes with it); deleted pages keep their blocks and become reusable only when
//! a later VACUUM finds their deletion older than every running transaction, which puts them
//! into the free space map.

use crate::dedup::posting_bytes;
use crate::tree::{Tree, NONE};
use crate::wal::Wal;
use std::collections::HashSet;

/// What one VACUUM did to an index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VacuumOutcome {
    /// Entries removed.
    pub removed: u64,
    /// Pages deleted.
    pub deleted_pages: u64,
    /// Pages put into the free space map.
    pub recycled_pages: u64,
}

impl Tree {
    /// Removes the entries of `dead` heap TIDs; `next_xid` is the next transaction id (the
    /// model runs no concurrent transactions, so the removal horizon is `next_xid`).
    pub fn vacuum(&mut self, dead: &HashSet<u64>, next_xid: u64, wal: &mut Wal) -> VacuumOutcome {
        let mut out = VacuumOutcome::default();
        let s = self.layout.stride();
        for b in 1..self.pages.len() as u32 {
            let page = &mut self.pages[b as usize];
            if let Some(xid) = page.deleted_xid {
                // `BTPageIsRecyclable`: deleted before every running transaction began.
                if xid < next_xid && self.fsm.insert(b) {
                    out.recycled_pages += 1;
                }
                continue;
            }
            if page.level > 0 || self.root == NONE {
                continue;
            }
            let layout = self.layout;
            if !page.keys_in_order(s).any(|k| dead.contains(&layout.tid(k))) {
                continue;
            }
            // Tuple by tuple: a plain tuple goes when its TID is dead; a posting list loses
            // its dead TIDs and shrinks (`_bt_update_posting`), or goes when none is left.
            let before = page.len();
            let mut keys = Vec::with_capacity(before * s);
            let mut sizes: Vec<u16> = Vec::with_capacity(before);
            let mut i = 0;
            while i < before {
                let end = (i + 1..before).find(|&j| page.size(j) > 0).unwrap_or(before);
                let plain = layout.leaf_bytes(page.key(s, i));
                let first_kept = sizes.len();
                for j in i..end {
                    let k = page.key(s, j);
                    if !dead.contains(&layout.tid(k)) {
                        keys.extend_from_slice(k);
                        sizes.push(0);
                    }
                }
                let kept = sizes.len() - first_kept;
                if kept > 0 {
                    sizes[first_kept] = posting_bytes(plain, kept) as u16;
                }
                i = end;
            }
            let other_bytes = page.used - page.item_bytes();
            page.set_items(s, &keys, &sizes, &[], other_bytes);
            out.removed += (before - page.len()) as u64;
            let hole = page.hole();
            wal.touch(&mut page.epoch, hole);
            if page.is_empty() {
                out.deleted_pages += self.delete_page(b, next_xid, wal);
            }
        }
        out
    }

    /// Deletes the empty leaf `leaf` (and the chain of parents it is the only child of);
    /// returns the pages deleted, 0 when the server would refuse.
    fn delete_page(&mut self, leaf: u32, next_xid: u64, wal: &mut Wal) -> u64 {
        let Some((hk, _)) = self.pages[leaf as usize].high.clone() else {
            return 0; // the rightmost page of its level is never deleted
        };
        if leaf == self.root {
            return 0;
        }
        // Find the leaf's parents with its high key, as `_bt_search` does.
        let mut path = Vec::new();
        let mut b = self.root;
        while self.pages[b as usize].level > 0 {
            let p = &self.pages[b as usize];
            let slot = p.lower_bound(self.layout.stride(), &hk, 1) - 1;
            path.push((b, slot));
            b = p.child(slot);
        }
        if b != leaf {
            return 0;
        }
        // Climb while the page is its parent's only child (the parent goes too).
        let mut chain = vec![leaf];
        let (mut parent, mut slot) = path.pop().expect("a non-root leaf has a parent");
        while self.pages[parent as usize].len() == 1 {
            if parent == self.root || self.pages[parent as usize].next == NONE {
                return 0;
            }
            chain.push(parent);
            (parent, slot) = match path.pop() {
                Some(x) => x,
                None => return 0,
            };
        }
        let pp = &mut self.pages[parent as usize];
        // The rightmost child's keyspace cannot move to a sibling under another parent.
        if slot + 1 >= pp.len() {
            return 0;
        }
        // The downlink to the chain now leads to its right sibling, whose own pivot goes.
        let s = self.layout.stride();
        let right_sibling = pp.child(slot + 1);
        pp.set_child(slot, right_sibling);
        pp.remove_item(s, slot + 1);
        let hole = pp.hole();
        wal.touch(&mut pp.epoch, hole);
        for &c in &chain {
            let (prev, next) = (self.pages[c as usize].prev, self.pages[c as usize].next);
            if prev != NONE {
                let p = &mut self.pages[prev as usize];
                p.next = next;
                let hole = p.hole();
                wal.touch(&mut p.epoch, hole);
            }
            if next != NONE {
                let p = &mut self.pages[next as usize];
                p.prev = prev;
                let hole = p.hole();
                wal.touch(&mut p.epoch, hole);
            }
            let p = &mut self.pages[c as usize];
            // The deleted page is rewritten whole by its unlink record: no image.
            let mut deleted = crate::tree::Page::new(p.level, NONE, NONE, wal.epoch);
            deleted.deleted_xid = Some(next_xid);
            *p = deleted;
        }
        chain.len() as u64
    }
}
