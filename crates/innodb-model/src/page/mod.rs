//! One B-tree index page: its records in key order as compact arrays, and the header fields
//! that drive InnoDB's decisions (heap top, garbage, the PAGE_FREE list, PAGE_LAST_INSERT).
//!
//! Space accounting follows `page0page.inl` (docs/model-rules.md §1); record placement
//! follows `page_cur_insert_rec_low`. The page holds no record bytes beyond the encoded key,
//! a u16 size and (non-leaf) a child page number, so there is no per-record allocation.
//!
//! This file holds the page and its record-by-record changes; the parts: `heap` (room for a
//! record: the heap top, PAGE_FREE, reorganize), `bulk` (emptying a page and moving runs of
//! records, for splits and merges), `keys`, `search`, `touch`.

use crate::Geometry;

/// A page number in the table's tablespace (also the index of the page in the arena).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PageNo(pub u32);

/// `page_dir_calc_reserved_space`: the directory-slot estimate for `n` records.
#[inline]
pub(crate) fn dir_res(n: u32) -> u32 {
    n.div_ceil(2)
}

pub(crate) use keys::key_le;
#[cfg(test)]
pub(crate) use keys::lower_bound;
use keys::{
    common_prefix, entry, hex_guess_word, is_hex_text, key_word, lower_bound_near, text_word,
    HEAP_MASK,
};

mod bulk;
mod heap;
mod keys;
mod search;
mod touch;

/// Shared key bytes kept in the page struct (`Page::head`).
const HEAD_BYTES: usize = 16;

/// Bytes of a heap slot after its key: the record's size and the slot's (`Page::heap`).
const SLOT_EXTRA: usize = 4;

/// An index page.
///
/// Field order is the cache layout (`repr(C)`, 64-byte aligned): what a leaf search and an
/// insert read comes first (on a cold page every line is a miss, and the record arrays can
/// only be loaded once their pointers are), the rest after.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub(crate) struct Page {
    // Line 0.
    /// Every record in key order as an `entry` (prefix bits and heap slot in 4 bytes): an
    /// insert shifts this one small array, and the search walks it (a few cache lines per
    /// page).
    recs: Vec<u32>,
    /// The heap slots (as InnoDB stores records), `kw + 4` bytes each: the encoded key, the
    /// size (header + data) of its record (u16 LE, stale for a freed slot) and the bytes of
    /// the slot (u16 LE; a record reusing a larger freed slot leaves it unchanged). An insert
    /// or delete shifts only `recs`, not the slots, and writes one slot (one cache line,
    /// often, where separate arrays of keys and sizes took two or three). Searches walk
    /// `recs` and read a key only among equal prefix words.
    heap: Vec<u8>,
    /// Where in `recs` a search starts is interpolated between these values of the first
    /// and the last record: their prefix bits, or on a text page (`text`) their
    /// [`hex_guess_word`]s. Kept by every change of `recs`; a stale hint would only cost time.
    span: (u32, u32),
    /// Key width in bytes.
    kw: u32,
    /// Bytes every key of the page shares (the `prefixes` start after them).
    shared: u16,
    /// PAGE_LEVEL: 0 = leaf.
    pub level: u16,
    // Line 1.
    /// The first `min(shared, HEAD_BYTES)` shared bytes: a search or insert checks a key
    /// against them here instead of reading a stored key (a cache miss on a cold page).
    head: [u8; HEAD_BYTES],
    /// Sum of live record sizes (`page_get_data_size`, INNODB_BUFFER_PAGE.DATA_SIZE).
    pub data_bytes: u32,
    /// PAGE_HEAP_TOP − PAGE_NEW_SUPREMUM_END.
    pub heap_bytes: u32,
    /// User records on the heap, live or freed (PAGE_N_HEAP − 2).
    pub n_heap: u32,
    /// PAGE_GARBAGE.
    pub garbage_bytes: u32,
    /// Size of the PAGE_FREE head, 0 when the list is empty: `place` tests it on every
    /// insert, and the list's own buffer is one more cache miss on a cold page.
    free_head_bytes: u16,
    /// Heap slot of the PAGE_FREE head (when `free_head_bytes` > 0): the lines an insert
    /// into it writes can be loaded without waiting for the list's buffer.
    free_head_slot: u16,
    /// Leading bits of the byte after the `shared` bytes that every key also shares (0–7):
    /// random keys in one leaf share about log2(leaves) bits, rarely a whole byte more.
    shift: u32,
    /// The value of those `shift` bits.
    part: u8,
    /// True when the prefix words are [`text_word`]s (the page's keys are hex text after
    /// the shared bytes), else [`key_word`]s. Chosen by `reprefix`; either is correct for
    /// any key, the text word only ties less often on hex text.
    text: bool,
    /// MariaDB ≥ 10.5 (`page_mem_free`): deleting the record that ends at PAGE_HEAP_TOP
    /// lowers the heap top instead of adding the record to PAGE_FREE. MySQL 8.0 does not:
    /// its `page_mem_free` (page0page.ic) always prepends the record to PAGE_FREE.
    heap_top_shrinks: bool,
    /// Heap slot chosen by the last `place`, used by `insert_placed`.
    placed_slot: u16,
    /// PAGE_LAST_INSERT as a position in key order (`None` = 0 = unknown).
    pub last_insert: Option<u32>,
    // Lines 2 and 3.
    pub prev: Option<PageNo>,
    pub next: Option<PageNo>,
    /// The PAGE_FREE list as (freed record's size, heap slot); the head is the last entry.
    pub free_list: Vec<(u16, u16)>,
    /// Child page numbers (non-leaf pages only), in key order.
    pub children: Vec<u32>,
}

impl Page {
    /// A freshly created empty page (`page_create`).
    pub fn new(level: u16, key_width: usize, cap_recs: usize, heap_top_shrinks: bool) -> Page {
        Page {
            level,
            prev: None,
            next: None,
            heap: Vec::with_capacity(cap_recs * (key_width + SLOT_EXTRA)),
            kw: key_width as u32,
            recs: Vec::with_capacity(cap_recs),
            span: (0, 0),
            shared: 0,
            shift: 0,
            part: 0,
            text: false,
            head: [0; HEAD_BYTES],
            children: if level > 0 { Vec::with_capacity(cap_recs) } else { Vec::new() },
            data_bytes: 0,
            heap_bytes: 0,
            n_heap: 0,
            garbage_bytes: 0,
            free_list: Vec::new(),
            free_head_bytes: 0,
            free_head_slot: 0,
            placed_slot: 0,
            heap_top_shrinks,
            last_insert: None,
        }
    }

    /// PAGE_N_RECS.
    #[inline]
    pub fn n_recs(&self) -> u32 {
        self.recs.len() as u32
    }

    /// Number of records.
    #[inline]
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// True when the page has no user records.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Size in bytes (header + data) of the i-th record in key order.
    #[inline]
    pub fn size(&self, i: usize) -> u16 {
        self.rec_bytes_of(self.heap_no(i))
    }

    /// Bytes per heap slot in `heap`.
    #[inline]
    fn stride(&self) -> usize {
        self.kw as usize + SLOT_EXTRA
    }

    /// Size of the record in heap slot `h` (stale when the slot is free).
    #[inline]
    fn rec_bytes_of(&self, h: u16) -> u16 {
        let at = h as usize * self.stride() + self.kw as usize;
        u16::from_le_bytes([self.heap[at], self.heap[at + 1]])
    }

    /// Bytes of heap slot `h`.
    #[inline]
    fn slot_bytes_of(&self, h: u16) -> u16 {
        let at = h as usize * self.stride() + self.kw as usize + 2;
        u16::from_le_bytes([self.heap[at], self.heap[at + 1]])
    }

    /// Appends a heap slot: `key`, then the record's and the slot's size.
    #[inline]
    fn push_slot(heap: &mut Vec<u8>, key: &[u8], rec_bytes: u16, slot_bytes: u16) {
        // Common widths as fixed-size copies (a copy of a run-time length calls memcpy).
        match <&[u8; 16]>::try_from(key) {
            Ok(k) => heap.extend_from_slice(k),
            Err(_) => heap.extend_from_slice(key),
        }
        heap.extend_from_slice(&rec_bytes.to_le_bytes());
        heap.extend_from_slice(&slot_bytes.to_le_bytes());
    }

    /// Sizes of the records in key order.
    pub fn sizes(&self) -> impl Iterator<Item = u16> + '_ {
        (0..self.len()).map(|i| self.size(i))
    }

    /// Heap slot (heap number − 2) of the i-th record in key order.
    #[inline]
    fn heap_no(&self, i: usize) -> u16 {
        (self.recs[i] & HEAP_MASK) as u16
    }

    /// Prefix bits of the i-th record in key order (its prefix word, heap bits cleared).
    #[inline]
    fn prefix(&self, i: usize) -> u32 {
        self.recs[i] & !HEAP_MASK
    }

    /// The key of the i-th record in key order.
    #[inline]
    pub fn key(&self, i: usize, kw: usize) -> &[u8] {
        let at = self.heap_no(i) as usize * (kw + SLOT_EXTRA);
        &self.heap[at..at + kw]
    }

    /// Bytes of key storage per live record (for the checker: the key width).
    pub fn key_width(&self) -> usize {
        self.kw as usize
    }

    /// True when heap slots, the free list and the heap counters agree (for the checker).
    pub fn heap_consistent(&self) -> bool {
        let n_heap = self.n_heap as usize;
        let mut seen = vec![false; n_heap];
        let slots =
            (0..self.len()).map(|i| self.heap_no(i)).chain(self.free_list.iter().map(|f| f.1));
        for s in slots {
            if s as usize >= n_heap || std::mem::replace(&mut seen[s as usize], true) {
                return false;
            }
        }
        let heap: u32 = (0..n_heap as u16).map(|h| self.slot_bytes_of(h) as u32).sum();
        self.heap.len() == n_heap * self.stride()
            && self.free_head_bytes == self.free_list.last().map_or(0, |f| f.0)
            && self.free_list.last().is_none_or(|f| f.1 == self.free_head_slot)
            && self.span == self.span_now()
            && heap == self.heap_bytes
            && (0..self.len()).all(|i| self.size(i) <= self.slot_bytes_of(self.heap_no(i)))
    }

    /// True when every key shares the page's shared prefix and every prefix word matches its
    /// key (for the checker).
    pub fn prefixes_consistent(&self, kw: usize) -> bool {
        let off = self.shared as usize;
        let h = off.min(HEAD_BYTES);
        (self.is_empty() || self.key(0, kw)[..h] == self.head[..h])
            && (0..self.len()).all(|i| self.key(i, kw)[..off] == self.key(0, kw)[..off])
            && (0..self.len()).all(|i| {
                let w = self.word(self.key(i, kw));
                self.part_of(w) == self.part && self.word_prefix(w) == self.prefix(i)
            })
    }

    /// Re-encodes every key through `f` (key widening), free slots included.
    pub fn map_keys(&mut self, kw: usize, new_kw: usize, mut f: impl FnMut(&[u8], &mut Vec<u8>)) {
        let mut heap = Vec::with_capacity(self.n_heap as usize * (new_kw + SLOT_EXTRA));
        for slot in self.heap.chunks_exact(kw + SLOT_EXTRA) {
            f(&slot[..kw], &mut heap);
            heap.extend_from_slice(&slot[kw..]);
        }
        self.heap = heap;
        self.kw = new_kw as u32;
        self.reprefix(new_kw);
    }

    /// Adds a record at position `pos` after `place` found room; sets PAGE_LAST_INSERT.
    pub fn insert_placed(&mut self, pos: usize, key: &[u8], size: u32, child: u32) {
        let kw = key.len();
        debug_assert_eq!(kw, self.kw as usize);
        // `place` chose the slot (a new one is already on the heap): write key and size.
        let at = self.placed_slot as usize * (kw + SLOT_EXTRA);
        let slot = &mut self.heap[at..at + kw + 2];
        // Common widths as fixed-size copies (a copy of a run-time length calls memcpy).
        match kw {
            16 => slot[..16].copy_from_slice(&key[..16]),
            8 => slot[..8].copy_from_slice(&key[..8]),
            _ => slot[..kw].copy_from_slice(key),
        }
        slot[kw..].copy_from_slice(&(size as u16).to_le_bytes());
        if self.recs.len() == self.recs.capacity() {
            self.grow_recs();
        }
        if self.level > 0 {
            self.children.insert(pos, child);
        }
        self.last_insert = Some(pos as u32);
        if self.recs.is_empty() {
            self.recs.push(entry(0, self.placed_slot));
            self.span = (0, 0);
            self.shared = kw as u16;
            self.shift = 0;
            self.part = 0;
            self.text = false;
            self.set_head();
            return;
        }
        let off = self.shared as usize;
        // Every stored key starts with the shared bytes: a new key that does not narrows them.
        let narrows = off > 0
            && if off <= HEAD_BYTES {
                // A byte loop: a few bytes, too short for a memcmp call.
                key[..off].iter().zip(&self.head).any(|(a, b)| a != b)
            } else {
                // The new record is not in `recs` yet: any stored key has the shared bytes.
                common_prefix(key, self.key(0, kw)) < off
            };
        let w = self.word(key);
        let narrows = narrows || self.part_of(w) != self.part;
        let e = entry(self.word_prefix(w), self.placed_slot);
        self.recs.insert(pos, e);
        if narrows {
            self.reprefix(kw);
        } else if pos == 0 {
            self.span.0 = self.span_value(key, e);
        } else if pos + 1 == self.recs.len() {
            self.span.1 = self.span_value(key, e);
        }
    }

    /// Deletes one record (`page_cur_delete_rec`): it heads PAGE_FREE, its bytes become
    /// garbage, and PAGE_LAST_INSERT is reset.
    pub fn delete_rec(&mut self, pos: usize) {
        let size = self.size(pos);
        let slot = self.heap_no(pos);
        self.recs.remove(pos);
        if pos == 0 || pos == self.recs.len() {
            self.span = self.span_now();
        }
        if self.level > 0 {
            self.children.remove(pos);
        }
        self.mem_free(slot, size);
        self.last_insert = None;
    }

    /// Gives the first record the min-rec flag (`REC_INFO_MIN_REC_FLAG`): it then compares
    /// below every key, which the simulator models by zeroing its stored key (its size, taken
    /// when the node pointer was built, does not change).
    pub fn set_min_rec(&mut self, kw: usize) {
        if !self.recs.is_empty() {
            let at = self.heap_no(0) as usize * (kw + SLOT_EXTRA);
            self.heap[at..at + kw].fill(0);
            self.reprefix(kw);
        }
    }
}
