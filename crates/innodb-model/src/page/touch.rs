//! Loading the lines a page search will read before it runs: a caller that searches several
//! cold pages at once (one per index of a row) loads every page's lines first, so that their
//! cache misses overlap instead of following one another. Loads only: no page state changes,
//! and nothing a search returns depends on them.

use super::*;

impl Page {
    /// Loads the entries of `recs` (and, on a non-leaf page, of `children`) around the
    /// position a search for `key` guesses first, and on a leaf the PAGE_FREE head an insert
    /// reuses. `black_box` keeps the loads from being dropped.
    #[inline]
    pub(crate) fn touch_for_search(&self, key: &[u8], kw: usize) {
        let n = self.recs.len();
        if n == 0 {
            return;
        }
        let off = (self.shared as usize).min(kw);
        let guess = self.guess(self.word_prefix(key_word(key, off))).min(n - 1);
        let child = if self.level > 0 { self.children.get(guess).copied() } else { None };
        std::hint::black_box((self.recs[guess], child));
        if self.level == 0 {
            self.load_free_head();
        }
    }
}
