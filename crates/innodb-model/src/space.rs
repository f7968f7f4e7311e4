//! The table's tablespace as the trees see it: every page (indexed by page number), the
//! file-space allocator, the counters all indexes share and the buffer pool model, with the
//! page accesses the pool counts (a read, a change, a file-space change).
//!
//! Not here: what a page holds (`page/`), how an index walks or changes its pages (`tree/`),
//! the pool's own rules (`pool/`).

use crate::page::{Page, PageNo};
use crate::{Counters, Flavour, Geometry};

/// Every page of the table's tablespace (indexed by page number) plus the allocator and
/// the counters all indexes share.
#[derive(Debug, Clone)]
pub(crate) struct Space {
    pub pages: Vec<Option<Page>>,
    pub fsp: crate::fsp::Fsp,
    pub geo: Geometry,
    pub flavour: Flavour,
    pub counters: Counters,
    /// The buffer pool (and change buffer) model; `None` = every page cached, no I/O.
    pub pool: Option<crate::pool::Pool>,
    /// B-tree pages freed since the last restart and not allocated again, with the segment
    /// each was freed from. MySQL leaves a freed page in its buffer pool with its old index
    /// id until it is evicted (`fseg_free_page` does not touch the block), so a count of an
    /// index's pages in `INNODB_BUFFER_PAGE` includes these; MariaDB 10.6+ marks it freed
    /// (`buf_page_free`) and drops it when the page cleaner reaches it (`buf_flush_page`).
    pub freed_unreused: std::collections::HashMap<u32, crate::fsp::SegId>,
}

impl Space {
    #[inline]
    pub fn page(&self, p: PageNo) -> &Page {
        self.pages[p.0 as usize].as_ref().expect("live page")
    }
    /// A page about to change: the buffer pool sees an access that dirties it.
    #[inline]
    pub fn page_mut(&mut self, p: PageNo) -> &mut Page {
        if let Some(pool) = &mut self.pool {
            pool.access(p.0, true);
        }
        self.pages[p.0 as usize].as_mut().expect("live page")
    }
    /// A page read (descent, sibling check) without a change.
    #[inline]
    pub fn touch_read(&mut self, p: PageNo) {
        if let Some(pool) = &mut self.pool {
            pool.access(p.0, false);
        }
    }
    /// A persistent cursor restored on page `p` ([`crate::pool::Pool::restore_access`]).
    #[inline]
    pub fn touch_restore(&mut self, p: PageNo) {
        if let Some(pool) = &mut self.pool {
            pool.restore_access(p.0);
        }
    }
    /// Page `p` was allocated or freed in this tablespace: the buffer pool sees the file-space
    /// pages that change with it ([`crate::pool::Pool::file_space_change`]).
    #[inline]
    pub fn touch_file_space(&mut self, p: u32) {
        if let Some(pool) = &mut self.pool {
            pool.file_space_change(self.fsp.xdes_page_of(p));
        }
    }
    /// Page `p` was allocated again: it is a live page, no longer a freed one.
    #[inline]
    pub fn note_allocated(&mut self, p: u32) {
        if !self.freed_unreused.is_empty() {
            self.freed_unreused.remove(&p);
        }
    }
    /// Freed pages of segments `segs` still counted as freed (see `freed_unreused`).
    pub fn freed_unreused_of(&self, segs: [crate::fsp::SegId; 2]) -> u64 {
        self.freed_unreused.values().filter(|s| segs.contains(s)).count() as u64
    }
    /// A page changed through a path that does not go through `page_mut`.
    #[inline]
    pub fn touch_dirty(&mut self, p: PageNo) {
        if let Some(pool) = &mut self.pool {
            pool.access(p.0, true);
        }
    }
}
