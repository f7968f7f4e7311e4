//! Room for a record on a page: the free space `page0page.inl` computes, placement at the
//! head of PAGE_FREE or the heap top (`page_cur_insert_rec_low`), `page_mem_free` on delete,
//! and `btr_page_reorganize_low`. Also how the model's buffers grow (memory only).
//!
//! Not for where a record goes in key order (`page/mod.rs`, `search`).

use super::*;

impl Page {
    /// `page_get_max_insert_size_after_reorganize(page, k)`, signed (negative = no room).
    #[inline]
    pub fn max_insert_after_reorg(&self, g: &Geometry, k: u32) -> i64 {
        g.free_empty as i64 - self.data_bytes as i64 - dir_res(self.n_recs() + k) as i64
    }

    /// `page_get_max_insert_size(page, k)`, signed: room at the heap top.
    #[inline]
    pub fn max_insert(&self, g: &Geometry, k: u32) -> i64 {
        g.free_empty as i64 - self.heap_bytes as i64 - dir_res(self.n_heap + k) as i64
    }

    /// Finds room for a record of `size` bytes as `page_cur_insert_rec_low` does: only the
    /// head of PAGE_FREE is tried, then the heap top. Returns false when neither has room
    /// (the caller may reorganize). Accounts the bytes but does not add the record.
    pub fn place(&mut self, g: &Geometry, size: u32) -> bool {
        if self.free_head_bytes as u32 >= size {
            let (_, slot) = self.free_list.pop().expect("PAGE_FREE head");
            self.sync_free_head();
            // Left-over bytes of the reused slot stay counted as garbage.
            self.garbage_bytes -= size;
            self.data_bytes += size;
            self.placed_slot = slot;
            return true;
        }
        if self.max_insert(g, 1) >= size as i64 {
            if self.heap.len() + self.stride() > self.heap.capacity() {
                self.grow_heap();
            }
            self.heap_bytes += size;
            self.placed_slot = self.n_heap as u16;
            // The key and the record's size are written by `insert_placed`.
            let new_len = self.heap.len() + self.stride();
            // A 16-byte key's slot as a fixed-size append (a resize calls memset).
            const STRIDE_16: usize = 16 + SLOT_EXTRA;
            match self.stride() {
                STRIDE_16 => self.heap.extend_from_slice(&[0; STRIDE_16]),
                _ => self.heap.resize(new_len, 0),
            }
            self.heap[new_len - 2..].copy_from_slice(&(size as u16).to_le_bytes());
            self.n_heap += 1;
            self.data_bytes += size;
            return true;
        }
        false
    }

    /// Makes room for a quarter more heap slots (at least 8): a page sized for a split's
    /// half grows in steps near what it holds, where `Vec`'s doubling would leave up to half
    /// of it unused. Memory only: no figure depends on a capacity.
    #[cold]
    pub(super) fn grow_heap(&mut self) {
        let slots = (self.n_heap as usize / 4).max(8);
        self.heap.reserve_exact(slots * self.stride());
    }

    /// The same for the records in key order (and the child pointers).
    #[cold]
    pub(super) fn grow_recs(&mut self) {
        let more = (self.recs.len() / 4).max(8);
        self.recs.reserve_exact(more);
        if self.level > 0 {
            self.children.reserve_exact(more);
        }
    }

    /// Reads the PAGE_FREE head, and the key and size lines of its heap slot, before the leaf
    /// search so that their cache misses overlap the search's (`place` reuses the head on
    /// most random inserts; these loads would otherwise wait until the search is done).
    /// `black_box` keeps the loads from being dropped.
    #[inline]
    pub fn load_free_head(&self) {
        if self.free_head_bytes > 0 {
            // The slot's key and size are written by the insert, and `place` reads the next
            // list entry: load their lines too. The slot number is in this struct, so these
            // loads do not wait for the list's buffer.
            let at = self.free_head_slot as usize * self.stride();
            std::hint::black_box((
                self.heap.get(at).copied(),
                self.heap.get(at + self.kw as usize + 1).copied(),
                self.free_list.last().copied(),
            ));
        }
    }

    /// Sets `free_head_bytes` and `free_head_slot` from the PAGE_FREE list after a change
    /// to it.
    #[inline]
    pub(super) fn sync_free_head(&mut self) {
        (self.free_head_bytes, self.free_head_slot) =
            self.free_list.last().copied().unwrap_or((0, 0));
    }

    /// `btr_page_reorganize_low`: records rewritten compactly in key order, no garbage.
    pub fn reorganize(&mut self) {
        let kw = self.kw as usize;
        let mut heap = Vec::with_capacity(self.heap.capacity());
        for i in 0..self.recs.len() {
            let size = self.size(i);
            Self::push_slot(&mut heap, self.key(i, kw), size, size);
        }
        self.heap = heap;
        self.heap_bytes = self.data_bytes;
        self.n_heap = self.n_recs();
        self.garbage_bytes = 0;
        self.free_list.clear();
        self.free_head_bytes = 0;
        for (i, e) in self.recs.iter_mut().enumerate() {
            *e = entry(*e, i as u16);
        }
    }

    /// Frees the heap slot of a record of `size` bytes being deleted (`page_mem_free`): it
    /// heads PAGE_FREE, unless (MariaDB) it ends at the heap top, which then drops.
    pub(super) fn mem_free(&mut self, slot: u16, size: u16) {
        self.data_bytes -= size as u32;
        let top = self.n_heap as u16 - 1;
        if self.heap_top_shrinks && slot == top && self.slot_bytes_of(slot) == size {
            self.n_heap -= 1;
            self.heap_bytes -= size as u32;
            self.heap.truncate(self.n_heap as usize * self.stride());
        } else {
            self.garbage_bytes += size as u32;
            self.free_list.push((size, slot));
            self.free_head_bytes = size;
            self.free_head_slot = slot;
        }
    }
}
