//! The file-per-table tablespace's page allocator: extent descriptors, the space's FREE /
//! FREE_FRAG lists and free limit, and file segments (fragment pages plus extents), as
//! `fsp/fsp0fsp.cc` allocates them (docs/model-rules.md §7). It gives each index's `size`
//! (reserved pages) and `n_leaf_pages` (used pages of the leaf segment).
//!
//! It tracks page numbers only; page contents live in the tree arena.

use crate::Flavour;

/// Allocation direction (`FSP_UP`, `FSP_DOWN`, `FSP_NO_DIR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    Up,
    Down,
    Neither,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum XdesState {
    Free,
    FreeFrag,
    FullFrag,
    Fseg(u32),
}

#[derive(Debug, Clone)]
struct Xdes {
    state: XdesState,
    used: [u64; 4],
    n_used: u32,
}

impl Xdes {
    fn is_used(&self, i: u32) -> bool {
        self.used[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    fn set(&mut self, i: u32, used: bool) {
        let (w, b) = ((i / 64) as usize, i % 64);
        if used {
            debug_assert!(!self.is_used(i));
            self.used[w] |= 1 << b;
            self.n_used += 1;
        } else {
            debug_assert!(self.is_used(i));
            self.used[w] &= !(1 << b);
            self.n_used -= 1;
        }
    }
    /// `xdes_find_free`: first free page at or after `hint`, wrapping around.
    fn find_free(&self, hint: u32, e: u32) -> Option<u32> {
        (hint..e).chain(0..hint).find(|&i| !self.is_used(i))
    }
}

/// One file segment (`fseg_inode`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Segment {
    frag: Vec<u32>,
    free: Vec<u32>,
    not_full: Vec<u32>,
    full: Vec<u32>,
    /// Pages used in NOT_FULL extents (`FSEG_NOT_FULL_N_USED`).
    not_full_used: u32,
}

/// Segment handle.
pub(crate) type SegId = u32;

/// The tablespace allocator.
#[derive(Debug, Clone)]
pub(crate) struct Fsp {
    extent_pages: u32,
    page_bytes: u32,
    flavour: Flavour,
    xdes: Vec<Xdes>,
    /// FSP_FREE list (extent numbers).
    free: std::collections::VecDeque<u32>,
    /// FSP_FREE_FRAG list.
    free_frag: Vec<u32>,
    /// FSP_SIZE in pages.
    size_pages: u32,
    /// FSP_FREE_LIMIT in pages.
    free_limit: u32,
    segs: Vec<Segment>,
}

impl Fsp {
    /// A new file-per-table tablespace with page 0 (FSP_HDR), 1 (IBUF_BITMAP) and 2 (INODE)
    /// in use in the first fragment extent.
    pub fn new(extent_pages: u32, page_bytes: u32, flavour: Flavour) -> Fsp {
        let mut f = Fsp {
            extent_pages,
            page_bytes,
            flavour,
            xdes: Vec::new(),
            free: Default::default(),
            free_frag: Vec::new(),
            size_pages: 4,
            free_limit: 0,
            segs: Vec::new(),
        };
        f.init_extent(0);
        f.mark_frag_used(2);
        if flavour == Flavour::Mysql80 {
            // MySQL 8.0 puts the tablespace's SDI root on page 3 (btr_sdi_create_index, a
            // fragment page), so the table's first index root is page 4.
            f.mark_frag_used(3);
        }
        f
    }

    fn new_xdes(&mut self) -> &mut Xdes {
        self.xdes.push(Xdes { state: XdesState::Free, used: [0; 4], n_used: 0 });
        self.xdes.last_mut().expect("pushed")
    }

    fn descr_page_period(&self) -> u32 {
        // One descriptor page tracks `page size in bytes` pages (xdes_calc_descriptor_page).
        self.page_bytes
    }

    /// The page holding `page`'s extent descriptor (`xdes_calc_descriptor_page`): page 0, the
    /// FSP header, for the first period, then each period's first page.
    pub(crate) fn xdes_page_of(&self, page: u32) -> u32 {
        page / self.descr_page_period() * self.descr_page_period()
    }

    /// Initializes the extent at the free limit (`fsp_fill_free_list` loop body): an extent
    /// holding a descriptor page becomes a fragment extent with its first 2 pages in use.
    fn init_extent(&mut self, first_page: u32) {
        debug_assert_eq!((first_page / self.extent_pages) as usize, self.xdes.len());
        self.free_limit = first_page + self.extent_pages;
        let ext = self.xdes.len() as u32;
        let descr = first_page % self.descr_page_period() == 0;
        self.new_xdes();
        if descr {
            let e = &mut self.xdes[ext as usize];
            e.state = XdesState::FreeFrag;
            e.set(0, true);
            e.set(1, true);
            self.free_frag.push(ext);
        } else {
            self.free.push_back(ext);
        }
    }

    /// `fsp_try_extend_data_file`: a file under one extent first grows to one extent; then
    /// it grows one extent at a time while small, four at a time from 32 extents
    /// (`fsp_get_pages_to_extend_ibd`, whose threshold compares pages with the page size in
    /// bytes, as the server does).
    fn extend_file(&mut self) {
        let e = self.extent_pages;
        if self.size_pages < e {
            self.size_pages = e;
        }
        let threshold = (32 * e).min(self.page_bytes);
        self.size_pages += if self.size_pages >= threshold { 4 * e } else { e };
    }

    /// `fsp_fill_free_list`: extends the file when fewer than 4 extents lie above the free
    /// limit, then puts up to 4 extents from the free limit on FSP_FREE.
    fn fill_free_list(&mut self) {
        let e = self.extent_pages;
        if self.size_pages < self.free_limit + 4 * e {
            self.extend_file();
        }
        let mut count = 0;
        while self.free_limit + e <= self.size_pages && count < 4 {
            self.init_extent(self.free_limit);
            count += 1;
        }
    }

    /// Free extents as `fsp_reserve_free_extents` and `fsp_get_available_space_in_free_extents`
    /// count them: FSP_FREE plus the extents above the free limit, less one and less the
    /// descriptor extents among them; and the reserve of 2 extents + 1 % of the file.
    fn free_and_reserve(&self) -> (u32, u32) {
        let e = self.extent_pages;
        let mut up = self.size_pages.saturating_sub(self.free_limit) / e;
        if up > 0 {
            up -= 1;
            up -= up / (self.page_bytes / e);
        }
        let reserve = 2 + (self.size_pages / e) * 2 / 200;
        (self.free.len() as u32 + up, reserve)
    }

    /// `fsp_reserve_free_extents(n_ext, FSP_NORMAL)` before a page split or a bulk page: the
    /// file is extended until more than `reserve + n_ext` extents are free. (Files under one
    /// extent follow page-level rules that change no statistic here and are not modelled;
    /// reservations nested inside one operation are not added up.)
    pub fn reserve_free_extents(&mut self, n_ext: u32) {
        if self.size_pages < self.extent_pages {
            return;
        }
        loop {
            let (n_free, reserve) = self.free_and_reserve();
            if n_free > reserve + n_ext {
                return;
            }
            self.extend_file();
        }
    }

    fn mark_frag_used(&mut self, page: u32) {
        let (ext, off) = (page / self.extent_pages, page % self.extent_pages);
        let e = &mut self.xdes[ext as usize];
        e.set(off, true);
        if e.n_used == self.extent_pages {
            e.state = XdesState::FullFrag;
            self.free_frag.retain(|&x| x != ext);
        }
    }

    /// The descriptor of `page` if it lies below the free limit (`xdes_get_descriptor`).
    fn descr(&self, page: u32) -> Option<u32> {
        (page < self.free_limit).then_some(page / self.extent_pages)
    }

    /// `fsp_alloc_free_extent`: the hinted extent if it is free, else the head of FSP_FREE.
    fn alloc_free_extent(&mut self, hint: u32) -> u32 {
        let ext = match self.descr(hint) {
            Some(x) if self.xdes[x as usize].state == XdesState::Free => x,
            _ => {
                if self.free.is_empty() {
                    self.fill_free_list();
                }
                while self.free.is_empty() {
                    // Only descriptor extents were added; keep extending.
                    self.fill_free_list();
                }
                *self.free.front().expect("free extent")
            }
        };
        self.free.retain(|&x| x != ext);
        ext
    }

    /// `fsp_alloc_free_page`: a single page from a fragment extent.
    fn alloc_frag_page(&mut self, hint: u32) -> u32 {
        let (ext, hint) = match self.descr(hint) {
            Some(x) if self.xdes[x as usize].state == XdesState::FreeFrag => (x, hint),
            _ => {
                let ext = match self.free_frag.first() {
                    Some(&x) => x,
                    None => {
                        let x = self.alloc_free_extent(hint);
                        self.xdes[x as usize].state = XdesState::FreeFrag;
                        self.free_frag.push(x);
                        x
                    }
                };
                (ext, 0)
            }
        };
        let e = self.extent_pages;
        let off = self.xdes[ext as usize].find_free(hint % e, e).expect("fragment extent has room");
        let page = ext * e + off;
        self.mark_frag_used(page);
        page
    }

    /// `fsp_free_page`: returns a fragment page to its fragment extent.
    fn free_frag_page(&mut self, page: u32) {
        let (ext, off) = (page / self.extent_pages, page % self.extent_pages);
        let e = &mut self.xdes[ext as usize];
        let was_full = e.state == XdesState::FullFrag;
        e.set(off, false);
        if was_full {
            e.state = XdesState::FreeFrag;
            self.free_frag.push(ext);
        }
        if e.n_used == 0 {
            e.state = XdesState::Free;
            self.free_frag.retain(|&x| x != ext);
            self.free.push_back(ext);
        }
    }

    /// Creates a segment (`fseg_create`), optionally allocating its first page (a tree root).
    pub fn create_segment(&mut self) -> SegId {
        self.segs.push(Segment::default());
        (self.segs.len() - 1) as SegId
    }

    /// (reserved, used) pages of a segment (`fseg_n_reserved_pages`).
    pub fn seg_pages(&self, seg: SegId) -> (u64, u64) {
        let s = &self.segs[seg as usize];
        let e = self.extent_pages as u64;
        let n_ext = (s.free.len() + s.not_full.len() + s.full.len()) as u64;
        let reserved = s.frag.len() as u64 + n_ext * e;
        let used = s.frag.len() as u64 + s.not_full_used as u64 + s.full.len() as u64 * e;
        (reserved, used)
    }

    /// `fseg_alloc_free_page_low`: picks a page for segment `seg` near `hint`.
    pub fn alloc_page(&mut self, seg: SegId, hint: u32, dir: Dir) -> u32 {
        let e = self.extent_pages;
        let (reserved, used) = self.seg_pages(seg);
        let frag_limit = (e / 2) as u64;
        // MySQL 8.0 fseg_alloc_free_page_low (steps 2 and 3): a segment of FSEG_FRAG_LIMIT
        // used pages or more adds an extent while under 1/8 of it is unused (FSEG_FILLFACTOR).
        // MariaDB (MDEV-33542) also caps the unused reserve at 4 extents before adding one.
        let may_grow = used >= frag_limit
            && reserved - used < reserved / 8
            && (self.flavour == Flavour::Mysql80 || reserved - used < 4 * e as u64);
        let (hint, ext) = match self.descr(hint) {
            Some(x) => (hint, x),
            None => (0, 0),
        };
        let state = self.xdes[ext as usize].state;
        let own = state == XdesState::Fseg(seg);
        let own_not_full = own && self.xdes[ext as usize].n_used < e;
        let page = if own && !self.xdes[ext as usize].is_used(hint % e) {
            // 1. The hinted page.
            hint
        } else if own_not_full && self.flavour == Flavour::MariaDb1011 {
            // MariaDB ≥ 10.11.8 (MDEV-33542) looks in the hinted extent before adding extents.
            ext * e + self.xdes[ext as usize].find_free(hint % e, e).expect("room")
        } else if state == XdesState::Free && may_grow {
            // 2. Take the hinted extent from the space, then the hinted page.
            let x = self.alloc_free_extent(hint);
            debug_assert_eq!(x, ext);
            self.xdes[x as usize].state = XdesState::Fseg(seg);
            self.segs[seg as usize].free.push(x);
            hint
        } else if dir != Dir::Neither && may_grow {
            // 3. Any free extent; its lowest (UP; the first free one of a leased extent) or
            // highest (DOWN) page.
            let x = self.seg_alloc_free_extent(seg);
            let first = x * e;
            let want = if dir == Dir::Down { first + e - 1 } else { first };
            if self.xdes[x as usize].is_used(want % e) {
                first + self.xdes[x as usize].find_free(0, e).expect("room")
            } else {
                want
            }
        } else if own_not_full {
            // 4. Another page of the hinted extent (MySQL 8.0 fseg_alloc_free_page_low order;
            // MariaDB moved this step up, above).
            ext * e + self.xdes[ext as usize].find_free(hint % e, e).expect("room")
        } else if reserved > used {
            // 5. Any unused page of the segment.
            let s = &self.segs[seg as usize];
            let x = *s.not_full.first().or(s.free.first()).expect("segment extent with room");
            x * e + self.xdes[x as usize].find_free(0, e).expect("room")
        } else if used < frag_limit {
            // 6. A fragment page.
            let p = self.alloc_frag_page(hint);
            self.segs[seg as usize].frag.push(p);
            return p;
        } else {
            // 7. A new extent, its first page (its first free page if leased, MySQL 8.0).
            let x = self.seg_alloc_free_extent(seg);
            x * e + self.xdes[x as usize].find_free(0, e).expect("room")
        };
        self.seg_mark_used(seg, page);
        page
    }

    /// `fseg_alloc_free_extent`: the segment's FREE list head, else (MySQL 8.0) a leased
    /// descriptor extent, else a new extent from the space. A leased extent is returned
    /// already on the segment's NOT_FULL list with its 2 system pages counted as used.
    fn seg_alloc_free_extent(&mut self, seg: SegId) -> u32 {
        if let Some(&x) = self.segs[seg as usize].free.first() {
            return x;
        }
        if self.flavour == Flavour::Mysql80 {
            if let Some(x) = self.lease_descriptor_extent(seg) {
                return x;
            }
        }
        // (fseg_fill_free_list, called next by the server, adds nothing: FSEG_FREE is not empty.)
        let x = self.alloc_free_extent(0);
        self.xdes[x as usize].state = XdesState::Fseg(seg);
        self.segs[seg as usize].free.push(x);
        x
    }

    /// MySQL 8.0 `fsp_alloc_xdes_free_frag` (fsp0fsp.cc; MariaDB has no such rule): when a
    /// segment needs an extent and has none free, the last FSP_FREE_FRAG extent is leased
    /// to it if it holds a descriptor page and only that page and the ibuf bitmap are used
    /// (`xdes_is_leasable`); it joins FSEG_NOT_FULL with 2 pages used (XDES_FSEG_FRAG).
    fn lease_descriptor_extent(&mut self, seg: SegId) -> Option<u32> {
        let x = *self.free_frag.last()?;
        if !self.is_leasable(x) {
            return None;
        }
        self.free_frag.pop();
        self.xdes[x as usize].state = XdesState::Fseg(seg);
        let s = &mut self.segs[seg as usize];
        s.not_full.push(x);
        s.not_full_used += 2;
        Some(x)
    }

    /// `xdes_is_leasable`: a descriptor extent with exactly its first 2 pages in use.
    fn is_leasable(&self, ext: u32) -> bool {
        let d = &self.xdes[ext as usize];
        self.is_descriptor_extent(ext) && d.n_used == 2 && d.is_used(0) && d.is_used(1)
    }

    /// Whether `ext` starts with a descriptor page (and so can only be leased, never free).
    fn is_descriptor_extent(&self, ext: u32) -> bool {
        (ext * self.extent_pages) % self.descr_page_period() == 0
    }

    /// `fseg_mark_page_used`: moves the extent between the segment's lists.
    fn seg_mark_used(&mut self, seg: SegId, page: u32) {
        let e = self.extent_pages;
        let (x, off) = (page / e, page % e);
        let s = &mut self.segs[seg as usize];
        let d = &mut self.xdes[x as usize];
        debug_assert_eq!(d.state, XdesState::Fseg(seg));
        if d.n_used == 0 {
            s.free.retain(|&y| y != x);
            s.not_full.push(x);
        }
        d.set(off, true);
        s.not_full_used += 1;
        if d.n_used == e {
            s.not_full.retain(|&y| y != x);
            s.full.push(x);
            s.not_full_used -= e;
        }
    }

    /// `fseg_free_page`: fragment pages go back to the space; a page of an extent is marked
    /// free and the extent returns to the space when it becomes empty.
    pub fn free_page(&mut self, seg: SegId, page: u32) {
        let s = &mut self.segs[seg as usize];
        if let Some(i) = s.frag.iter().position(|&p| p == page) {
            s.frag.swap_remove(i);
            self.free_frag_page(page);
            return;
        }
        let e = self.extent_pages;
        let (x, off) = (page / e, page % e);
        let d = &mut self.xdes[x as usize];
        if d.n_used == e {
            s.full.retain(|&y| y != x);
            s.not_full.push(x);
            s.not_full_used += e;
        }
        d.set(off, false);
        s.not_full_used -= 1;
        let leased = self.flavour == Flavour::Mysql80 && x > 0 && (x * e) % self.page_bytes == 0;
        if leased && d.n_used == 2 {
            // MySQL 8.0 fseg_free_page_low: a leased extent left with only its system pages
            // leaves the segment (back on FSP_FREE_FRAG, the only list for a used extent).
            s.not_full.retain(|&y| y != x);
            s.not_full_used -= 2;
            d.state = XdesState::FreeFrag;
            self.free_frag.push(x);
        } else if d.n_used == 0 {
            s.not_full.retain(|&y| y != x);
            d.state = XdesState::Free;
            self.free.push_back(x);
        }
    }

    /// Debugging aid: the FSP header's figures (file size, free limit, list lengths) as a
    /// tablespace file's page 0 holds them.
    pub fn debug_header(&self) -> String {
        let full_frag = self.xdes.iter().filter(|x| x.state == XdesState::FullFrag).count();
        format!(
            "fsp_size {} free_limit {} free {} free_frag {} full_frag {}",
            self.size_pages,
            self.free_limit,
            self.free.len(),
            self.free_frag.len(),
            full_frag
        )
    }

    /// `fsp_get_available_space_in_free_extents` in bytes (TABLES.DATA_FREE): free extents
    /// less the reserve; 0 for files smaller than one extent.
    pub fn available_free_extent_bytes(&self) -> u64 {
        if self.size_pages < self.extent_pages {
            return 0;
        }
        let (n_free, reserve) = self.free_and_reserve();
        n_free.saturating_sub(reserve) as u64 * self.extent_pages as u64 * self.page_bytes as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Grows one segment page by page, in order, at 4k pages (256-page extents, a descriptor
    /// page every 4096 pages), and returns the allocator and the pages it gave out.
    fn grow(flavour: Flavour, n_pages: u32) -> (Fsp, Vec<u32>) {
        let mut f = Fsp::new(256, 4096, flavour);
        let seg = f.create_segment();
        let mut pages = vec![f.alloc_page(seg, 0, Dir::Up)];
        while (pages.len() as u32) < n_pages {
            f.reserve_free_extents(1);
            let last = *pages.last().expect("a page");
            pages.push(f.alloc_page(seg, last + 1, Dir::Up));
        }
        (f, pages)
    }

    #[test]
    fn mysql_leases_descriptor_extents_to_segments_and_mariadb_does_not() {
        // Extent 16 starts with the descriptor page 4096 and the ibuf bitmap 4097.
        let leased = 4098..4352;
        let (my, my_pages) = grow(Flavour::Mysql80, 6000);
        assert!(my_pages.iter().any(|p| leased.contains(p)), "MySQL 8.0 leases extent 16");
        assert!(!my_pages.contains(&4096) && !my_pages.contains(&4097));
        let (ma, ma_pages) = grow(Flavour::MariaDb1011, 6000);
        assert!(!ma_pages.iter().any(|p| leased.contains(p)), "MariaDB never does");
        // The leased extent counts whole in `size` and its 2 system pages as used.
        let (my_reserved, my_used) = my.seg_pages(0);
        let (_, ma_used) = ma.seg_pages(0);
        assert_eq!(my_used, ma_used + 2);
        assert_eq!(my_reserved % 256, 128, "128 fragment pages (FSEG_FRAG_LIMIT) + extents");
    }

    #[test]
    fn the_first_index_root_is_page_4_on_mysql_after_the_sdi_root() {
        for (flavour, root) in [(Flavour::MariaDb1011, 3), (Flavour::Mysql80, 4)] {
            let mut f = Fsp::new(64, 16384, flavour);
            let seg = f.create_segment();
            assert_eq!(f.alloc_page(seg, 0, Dir::Up), root, "{flavour:?}");
        }
    }

    #[test]
    fn a_leased_extent_left_with_its_system_pages_goes_back_to_the_space() {
        let (mut f, pages) = grow(Flavour::Mysql80, 6000);
        let (reserved, used) = f.seg_pages(0);
        for &p in pages.iter().filter(|&&p| (4098..4352).contains(&p)) {
            f.free_page(0, p);
        }
        let (reserved_after, used_after) = f.seg_pages(0);
        assert_eq!(reserved_after, reserved - 256);
        assert_eq!(used_after, used - 256);
        assert_eq!(f.free_frag.last(), Some(&16), "back on FSP_FREE_FRAG");
        assert!(f.is_leasable(16));
    }
}
