//! The invariant checker: after any operation every live page's byte count adds up and fits,
//! keys are in order within and across pages, high keys bound their pages, pivots equal the
//! high key of the child on their left, sibling links agree, and every posting list holds
//! one value in at least two entries, is sized as `_bt_form_posting` sizes it, fits
//! `BTMaxItemSize` and exists only on leaves of non-unique indexes. Used by tests and by
//! `--check-every`.

use crate::dedup::{posting_bytes, tuple_ranges, used_bytes, BT_MAX_ITEM_BYTES};
use crate::geometry::BT_USABLE_BYTES;
use crate::tree::{Tree, NONE};

impl Tree {
    /// Checks every invariant; the first broken one as text.
    pub fn check(&self) -> Result<(), String> {
        if self.root == NONE {
            return Ok(());
        }
        let s = self.layout.stride();
        for (b, p) in self.pages.iter().enumerate().skip(1) {
            if p.deleted_xid.is_some() {
                continue;
            }
            let sum = used_bytes(p);
            if sum != p.used || p.used > BT_USABLE_BYTES {
                return Err(format!("block {b}: used {} but items add to {sum}", p.used));
            }
            p.check_storage(s).map_err(|e| format!("block {b}: {e}"))?;
            if p.level > 0 && p.tuple_count() != p.len() {
                return Err(format!("block {b}: a posting list on an internal page"));
            }
            if p.level == 0 {
                for (start, end) in tuple_ranges((0..p.len()).map(|i| p.size(i))) {
                    let key = |i: usize| p.key(s, i);
                    let plain = self.layout.leaf_bytes(key(start));
                    if end - start == 1 {
                        if u32::from(p.size(start)) != plain {
                            return Err(format!("block {b}: item {start} is mis-sized"));
                        }
                        continue;
                    }
                    if self.unique {
                        return Err(format!("block {b}: a posting list in a unique index"));
                    }
                    let size = u32::from(p.size(start));
                    if size != posting_bytes(plain, end - start) || size > BT_MAX_ITEM_BYTES {
                        return Err(format!("block {b}: posting list {start} is mis-sized"));
                    }
                    let v = self.layout.value(key(start));
                    if (start + 1..end).any(|i| self.layout.value(key(i)) != v) {
                        return Err(format!("block {b}: posting list {start} holds two values"));
                    }
                }
            }
            let first = usize::from(p.level > 0);
            for i in first + 1..p.len() {
                if p.key(s, i - 1) >= p.key(s, i) {
                    return Err(format!("block {b}: items {i} out of order"));
                }
            }
            if let (Some((hk, _)), false) = (&p.high, p.len() <= first) {
                if p.key(s, p.len() - 1) > &hk[..] {
                    return Err(format!("block {b}: an item above the high key"));
                }
            }
            if (p.high.is_none()) != (p.next == NONE) {
                return Err(format!("block {b}: high key and right link disagree"));
            }
            if p.next != NONE && self.pages[p.next as usize].prev != b as u32 {
                return Err(format!("block {b}: right sibling's left link is wrong"));
            }
            if p.level > 0 {
                for (i, c) in (0..p.len()).map(|i| (i, p.child(i))) {
                    let child = &self.pages[c as usize];
                    if child.deleted_xid.is_some() || child.level + 1 != p.level {
                        return Err(format!("block {b}: downlink {i} to a bad page {c}"));
                    }
                    // The child's high key is the next pivot (or this page's high key).
                    let bound = if i + 1 < p.len() {
                        Some(p.key(s, i + 1))
                    } else {
                        p.high.as_ref().map(|h| &h.0[..])
                    };
                    if child.high.as_ref().map(|h| &h.0[..]) != bound {
                        return Err(format!("block {b}: child {c}'s high key is not its pivot"));
                    }
                    if i > 0 && !child.is_empty() {
                        let lo = p.key(s, i);
                        let f = if child.level > 0 { 1 } else { 0 };
                        if child.len() > f && child.key(s, f) <= lo {
                            return Err(format!("block {b}: child {c} starts below its pivot"));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
