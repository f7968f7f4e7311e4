//! Searching a page: the PAGE_CUR_LE search over the record entries (prefix bits first, the
//! key bytes only among equal prefixes), the interpolated first guess, and keeping the
//! entries' prefix bits and the shared key head up to date. Placing and removing records is
//! in the parent module.

use super::*;

impl Page {
    /// Number of records with key ≤ `key` (the PAGE_CUR_LE cursor is the record before this
    /// position), and whether the record before it equals `key`.
    #[inline]
    pub fn search(&self, key: &[u8], kw: usize) -> (usize, bool) {
        self.search_impl::<false>(key, kw)
    }

    /// [`Page::search`] of a leaf about to take an insert: it also loads the entries after
    /// the probable position (one per cache line), which the insert shifts, so that their
    /// cache misses overlap the search's instead of following it.
    #[inline]
    pub fn search_for_insert(&self, key: &[u8], kw: usize) -> (usize, bool) {
        self.search_impl::<true>(key, kw)
    }

    #[inline]
    pub(super) fn search_impl<const LOAD_TAIL: bool>(
        &self,
        key: &[u8],
        kw: usize,
    ) -> (usize, bool) {
        let off = self.shared as usize;
        if off > 0 && !self.recs.is_empty() {
            // Every key starts with the same `off` bytes: a key that does not sorts before or
            // after all of them.
            // A byte loop: the shared prefix is a few bytes, too short for a memcmp call.
            let first = if off <= HEAD_BYTES { &self.head[..off] } else { &self.key(0, kw)[..off] };
            for (a, b) in key[..off].iter().zip(first) {
                if a != b {
                    return if a < b { (0, false) } else { (self.recs.len(), false) };
                }
            }
        }
        let w = self.word(key);
        let part = self.part_of(w);
        if part != self.part {
            // Same reason, on the shared bits of the next byte.
            return if part < self.part { (0, false) } else { (self.recs.len(), false) };
        }
        let kp = self.word_prefix(w);
        // The first entry whose prefix bits are ≥ kp: the heap bits below only add to it.
        let guess = self.guess(key, kp);
        if LOAD_TAIL {
            // 16 entries = one 64-byte line.
            let mut acc = 0u32;
            for e in self.recs.iter().skip(guess + 16).step_by(16) {
                acc ^= e;
            }
            std::hint::black_box(acc);
        }
        let lo = lower_bound_near(&self.recs, kp, guess);
        // Equal prefix words are rare (usually none): scan a few next to `lo`, which are in
        // cache, before a second binary search over the cold rest of the array.
        let rest = &self.recs[lo..];
        let hi = lo
            + match rest.iter().take(4).position(|&x| x & !HEAP_MASK != kp) {
                Some(i) => i,
                None => rest.partition_point(|&x| x & !HEAP_MASK == kp),
            };
        let (mut lo, mut hi) = (lo, hi);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if key_le(self.key(mid, kw), key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // Equal keys have equal prefix words: read the key only then.
        let eq = lo > 0 && self.prefix(lo - 1) == kp && self.key(lo - 1, kw) == key;
        (lo, eq)
    }

    /// Recomputes the shared length and every prefix word.
    pub(super) fn reprefix(&mut self, kw: usize) {
        let n = self.recs.len();
        let off = if n == 0 {
            0
        } else {
            // Keys are stored in byte order (a min-rec's zeroed key first): what the first and
            // the last share, all share.
            common_prefix(self.key(0, kw), self.key(n - 1, kw))
        };
        self.shared = off as u16;
        self.text =
            n > 0 && is_hex_text(self.key(0, kw), off) && is_hex_text(self.key(n - 1, kw), off);
        // The leading bits the first and the last word share, all words share (words are
        // non-decreasing in key order); at most 8, the bits of `part`. Key words differ in
        // their first byte, so share at most 7 bits, unless off = kw (all 64).
        self.shift = if n == 0 || off == kw {
            0
        } else {
            (self.word(self.key(0, kw)) ^ self.word(self.key(n - 1, kw))).leading_zeros().min(8)
        };
        self.part = 0;
        self.part = if n == 0 { 0 } else { self.part_of(self.word(self.key(0, kw))) };
        self.set_head();
        for i in 0..n {
            let w = self.word_prefix(self.word(self.key(i, kw)));
            self.recs[i] = entry(w, self.heap_no(i));
        }
        self.span = self.span_now();
    }

    /// The prefix word of a key: its bytes after the `shared` ones as the page's entries
    /// order them.
    #[inline]
    pub(super) fn word(&self, key: &[u8]) -> u64 {
        if self.text {
            text_word(key, self.shared as usize)
        } else {
            key_word(key, self.shared as usize)
        }
    }

    /// The `shift` shared bits at the top of a key word.
    #[inline]
    pub(super) fn part_of(&self, w: u64) -> u8 {
        if self.shift == 0 {
            0
        } else {
            (w >> (64 - self.shift)) as u8
        }
    }

    /// The prefix bits of an entry for a key word: the 32 bits after the shared bits.
    #[inline]
    pub(super) fn word_prefix(&self, w: u64) -> u32 {
        ((w << self.shift) >> 32) as u32 & !HEAP_MASK
    }

    /// Copies the shared bytes of the first key into `head`.
    pub(super) fn set_head(&mut self) {
        let n = (self.shared as usize).min(HEAD_BYTES);
        if n > 0 {
            let h = self.heap_no(0) as usize * self.stride();
            self.head[..n].copy_from_slice(&self.heap[h..h + n]);
        }
    }

    /// Insert position for `key` under PAGE_CUR_LE. On the leftmost page of a non-leaf level
    /// the first record carries the min-rec flag and compares below every key.
    pub fn insert_pos(&self, key: &[u8], kw: usize) -> usize {
        let (pos, _) = self.search(key, kw);
        if pos == 0 && self.level > 0 && self.prev.is_none() && !self.recs.is_empty() {
            1
        } else {
            pos
        }
    }

    /// The `span` hint as the first and the last record give it.
    pub(super) fn span_now(&self) -> (u32, u32) {
        match (self.recs.first(), self.recs.last()) {
            (Some(&a), Some(&b)) if self.text => {
                let kw = self.kw as usize;
                (
                    self.span_value(self.key(0, kw), a),
                    self.span_value(self.key(self.len() - 1, kw), b),
                )
            }
            (Some(&a), Some(&b)) => (a & !HEAP_MASK, b & !HEAP_MASK),
            _ => (0, 0),
        }
    }

    /// The value `span` keeps for a record of key `key` and entry `e`.
    #[inline]
    pub(super) fn span_value(&self, key: &[u8], e: u32) -> u32 {
        if self.text {
            hex_guess_word(key, self.shared as usize)
        } else {
            e & !HEAP_MASK
        }
    }

    /// Where the first entry with prefix bits ≥ `kp` (those of `key`) probably is, assuming
    /// the keys are spread evenly between the first and the last (random keys are): the
    /// search reads the entries around it first, one or two cache lines instead of one per
    /// sixteenth. A text page interpolates hex digit values, not its text words' gappy ones.
    #[inline]
    pub(super) fn guess(&self, key: &[u8], kp: u32) -> usize {
        self.guess_between(if self.text { hex_guess_word(key, self.shared as usize) } else { kp })
    }

    /// [`Page::guess`] for a key whose prefix bits the caller has not computed.
    #[inline]
    pub(super) fn guess_key(&self, key: &[u8]) -> usize {
        if self.text {
            self.guess_between(hex_guess_word(key, self.shared as usize))
        } else {
            self.guess_between(self.word_prefix(self.word(key)))
        }
    }

    /// The interpolation of [`Page::guess`] of a value of the kind `span` holds.
    #[inline]
    fn guess_between(&self, kp: u32) -> usize {
        let (first, last) = self.span;
        let n = self.recs.len();
        if kp <= first || n < 2 {
            0
        } else if kp > last {
            n
        } else {
            // Entries below kp: the first, plus the share of the n − 2 between.
            1 + ((kp - first) as u64 * (n as u64 - 2) / (last - first) as u64) as usize
        }
    }
}

impl Page {
    /// Prefetches the lines an insert of `key` will touch (`crate::prefetch`): the entries
    /// from a line before the guessed position to the end (the search reads those around the
    /// guess, the insert shifts those after it) and the heap slot the record will take (the
    /// PAGE_FREE head, else the heap top). Reads only this struct.
    pub(crate) fn prefetch_insert_lines(&self, key: &[u8]) {
        use crate::cache_line::prefetch_line;
        let n = self.recs.len();
        if n > 0 {
            let guess = self.guess_key(key).min(n - 1);
            // 16 entries per 64-byte line.
            let mut i = guess.saturating_sub(16);
            while i < n {
                prefetch_line(&self.recs[i]);
                i += 16;
            }
            prefetch_line(&self.recs[n - 1]);
        }
        let slot = if self.free_head_bytes > 0 {
            if let Some(head) = self.free_list.last() {
                prefetch_line(head);
            }
            self.free_head_slot as usize
        } else {
            self.n_heap as usize
        };
        // The slot's key and its size fields (they may straddle a line).
        let at = self.heap.as_ptr().wrapping_add(slot * self.stride());
        prefetch_line(at);
        prefetch_line(at.wrapping_add(self.stride() - 1));
    }
}

impl Page {
    /// Prefetches the stored keys a search for `key` will compare (`crate::prefetch`, after
    /// [`Page::prefetch_insert_lines`] loaded the entries): those whose prefix bits equal the
    /// key's. Text keys tie often (a hex digit holds 4 bits in 8), and each tie is a read of a
    /// heap slot that would otherwise miss during the search. Reads only this page. Nothing
    /// on a page of text words, whose 18 bits hold about 4 hex digits: ties are rare there.
    pub(crate) fn prefetch_tied_keys(&self, key: &[u8]) {
        let n = self.recs.len();
        if n == 0 || self.text || key.len() != self.kw as usize {
            return;
        }
        let kp = self.word_prefix(self.word(key));
        let lo = lower_bound_near(&self.recs, kp, self.guess(key, kp));
        // The record before the position is read for the equality check, the ties after it
        // by the search; a few at most (more are rare and read in order anyway).
        for i in lo.saturating_sub(1)..(lo + 4).min(n) {
            if self.prefix(i) == kp {
                let at = self.heap_no(i) as usize * self.stride();
                crate::cache_line::prefetch_line(self.heap.as_ptr().wrapping_add(at));
            } else if i >= lo {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Geometry, PageSize};

    /// A page of `n` random uuid text keys (sorted) between `lo` and `hi` (as 128-bit ids),
    /// inserted in order.
    fn text_page(n: usize, lo: u128, hi: u128) -> Page {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut ids: Vec<u128> = (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                lo + ((x as u128) << 64 | x.rotate_left(17) as u128) % (hi - lo)
            })
            .collect();
        ids.sort_unstable();
        let g = Geometry::new(PageSize::K16, 50);
        let mut page = Page::new(1, 36, n, true);
        for id in ids {
            let h = format!("{id:032x}");
            let key = [&h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]].join("-");
            assert!(page.place(&g, 40));
            page.insert_placed(page.len(), key.as_bytes(), 40, 0);
        }
        page
    }

    /// On a text page, the first guess of a search lands within the window of entries the
    /// search reads first (`lower_bound_near`'s ±16) for nearly every key: a node-pointer
    /// page of uuid text spanning two values of the second hex digit, as at 10M rows. Text
    /// words interpolated missed about half of these.
    #[test]
    fn text_page_guess_lands_near() {
        let page = text_page(350, 0x5a << 120, 0x5c << 120);
        assert!(page.text && page.heap_consistent() && page.prefixes_consistent(36));
        let far = (0..page.len()).filter(|&i| page.guess_key(page.key(i, 36)).abs_diff(i) > 16);
        let far = far.count();
        assert!(far * 50 < page.len(), "{far} of {} guesses off by more than 16", page.len());
    }
}
