//! Sorted index builds (`CREATE INDEX`, `REINDEX`): nbtsort.c's `_bt_buildadd` and
//! `_bt_uppershutdown` in our own words. Leaves fill left to right until the next item
//! would leave less than BLCKSZ x (100 - fillfactor) % free (internal levels: 70 %); the
//! last item then moves to a new page and a suffix-truncated copy becomes the old page's high
//! key. Blocks are numbered in the order pages are started, parents included. Every page is
//! written to the WAL whole (`log_newpage`). Posting lists (deduplication) are not modelled.

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
        Level { block, page, low: minus_infinity }
    }

    fn add(&mut self, level: usize, key: &[u8], size: u16, child: u32) {
        if self.levels.len() == level {
            let st = self.start(level as u32);
            self.levels.push(st);
        }
        let s = self.layout.stride();
        let w = self.layout.width;
        let leaf = level == 0;
        let full = if leaf {
            PAGE_BYTES * (100 - u32::from(self.leaf_fillfactor)) / 100
        } else {
            PAGE_BYTES * (100 - u32::from(NONLEAF_FILLFACTOR)) / 100
        };
        let st = &self.levels[level];
        let free = st.page.free_space();
        let n = st.page.len();
        let room = u32::from(size) + if leaf { PIVOT_TID_BYTES } else { 0 };
        if free < room || (free < full && n >= 2) {
            let mut next = self.start(level as u32);
            let st = &mut self.levels[level];
            // The last item moves to the new page; its copy, truncated on leaves, becomes
            // the old page's high key.
            let (last, last_size, last_child) = st.page.remove_item(s, n - 1);
            let (hk, hk_size) = if leaf {
                let last_left = st.page.key(s, n - 2);
                let mut hk = last.clone();
                if last_left[..=w] == last[..=w] {
                    self.layout.set_tid(&mut hk, self.layout.tid(last_left));
                    let z = self.layout.leaf_bytes(&hk) + PIVOT_TID_BYTES;
                    (hk, z as u16)
                } else {
                    self.layout.set_tid(&mut hk, 0);
                    let z = self.layout.leaf_bytes(&hk);
                    (hk, z as u16)
                }
            } else {
                (last.clone(), last_size)
            };
            st.page.used += u32::from(hk_size);
            st.page.high = Some((hk.clone(), hk_size));
            st.page.next = next.block;
            next.page.prev = st.block;
            next.low = (hk, hk_size);
            let done = std::mem::replace(st, next);
            push_item(&mut self.levels[level].page, &last, last_size, last_child, s);
            let (low, block) = (done.low.clone(), done.block);
            self.pages[block as usize] = done.page;
            self.add(level + 1, &low.0, low.1, block);
        }
        push_item(&mut self.levels[level].page, key, size, child, s);
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
/// stored as minus infinity (`_bt_sortaddtup`).
fn push_item(page: &mut Page, key: &[u8], size: u16, child: u32, stride: usize) {
    let size =
        if page.level > 0 && page.is_empty() { INDEX_TUPLE_HEADER_BYTES as u16 } else { size };
    page.push_item(stride, key, size, child);
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
    for k in keys {
        let z = tree.layout.leaf_bytes(k) as u16;
        b.add(0, k, z, NONE);
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
