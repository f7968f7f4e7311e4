//! One nbtree page of the model and how its items are stored. Like the server's page (line
//! pointers in key order pointing at tuples stored where they arrived, `PageAddItem` in
//! bufpage.c), an insert appends the item's key to the page's storage and moves only a
//! small per-item entry: the storage slot (a `u16`, as a line pointer) and the key's first
//! 8 bytes as a big-endian word (the "head"), so a search compares words in one short
//! array and touches a full key only when heads tie. This module decides nothing about
//! where an item goes or when a page splits (tree.rs, split.rs); it only keeps the items.

use crate::geometry::{BT_USABLE_BYTES, LINE_POINTER_BYTES};

/// No page (`P_NONE`).
pub const NONE: u32 = u32::MAX;

/// The first 8 bytes of a sort key (at least 9 bytes long) as one big-endian word: the
/// order of heads is the bytewise order of keys whenever the heads differ.
#[inline]
pub fn head(key: &[u8]) -> u64 {
    u64::from_be_bytes(key[..8].try_into().expect("sort keys are at least 9 bytes"))
}

/// Bytes an entry of `size` tuple bytes takes with its line pointer: a posting list's
/// entries after the first (size 0, `dedup.rs`) take none.
#[inline]
fn slot_bytes(size: u16) -> u32 {
    if size == 0 {
        0
    } else {
        u32::from(size) + LINE_POINTER_BYTES
    }
}

/// One nbtree page. Internal pages hold pivots and downlinks; their first item is "minus
/// infinity" (a bare 8-byte header). Every page but the rightmost of its level has a high key.
/// Items are addressed by their position in key order (`0..len()`). An item is one sort key
/// (one heap TID): a posting list of a non-unique leaf is several items in a row, the first
/// carrying the whole tuple's bytes and the others size 0 (`dedup.rs`).
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// 0 = leaf.
    pub level: u32,
    /// Sort keys by storage slot (arrival order), `stride` bytes each.
    keys: Vec<u8>,
    /// Tuple bytes (MAXALIGNed, without line pointer) by storage slot; 0 for the entries
    /// of a posting list after its first.
    sizes: Vec<u16>,
    /// Downlinks by storage slot (internal pages only).
    children: Vec<u32>,
    /// Storage slot of each item, in key order.
    order: Vec<u16>,
    /// [`head`] of each item's key, in key order.
    heads: Vec<u64>,
    /// High key and its tuple bytes.
    pub high: Option<(Vec<u8>, u16)>,
    /// Left sibling.
    pub prev: u32,
    /// Right sibling.
    pub next: u32,
    /// Tuples and line pointers, high key included.
    pub used: u32,
    /// `Some(xid)`: deleted by VACUUM when the next transaction id was `xid` (safexid).
    pub deleted_xid: Option<u64>,
    /// Checkpoint epoch of the page's last logged change.
    pub epoch: u64,
}

impl Page {
    /// An empty page at `level` between `prev` and `next`, last changed in `epoch`.
    pub fn new(level: u32, prev: u32, next: u32, epoch: u64) -> Page {
        Page { level, prev, next, epoch, ..Page::default() }
    }

    /// Data items (the high key excluded).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when the page holds no data item.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Free bytes between line pointers and tuples (`pd_upper - pd_lower`).
    pub fn hole(&self) -> u32 {
        BT_USABLE_BYTES - self.used
    }

    /// `PageGetFreeSpace`: the hole less one line pointer.
    pub fn free_space(&self) -> u32 {
        self.hole().saturating_sub(LINE_POINTER_BYTES)
    }

    /// The sort key of item `i` (keys are `stride` bytes).
    #[inline]
    pub fn key(&self, stride: usize, i: usize) -> &[u8] {
        let j = usize::from(self.order[i]);
        &self.keys[j * stride..(j + 1) * stride]
    }

    /// The `head` of item `i`'s key.
    #[inline]
    pub fn head(&self, i: usize) -> u64 {
        self.heads[i]
    }

    /// Tuple bytes of item `i` (without its line pointer).
    #[inline]
    pub fn size(&self, i: usize) -> u16 {
        self.sizes[usize::from(self.order[i])]
    }

    /// Downlink of item `i` (internal pages).
    #[inline]
    pub fn child(&self, i: usize) -> u32 {
        self.children[usize::from(self.order[i])]
    }

    /// Sets item `i`'s tuple bytes (0: it continues the posting list before it).
    pub fn set_size(&mut self, i: usize, size: u16) {
        let j = usize::from(self.order[i]);
        self.used = self.used - slot_bytes(self.sizes[j]) + slot_bytes(size);
        self.sizes[j] = size;
    }

    /// Tuples on the page: items that do not continue a posting list.
    pub fn tuple_count(&self) -> usize {
        self.sizes.iter().filter(|&&z| z > 0).count()
    }

    /// Points item `i`'s downlink at `child`.
    pub fn set_child(&mut self, i: usize, child: u32) {
        self.children[usize::from(self.order[i])] = child;
    }

    /// Tuple and line-pointer bytes of the data items (the high key excluded).
    pub fn item_bytes(&self) -> u32 {
        self.sizes.iter().map(|&z| slot_bytes(z)).sum()
    }

    /// The first position in `lo..len()` whose key is not below `key`.
    #[inline]
    pub fn lower_bound(&self, stride: usize, key: &[u8], lo: usize) -> usize {
        let h = head(key);
        let (mut lo, mut hi) = (lo, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let m = self.heads[mid];
            let below = m < h || (m == h && self.key(stride, mid)[8..] < key[8..]);
            if below {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Puts an item at position `pos` (`child` is ignored on leaves) and counts its bytes.
    pub fn insert_item(&mut self, stride: usize, pos: usize, key: &[u8], size: u16, child: u32) {
        debug_assert_eq!(key.len(), stride);
        let slot = u16::try_from(self.sizes.len()).expect("an 8 KiB page holds < 65536 items");
        self.keys.extend_from_slice(key);
        self.sizes.push(size);
        if self.level > 0 {
            self.children.push(child);
        }
        self.order.insert(pos, slot);
        self.heads.insert(pos, head(key));
        self.used += slot_bytes(size);
    }

    /// Adds an item after the last one.
    pub fn push_item(&mut self, stride: usize, key: &[u8], size: u16, child: u32) {
        self.insert_item(stride, self.len(), key, size, child);
    }

    /// Removes item `pos` and uncounts its bytes; returns its key, size and downlink
    /// (`NONE`-like `u32::MAX` on leaves).
    pub fn remove_item(&mut self, stride: usize, pos: usize) -> (Vec<u8>, u16, u32) {
        let j = usize::from(self.order.remove(pos));
        self.heads.remove(pos);
        let key = self.keys[j * stride..(j + 1) * stride].to_vec();
        let size = self.sizes[j];
        let child = if self.level > 0 { self.children[j] } else { u32::MAX };
        // The last storage slot moves into the freed one.
        let last = self.sizes.len() - 1;
        if j != last {
            self.keys.copy_within(last * stride..(last + 1) * stride, j * stride);
            self.sizes[j] = self.sizes[last];
            if self.level > 0 {
                self.children[j] = self.children[last];
            }
            let moved = self.order.iter_mut().find(|o| usize::from(**o) == last);
            *moved.expect("every storage slot has a line pointer") = j as u16;
        }
        self.keys.truncate(last * stride);
        self.sizes.truncate(last);
        if self.level > 0 {
            self.children.truncate(last);
        }
        self.used -= slot_bytes(size);
        (key, size, child)
    }

    /// Replaces the items with `keys` (sorted, `stride` bytes each), their sizes and, on
    /// internal pages, downlinks; the byte count is set to the items plus `extra_bytes`.
    /// The arrays get room for as many more items of the same mean size as the page has
    /// free, so that inserts until the next split do not reallocate.
    pub fn set_items(
        &mut self,
        stride: usize,
        keys: &[u8],
        sizes: &[u16],
        children: &[u32],
        extra_bytes: u32,
    ) {
        let n = sizes.len();
        debug_assert_eq!(keys.len(), n * stride);
        let item_bytes: u32 = sizes.iter().map(|&z| slot_bytes(z)).sum();
        self.used = item_bytes + extra_bytes;
        let mean = (item_bytes / n.max(1) as u32).max(1);
        let room = n + (BT_USABLE_BYTES.saturating_sub(self.used) / mean) as usize;
        self.keys = Vec::with_capacity(room * stride);
        self.keys.extend_from_slice(keys);
        self.sizes = Vec::with_capacity(room);
        self.sizes.extend_from_slice(sizes);
        self.children = Vec::new();
        if self.level > 0 {
            self.children.reserve_exact(room);
            self.children.extend_from_slice(children);
        }
        self.order = Vec::with_capacity(room);
        self.order.extend(0..n as u16);
        self.heads = Vec::with_capacity(room);
        self.heads.extend(keys.chunks_exact(stride).map(head));
    }

    /// The items' keys in key order.
    pub fn keys_in_order(&self, stride: usize) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.key(stride, i))
    }

    /// The storage is consistent: one slot per item, heads equal to the keys' heads.
    pub fn check_storage(&self, stride: usize) -> Result<(), String> {
        let n = self.len();
        let mut seen = vec![false; n];
        let consistent = self.heads.len() == n
            && self.sizes.len() == n
            && self.keys.len() == n * stride
            && (self.level == 0 || self.children.len() == n)
            && self.order.iter().all(|&o| {
                let o = usize::from(o);
                o < n && !std::mem::replace(&mut seen[o], true)
            })
            && (0..n).all(|i| self.heads[i] == head(self.key(stride, i)));
        if consistent {
            Ok(())
        } else {
            Err("item arrays disagree".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(v: u8, t: u8) -> Vec<u8> {
        let mut key = vec![0u8; 9];
        key[0] = v;
        key[8] = t;
        key
    }

    #[test]
    fn insert_and_remove_keep_key_order_and_bytes() {
        let mut p = Page { level: 1, ..Page::default() };
        for (pos, v) in [(0, 5), (0, 1), (1, 3), (3, 9), (3, 7)] {
            p.insert_item(9, pos, &k(v, v), 16, u32::from(v));
        }
        let heads: Vec<u8> = p.keys_in_order(9).map(|x| x[0]).collect();
        assert_eq!(heads, [1, 3, 5, 7, 9]);
        assert_eq!(p.used, 5 * 20);
        assert_eq!(p.lower_bound(9, &k(6, 0), 0), 3);
        assert_eq!(p.lower_bound(9, &k(7, 7), 0), 3);
        assert_eq!(p.lower_bound(9, &k(7, 8), 0), 4);
        let (key, size, child) = p.remove_item(9, 1);
        assert_eq!((key[0], size, child), (3, 16, 3));
        p.check_storage(9).unwrap();
        assert_eq!((1..4).map(|i| p.child(i)).collect::<Vec<_>>(), [5, 7, 9]);
    }

    #[test]
    fn posting_list_entries_of_size_0_take_no_bytes() {
        let mut p = Page::default();
        for v in 1..=4 {
            p.push_item(9, &k(5, v), 16, u32::MAX);
        }
        assert_eq!((p.used, p.tuple_count()), (4 * 20, 4));
        // Entries 1..4 become one posting list of 40 bytes (`_bt_form_posting`).
        p.set_size(1, 40);
        p.set_size(2, 0);
        p.set_size(3, 0);
        assert_eq!((p.used, p.item_bytes(), p.tuple_count()), (20 + 44, 64, 2));
        p.insert_item(9, 3, &k(5, 3), 0, u32::MAX);
        let (_, size, _) = p.remove_item(9, 4);
        assert_eq!((size, p.used), (0, 64));
        p.check_storage(9).unwrap();
    }
}
