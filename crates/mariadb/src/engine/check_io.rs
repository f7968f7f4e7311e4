//! The buffer pool reads of keylab's own statements on a table (the load check's
//! `COUNT(*)` and checksum scans, the assigned-key check, `ANALYZE TABLE` at each
//! measurement), kept out of the table's figures. The server's counters are server-wide and
//! read at measurement time, so without this a load's page requests and reads would include
//! the check's scan of the clustered index, which the load itself never asked for.
//!
//! Only the read side is kept apart (page requests, misses, pages read, pages freed from the
//! LRU tail to make room for them): pages written while a check runs are the load's dirty
//! pages going out, and stay the load's. This module does not run the checks (see
//! `load_run`, `key_check`).

use super::MariaDbEngine;
use crate::metrics::{CounterSnapshot, INDEX_READ_COUNTERS};

/// Status counters (lowercase, as [`CounterSnapshot::status`] keeps them) that a read-only
/// statement moves: requests, misses, and evictions to make room for the pages it read.
const READ_SIDE_STATUS: [&str; 3] = [
    "innodb_buffer_pool_read_requests",
    "innodb_buffer_pool_reads",
    "innodb_buffer_pool_pages_lru_freed",
];

/// The read-side counters of `after` less `before` (everything else left out, so adding the
/// result to a baseline moves nothing but reads).
pub(super) fn read_side_since(
    before: &CounterSnapshot,
    after: &CounterSnapshot,
) -> CounterSnapshot {
    let mut out = CounterSnapshot {
        pages_read: before.pages_read.zip(after.pages_read).map(|(b, a)| a.saturating_sub(b)),
        ..CounterSnapshot::default()
    };
    for name in READ_SIDE_STATUS {
        if let (Some(b), Some(a)) = (before.status.get(name), after.status.get(name)) {
            out.status.insert(name.to_string(), a.saturating_sub(*b));
        }
    }
    // The index pages among its reads (`INNODB_METRICS`, where enabled).
    for name in INDEX_READ_COUNTERS {
        let count = |s: &CounterSnapshot| s.metrics.get(name).copied().flatten();
        if let (Some(b), Some(a)) = (count(before), count(after)) {
            out.metrics.insert(name.to_string(), Some(a.saturating_sub(b)));
        }
    }
    out
}

impl MariaDbEngine {
    /// Runs keylab's own statement(s) `f` on the table `name`, adds their buffer pool reads
    /// to what that table's figures leave out, and returns `f`'s result with those reads.
    pub(super) fn keep_apart<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut Self) -> T,
    ) -> (T, CounterSnapshot) {
        let before = self.counters_now();
        let out = f(self);
        let reads = read_side_since(&before, &self.counters_now());
        if let Some(b) = self.baselines.get_mut(name) {
            b.checks = b.checks.plus(&reads);
        }
        (out, reads)
    }
}

/// `(pages read, page requests)` of a [`read_side_since`] result, for messages.
pub(super) fn reads_and_requests(reads: &CounterSnapshot) -> (u64, u64) {
    let get = |n: &str| reads.status.get(n).copied().unwrap_or(0);
    (get("innodb_buffer_pool_reads"), get("innodb_buffer_pool_read_requests"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(pages_read: u64, requests: u64, reads: u64, written: u64) -> CounterSnapshot {
        let mut s = CounterSnapshot {
            pages_read: Some(pages_read),
            pages_written: Some(written),
            ..CounterSnapshot::default()
        };
        s.status.insert("innodb_buffer_pool_read_requests".into(), requests);
        s.status.insert("innodb_buffer_pool_reads".into(), reads);
        s.status.insert("handler_write".into(), 7);
        s.metrics.insert("buffer_page_read_index_leaf".into(), Some(reads));
        s.metrics.insert("buffer_page_read_index_non_leaf".into(), Some(1));
        s.metrics.insert("index_page_splits".into(), Some(written));
        s
    }

    #[test]
    fn only_reads_are_kept_apart() {
        let d = read_side_since(&snap(10, 100, 5, 3), &snap(14, 160, 8, 9));
        assert_eq!(d.pages_read, Some(4));
        assert_eq!(d.pages_written, None);
        assert_eq!(reads_and_requests(&d), (3, 60));
        assert!(!d.status.contains_key("handler_write"));
        // Its index pages too, and no other metric.
        assert_eq!(d.metrics["buffer_page_read_index_leaf"], Some(3));
        assert_eq!(d.metrics["buffer_page_read_index_non_leaf"], Some(0));
        assert!(!d.metrics.contains_key("index_page_splits"));
        // Added to a baseline, it takes the check out of a later delta.
        let base = snap(10, 100, 5, 3).plus(&d);
        assert_eq!(base.status["innodb_buffer_pool_reads"], 8);
        assert_eq!(base.pages_written, Some(3));
    }
}
