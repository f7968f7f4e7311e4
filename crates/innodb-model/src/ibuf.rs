//! The change buffer (insert buffer, docs/model-rules.md §8): inserts into and purge deletes
//! from leaves of non-unique secondary indexes whose leaf page is not in the buffer pool are
//! buffered instead of reading the page (`ibuf_insert`), within the free space the ibuf bitmap
//! promises for the page and under `innodb_change_buffer_max_size` percent of the pool; they
//! are merged when the page is next read.
//!
//! A row delete is two secondary-index operations on the server: the user's DELETE
//! delete-marks the record (`IBUF_OP_DELETE_MARK`, buffered like an insert when the leaf is
//! not cached), then purge removes it (`IBUF_OP_DELETE`). `ibuf_insert_low` buffers the purge
//! only when the page's *buffered* operations leave at least two records (`min_n_recs`,
//! counted by `ibuf_get_volume_buffered` from the distinct buffered inserts and delete-marks
//! less the buffered purges): a purge following a lone buffered delete-mark reads the page,
//! which merges its buffered changes, and deletes the record as without buffering (with
//! the merge attempt of a pessimistic delete). The model runs the purge right after the
//! delete-mark.
//!
//! Simplifications, stated: the buffered change is applied to the simulated page at once
//! (a merge never splits or merges pages, so the page's shape is the same as if it were
//! applied at read time, only the order of records' arrival differs); the change buffer's
//! own pages take pool room (entry bytes packed into full pages) and are written at each
//! checkpoint, one page per buffered change at most. MariaDB 10.11 has no background merge
//! (10.5 removed the master thread's `ibuf_merge_in_background`, MDEV-19514): a page's
//! changes are merged when it is read.
//!
//! This file holds the rules over the trees; the state they keep (buffered changes per page,
//! the pool pages they take) is the pool's, in `pool/change_buffer.rs`.

use crate::layout::REC_HEADER_BYTES;
use crate::page::{dir_res, PageNo};
use crate::space::Space;
use crate::tree::Tree;

/// Bytes of the change buffer record of an operation on a secondary-index record of
/// `rec_bytes` (COMPACT, `null_bytes` of NULL bitmap) with `n_fields` fields
/// (`ibuf_entry_build`): space id, marker, page number, the 4-byte counter/type/flags and 6
/// type bytes per field, then the record's fields, in the REDUNDANT format of the change
/// buffer's index (6 header bytes and one offset byte per field, two past 127 data bytes).
fn ibuf_entry_bytes(rec_bytes: u32, null_bytes: u32, n_fields: u32) -> u32 {
    let user = rec_bytes.saturating_sub(REC_HEADER_BYTES + null_bytes);
    let data = 4 + 1 + 4 + 4 + 6 * n_fields + user;
    let offsets = if data <= 127 { 1 } else { 2 };
    data + 6 + (4 + n_fields) * offsets
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
        if let Some(p) = self.buffer_insert(sp, key, size) {
            return p;
        }
        self.insert(sp, 0, key, size, 0)
    }

    /// Deletes a leaf record of a non-unique secondary index: the delete-mark and the purge,
    /// each through the change buffer when it may (`row_upd_sec_index_entry`, then
    /// `row_purge_remove_sec_if_poss_leaf`); else the normal delete.
    pub fn delete_secondary(&mut self, sp: &mut Space, key: &[u8]) -> bool {
        if self.buffer_delete(sp, key) {
            return true;
        }
        self.delete_leaf(sp, key)
    }

    /// The leaf a buffered change would go to, when the change buffer may take one
    /// (`btr_cur_search_to_nth_level` with BTR_INSERT / BTR_DELETE_MARK / BTR_DELETE: the
    /// leaf is not in the pool, nor the root; `ibuf_insert`: index non-unique, secondary; the
    /// buffer below its cap). Returns the leaf, the insert position and the pages above it.
    fn buffer_target(&self, sp: &mut Space, key: &[u8]) -> Option<(PageNo, usize, Path)> {
        let pool = sp.pool.as_ref()?;
        if !pool.ibuf.on || self.layout.clustered || self.layout.unique {
            return None;
        }
        let kw = self.kw();
        let mut path = Path { pages: [PageNo(0); 64], depth: 0 };
        let (p, pos) = {
            let mut p = self.root;
            loop {
                let page = sp.page(p);
                if page.level == 0 {
                    break (p, page.insert_pos(key, kw));
                }
                let (cnt, _) = page.search(key, kw);
                path.pages[path.depth] = p;
                path.depth += 1;
                p = PageNo(page.children[cnt.saturating_sub(1)]);
            }
        };
        if p == self.root || pool.contains(p.0) {
            return None;
        }
        if !self.below_cap(sp) {
            return None;
        }
        Some((p, pos, path))
    }

    /// `innodb_change_buffer_max_size`: false (and counted) when the buffer is full.
    fn below_cap(&self, sp: &mut Space) -> bool {
        let pool = sp.pool.as_mut().expect("pool");
        let cap = pool.capacity() * pool.settings.change_buffer_max_pct as usize / 100;
        if pool.ibuf.pool_pages(pool.capacity()) >= cap {
            pool.counters.ibuf_refused_cap += 1;
            return false;
        }
        true
    }

    /// `ibuf_insert(IBUF_OP_INSERT)`: buffers the insert within the free space the bitmap
    /// promised for the page. Returns the leaf page when buffered.
    fn buffer_insert(&mut self, sp: &mut Space, key: &[u8], size: u32) -> Option<PageNo> {
        let (p, pos, path) = self.buffer_target(sp, key)?;
        let g = sp.geo;
        if size >= g.free_empty / 2 {
            return None;
        }
        let volume = size + dir_res(1);
        let promised = bitmap_free_bytes(sp.page(p).max_insert_after_reorg(&g, 1), g.page_bytes);
        let entry = ibuf_entry_bytes(size, self.layout.null_bytes, self.layout.fields.len() as u32);
        let pool = sp.pool.as_mut().expect("pool");
        let slot = pool.ibuf.slot(p.0, promised);
        if slot.volume + volume > slot.promised {
            pool.ibuf.drop_if_empty(p.0);
            pool.counters.ibuf_refused_free_space += 1;
            return None;
        }
        slot.volume += volume;
        slot.note_record(key);
        pool.ibuf.buffered(p.0, entry, g, sp.flavour);
        pool.counters.ibuf_buffered += 1;
        path.touch(sp);
        // Apply the insert to the page now, without the pool seeing the leaf.
        let page = sp.pages[p.0 as usize].as_mut().expect("leaf");
        if !page.place(&g, size) {
            page.reorganize();
            sp.counters.page_reorgs += 1;
            let placed = page.place(&g, size);
            debug_assert!(placed, "the bitmap promised room");
        }
        page.insert_placed(pos, key, size, 0);
        Some(p)
    }

    /// The delete-mark (`IBUF_OP_DELETE_MARK`) and the purge (`IBUF_OP_DELETE`) of a record
    /// whose leaf is not cached. True when both were buffered; false when the caller deletes
    /// the record by reading the page (which merges a buffered delete-mark with the rest).
    fn buffer_delete(&mut self, sp: &mut Space, key: &[u8]) -> bool {
        let Some((p, pos, path)) = self.buffer_target(sp, key) else {
            return false;
        };
        let kw = self.kw();
        let page = sp.page(p);
        if pos == 0 || page.key(pos - 1, kw) != key {
            return false;
        }
        let g = sp.geo;
        let rec = page.size(pos - 1) as u32;
        if rec >= g.free_empty / 2 {
            return false;
        }
        let promised = bitmap_free_bytes(page.max_insert_after_reorg(&g, 1), g.page_bytes);
        let entry = ibuf_entry_bytes(rec, self.layout.null_bytes, self.layout.fields.len() as u32);
        // The delete-mark: no volume (`ibuf_get_volume_buffered_count`), one more record.
        let pool = sp.pool.as_mut().expect("pool");
        pool.ibuf.slot(p.0, promised).note_record(key);
        pool.ibuf.buffered(p.0, entry, g, sp.flavour);
        pool.counters.ibuf_buffered += 1;
        path.touch(sp);
        // The purge, under the cap again, when the buffered operations leave ≥ 2 records.
        if !self.below_cap(sp) {
            return false;
        }
        let pool = sp.pool.as_mut().expect("pool");
        if pool.ibuf.min_recs_after_buffered(p.0) < 2 {
            return false;
        }
        pool.ibuf.buffered_purge(p.0, entry, g, sp.flavour);
        pool.counters.ibuf_buffered += 1;
        sp.pages[p.0 as usize].as_mut().expect("leaf").delete_rec(pos - 1);
        self.records -= 1;
        true
    }
}

/// The pages above a leaf, kept to touch them once the change is buffered (one descent
/// instead of two). Every node page holds at least two records and page numbers are 32-bit,
/// so a tree has fewer than 33 levels.
struct Path {
    pages: [PageNo; 64],
    depth: usize,
}

impl Path {
    /// The pages above the leaf were searched.
    fn touch(&self, sp: &mut Space) {
        for &above in &self.pages[..self.depth] {
            sp.touch_read(above);
        }
    }
}
