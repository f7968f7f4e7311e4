//! A tree's pages coming and going: installing a new page in the arena (sized by what it
//! will hold), `btr_page_alloc` / `btr_page_free` from the tree's two segments, the BLOB
//! pages of off-page columns, and the notes that size later pages.
//!
//! Not for where records go (the insert path in `tree/mod.rs`, the split in `split.rs`).

use crate::fsp::Dir;
use crate::page::{Page, PageNo};
use crate::space::Space;
use crate::tree::Tree;
use crate::Flavour;

impl Tree {
    pub(crate) fn install_page(&self, sp: &mut Space, no: u32, level: u16) {
        self.install_page_for(sp, no, level, None);
    }

    /// [`Tree::install_page`] for a page that will first receive `moving` records (a split's
    /// new half): the page's buffers are sized by what it will hold, not by a full page.
    pub(crate) fn install_page_for(
        &self,
        sp: &mut Space,
        no: u32,
        level: u16,
        moving: Option<usize>,
    ) {
        let (most, seen) = if level == 0 {
            (self.cap_leaf, self.split_recs[0].get())
        } else {
            (self.cap_nonleaf, self.split_recs[1].get())
        };
        // Before the first split, a small reservation that grows as records arrive. A split's
        // new half that gets a large share of the records (a middle split, random keys) is
        // sized for them plus a quarter, and grows in quarters (`Page::grow`): a new page of
        // a random load rarely fills, and a full-page reservation left ~35% of page memory
        // unused. A half that gets few records (ascending keys) fills: it is sized full.
        let full = if seen == 0 { most.min(64) } else { most.min(seen + seen / 8 + 1) };
        let cap = match moving {
            Some(m) if 4 * m >= seen && seen > 0 => full.min(m + m / 4 + 1),
            _ => full,
        };
        // Only MariaDB lowers PAGE_HEAP_TOP on delete (`Page::heap_top_shrinks`).
        let page = Page::new(level, self.kw(), cap, sp.flavour == Flavour::MariaDb1011);
        let i = no as usize;
        if sp.pages.len() <= i {
            sp.pages.resize_with(i + 1, || None);
        }
        debug_assert!(sp.pages[i].is_none());
        sp.pages[i] = Some(page);
        if let Some(pool) = &mut sp.pool {
            pool.create(no);
        }
    }

    /// Notes a change that may change non-leaf pages (see `reshapes`).
    #[inline]
    pub(crate) fn note_reshape(&self) {
        self.reshapes.set(self.reshapes.get() + 1);
    }

    /// Notes that a page of `level` splits holding `n_recs` records (sizes later pages).
    #[inline]
    pub(crate) fn note_split(&self, level: u16, n_recs: usize) {
        let seen = &self.split_recs[usize::from(level > 0)];
        if n_recs > seen.get() {
            seen.set(n_recs);
        }
    }

    /// `btr_page_alloc`: leaf pages from the leaf segment, others from the top segment.
    pub(crate) fn alloc(&self, sp: &mut Space, level: u16, hint: u32, dir: Dir) -> PageNo {
        self.alloc_for(sp, level, hint, dir, None)
    }

    /// [`Tree::alloc`] of a split's new half, which first receives `moving` records.
    pub(crate) fn alloc_for(
        &self,
        sp: &mut Space,
        level: u16,
        hint: u32,
        dir: Dir,
        moving: Option<usize>,
    ) -> PageNo {
        let seg = if level == 0 { self.seg_leaf } else { self.seg_top };
        self.note_reshape();
        let no = sp.fsp.alloc_page(seg, hint, dir);
        sp.note_allocated(no);
        sp.touch_file_space(no);
        self.install_page_for(sp, no, level, moving);
        PageNo(no)
    }

    /// `btr_page_free`.
    pub(crate) fn free(&self, sp: &mut Space, p: PageNo) {
        let level = sp.page(p).level;
        let seg = if level == 0 { self.seg_leaf } else { self.seg_top };
        self.note_reshape();
        sp.fsp.free_page(seg, p.0);
        sp.freed_unreused.insert(p.0, seg);
        sp.touch_file_space(p.0);
        sp.pages[p.0 as usize] = None;
        if self.last_leaf.get() == Some(p) {
            self.last_leaf.set(None);
        }
        if let Some(pool) = &mut sp.pool {
            pool.forget(p.0);
        }
    }

    /// Allocates BLOB pages for one record's off-page columns (`btr_store_big_rec_extern_fields`:
    /// leaf segment, hint = the record's page + 1, then the previous BLOB page + 1).
    /// Their page numbers are appended to `out`.
    pub fn alloc_blob_pages(&mut self, sp: &mut Space, near: PageNo, n: u32, out: &mut Vec<u32>) {
        let mut hint = near.0 + 1;
        for _ in 0..n {
            let p = sp.fsp.alloc_page(self.seg_leaf, hint, Dir::Neither);
            sp.note_allocated(p);
            sp.touch_file_space(p);
            if let Some(pool) = &mut sp.pool {
                pool.create(p);
            }
            out.push(p);
            hint = p + 1;
            self.blob_pages += 1;
        }
    }

    /// Frees a deleted record's BLOB pages (`btr_free_externally_stored_field`).
    pub fn free_blob_pages(&mut self, sp: &mut Space, pages: &[u32]) {
        for &p in pages {
            sp.fsp.free_page(self.seg_leaf, p);
            sp.touch_file_space(p);
            if let Some(pool) = &mut sp.pool {
                pool.forget(p);
            }
            self.blob_pages -= 1;
        }
    }
}
