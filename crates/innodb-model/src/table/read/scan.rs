//! The scans of the read path on the model: a key range along PRIMARY's leaves and the scan
//! of a secondary index (a secondary read, a time range), each row looked up in PRIMARY,
//! and how `row_search_mvcc`'s fetch calls cut them (docs/model-rules.md §15). The estimate
//! before a scan is in `estimate.rs`; a single row's lookup in the parent module.

use super::ReadStats;
use crate::table::read::estimate::RangeEnd;
use crate::{SimError, SimTable};
use keylab_schema::Value;

/// Rows `row_search_mvcc` returns one per call before it fills its fetch cache
/// (`MYSQL_FETCH_CACHE_THRESHOLD`), unless the search is an exact match (ROW_SEL_EXACT),
/// which caches from the first row.
const FETCH_THRESHOLD: u64 = 4;
/// Rows one caching call reads: the row it returns, then `MYSQL_FETCH_CACHE_SIZE` (8) queued
/// (the first row goes straight to the caller's buffer, not the queue).
const FETCH_BATCH: u64 = 1 + 8;

/// Whether the scan's `r`-th row (1-based) is the first of a `row_search_mvcc` call: every
/// row without the fetch cache (`cache` false: the row has a BLOB-family column,
/// `templ_contains_blob`), else one row per call for the first [`FETCH_THRESHOLD`] rows
/// (none for an `exact` match), then [`FETCH_BATCH`] rows per call. Each call after the
/// first restores the stored cursor (`btr_pcur_restore_position`, an optimistic get:
/// `buf_page_optimistic_get`, which may make the page young but counts no request).
fn starts_call(r: u64, cache: bool, exact: bool) -> bool {
    let single = if exact { 0 } else { FETCH_THRESHOLD };
    !cache || r <= single + 1 || (r - single - 1) % FETCH_BATCH == 0
}

/// Rows a scan for `rows` rows reads, whole calls: a `LIMIT` ends where the SQL layer
/// stops asking, but the call that returned the last row had already read its batch
/// (measured on 10.11.19: a 100-row key range enters the next leaf when one starts within
/// the three rows after the 100th; the calls start at rows 1, 2, 3, 4, 5, 14, ..., 95).
fn rows_read_by_calls(rows: u64, cache: bool) -> u64 {
    if !cache || rows <= FETCH_THRESHOLD {
        rows
    } else {
        FETCH_THRESHOLD + (rows - FETCH_THRESHOLD).div_ceil(FETCH_BATCH) * FETCH_BATCH
    }
}

impl SimTable {
    /// Scans index `ix` from the first record whose key prefix is ≥ `lo` while its prefix is
    /// ≤ `hi`, looking each row up in PRIMARY. `estimate`: the optimizer's two range
    /// descents first; `unique`: stop at the first match.
    pub(super) fn scan_secondary(
        &mut self,
        ix: usize,
        lo: &[u8],
        hi: &[u8],
        estimate: bool,
        unique: bool,
        stats: &mut ReadStats,
    ) -> u64 {
        let cache = self.fetch_cache();
        let kw = self.trees[ix].kw();
        let n = lo.len();
        let mut low_key = lo.to_vec();
        low_key.resize(kw, 0);
        if estimate {
            let mut high_key = hi.to_vec();
            high_key.resize(kw, 0xff);
            let end = RangeEnd::AtMost(&high_key);
            let rows = self.rows;
            self.trees[ix].estimate_range(&mut self.space, stats, ix, &low_key, end, rows);
        }
        let exact = lo == hi;
        let mut c = self.trees[ix].read_descend(&mut self.space, stats, ix, &low_key, true);
        let mut rows = 0u64;
        let mut pk = Vec::with_capacity(self.trees[0].kw());
        loop {
            if !self.trees[ix].step_over_supremum(&mut self.space, stats, ix, &mut c) {
                break;
            }
            let k = self.trees[ix].key_at(&self.space, c);
            if k[..n] > *hi {
                // The first record past a range is read, and then the one after it:
                // measured on 10.11.19 (`created_at` leaves of 149 records, 223 the last of
                // one, 50 to 59 rows per range), a range ending at 222 enters the next leaf
                // (157 requests for `BETWEEN` 173 and 222, 160 for 172 and 222, 181 for 165
                // and 222), one ending at 213 does not (156), on every fetch-call alignment.
                // Which call reads the second record is not traced (with the fetch cache; a
                // BLOB-family row, without it, is taken to stop at the first). Not for an
                // exact match: `k = ?` stops at the first (`created_at = 222` took 9
                // requests, `= 223`, its leaf's last, 10).
                if !unique && cache && !exact {
                    c.pos += 1;
                    self.trees[ix].step_over_supremum(&mut self.space, stats, ix, &mut c);
                }
                break;
            }
            pk.clear();
            self.trees[ix].layout.clustered_key_of(k, &self.trees[0].layout, &mut pk);
            if self.clustered_lookup(&pk, None, stats) {
                rows += 1;
            }
            if unique {
                break;
            }
            // The next row_search_mvcc call restores the cursor on its page (`starts_call`:
            // equal ends are an exact match, HA_READ_KEY_EXACT): no request, but it may make
            // the page young.
            if starts_call(rows + 1, cache, exact) {
                self.space.touch_restore(c.page);
            }
            c.pos += 1;
        }
        stats.rows += rows;
        rows
    }

    /// `SELECT * FROM t WHERE pk >= ? ORDER BY pk LIMIT rows`: the range estimate (to
    /// `from`, and to the end of the index), again when `rows` is below the rows it
    /// estimates, one PAGE_CUR_GE descent, then the records of whole fetch calls along the
    /// leaves (`rows` and the rest of the last call's batch), a request for every leaf
    /// entered and an optimistic restore (no request) per call. Returns the rows returned.
    pub fn read_key_range(
        &mut self,
        from: &[Value],
        rows: u32,
        stats: &mut ReadStats,
    ) -> Result<u64, SimError> {
        let key = self.pk_search_key(from)?;
        let (cache, table_rows) = (self.fetch_cache(), self.rows);
        let tree = &self.trees[0];
        let sp = &mut self.space;
        let est = tree.estimate_range(sp, stats, 0, &key, RangeEnd::Open, table_rows);
        // The optimizer estimates the range again under a LIMIT below the rows it expects
        // (`make_join_select`'s recheck, "attaching_conditions_to_tables" in the optimizer
        // trace: measured on 10.11.19, two range analyses at LIMIT 7000 of an estimated 7571
        // rows, one at LIMIT 8000; at LIMIT 100, one when 50 rows are left to the end).
        if est > u64::from(rows) {
            tree.estimate_range(sp, stats, 0, &key, RangeEnd::Open, table_rows);
        }
        let mut c = tree.read_descend(sp, stats, 0, &key, true);
        // The cursor passes the rows of whole fetch calls; the first `rows` are returned.
        let passed = rows_read_by_calls(u64::from(rows), cache);
        let mut got = 0u64;
        while got < passed && tree.step_over_supremum(sp, stats, 0, &mut c) {
            got += 1;
            if got < passed && starts_call(got + 1, cache, false) {
                sp.touch_restore(c.page);
            }
            c.pos += 1;
        }
        let got = got.min(u64::from(rows));
        self.keys = key;
        stats.rows += got;
        self.read_done();
        Ok(got)
    }
}
