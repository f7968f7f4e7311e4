//! One nbtree index: its pages (block 0 the metapage), the insert path and page splits
//! (`_bt_doinsert`, `_bt_split`, `_bt_insert_parent`, `_bt_newroot` in nbtinsert.c), and
//! page allocation (a recyclable page from the free space map, else the end of the file,
//! `_bt_allocbuf` in nbtpage.c). Keys are the sort keys of [`crate::geometry::KeyLayout`].
//! A full leaf of a non-unique index is deduplicated before it splits, and posting lists
//! are kept as described in `dedup.rs`; VACUUM is in `vacuum.rs`, sorted builds in
//! `build.rs`, how a page stores its items in `page.rs`.

use crate::buffers::Access;
use crate::dedup;
use crate::geometry::{KeyLayout, INDEX_TUPLE_HEADER_BYTES, INLINE_STRIDE, LINE_POINTER_BYTES};
use crate::page::head;
pub use crate::page::{Page, NONE};
use crate::split::{find_split, SplitInput};
use crate::trace::{Trace, FASTPATH_MIN_ROOT_LEVEL, METAPAGE};
use crate::wal::Wal;
use std::collections::BTreeSet;

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
    /// The leaf the last insert descended to (`NONE` before any), for working-set counts.
    pub last_leaf: u32,
    /// The (internal block, slot) path of the insert under way, kept between inserts so
    /// that an insert allocates nothing.
    pub(crate) path: Vec<(u32, usize)>,
    /// The pages requested from shared buffers (when the table models them).
    pub trace: Trace,
}

impl Tree {
    /// An empty index: the metapage alone, as `CREATE INDEX` on an empty table leaves it.
    pub fn new(layout: KeyLayout, leaf_fillfactor: u8, unique: bool, epoch: u64) -> Self {
        Tree {
            layout,
            pages: vec![Page::new(0, 0, 0, epoch)],
            root: NONE,
            leaf_fillfactor,
            unique,
            fsm: BTreeSet::new(),
            last_leaf: NONE,
            path: Vec::new(),
            trace: Trace::default(),
        }
    }

    pub(crate) fn stride(&self) -> usize {
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
        page.lower_bound(self.stride(), key, 1) - 1
    }

    /// Position of `key` on a leaf: the first item not below it.
    pub(crate) fn leaf_pos(&self, page: &Page, key: &[u8]) -> usize {
        page.lower_bound(self.stride(), key, 0)
    }

    /// The leaf `key` belongs on, with the path of (internal block, slot) above it.
    pub(crate) fn descend(&self, key: &[u8], path: &mut Vec<(u32, usize)>) -> u32 {
        path.clear();
        let mut b = self.root;
        loop {
            let p = &self.pages[b as usize];
            if p.level == 0 {
                return b;
            }
            let slot = self.child_slot(p, key);
            path.push((b, slot));
            b = p.child(slot);
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
        let mut inline = [0u8; INLINE_STRIDE];
        let mut long = Vec::new();
        let probe = if s <= INLINE_STRIDE {
            &mut inline[..s]
        } else {
            long.resize(s, 0);
            &mut long[..]
        };
        probe.copy_from_slice(key);
        self.layout.set_tid(probe, 0);
        let probe = &*probe;
        let mut b = self.root;
        while self.pages[b as usize].level > 0 {
            let p = &self.pages[b as usize];
            b = p.child(self.child_slot(p, probe));
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
            self.trace.touch(METAPAGE, Access::Write);
            let b = self.alloc(0, wal);
            self.root = b;
            // The metapage is rewritten whole by the record (`REGBUF_WILL_INIT`): no image.
            wal.new_roots += 1;
        }
        let mut path = std::mem::take(&mut self.path);
        let leaf = self.descend(key, &mut path);
        self.last_leaf = leaf;
        let pos = self.leaf_pos(&self.pages[leaf as usize], key);
        let refused = self.unique && self.live_duplicate_near(leaf, pos, key, live);
        let size = self.layout.leaf_bytes(key) as u16;
        if self.trace.on {
            self.trace_insert_descent(leaf, key, size, &path);
        }
        let splits = wal.split_left + wal.split_right;
        if !refused {
            if self.unique {
                self.insert_at(leaf, pos, key, size, NONE, &mut path, wal);
            } else {
                self.insert_non_unique(leaf, pos, key, size, &mut path, wal);
            }
        }
        self.path = path;
        if self.trace.on {
            // `_bt_insertonpg` caches the leaf for the fast path after an insert without a
            // split on the rightmost leaf of a tall enough tree.
            let split = wal.split_left + wal.split_right != splits;
            let tall = self.height() > FASTPATH_MIN_ROOT_LEVEL;
            let rightmost = self.pages[leaf as usize].next == NONE;
            self.trace.fast_leaf = if !split && tall && rightmost { leaf } else { NONE };
        }
        if refused {
            Err(TreeError::Duplicate)
        } else {
            Ok(())
        }
    }

    /// The insert into a non-unique index's leaf: `_bt_findinsertloc` deduplicates a leaf
    /// that cannot take the item first (`_bt_dedup_pass`), and an item landing inside a
    /// posting list's TID range swaps with its highest TID (`_bt_swap_posting`).
    fn insert_non_unique(
        &mut self,
        leaf: u32,
        pos: usize,
        key: &[u8],
        size: u16,
        path: &mut Vec<(u32, usize)>,
        wal: &mut Wal,
    ) {
        let layout = self.layout;
        let page = &mut self.pages[leaf as usize];
        if page.free_space() < u32::from(size) && dedup::dedup_pass(page, &layout, key) {
            let hole = page.hole();
            wal.touch(&mut page.epoch, hole);
        }
        if let Some((pushed, at)) = dedup::posting_split(page, &layout, pos, key) {
            let z = layout.leaf_bytes(&pushed) as u16;
            self.insert_at(leaf, at, &pushed, z, NONE, path, wal);
        } else {
            self.insert_at(leaf, pos, key, size, NONE, path, wal);
        }
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
        // When the value part covers the head, different heads mean different values and
        // the neighbours' keys need not be read.
        let (h, head_in_value) = (head(key), w + 1 >= 8);
        let same = |i: usize| (!head_in_value || p.head(i) == h) && p.key(s, i)[..=w] == key[..=w];
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
        // `PageGetFreeSpace(page) < itemsz` sends the insert to a split.
        if page.free_space() >= u32::from(size) {
            page.insert_item(s, pos, key, size, child);
            let hole = page.hole();
            wal.touch(&mut page.epoch, hole);
            return;
        }
        let (sep, sep_size, right) = self.split(block, pos, key, size, child, wal);
        match path.pop() {
            Some((parent, slot)) => {
                // `_bt_insert_parent` finds the parent again (`_bt_getstackbuf`).
                self.trace.touch(parent, Access::Write);
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
        let mut sizes = Vec::with_capacity(n);
        let mut children = Vec::with_capacity(if leaf { 0 } else { n });
        for i in 0..n {
            if i == pos {
                keys.extend_from_slice(key);
                sizes.push(size);
                children.push(child);
            }
            if i < old.len() {
                keys.extend_from_slice(old.key(s, i));
                sizes.push(old.size(i));
                if !leaf {
                    children.push(old.child(i));
                }
            }
        }
        if leaf {
            children.clear();
        }
        // Split points fall between tuples; a posting list is one tuple. `starts` lists
        // where tuples start only when the page has posting lists (else every item is one).
        let starts: Vec<usize> = if leaf && !self.unique && sizes.contains(&0) {
            (0..n).filter(|&i| sizes[i] > 0 || i == 0).collect()
        } else {
            Vec::new()
        };
        let start = |t: usize| if starts.is_empty() { t } else { starts[t] };
        let tuples = if starts.is_empty() { n } else { starts.len() };
        let new_t = if starts.is_empty() { pos } else { starts.partition_point(|&i| i < pos) };
        let left_n = {
            let tid_at = |i: usize| self.layout.tid(&keys[i * s..(i + 1) * s]);
            let prev_tid = (leaf && new_t > 0 && start(new_t) - start(new_t - 1) == 1)
                .then(|| tid_at(start(new_t - 1)));
            let input = SplitInput {
                layout: self.layout,
                values: if starts.is_empty() {
                    keys.chunks_exact(s).map(|k| &k[..=w]).collect()
                } else {
                    starts.iter().map(|&i| &keys[i * s..i * s + w + 1]).collect()
                },
                sizes: if starts.is_empty() {
                    sizes.iter().map(|&z| u32::from(z) + LINE_POINTER_BYTES).collect()
                } else {
                    starts.iter().map(|&i| u32::from(sizes[i]) + LINE_POINTER_BYTES).collect()
                },
                posting_list_bytes: if leaf && !self.unique {
                    (0..tuples)
                        .map(|t| {
                            let i = start(t);
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
            start(find_split(&input))
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
        let right_high_bytes = old.high.as_ref().map_or(0, |h| u32::from(h.1) + LINE_POINTER_BYTES);
        let mut right = Page::new(old.level, block, old.next, wal.epoch);
        right.high = old.high.clone();
        right.set_items(s, &right_keys, &right_sizes, &right_children, right_high_bytes);
        let mut left = Page::new(old.level, old.prev, right_block, old.epoch);
        left.high = Some((hk.clone(), hk_size));
        left.set_items(s, &keys, &sizes, &children, u32::from(hk_size) + LINE_POINTER_BYTES);
        if old.next != NONE {
            // `_bt_split` reads the old right sibling to point its left link at the new page.
            self.trace.touch(old.next, Access::Write);
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
        page.push_item(s, &vec![0; s], INDEX_TUPLE_HEADER_BYTES as u16, left);
        page.push_item(s, sep, sep_size, right);
        self.root = b;
        // `_bt_newroot` rewrites the metapage.
        self.trace.touch(METAPAGE, Access::Write);
        // `_bt_newroot` logs the metapage's new contents whole: no image.
        wal.new_roots += 1;
    }

    /// A fresh page at `level`: a recyclable page from the free space map, else a new block
    /// at the end of the file.
    fn alloc(&mut self, level: u32, wal: &Wal) -> u32 {
        let page = Page::new(level, NONE, NONE, wal.epoch);
        if let Some(b) = self.fsm.pop_first() {
            self.pages[b as usize] = page;
            self.trace.touch(b, Access::Write);
            b
        } else {
            self.pages.push(page);
            let b = (self.pages.len() - 1) as u32;
            // `_bt_allocbuf` extends the relation (`P_NEW`).
            self.trace.touch(b, Access::Extend);
            b
        }
    }

    /// Leftmost leaf block (`NONE` when empty).
    pub fn first_leaf(&self) -> u32 {
        let mut b = self.root;
        while b != NONE && self.pages[b as usize].level > 0 {
            b = self.pages[b as usize].child(0);
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
            Some(p.keys_in_order(s))
        })
        .flatten()
    }
}
