//! One nbtree index: its pages (block 0 the metapage), the insert path and page splits
//! (`_bt_doinsert`, `_bt_split`, `_bt_insert_parent`, `_bt_newroot` in nbtinsert.c), and
//! page allocation (a recyclable page from the free space map, else the end of the file,
//! `_bt_allocbuf` in nbtpage.c). Keys are the sort keys of [`crate::geometry::KeyLayout`].
//! A full leaf of a non-unique index is deduplicated before it splits, and posting lists
//! are kept as described in `dedup.rs`; VACUUM is in `vacuum.rs`, sorted builds in
//! `build.rs`.

use crate::dedup;
use crate::geometry::{
    KeyLayout, BT_USABLE_BYTES, INDEX_TUPLE_HEADER_BYTES, LINE_POINTER_BYTES, MAX_STRIDE,
};
use crate::split::{find_split, SplitInput};
use crate::wal::Wal;
use std::collections::BTreeSet;

/// No page (`P_NONE`).
pub const NONE: u32 = u32::MAX;

/// `a < b` for sort keys (at least 8 bytes): the first 8 bytes as one big-endian word
/// decide most comparisons without a byte loop.
#[inline]
fn less(a: &[u8], b: &[u8]) -> bool {
    let (x, y) = (word(a), word(b));
    if x != y {
        return x < y;
    }
    a[8..] < b[8..]
}

#[inline]
fn word(k: &[u8]) -> u64 {
    u64::from_be_bytes(k[..8].try_into().expect("sort keys are at least 9 bytes"))
}

/// One nbtree page. Internal pages hold pivots and downlinks; their first item is "minus
/// infinity" (a bare 8-byte header). Every page but the rightmost of its level has a high key.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// 0 = leaf.
    pub level: u32,
    /// Sort keys of the items, `stride` bytes each.
    pub keys: Vec<u8>,
    /// Tuple bytes of each item (MAXALIGNed, without line pointer); 0 for the entries of a
    /// posting list after its first, which carries the whole tuple's bytes (`dedup.rs`).
    pub sizes: Vec<u16>,
    /// Downlinks (internal pages only).
    pub children: Vec<u32>,
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
    /// Data items (the high key excluded).
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// True when the page holds no data item.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Free bytes between line pointers and tuples (`pd_upper - pd_lower`).
    pub fn hole(&self) -> u32 {
        BT_USABLE_BYTES - self.used
    }

    /// `PageGetFreeSpace`: the hole less one line pointer.
    pub fn free_space(&self) -> u32 {
        self.hole().saturating_sub(LINE_POINTER_BYTES)
    }

    /// The sort key of entry `i`, `stride` bytes.
    pub fn key(&self, stride: usize, i: usize) -> &[u8] {
        &self.keys[i * stride..(i + 1) * stride]
    }
}

/// Why an insert was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// A live equal key in a unique index.
    #[error("duplicate key value violates unique constraint")]
    Duplicate,
}

/// One index.
#[derive(Debug, Clone)]
pub struct Tree {
    /// Key layout.
    pub layout: KeyLayout,
    /// Pages by block number; block 0 is the metapage (an empty placeholder here).
    pub pages: Vec<Page>,
    /// Root block (`NONE` while the index is empty).
    pub root: u32,
    /// `fillfactor` reloption (10..=100), used by rightmost leaf splits and sorted builds.
    pub leaf_fillfactor: u8,
    /// A unique index (a primary key).
    pub unique: bool,
    /// Deleted pages a VACUUM has placed in the free space map.
    pub fsm: BTreeSet<u32>,
}

impl Tree {
    /// An empty index: the metapage alone, as `CREATE INDEX` on an empty table leaves it.
    pub fn new(layout: KeyLayout, leaf_fillfactor: u8, unique: bool, epoch: u64) -> Self {
        Tree {
            layout,
            pages: vec![Page { epoch, ..Page::default() }],
            root: NONE,
            leaf_fillfactor,
            unique,
            fsm: BTreeSet::new(),
        }
    }

    fn stride(&self) -> usize {
        self.layout.stride()
    }

    /// Height: levels from the root down to the leaves (0 when empty).
    pub fn height(&self) -> u32 {
        if self.root == NONE {
            0
        } else {
            self.pages[self.root as usize].level + 1
        }
    }

    /// The downlink slot of `page` to follow for `key`: the last pivot below it.
    fn child_slot(&self, page: &Page, key: &[u8]) -> usize {
        let s = self.stride();
        let (mut lo, mut hi) = (1usize, page.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if less(page.key(s, mid), key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo - 1
    }

    /// Position of `key` on a leaf: the first item not below it.
    fn leaf_pos(&self, page: &Page, key: &[u8]) -> usize {
        let s = self.stride();
        let (mut lo, mut hi) = (0usize, page.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if less(page.key(s, mid), key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The leaf `key` belongs on, with the path of (internal block, slot) above it.
    fn descend(&self, key: &[u8], path: &mut Vec<(u32, usize)>) -> u32 {
        path.clear();
        let mut b = self.root;
        loop {
            let p = &self.pages[b as usize];
            if p.level == 0 {
                return b;
            }
            let slot = self.child_slot(p, key);
            path.push((b, slot));
            b = p.children[slot];
        }
    }

    /// Heap TIDs of the entries whose value equals `key`'s value part.
    pub fn find_value(&self, key: &[u8]) -> Vec<u64> {
        let mut out = Vec::new();
        if self.root == NONE {
            return out;
        }
        let s = self.stride();
        let mut lookup = key.to_vec();
        self.layout.set_tid(&mut lookup, 0);
        let mut path = Vec::new();
        let mut b = self.descend(&lookup, &mut path);
        let value = self.layout.value(key);
        loop {
            let p = &self.pages[b as usize];
            let mut i = self.leaf_pos(p, &lookup);
            while i < p.len() && self.layout.value(p.key(s, i)) == value {
                out.push(self.layout.tid(p.key(s, i)));
                i += 1;
            }
            // Equal values may continue on the right sibling.
            if i < p.len() || p.next == NONE {
                return out;
            }
            b = p.next;
        }
    }

    /// True when an entry with `key`'s value has a heap tuple `live` says is live; `key`
    /// carries any real heap TID (the lookup starts left of every equal value).
    pub fn has_live_value(&self, key: &[u8], live: impl Fn(u64) -> bool) -> bool {
        if self.root == NONE {
            return false;
        }
        let s = self.stride();
        let w = self.layout.width;
        // The value with heap TID 0 sorts before every entry of that value.
        let mut buf = [0u8; MAX_STRIDE];
        let probe = &mut buf[..s];
        probe.copy_from_slice(key);
        self.layout.set_tid(probe, 0);
        let probe = &*probe;
        let mut b = self.root;
        while self.pages[b as usize].level > 0 {
            let p = &self.pages[b as usize];
            b = p.children[self.child_slot(p, probe)];
        }
        loop {
            let p = &self.pages[b as usize];
            let mut i = self.leaf_pos(p, probe);
            while i < p.len() && p.key(s, i)[..=w] == key[..=w] {
                if live(self.layout.tid(p.key(s, i))) {
                    return true;
                }
                i += 1;
            }
            if i < p.len() || p.next == NONE {
                return false;
            }
            b = p.next;
        }
    }

    /// Inserts the sort key `key`; `live(tid)` tells whether an equal key's heap tuple is
    /// still live (a unique index refuses a live duplicate, `_bt_check_unique`).
    pub fn insert(
        &mut self,
        key: &[u8],
        live: &dyn Fn(u64) -> bool,
        wal: &mut Wal,
    ) -> Result<(), TreeError> {
        if self.root == NONE {
            // `_bt_getroot` makes the first root, a leaf, and logs it as a new root.
            let b = self.alloc(0, wal);
            self.root = b;
            // The metapage is rewritten whole by the record (`REGBUF_WILL_INIT`): no image.
            wal.new_roots += 1;
        }
        let mut path = Vec::with_capacity(8);
        let leaf = self.descend(key, &mut path);
        let pos = self.leaf_pos(&self.pages[leaf as usize], key);
        if self.unique && self.live_duplicate_near(leaf, pos, key, live) {
            return Err(TreeError::Duplicate);
        }
        let size = self.layout.leaf_bytes(key) as u16;
        if !self.unique {
            let layout = self.layout;
            let page = &mut self.pages[leaf as usize];
            // `_bt_findinsertloc`: a leaf that cannot take the item is deduplicated first.
            if page.free_space() < u32::from(size) && dedup::dedup_pass(page, &layout, key) {
                let hole = page.hole();
                wal.touch(&mut page.epoch, hole);
            }
            if let Some((pushed, at)) = dedup::posting_split(page, &layout, pos, key) {
                let z = layout.leaf_bytes(&pushed) as u16;
                self.insert_at(leaf, at, &pushed, z, NONE, &mut path, wal);
                return Ok(());
            }
        }
        self.insert_at(leaf, pos, key, size, NONE, &mut path, wal);
        Ok(())
    }

    /// `_bt_check_unique` at the insert position: equal values sit next to it; when they
    /// reach a page edge, the whole run is looked up.
    fn live_duplicate_near(
        &self,
        leaf: u32,
        pos: usize,
        key: &[u8],
        live: &dyn Fn(u64) -> bool,
    ) -> bool {
        let (s, w) = (self.stride(), self.layout.width);
        let p = &self.pages[leaf as usize];
        let same = |i: usize| p.key(s, i)[..=w] == key[..=w];
        let mut i = pos;
        while i > 0 && same(i - 1) {
            if live(self.layout.tid(p.key(s, i - 1))) {
                return true;
            }
            i -= 1;
        }
        let at_left_edge = i == 0 && p.prev != NONE;
        let mut j = pos;
        while j < p.len() && same(j) {
            if live(self.layout.tid(p.key(s, j))) {
                return true;
            }
            j += 1;
        }
        let at_right_edge = j == p.len() && p.next != NONE;
        (at_left_edge || at_right_edge) && self.has_live_value(key, live)
    }

    /// Puts an item on `block` at `pos`, splitting (and going up `path`) when it does not fit.
    #[allow(clippy::too_many_arguments)]
    fn insert_at(
        &mut self,
        block: u32,
        pos: usize,
        key: &[u8],
        size: u16,
        child: u32,
        path: &mut Vec<(u32, usize)>,
        wal: &mut Wal,
    ) {
        let s = self.stride();
        let page = &mut self.pages[block as usize];
        let need = u32::from(size) + LINE_POINTER_BYTES;
        // `PageGetFreeSpace(page) < itemsz` sends the insert to a split.
        if page.free_space() >= u32::from(size) {
            let end = page.keys.len();
            page.keys.resize(end + s, 0);
            page.keys.copy_within(pos * s..end, (pos + 1) * s);
            page.keys[pos * s..(pos + 1) * s].copy_from_slice(key);
            page.sizes.insert(pos, size);
            if page.level > 0 {
                page.children.insert(pos, child);
            }
            page.used += need;
            let hole = page.hole();
            wal.touch(&mut page.epoch, hole);
            return;
        }
        let (sep, sep_size, right) = self.split(block, pos, key, size, child, wal);
        match path.pop() {
            Some((parent, slot)) => {
                self.insert_at(parent, slot + 1, &sep, sep_size, right, path, wal)
            }
            None => self.new_root(block, &sep, sep_size, right, wal),
        }
    }

    /// Splits `block` with the new item at `pos`; returns the separator for the parent
    /// (the left half's new high key) and the new right block.
    fn split(
        &mut self,
        block: u32,
        pos: usize,
        key: &[u8],
        size: u16,
        child: u32,
        wal: &mut Wal,
    ) -> (Vec<u8>, u16, u32) {
        let s = self.stride();
        let w = self.layout.width;
        let old = std::mem::take(&mut self.pages[block as usize]);
        let leaf = old.level == 0;
        let n = old.len() + 1;
        // The merged page: old items with the new one in place.
        let mut keys = Vec::with_capacity(n * s);
        keys.extend_from_slice(&old.keys[..pos * s]);
        keys.extend_from_slice(key);
        keys.extend_from_slice(&old.keys[pos * s..]);
        let mut sizes = old.sizes.clone();
        sizes.insert(pos, size);
        let mut children = old.children.clone();
        if !leaf {
            children.insert(pos, child);
        }
        // Split points fall between tuples; a posting list is one tuple.
        let starts: Vec<usize> = (0..n).filter(|&i| sizes[i] > 0 || i == 0).collect();
        let new_t = starts.partition_point(|&i| i < pos);
        let left_n = {
            let tid_at = |i: usize| self.layout.tid(&keys[i * s..(i + 1) * s]);
            let prev_tid = (leaf && new_t > 0 && starts[new_t] - starts[new_t - 1] == 1)
                .then(|| tid_at(starts[new_t - 1]));
            let input = SplitInput {
                layout: self.layout,
                values: starts.iter().map(|&i| &keys[i * s..i * s + w + 1]).collect(),
                sizes: starts.iter().map(|&i| u32::from(sizes[i]) + LINE_POINTER_BYTES).collect(),
                posting_list_bytes: if leaf && !self.unique {
                    starts
                        .iter()
                        .map(|&i| {
                            let plain = self.layout.leaf_bytes(&keys[i * s..(i + 1) * s]);
                            u32::from(sizes[i]) - plain
                        })
                        .collect()
                } else {
                    Vec::new()
                },
                new_pos: new_t,
                leaf,
                rightmost: old.next == NONE,
                high_key_bytes: old.high.as_ref().map(|h| u32::from(h.1)),
                high_key_value: old.high.as_ref().map(|h| &h.0[..=w]),
                leaf_fillfactor: self.leaf_fillfactor,
                new_tid: if leaf { self.layout.tid(key) } else { 0 },
                prev_tid,
            };
            starts[find_split(&input)]
        };
        if pos < left_n {
            wal.split_left += 1;
        } else {
            wal.split_right += 1;
        }
        // The left half's new high key: on a leaf, the first right item suffix-truncated
        // against the last left one (`_bt_truncate`); on an internal page, the first right
        // pivot itself.
        let first_right = &keys[left_n * s..(left_n + 1) * s];
        let (hk, hk_size) = if leaf {
            self.layout.truncate_pivot(&keys[(left_n - 1) * s..left_n * s], first_right)
        } else {
            (first_right.to_vec(), sizes[left_n])
        };
        let right_block = self.alloc(old.level, wal);
        let mut right_sizes = sizes.split_off(left_n);
        if !leaf {
            // The first item of an internal right page becomes minus infinity.
            right_sizes[0] = INDEX_TUPLE_HEADER_BYTES as u16;
        }
        let right_keys = keys.split_off(left_n * s);
        let right_children = if leaf { Vec::new() } else { children.split_off(left_n) };
        let slot_bytes = |z: &[u16]| -> u32 {
            z.iter().filter(|&&x| x > 0).map(|&x| u32::from(x) + LINE_POINTER_BYTES).sum()
        };
        let right_high_bytes = old.high.as_ref().map_or(0, |h| u32::from(h.1) + LINE_POINTER_BYTES);
        let right = Page {
            level: old.level,
            used: slot_bytes(&right_sizes) + right_high_bytes,
            keys: right_keys,
            sizes: right_sizes,
            children: right_children,
            high: old.high.clone(),
            prev: block,
            next: old.next,
            deleted_xid: None,
            epoch: wal.epoch,
        };
        let left = Page {
            level: old.level,
            used: slot_bytes(&sizes) + u32::from(hk_size) + LINE_POINTER_BYTES,
            keys,
            sizes,
            children,
            high: Some((hk.clone(), hk_size)),
            prev: old.prev,
            next: right_block,
            deleted_xid: None,
            epoch: old.epoch,
        };
        if old.next != NONE {
            let sib = &mut self.pages[old.next as usize];
            sib.prev = right_block;
            let hole = sib.hole();
            wal.touch(&mut sib.epoch, hole);
        }
        self.pages[right_block as usize] = right;
        self.pages[block as usize] = left;
        let page = &mut self.pages[block as usize];
        let hole = page.hole();
        wal.touch(&mut page.epoch, hole);
        (hk, hk_size, right_block)
    }

    /// A root split: a new root one level up with downlinks to both halves.
    fn new_root(&mut self, left: u32, sep: &[u8], sep_size: u16, right: u32, wal: &mut Wal) {
        let level = self.pages[left as usize].level + 1;
        let b = self.alloc(level, wal);
        let s = self.stride();
        let page = &mut self.pages[b as usize];
        page.keys = vec![0; s];
        page.keys.extend_from_slice(sep);
        page.sizes = vec![INDEX_TUPLE_HEADER_BYTES as u16, sep_size];
        page.children = vec![left, right];
        page.used = INDEX_TUPLE_HEADER_BYTES + u32::from(sep_size) + 2 * LINE_POINTER_BYTES;
        self.root = b;
        // `_bt_newroot` logs the metapage's new contents whole: no image.
        wal.new_roots += 1;
    }

    /// A fresh page at `level`: a recyclable page from the free space map, else a new block
    /// at the end of the file.
    fn alloc(&mut self, level: u32, wal: &Wal) -> u32 {
        let page = Page { level, prev: NONE, next: NONE, epoch: wal.epoch, ..Page::default() };
        if let Some(b) = self.fsm.pop_first() {
            self.pages[b as usize] = page;
            b
        } else {
            self.pages.push(page);
            (self.pages.len() - 1) as u32
        }
    }

    /// Leftmost leaf block (`NONE` when empty).
    pub fn first_leaf(&self) -> u32 {
        let mut b = self.root;
        while b != NONE && self.pages[b as usize].level > 0 {
            b = self.pages[b as usize].children[0];
        }
        b
    }

    /// Every live leaf entry's sort key, in order.
    pub fn entries(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let s = self.stride();
        let mut b = self.first_leaf();
        std::iter::from_fn(move || {
            if b == NONE {
                return None;
            }
            let p = &self.pages[b as usize];
            b = p.next;
            Some(p.keys.chunks_exact(s))
        })
        .flatten()
    }
}
