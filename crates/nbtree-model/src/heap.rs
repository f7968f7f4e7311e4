//! The heap of a table (heapam.c, hio.c): tuples are MAXALIGNed and take a line pointer;
//! an insert goes to the page the previous insert used while it fits with the table's
//! fillfactor reserve (`RelationGetBufferForTuple`), else to a page the free space map
//! knows (here: the lowest such block), else to a new page at the end. VACUUM frees dead
//! tuples' space (their line pointers stay, unused). It does not model TOAST or HOT updates.

use crate::geometry::{
    maxalign, tid, HEAP_USABLE_BYTES, LINE_POINTER_BYTES, MAX_HEAP_TUPLES_PER_PAGE, PAGE_BYTES,
};
use crate::wal::Wal;
use std::collections::{BTreeSet, HashSet};

#[derive(Debug, Clone, Default)]
struct HeapPage {
    /// Tuple bytes (MAXALIGNed) per line pointer; 0 = unused.
    tuples: Vec<u16>,
    /// Tuples and line pointers.
    used: u32,
    epoch: u64,
}

impl HeapPage {
    /// `PageGetHeapFreeSpace`: the hole less a line pointer, none once every line pointer
    /// is taken.
    fn free_space(&self) -> u32 {
        let reusable = self.tuples.contains(&0);
        if self.tuples.len() as u32 >= MAX_HEAP_TUPLES_PER_PAGE && !reusable {
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
}

impl Heap {
    /// An empty heap with `fillfactor` (10..=100).
    pub fn new(fillfactor: u8) -> Self {
        Heap {
            pages: Vec::new(),
            target: None,
            reserve_bytes: PAGE_BYTES * (100 - u32::from(fillfactor)) / 100,
            fsm: BTreeSet::new(),
        }
    }

    /// Pages of the heap.
    pub fn pages(&self) -> u64 {
        self.pages.len() as u64
    }

    fn fits(&self, b: u32, len: u32) -> bool {
        len + self.reserve_bytes <= self.pages[b as usize].free_space()
    }

    /// Stores a tuple of `bytes` (before alignment); returns its TID.
    pub fn insert(&mut self, bytes: u32, wal: &mut Wal) -> u64 {
        let len = maxalign(bytes);
        let block = match self.target.filter(|&b| self.fits(b, len)) {
            Some(b) => b,
            None => {
                let from_fsm = self.fsm.iter().copied().find(|&b| self.fits(b, len));
                match from_fsm {
                    Some(b) => b,
                    None => {
                        // A new page is logged as initialised: no image.
                        self.pages.push(HeapPage { epoch: wal.epoch, ..HeapPage::default() });
                        (self.pages.len() - 1) as u32
                    }
                }
            }
        };
        self.target = Some(block);
        let page = &mut self.pages[block as usize];
        let offset = match page.tuples.iter().position(|&t| t == 0) {
            Some(i) => {
                page.tuples[i] = len as u16;
                page.used += len;
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
            let hole = HEAP_USABLE_BYTES - page.used;
            wal.touch(&mut page.epoch, hole);
            self.fsm.insert(b as u32);
        }
    }
}
