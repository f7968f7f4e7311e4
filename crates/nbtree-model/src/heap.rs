//! The heap of a table (heapam.c, hio.c): tuples are MAXALIGNed and take a line pointer;
//! an insert goes to the page the previous insert used while it fits with the table's
//! fillfactor reserve (`RelationGetBufferForTuple`), else to a page the free space map
//! knows (here: the lowest such block), else to a new page at the end. VACUUM frees dead
//! tuples' space (their line pointers stay, unused). It does not model TOAST or HOT updates.
//!
//! With shared buffers modelled, an insert also records the pages it requests (see
//! [`Heap::insert`]): the target page, the free space map pages `RelationGetBufferForTuple`
//! consults when the target is full, and the new block it extends the heap by.

use crate::buffers::{Access, Rel, Strategy};
use crate::geometry::{
    maxalign, tid, HEAP_USABLE_BYTES, LINE_POINTER_BYTES, MAX_HEAP_TUPLES_PER_PAGE, PAGE_BYTES,
};
use crate::wal::Wal;
use std::collections::{BTreeSet, HashSet};

/// `SlotsPerFSMPage`: heap blocks per free space map leaf page (8 KiB pages).
pub const FSM_SLOTS_PER_PAGE: u32 = 4069;
/// `FSM_TREE_DEPTH` for 8 KiB pages.
const FSM_TREE_DEPTH: u32 = 3;

/// The free space map block (physical) of the leaf page covering heap block `heap_block`
/// (`fsm_get_location` then `fsm_logical_to_physical`): the root and one page per upper
/// level come before the first leaf.
pub fn fsm_leaf_block(heap_block: u32) -> u32 {
    let mut leaf = heap_block / FSM_SLOTS_PER_PAGE;
    let mut pages = 0u32;
    for _ in 0..FSM_TREE_DEPTH {
        pages += leaf + 1;
        leaf /= FSM_SLOTS_PER_PAGE;
    }
    pages - 1
}

/// A page request of the heap: relation (heap or its map), block, access, ring.
pub type HeapTouch = (Rel, u32, Access, Strategy);

#[derive(Debug, Clone, Default)]
struct HeapPage {
    /// Tuple bytes (MAXALIGNed) per line pointer; 0 = unused.
    tuples: Vec<u16>,
    /// Tuples and line pointers.
    used: u32,
    /// Line pointers freed by VACUUM, reusable.
    unused: u32,
    epoch: u64,
}

impl HeapPage {
    /// `PageGetHeapFreeSpace`: the hole less a line pointer, none once every line pointer
    /// is taken.
    fn free_space(&self) -> u32 {
        if self.tuples.len() as u32 >= MAX_HEAP_TUPLES_PER_PAGE && self.unused == 0 {
            return 0;
        }
        (HEAP_USABLE_BYTES - self.used).saturating_sub(LINE_POINTER_BYTES)
    }
}

/// The heap of one table.
#[derive(Debug, Clone)]
pub struct Heap {
    pages: Vec<HeapPage>,
    target: Option<u32>,
    /// Bytes every page keeps free for updates (`fillfactor` < 100).
    reserve_bytes: u32,
    fsm: BTreeSet<u32>,
    /// Record page requests in `touches`.
    pub tracing: bool,
    /// Inserts go through a bulk insert state (COPY's `BulkInsertState`: the target page
    /// stays pinned between tuples, new pages come through the `BAS_BULKWRITE` ring).
    pub bulk: bool,
    /// The free space map fork exists (the first full page creates it).
    fsm_fork: bool,
    /// The page the bulk insert state holds pinned (`BulkInsertState::current_buf`); a new
    /// statement starts with none.
    pub bulk_pinned: Option<u32>,
    /// Page requests since the caller last took them.
    pub touches: Vec<HeapTouch>,
}

impl Heap {
    /// An empty heap with `fillfactor` (10..=100).
    pub fn new(fillfactor: u8) -> Self {
        Heap {
            pages: Vec::new(),
            target: None,
            reserve_bytes: PAGE_BYTES * (100 - u32::from(fillfactor)) / 100,
            fsm: BTreeSet::new(),
            tracing: false,
            bulk: false,
            fsm_fork: false,
            bulk_pinned: None,
            touches: Vec::new(),
        }
    }

    /// Pages of the heap.
    pub fn pages(&self) -> u64 {
        self.pages.len() as u64
    }

    fn fits(&self, b: u32, len: u32) -> bool {
        len + self.reserve_bytes <= self.pages[b as usize].free_space()
    }

    /// The block a tuple of `len` (aligned) bytes goes to; `pages.len()` for a new page.
    fn block_for(&self, len: u32) -> u32 {
        match self.target.filter(|&b| self.fits(b, len)) {
            Some(b) => b,
            None => match self.fsm.iter().copied().find(|&b| self.fits(b, len)) {
                Some(b) => b,
                None => self.pages.len() as u32,
            },
        }
    }

    /// The TID the next tuple of `bytes` would get.
    pub fn next_tid(&self, bytes: u32) -> u64 {
        let block = self.block_for(maxalign(bytes));
        let offset = match self.pages.get(block as usize) {
            None => 1,
            Some(p) if p.unused > 0 => p.tuples.iter().position(|&t| t == 0).unwrap_or(0) + 1,
            Some(p) => p.tuples.len() + 1,
        };
        tid(block, offset as u16)
    }

    /// Stores a tuple of `bytes` (before alignment); returns its TID.
    pub fn insert(&mut self, bytes: u32, wal: &mut Wal) -> u64 {
        let len = maxalign(bytes);
        let block = self.block_for(len);
        if self.tracing {
            self.trace_insert(block);
        }
        if block as usize == self.pages.len() {
            // A new page is logged as initialised: no image.
            self.pages.push(HeapPage { epoch: wal.epoch, ..HeapPage::default() });
        }
        self.target = Some(block);
        let page = &mut self.pages[block as usize];
        let reuse = if page.unused > 0 { page.tuples.iter().position(|&t| t == 0) } else { None };
        let offset = match reuse {
            Some(i) => {
                page.tuples[i] = len as u16;
                page.used += len;
                page.unused -= 1;
                i + 1
            }
            None => {
                page.tuples.push(len as u16);
                page.used += len + LINE_POINTER_BYTES;
                page.tuples.len()
            }
        };
        let hole = HEAP_USABLE_BYTES - page.used;
        wal.touch(&mut page.epoch, hole);
        tid(block, offset as u16)
    }

    /// The pages `RelationGetBufferForTuple` requests to put a tuple on `block`: the target
    /// page when it takes the tuple (not again under a bulk insert state, which keeps it
    /// pinned); else the full target, the map's leaf for it (its free space recorded,
    /// `RecordAndGetPageWithFreeSpace`, which creates the map), the map's root when that
    /// leaf knows no page (`fsm_search`), and the page found or the new block.
    fn trace_insert(&mut self, block: u32) {
        let ring = if self.bulk { Strategy::BulkWrite } else { Strategy::Normal };
        let new = block as usize == self.pages.len();
        let page_access = if new { Access::Extend } else { Access::Write };
        let pinned = |b: u32| self.bulk && self.bulk_pinned == Some(b);
        match self.target {
            Some(t) if t == block => {
                if !pinned(t) {
                    self.touches.push((Rel::HEAP, t, Access::Write, ring));
                }
            }
            Some(t) => {
                if !pinned(t) {
                    self.touches.push((Rel::HEAP, t, Access::Read, ring));
                }
                self.fsm_fork = true;
                let leaf = fsm_leaf_block(t);
                self.touches.push((Rel::HEAP_FSM, leaf, Access::Write, Strategy::Normal));
                if new || fsm_leaf_block(block) != leaf {
                    self.touches.push((Rel::HEAP_FSM, 0, Access::Read, Strategy::Normal));
                }
                self.touches.push((Rel::HEAP, block, page_access, ring));
            }
            None => {
                // No target yet: the map is searched only if it exists (`GetPageWithFreeSpace`).
                if self.fsm_fork {
                    self.touches.push((Rel::HEAP_FSM, 0, Access::Read, Strategy::Normal));
                }
                self.touches.push((Rel::HEAP, block, page_access, ring));
            }
        }
        if self.bulk {
            self.bulk_pinned = Some(block);
        }
    }

    /// A DELETE marks the tuple (xmax): its page is changed, its space kept until VACUUM.
    pub fn delete(&mut self, t: u64, wal: &mut Wal) {
        let page = &mut self.pages[(t >> 16) as usize];
        let hole = HEAP_USABLE_BYTES - page.used;
        wal.touch(&mut page.epoch, hole);
    }

    /// VACUUM: the dead tuples' space is freed and their pages offered to later inserts.
    pub fn vacuum(&mut self, dead: &HashSet<u64>, wal: &mut Wal) {
        for &t in dead {
            let (b, off) = ((t >> 16) as usize, (t & 0xffff) as usize);
            let page = &mut self.pages[b];
            page.used -= u32::from(page.tuples[off - 1]);
            page.tuples[off - 1] = 0;
            page.unused += 1;
            let hole = HEAP_USABLE_BYTES - page.used;
            wal.touch(&mut page.epoch, hole);
            self.fsm.insert(b as u32);
        }
    }
}
