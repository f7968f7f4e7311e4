//! The change buffer (insert buffer, docs/model-rules.md §8): inserts into and purge deletes
//! from leaves of non-unique secondary indexes whose leaf page is not in the buffer pool are
//! buffered instead of reading the page (`ibuf_insert`), within the free space the ibuf bitmap
//! promises for the page and under `innodb_change_buffer_max_size` percent of the pool; they
//! are merged when the page is next read.
//!
//! Simplifications, stated: the buffered change is applied to the simulated page at once
//! (a merge never splits or merges pages, so the page's shape is the same as if it were
//! applied at read time, only the order of records' arrival differs); the change buffer's
//! own pages take pool room (entry bytes packed into full pages) and are written at each
//! checkpoint, one page per buffered change at most; no background merge (the master
//! thread's `ibuf_merge_in_background`) and no delete-mark buffering (the simulator has no
//! delete-marked records).
//!
//! This file holds the rules over the trees; the state they keep (buffered changes per page,
//! the pool pages they take) is the pool's, in `pool/change_buffer.rs`.

use crate::page::{dir_res, PageNo};
use crate::pool::Pending;
use crate::space::Space;
use crate::tree::Tree;

/// Bytes of an ibuf record besides the index record: space id, marker, page number, the
/// counter/type header and 6 type bytes per field (`ibuf_entry_build`, approximately).
fn ibuf_entry_bytes(rec_bytes: u32, n_fields: u32) -> u32 {
    rec_bytes + 4 + 1 + 4 + 4 + 6 * n_fields
}

/// `ibuf_index_page_calc_free_bits` then `_from_bits`: the free space the bitmap promises,
/// in units of P/32 (value 3 only for ≥ 4 units; exactly 3 units is recorded as 2).
fn bitmap_free_bytes(max_ins_after_reorg: i64, page_bytes: u32) -> u32 {
    let unit = (page_bytes / 32) as i64;
    let mut n = max_ins_after_reorg.max(0) / unit;
    if n == 3 {
        n = 2;
    }
    if n > 3 {
        n = 3;
    }
    if n == 3 {
        4 * unit as u32
    } else {
        n as u32 * unit as u32
    }
}

impl Tree {
    /// Inserts a leaf record of a non-unique secondary index, through the change buffer when
    /// its leaf is not cached and the buffer takes it; else the normal insert.
    pub fn insert_secondary(&mut self, sp: &mut Space, key: &[u8], size: u32) -> PageNo {
        if let Some(p) = self.try_buffer(sp, key, Some(size)) {
            return p;
        }
        self.insert(sp, 0, key, size, 0)
    }

    /// Purges a leaf record of a non-unique secondary index, through the change buffer when
    /// it may; else the normal delete.
    pub fn delete_secondary(&mut self, sp: &mut Space, key: &[u8]) -> bool {
        if self.try_buffer(sp, key, None).is_some() {
            return true;
        }
        self.delete_leaf(sp, key)
    }

    /// `ibuf_insert` for an insert (`Some(size)`) or a purge delete (`None`). Returns the leaf
    /// page when the change was buffered.
    fn try_buffer(&mut self, sp: &mut Space, key: &[u8], size: Option<u32>) -> Option<PageNo> {
        let pool = sp.pool.as_ref()?;
        if !pool.ibuf.on || self.layout.clustered || self.layout.unique {
            return None;
        }
        let g = sp.geo;
        let kw = self.kw();
        // The pages above the leaf, kept to touch them once the change is buffered (one
        // descent instead of two). Every node page holds at least two records and page
        // numbers are 32-bit, so a tree has fewer than 33 levels.
        let mut path = [PageNo(0); 64];
        let mut depth = 0;
        let (p, pos) = {
            let mut p = self.root;
            loop {
                let page = sp.page(p);
                if page.level == 0 {
                    break (p, page.insert_pos(key, kw));
                }
                let (cnt, _) = page.search(key, kw);
                path[depth] = p;
                depth += 1;
                p = PageNo(page.children[cnt.saturating_sub(1)]);
            }
        };
        if p == self.root || pool.contains(p.0) {
            return None;
        }
        let cap = pool.capacity() * pool.settings.change_buffer_max_pct as usize / 100;
        if pool.ibuf.pool_pages(pool.capacity()) >= cap {
            sp.pool.as_mut().expect("pool").counters.ibuf_refused_cap += 1;
            return None;
        }
        let page = sp.page(p);
        let rec = match size {
            Some(s) => s,
            None => {
                // ibuf_insert refuses a purge that could empty the page (min_n_recs < 2).
                if pos == 0 || page.key(pos - 1, kw) != key || page.n_recs() < 2 {
                    return None;
                }
                page.size(pos - 1) as u32
            }
        };
        if rec >= g.free_empty / 2 {
            return None;
        }
        let volume = rec + dir_res(1);
        let promised = bitmap_free_bytes(page.max_insert_after_reorg(&g, 1), g.page_bytes);
        let entry = ibuf_entry_bytes(rec, self.layout.fields.len() as u32) as u64;
        let pool = sp.pool.as_mut().expect("pool");
        let slot = pool.ibuf.pending.entry(p.0).or_insert(Pending {
            promised,
            volume: 0,
            entry_bytes: 0,
            changes: 0,
        });
        if size.is_some() && slot.volume + volume > slot.promised {
            if slot.changes == 0 {
                pool.ibuf.pending.remove(&p.0);
            }
            pool.counters.ibuf_refused_free_space += 1;
            return None;
        }
        if size.is_some() {
            slot.volume += volume;
        }
        slot.entry_bytes += entry as u32;
        slot.changes += 1;
        pool.ibuf.bytes += entry;
        pool.ibuf.max_pages = pool.ibuf.max_pages.max(pool.ibuf.pool_pages(0));
        pool.ibuf.changes_since_flush += 1;
        pool.counters.ibuf_buffered += 1;
        // The pages above the leaf were searched.
        for &above in &path[..depth] {
            sp.touch_read(above);
        }
        // Apply the change to the page now, without the pool seeing the leaf.
        let page = sp.pages[p.0 as usize].as_mut().expect("leaf");
        match size {
            Some(s) => {
                if !page.place(&g, s) {
                    page.reorganize();
                    sp.counters.page_reorgs += 1;
                    let placed = page.place(&g, s);
                    debug_assert!(placed, "the bitmap promised room");
                }
                page.insert_placed(pos, key, s, 0);
            }
            None => {
                page.delete_rec(pos - 1);
                self.records -= 1;
            }
        }
        Some(p)
    }
}
