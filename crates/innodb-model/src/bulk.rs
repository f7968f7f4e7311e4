//! InnoDB's sorted index build (`btr0bulk.cc`, `BtrBulk` / `PageBulk`, docs/model-rules.md
//! §5), used by rebuilds (`OPTIMIZE TABLE`, `ALTER TABLE ... FORCE`): records arrive in key
//! order, each level fills its current page up to the fill factor's reserve (keeping at least
//! two records per page), a finished page's node pointer goes to the level above, and at the
//! end the single top page is copied into the root and freed.
//!
//! It builds one index of an empty tree; it does not sort (the caller hands records in order).

use crate::fsp::Dir;
use crate::page::{dir_res, PageNo};
use crate::space::Space;
use crate::tree::Tree;
use crate::Flavour;

/// The page being filled on one level (`PageBulk`).
struct Level {
    page: PageNo,
    /// `m_free_space`: FREE_EMPTY minus the records and their directory estimate.
    free: i64,
    n: u32,
}

impl Tree {
    /// `BtrBulk::insert` then `BtrBulk::finish` over `recs` (key, record size) in key order,
    /// into this empty tree, with `innodb_fill_factor` = `fill_factor_pct`.
    pub(crate) fn bulk_build<'a>(
        &mut self,
        sp: &mut Space,
        recs: impl Iterator<Item = (&'a [u8], u32)>,
        fill_factor_pct: u8,
    ) {
        let g = sp.geo;
        // PageBulk::init: the 1/16 rule at 100 % for clustered indexes, else the fill factor.
        let reserve = if fill_factor_pct == 100 && self.layout.clustered {
            g.reserve as i64
        } else {
            (g.page_bytes as i64 * (100 - fill_factor_pct as i64)) / 100
        };
        let mut levels: Vec<Level> = Vec::new();
        let mut n = 0u64;
        for (key, size) in recs {
            self.bulk_insert(sp, &mut levels, 0, key, size, 0, reserve);
            n += 1;
        }
        self.records = n;
        if n == 0 {
            return;
        }
        // BtrBulk::finish: commit the last page of every level, then copy the top into the root.
        let mut level = 0;
        while level + 1 < levels.len() {
            let (p, first, nptr) = self.bulk_page_node_ptr(sp, levels[level].page);
            self.bulk_insert(sp, &mut levels, level + 1, &first, nptr, p.0, reserve);
            level += 1;
        }
        let top = levels.len() - 1;
        let last = levels[top].page;
        let kw = self.kw();
        let src = sp.pages[last.0 as usize].take().expect("top page");
        {
            let root = sp.page_mut(self.root);
            root.make_empty();
            root.level = src.level;
            src.copy_to_new(0..src.len(), kw, root);
            if root.level > 0 {
                root.set_min_rec(kw);
            }
            root.last_insert = src.last_insert;
        }
        sp.pages[last.0 as usize] = Some(src);
        self.free(sp, last);
    }

    /// The node pointer of a finished page: its first key and the pointer record's size.
    fn bulk_page_node_ptr(&self, sp: &Space, p: PageNo) -> (PageNo, Vec<u8>, u32) {
        let page = sp.page(p);
        let key = page.key(0, self.kw()).to_vec();
        (p, key, self.node_ptr_size_of(page, 0))
    }

    /// `BtrBulk::insert` of one record at `level` (a node pointer to `child` above level 0).
    #[allow(clippy::too_many_arguments)]
    fn bulk_insert(
        &mut self,
        sp: &mut Space,
        levels: &mut Vec<Level>,
        level: usize,
        key: &[u8],
        size: u32,
        child: u32,
        reserve: i64,
    ) {
        let g = sp.geo;
        if levels.len() <= level {
            let p = self.bulk_alloc(sp, level as u16);
            levels.push(Level { page: p, free: g.free_empty as i64, n: 0 });
        }
        let cur = &levels[level];
        // PageBulk::isSpaceAvailable: room for the record and its slot, and above two records
        // the fill factor's reserve must stay free (8190 records at most on 64K pages).
        let required = size as i64 + (dir_res(cur.n + 1) - dir_res(cur.n)) as i64;
        let fits = required <= cur.free
            && (cur.n < 2 || cur.free - required >= reserve)
            && !(g.page_bytes == 65536 && cur.n >= 8190);
        if !fits {
            let old = cur.page;
            let sibling = self.bulk_alloc(sp, level as u16);
            // PageBulk::commit with a sibling: link, then the father's node pointer.
            sp.page_mut(old).next = Some(sibling);
            sp.page_mut(sibling).prev = Some(old);
            levels[level] = Level { page: sibling, free: g.free_empty as i64, n: 0 };
            let (_, first, nptr) = self.bulk_page_node_ptr(sp, old);
            self.bulk_insert(sp, levels, level + 1, &first, nptr, old.0, reserve);
        }
        let cur = &mut levels[level];
        let required = size as i64 + (dir_res(cur.n + 1) - dir_res(cur.n)) as i64;
        cur.free -= required;
        cur.n += 1;
        let kw = self.kw();
        let flavour = sp.flavour;
        let page = sp.page_mut(cur.page);
        let at = page.len();
        let placed = page.place(&g, size);
        debug_assert!(placed, "bulk record fits");
        page.insert_placed(at, key, size, child);
        if at == 0 && level > 0 && page.prev.is_none() {
            page.set_min_rec(kw);
        }
        // MariaDB ≥ 10.5 leaves PAGE_LAST_INSERT at 0 on bulk-built pages; MySQL 8.0 sets it
        // to the last record (Page_load::finish in btr0load.cc; PageBulk::finish before 8.0.27).
        page.last_insert = match flavour {
            Flavour::MariaDb1011 => None,
            Flavour::Mysql80 => Some(at as u32),
        };
    }

    /// `btr_page_alloc(index, 0, FSP_UP, level)` as `PageBulk::init` calls it.
    ///
    /// MySQL 8.0's `Page_load::init` (btr0load.cc; `PageBulk::init` before 8.0.27) first
    /// reserves one extent (`fsp_reserve_free_extents`), which extends the file until more
    /// than the reserve plus one extent is free, then takes one page, FSP_UP. The model
    /// follows 8.0: the 8.4/9.x loader can instead give each level whole extents at a time
    /// (`Btree_load::alloc_extent`, `Level_ctx::init`), which this does not model. MariaDB
    /// dropped that reservation (MDEV-26740, in 10.11.19): the file then grows only
    /// when `fsp_alloc_free_extent` finds FSP_FREE empty (`fsp_fill_free_list`), so a rebuilt
    /// file ends at the free limit and reports little or no DATA_FREE.
    fn bulk_alloc(&mut self, sp: &mut Space, level: u16) -> PageNo {
        if sp.flavour == Flavour::Mysql80 {
            sp.fsp.reserve_free_extents(1);
        }
        self.alloc(sp, level, 0, Dir::Up)
    }
}
