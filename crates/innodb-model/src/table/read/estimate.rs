//! The optimizer's range estimate on the model (`ha_innobase::records_in_range`, which calls
//! `btr_estimate_n_rows_in_range`): the pages it gets, each a request, and the rows it
//! estimates, which decide whether the optimizer estimates a `LIMIT` range a second time
//! (docs/model-rules.md §15).
//!
//! Not modelled: the retries when the tree changes between the two descents (the model's
//! reads never run beside a change), and the persistent statistics' sampled row count (the
//! half-the-table cap uses the table's true row count).

use super::{ReadStats, ESTIMATE_PAGES_PER_LEVEL};
use crate::page::PageNo;
use crate::space::Space;
use crate::tree::Tree;

/// Where one end of the estimate stands on one level: its page, its cursor counted as
/// InnoDB counts a record's position (`page_rec_get_n_recs_before`: 0 is the infimum,
/// `n_recs + 1` the supremum), and the page's records.
#[derive(Debug, Clone, Copy)]
struct Slot {
    page: PageNo,
    nth: usize,
    n_recs: usize,
}

/// The upper end of an estimated range.
#[derive(Debug, Clone, Copy)]
pub(super) enum RangeEnd<'a> {
    /// The last record ≤ this key (PAGE_CUR_LE).
    AtMost(&'a [u8]),
    /// No upper bound (`pk >= ?`): the end of the index, the supremum of the last leaf
    /// (`btr_cur_open_at_index_side`).
    Open,
}

impl Tree {
    /// The estimate of the rows from `lo` (PAGE_CUR_GE) to `hi`, as
    /// `btr_estimate_n_rows_in_range` makes it: both ends descend together, one request per
    /// level while they are on the same page, each its own page once they part. Below the
    /// level where the ends are no longer on the same or neighbouring records, every lower
    /// level counts its records by walking from the left end's page to the right, a request
    /// for each page strictly between the ends, at most `ESTIMATE_PAGES_PER_LEVEL - 1`
    /// (10.11.19 holds the left end's page from the descent and counts it among the 10,
    /// `N_PAGES_READ_LIMIT`; measured: 9 requests per level at most, none for the left
    /// page). A cut-short walk extrapolates from the level above and the result is doubled
    /// when the walk stopped above the leaves' parent, then capped at half of `table_rows`.
    /// Returns the estimated rows.
    pub(super) fn estimate_range(
        &self,
        sp: &mut Space,
        stats: &mut ReadStats,
        ix: usize,
        lo: &[u8],
        hi: RangeEnd<'_>,
        table_rows: u64,
    ) -> u64 {
        let kw = self.kw();
        // Both descents: a slot per level and end, root first.
        let mut path: Vec<(Slot, Slot)> = Vec::new();
        let (mut pa, mut pb) = (self.root, self.root);
        loop {
            stats.request(sp, ix, pa);
            if pb != pa {
                stats.request(sp, ix, pb);
            }
            let (a, b) = (sp.page(pa), sp.page(pb));
            let leaf = a.level == 0;
            let (le, eq) = a.search(lo, kw);
            // PAGE_CUR_GE: on the first record ≥ lo at the leaf; PAGE_CUR_L above it.
            let below = le - usize::from(eq);
            let a_at = if leaf { below } else { below.saturating_sub(1) };
            let (b_at, b_nth) = match hi {
                // PAGE_CUR_LE: on the last record ≤ k (the infimum when none is, at a leaf).
                RangeEnd::AtMost(k) => {
                    let (le, _) = b.search(k, kw);
                    let at = le.saturating_sub(1);
                    (at, if leaf { le } else { at + 1 })
                }
                // The last node pointer above the leaves, the supremum at the leaf.
                RangeEnd::Open => {
                    let n = b.len();
                    (n.saturating_sub(1), if leaf { n + 1 } else { n })
                }
            };
            let sa = Slot { page: pa, nth: a_at + 1, n_recs: a.len() };
            let sb = Slot { page: pb, nth: b_nth, n_recs: b.len() };
            path.push((sa, sb));
            if leaf {
                break;
            }
            pa = PageNo(a.children[a_at]);
            pb = PageNo(b.children[b_at]);
        }
        self.count_estimated_rows(sp, stats, ix, &path, table_rows)
    }

    /// The row count of `btr_estimate_n_rows_in_range` over the descents' `path`, walking the
    /// levels below the one where the ends parted by more than a record
    /// (`btr_estimate_n_rows_in_range_on_level`).
    fn count_estimated_rows(
        &self,
        sp: &mut Space,
        stats: &mut ReadStats,
        ix: usize,
        path: &[(Slot, Slot)],
        table_rows: u64,
    ) -> u64 {
        let mut rows = 0u64;
        let mut exact = true;
        let (mut diverged, mut apart_level) = (false, None);
        let (leaf_a, leaf_b) = path[path.len() - 1];
        // The left border counts when its cursor is on a record, not the supremum. The right
        // one never does here: an open end stands on the supremum, and the rows of a bounded
        // range's estimate decide nothing in the model (only a key range's LIMIT does).
        let mut count_left = leaf_a.nth <= leaf_a.n_recs;
        for (level, &(a, b)) in path.iter().enumerate() {
            if !diverged && a.nth != b.nth {
                diverged = true;
                if a.nth < b.nth {
                    rows = (b.nth - a.nth - 1) as u64;
                    if rows > 0 {
                        apart_level = Some(level);
                    }
                } else {
                    rows = 0;
                    count_left = false;
                }
            } else if diverged && apart_level.is_none() {
                if a.nth < a.n_recs || b.nth > 1 {
                    apart_level = Some(level);
                    rows = (a.n_recs.saturating_sub(a.nth) + b.nth.saturating_sub(1)) as u64;
                }
            } else if apart_level.is_some() {
                rows = self.walk_level(sp, stats, ix, a, b, rows, &mut exact);
            }
        }
        if exact {
            // Both ends on one record count it once when both borders count: never here.
            if leaf_a.page == leaf_b.page && leaf_a.nth == leaf_b.nth {
                rows = 0;
            } else {
                rows += u64::from(count_left);
            }
        }
        if let Some(l) = apart_level {
            // "In trees whose height is > 1 our algorithm tends to underestimate."
            if !exact && path.len() > l + 1 {
                rows *= 2;
            }
        }
        if !exact && rows > table_rows / 2 {
            rows = if table_rows / 2 == 0 { table_rows } else { table_rows / 2 };
        }
        rows
    }

    /// One level of the estimate's count: the records right of the left end, left of the
    /// right end and on every page strictly between (a request each), exact when the walk
    /// reaches the right end's page within the page limit; otherwise `prev_rows` times the
    /// records per page read so far.
    #[allow(clippy::too_many_arguments)]
    fn walk_level(
        &self,
        sp: &mut Space,
        stats: &mut ReadStats,
        ix: usize,
        a: Slot,
        b: Slot,
        prev_rows: u64,
        exact: &mut bool,
    ) -> u64 {
        let mut rows = (a.n_recs.saturating_sub(a.nth) + b.nth.saturating_sub(1)) as u64;
        // The left end's page, held since the descent, is the first of the pages read.
        let mut read = 1u64;
        let mut next = sp.page(a.page).next;
        loop {
            match next {
                Some(p) if p == b.page => return rows,
                Some(p) => {
                    stats.request(sp, ix, p);
                    read += 1;
                    rows += sp.page(p).len() as u64;
                    next = sp.page(p).next;
                    if read == u64::from(ESTIMATE_PAGES_PER_LEVEL) {
                        break;
                    }
                }
                // The end of the level without meeting the right end.
                None => break,
            }
        }
        *exact = false;
        prev_rows * rows / read
    }
}
