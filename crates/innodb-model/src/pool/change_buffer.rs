//! The change buffer's state in the buffer pool (docs/model-rules.md §8): the changes
//! buffered per page, the bytes of ibuf records held, the pool pages they take and the pages
//! written at a checkpoint; merged (dropped) when the pool reads the page.
//!
//! Not here: when a change is buffered and how it is applied to its page (`ibuf.rs`, the
//! change buffer's rules over the trees).

use std::collections::HashMap;

/// Buffered changes of one page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    /// The free space the ibuf bitmap promised when the first change was buffered.
    pub(crate) promised: u32,
    /// Volume of buffered inserts (record + one directory slot each).
    pub(crate) volume: u32,
    /// Bytes of the ibuf records.
    pub(crate) entry_bytes: u32,
    /// Changes buffered for the page.
    pub(crate) changes: u32,
}

/// Change-buffer state.
#[derive(Debug, Clone)]
pub struct ChangeBuffer {
    pub on: bool,
    /// Buffered changes per page.
    /// (Looked up per buffered change, never iterated: a fast fixed-seed hasher changes
    /// no figure.)
    pub(crate) pending: HashMap<u32, Pending, foldhash::fast::FixedState>,
    /// Bytes of ibuf records held.
    pub(crate) bytes: u64,
    /// Usable bytes of one change-buffer page.
    page_payload: u64,
    pub(crate) changes_since_flush: u64,
    /// The most pool pages the change buffer has taken.
    pub(crate) max_pages: usize,
}

/// The change buffer's size in pool pages: now, at its largest, and its cap
/// (`innodb_change_buffer_max_size` percent of the pool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IbufSize {
    /// Pool pages it holds now.
    pub pages: u64,
    /// The most it has held.
    pub max_pages: u64,
    /// The most it may hold.
    pub cap_pages: u64,
}

impl ChangeBuffer {
    pub fn new(on: bool, page_bytes: u32) -> ChangeBuffer {
        ChangeBuffer {
            on,
            pending: HashMap::default(),
            bytes: 0,
            page_payload: (page_bytes - 132) as u64,
            changes_since_flush: 0,
            max_pages: 0,
        }
    }

    /// Pool pages the change buffer occupies.
    pub fn pool_pages(&self, _capacity: usize) -> usize {
        self.bytes.div_ceil(self.page_payload) as usize
    }

    /// Buffered changes merged on reading `p` (`ibuf_merge_or_delete_for_page`): how many.
    pub fn merge_on_read(&mut self, p: u32) -> u32 {
        match self.pending.remove(&p) {
            Some(x) => {
                self.bytes -= x.entry_bytes as u64;
                x.changes
            }
            None => 0,
        }
    }

    pub fn forget(&mut self, p: u32) {
        if let Some(x) = self.pending.remove(&p) {
            self.bytes -= x.entry_bytes as u64;
        }
    }

    /// Change-buffer pages written at a checkpoint.
    pub fn take_dirty_pages(&mut self) -> u64 {
        let n = self.changes_since_flush.min(self.pool_pages(0) as u64);
        self.changes_since_flush = 0;
        n
    }

    /// Pages with buffered changes.
    pub fn pending_pages(&self) -> usize {
        self.pending.len()
    }

    /// Its size against its cap in a pool of `capacity` pages holding at most `max_pct` %.
    pub fn size(&self, capacity: usize, max_pct: u8) -> IbufSize {
        IbufSize {
            pages: self.pool_pages(capacity) as u64,
            max_pages: self.max_pages as u64,
            cap_pages: (capacity * max_pct as usize / 100) as u64,
        }
    }
}
