//! Changes of many records at once: emptying a page (`page_create_empty`), copying a run of
//! records to a new page, and cutting a page's head or tail, as splits and merges do.
//!
//! Not for one record's insert or delete (`page/mod.rs`, `heap`).

use super::*;

impl Page {
    /// Empties the page as `page_create_empty` does (keeps level and links).
    pub fn make_empty(&mut self) {
        self.heap.clear();
        self.recs.clear();
        self.span = (0, 0);
        self.shared = 0;
        self.shift = 0;
        self.part = 0;
        self.text = false;
        self.children.clear();
        self.data_bytes = 0;
        self.heap_bytes = 0;
        self.n_heap = 0;
        self.garbage_bytes = 0;
        self.free_list.clear();
        self.free_head_bytes = 0;
        self.last_insert = None;
    }

    /// Copies records `range` compactly into the empty page `to` (a freshly created page).
    /// PAGE_LAST_INSERT stays unset, as `page_copy_rec_list_end_to_created_page` leaves it;
    /// a caller mirroring a record-by-record copy sets it.
    pub fn copy_to_new(&self, range: std::ops::Range<usize>, kw: usize, to: &mut Page) {
        debug_assert_eq!(to.heap.len(), to.n_heap as usize * (kw + SLOT_EXTRA));
        debug_assert!(to.free_list.is_empty() || to.recs.is_empty());
        let mut bytes = 0u32;
        for (slot, i) in (to.n_heap as u16..).zip(range.clone()) {
            let size = self.size(i);
            Self::push_slot(&mut to.heap, self.key(i, kw), size, size);
            to.recs.push(entry(0, slot));
            bytes += size as u32;
        }
        if self.level > 0 {
            to.children.extend_from_slice(&self.children[range.clone()]);
        }
        to.data_bytes += bytes;
        to.heap_bytes += bytes;
        to.n_heap += range.len() as u32;
        // The page's keys share at least what the source's did, often more bits (a split
        // leaf's keys share about log2(leaves) bits): `reprefix` finds them and the words.
        to.reprefix(kw);
    }

    /// Removes records `from..` after they were copied to another page
    /// (`page_delete_rec_list_end`): they join PAGE_FREE as one chain headed by the first of
    /// them; deleting every record re-creates the page empty instead.
    pub fn remove_tail(&mut self, from: usize) {
        let n = self.recs.len();
        if from == n {
            return;
        }
        if from == 0 {
            self.make_empty();
            return;
        }
        // The chain is catenated to PAGE_FREE without page_mem_free: the heap never shrinks.
        for i in (from..n).rev() {
            let s = self.size(i);
            self.free_list.push((s, self.heap_no(i)));
            self.garbage_bytes += s as u32;
            self.data_bytes -= s as u32;
        }
        self.sync_free_head();
        self.recs.truncate(from);
        if self.level > 0 {
            self.children.truncate(from);
        }
        self.last_insert = None;
        // The rest share at least as many bits as before, often more.
        self.reprefix(self.kw as usize);
    }

    /// Removes records `..to` after they were copied (`page_delete_rec_list_start`): deleted
    /// one by one from the front, so the last of them heads PAGE_FREE.
    pub fn remove_head(&mut self, to: usize) {
        if to == 0 {
            return;
        }
        for i in 0..to {
            self.mem_free(self.heap_no(i), self.size(i));
        }
        self.recs.drain(..to);
        if self.level > 0 {
            self.children.drain(..to);
        }
        self.last_insert = None;
        self.reprefix(self.kw as usize);
    }
}
