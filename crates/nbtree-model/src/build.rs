//! Sorted index builds (`CREATE INDEX`, `REINDEX`): nbtsort.c's `_bt_buildadd` and
//! `_bt_uppershutdown` in our own words. Leaves fill left to right until the next item
//! would leave less than BLCKSZ x (100 - fillfactor) % free (internal levels: 70 %); the
//! last item then moves to a new page and a suffix-truncated copy becomes the old page's high
//! key. Blocks are numbered in the order pages are started, parents included. Every page is
//! written to the WAL whole (`log_newpage`). A non-unique index's equal neighbours are
//! merged into posting lists first (`dedup::build_groups`); a posting list is one item.

use crate::dedup::build_groups;
use crate::geometry::{
    KeyLayout, BT_USABLE_BYTES, INDEX_TUPLE_HEADER_BYTES, LINE_POINTER_BYTES, PAGE_BYTES,
    PIVOT_TID_BYTES,
};
use crate::split::NONLEAF_FILLFACTOR;
use crate::tree::{Page, Tree, NONE};
use crate::wal::Wal;

/// The page being filled on one level, with the lower bound its parent will get.
struct Level {
    block: u32,
    page: Page,
    low: (Vec<u8>, u16),
    /// Items (tuples) on the page.
    items: usize,
    /// Entry index where the last item starts.
    last_start: usize,
}

struct Builder {
    layout: KeyLayout,
    leaf_fillfactor: u8,
    pages: Vec<Page>,
    levels: Vec<Level>,
    epoch: u64,
}

impl Builder {
    fn start(&mut self, level: u32) -> Level {
        let block = self.pages.len() as u32;
        self.pages.push(Page::default());
        let mut page = Page::new(level, NONE, NONE, self.epoch);
        // The high key's line pointer is reserved from the start (`_bt_blnewpage`).
        page.used = LINE_POINTER_BYTES;
        let minus_infinity = (vec![0; self.layout.stride()], INDEX_TUPLE_HEADER_BYTES as u16);
        Level { block, page, low: minus_infinity, items: 0, last_start: 0 }
    }

    /// Adds one item: on leaves `key` holds the sort keys of the item's entries (several for
    /// a posting list), on internal levels one pivot.
    fn add(&mut self, level: usize, key: &[u8], size: u16, child: u32) {
        if self.levels.len() == level {
            let st = self.start(level as u32);
            self.levels.push(st);
        }
        let s = self.layout.stride();
        let leaf = level == 0;
        let full = if leaf {
            PAGE_BYTES * (100 - u32::from(self.leaf_fillfactor)) / 100
        } else {
            PAGE_BYTES * (100 - u32::from(NONLEAF_FILLFACTOR)) / 100
        };
        let st = &self.levels[level];
        let free = st.page.free_space();
        let room = u32::from(size) + if leaf { PIVOT_TID_BYTES } else { 0 };
        if free < room || (free < full && st.items >= 2) {
            let mut next = self.start(level as u32);
            let st = &mut self.levels[level];
            // The last item moves to the new page; its copy, truncated on leaves, becomes
            // the old page's high key.
            let ls = st.last_start;
            let n = st.page.len();
            let last: Vec<u8> = st.page.keys_in_order(s).skip(ls).flatten().copied().collect();
            let (mut last_size, mut last_child) = (0, NONE);
            for i in (ls..n).rev() {
                (_, last_size, last_child) = st.page.remove_item(s, i);
            }
            let (hk, hk_size) = if leaf {
                self.layout.truncate_pivot(st.page.key(s, ls - 1), &last[..s])
            } else {
                (last.clone(), last_size)
            };
            st.page.used += u32::from(hk_size);
            st.page.high = Some((hk.clone(), hk_size));
            st.page.next = next.block;
            next.page.prev = st.block;
            next.low = (hk, hk_size);
            let done = std::mem::replace(st, next);
            push_item(&mut self.levels[level], &last, last_size, last_child, s);
            let (low, block) = (done.low.clone(), done.block);
            self.pages[block as usize] = done.page;
            self.add(level + 1, &low.0, low.1, block);
        }
        push_item(&mut self.levels[level], key, size, child, s);
    }

    /// `_bt_uppershutdown`: each level's last page is rightmost (no high key) and goes to
    /// its parent; the single page of the top level is the root.
    fn finish(mut self) -> (Vec<Page>, u32) {
        let mut root = NONE;
        let mut level = 0;
        while level < self.levels.len() {
            let (low, block) = {
                let st = &mut self.levels[level];
                st.page.used -= LINE_POINTER_BYTES;
                (st.low.clone(), st.block)
            };
            if level + 1 == self.levels.len() {
                root = block;
            } else {
                self.add(level + 1, &low.0, low.1, block);
            }
            level += 1;
        }
        for st in self.levels.drain(..) {
            self.pages[st.block as usize] = st.page;
        }
        (self.pages, root)
    }
}

/// Adds an item at the end of a page being built; the first item of an internal page is
/// stored as minus infinity (`_bt_sortaddtup`). A posting list's entries after the first
/// carry size 0.
fn push_item(st: &mut Level, key: &[u8], size: u16, child: u32, stride: usize) {
    let page = &mut st.page;
    let size =
        if page.level > 0 && page.is_empty() { INDEX_TUPLE_HEADER_BYTES as u16 } else { size };
    debug_assert!(key.len() % stride == 0 && !key.is_empty());
    st.last_start = page.len();
    st.items += 1;
    let mut entries = key.chunks_exact(stride);
    page.push_item(stride, entries.next().expect("an item has a key"), size, child);
    for entry in entries {
        page.push_item(stride, entry, 0, child);
    }
}

/// Rebuilds `tree` from `keys` (sorted sort keys) at `leaf_fillfactor`, logging every page.
pub fn rebuild<'a>(
    tree: &mut Tree,
    keys: impl Iterator<Item = &'a [u8]>,
    leaf_fillfactor: u8,
    wal: &mut Wal,
) {
    let mut b = Builder {
        layout: tree.layout,
        leaf_fillfactor,
        pages: vec![Page::new(0, 0, 0, wal.epoch)],
        levels: Vec::new(),
        epoch: wal.epoch,
    };
    if tree.unique {
        for k in keys {
            let z = tree.layout.leaf_bytes(k) as u16;
            b.add(0, k, z, NONE);
        }
    } else {
        let keys: Vec<&[u8]> = keys.collect();
        let mut item = Vec::new();
        for (start, end, z) in build_groups(&tree.layout, &keys) {
            item.clear();
            keys[start..end].iter().for_each(|k| item.extend_from_slice(k));
            b.add(0, &item, z, NONE);
        }
    }
    let (pages, root) = b.finish();
    for p in &pages[1..] {
        wal.image(p.hole());
    }
    // The metapage is written too.
    wal.image(BT_USABLE_BYTES);
    tree.pages = pages;
    tree.root = root;
    tree.leaf_fillfactor = leaf_fillfactor;
    tree.fsm.clear();
}
