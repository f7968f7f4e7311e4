//! Reading as little of a cold page as a caller needs: loading the lines a page search will
//! read before it runs (a caller that searches several cold pages at once, one per index of
//! a row, loads every page's lines first, so that their cache misses overlap instead of
//! following one another), and telling keys apart by their entries without reading them.
//! No page state changes here.

use super::*;

impl Page {
    /// Loads the entries of `recs` (and, on a non-leaf page, of `children`) around the
    /// position a search for `key` guesses first, and on a leaf the PAGE_FREE head an insert
    /// reuses. `black_box` keeps the loads from being dropped.
    #[inline]
    pub(crate) fn touch_for_search(&self, key: &[u8]) {
        let n = self.recs.len();
        if n == 0 {
            return;
        }
        let guess = self.guess_key(key).min(n - 1);
        let child = if self.level > 0 { self.children.get(guess).copied() } else { None };
        std::hint::black_box((self.recs[guess], child));
        if self.level == 0 {
            self.load_free_head();
        }
    }
}

impl Page {
    /// True when the key of record `i` and `key` surely differ in their first `prefix`
    /// bytes, judged from the record's entry alone (no key read, so no cache miss on its heap
    /// slot). `key` must sort between two records of this page: it then shares the page's
    /// shared bytes and bits, so its prefix bits compare with the entry's, and those bits lie
    /// within the 8 bytes after the shared ones. False when the entry cannot tell.
    #[inline]
    pub(crate) fn entry_differs_within(&self, i: usize, key: &[u8], prefix: usize) -> bool {
        let off = self.shared as usize;
        off + 8 <= prefix && self.prefix(i) != self.word_prefix(self.word(key))
    }
}
