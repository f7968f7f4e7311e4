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
