//! Reading a table's structure and the server's counters: `INNODB_METRICS`, status
//! counters, `mysql.innodb_index_stats`, `INFORMATION_SCHEMA.TABLES`,
//! `INFORMATION_SCHEMA.INNODB_BUFFER_PAGE`, and the index-id-to-name map the tablespace
//! reader needs.
//!
//! This file holds the counters (snapshots, deltas, purge history); the parts:
//! `structure` (sizes, index statistics, dictionary ids), `buffered` (the buffer pool's
//! pages of a table), `file_io` (performance schema's counts of a table's file).
//!
//! Whatever a server does not offer (a missing table, a disabled counter, no privilege)
//! is `None`, never a guess. This module does not decide what to read when; the engine does.

use keylab_core::{
    hit_ratio, misses_per_op, per_1k_rows, BufferPoolResult, ChangeBufferResult, Counters, Figure,
};
use mysql::prelude::Queryable;
use mysql::Conn;
use std::collections::BTreeMap;

mod buffered;
mod file_io;
mod structure;

pub use buffered::{buffered_page_numbers, buffered_pages, BufferedIndex};
pub use file_io::{table_file_io, FileIo};
pub use structure::{
    index_ids, index_stats, instant_alter_count, space_id, table_sizes, total_row_versions,
};

/// `INNODB_METRICS` counters, and the result field each feeds.
pub const INDEX_COUNTERS: [&str; 5] = [
    "index_page_splits",
    "index_page_merge_attempts",
    "index_page_merge_successful",
    "index_page_reorg_attempts",
    "index_page_discards",
];

/// Server-wide counters at one moment; `None` where unavailable or disabled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CounterSnapshot {
    /// `INNODB_METRICS` `COUNT` by name (only enabled counters).
    pub metrics: BTreeMap<String, Option<u64>>,
    /// `Innodb_pages_read`.
    pub pages_read: Option<u64>,
    /// `Innodb_pages_written`.
    pub pages_written: Option<u64>,
    /// `SHOW GLOBAL STATUS` values of [`POOL_STATUS`] by lowercase name (absent where the
    /// server has no such variable).
    pub status: BTreeMap<String, u64>,
}

impl CounterSnapshot {
    /// Each counter of `self` plus `other`'s (a counter missing or `None` on one side is the
    /// other side's, so adding an empty snapshot changes nothing): the counts before a
    /// restart carried over the server's counters starting again from zero.
    pub fn plus(&self, other: &CounterSnapshot) -> CounterSnapshot {
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (one, None) | (None, one) => one,
        };
        let mut out = self.clone();
        for (k, v) in &other.metrics {
            let sum = match self.metrics.get(k) {
                Some(mine) => add(*mine, *v),
                None => *v,
            };
            out.metrics.insert(k.clone(), sum);
        }
        out.pages_read = add(self.pages_read, other.pages_read);
        out.pages_written = add(self.pages_written, other.pages_written);
        for (k, v) in &other.status {
            *out.status.entry(k.clone()).or_insert(0) += v;
        }
        out
    }
}

/// Status counters for the buffer pool figures: logical requests and misses for the hit
/// ratio; MySQL's `Innodb_rows_*` or, where they are absent (MariaDB 10.11 has none), the
/// SQL layer's `Handler_*` row calls for misses per operation; MariaDB's change buffer merges
/// (gone from MariaDB 11.0 with the change buffer itself); MariaDB's pages freed from the LRU
/// tail (evictions). Names are matched without regard to case (MariaDB 10.11 prints
/// `Innodb_buffer_pool_pages_lru_freed`).
pub const POOL_STATUS: [&str; 12] = [
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_rows_inserted",
    "Innodb_rows_deleted",
    "Innodb_rows_updated",
    "Handler_write",
    "Handler_delete",
    "Handler_update",
    "Innodb_ibuf_merged_inserts",
    "Innodb_ibuf_merged_delete_marks",
    "Innodb_ibuf_merged_deletes",
    "Innodb_buffer_pool_pages_LRU_freed",
];

/// `INNODB_METRICS` change buffer merge counters, used when the status variables are absent
/// (MySQL) and the counters are enabled.
pub const IBUF_COUNTERS: [&str; 3] =
    ["ibuf_merges_insert", "ibuf_merges_delete_mark", "ibuf_merges_delete"];

/// `INNODB_METRICS` counters of index pages read, leaf and non-leaf (module
/// `module_buffer_page`, off by default: a private server enables it at startup).
pub const INDEX_READ_COUNTERS: [&str; 2] =
    ["buffer_page_read_index_leaf", "buffer_page_read_index_non_leaf"];

/// The change buffer's size in pages, a gauge (gone with the change buffer in MariaDB 11.0).
/// Read from `INNODB_METRICS`, not the status variable `Innodb_ibuf_size`: on MariaDB
/// 10.11.19 that one carries junk in its high 32 bits (8,710,193,676,289 for a size of 1).
pub const IBUF_SIZE_METRIC: &str = "ibuf_size";

pub(crate) fn get_u64(row: &mysql::Row, col: &str) -> Option<u64> {
    let v: Option<mysql::Value> = row.get(col);
    match v? {
        mysql::Value::Int(n) => u64::try_from(n).ok(),
        mysql::Value::UInt(n) => Some(n),
        mysql::Value::Bytes(b) => std::str::from_utf8(&b).ok()?.trim().parse().ok(),
        mysql::Value::Double(d) if d >= 0.0 => Some(d as u64),
        _ => None,
    }
}

fn get_string(row: &mysql::Row, col: &str) -> Option<String> {
    match row.get::<mysql::Value, _>(col)? {
        mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        mysql::Value::NULL => None,
        other => Some(other.as_sql(true)),
    }
}

/// Reads the index counters and page I/O status counters.
pub fn read_counters(conn: &mut Conn) -> CounterSnapshot {
    let mut snap = CounterSnapshot::default();
    let names: Vec<String> = INDEX_COUNTERS
        .iter()
        .chain(&IBUF_COUNTERS)
        .chain(&INDEX_READ_COUNTERS)
        .chain(&[IBUF_SIZE_METRIC])
        .map(|n| format!("'{n}'"))
        .collect();
    let names = names.join(",");
    let rows: Vec<mysql::Row> = conn
        .query(format!("SELECT * FROM information_schema.INNODB_METRICS WHERE NAME IN ({names})"))
        .unwrap_or_default();
    for row in rows {
        let Some(name) = get_string(&row, "NAME") else { continue };
        // MariaDB has ENABLED (0/1), MySQL has STATUS ('enabled'/'disabled').
        let enabled = get_u64(&row, "ENABLED")
            .map(|e| e == 1)
            .or_else(|| get_string(&row, "STATUS").map(|s| s.eq_ignore_ascii_case("enabled")));
        let count = if enabled == Some(true) { get_u64(&row, "COUNT") } else { None };
        snap.metrics.insert(name, count);
    }
    let pool = POOL_STATUS.map(|n| format!("'{n}'")).join(",");
    let status: Vec<(String, String)> = conn
        .query(format!(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_pages_read', \
             'Innodb_pages_written', {pool})"
        ))
        .unwrap_or_default();
    for (name, value) in status {
        let v = value.parse().ok();
        match name.as_str() {
            "Innodb_pages_read" => snap.pages_read = v,
            "Innodb_pages_written" => snap.pages_written = v,
            _ => {
                if let Some(v) = v {
                    snap.status.insert(name.to_ascii_lowercase(), v);
                }
            }
        }
    }
    snap
}

/// `Innodb_buffer_pool_reads` and `Innodb_pages_written` now: the two counters of the
/// buffer pool curve, read from a connection that is not loading.
pub fn read_pool_io(conn: &mut Conn) -> Option<(u64, u64)> {
    let status: Vec<(String, String)> = conn
        .query(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_reads', \
             'Innodb_pages_written')",
        )
        .ok()?;
    let get = |name: &str| {
        status.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.parse().ok())
    };
    Some((get("Innodb_buffer_pool_reads")?, get("Innodb_pages_written")?))
}

fn delta(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(b?.saturating_sub(a?))
}

/// The counters over an interval.
pub fn counter_delta(before: &CounterSnapshot, after: &CounterSnapshot) -> Counters {
    let m = |name: &str| {
        delta(
            before.metrics.get(name).copied().flatten(),
            after.metrics.get(name).copied().flatten(),
        )
    };
    Counters {
        page_splits: m("index_page_splits"),
        merge_attempts: m("index_page_merge_attempts"),
        merges: m("index_page_merge_successful"),
        page_reorgs: m("index_page_reorg_attempts"),
        page_discards: m("index_page_discards"),
        pages_read: delta(before.pages_read, after.pages_read),
        pages_written: delta(before.pages_written, after.pages_written),
        page_requests: status_delta(before, after, "Innodb_buffer_pool_read_requests"),
        // Filled by the engine from performance_schema (per table, not server-wide).
        io_write_requests: None,
        io_write_bytes: None,
        io_read_requests: None,
        io_read_bytes: None,
    }
}

fn status_delta(before: &CounterSnapshot, after: &CounterSnapshot, name: &str) -> Option<u64> {
    let name = name.to_ascii_lowercase();
    delta(before.status.get(&name).copied(), after.status.get(&name).copied())
}

/// Sum of the deltas of `names`; `None` unless every one is given.
fn sum_deltas(names: &[&str], d: impl Fn(&str) -> Option<u64>) -> Option<u64> {
    names.iter().map(|n| d(n)).sum()
}

/// Buffer pool figures over an interval from server-wide status counters (so other sessions'
/// work is counted too). Misses are `Innodb_buffer_pool_reads` (reads that were not satisfied
/// from the pool; read-ahead is not counted); `evictions` are pages freed from the LRU tail
/// where the server reports it (MariaDB); nothing is estimated, so `est_io_s_*` stay `None`.
pub fn buffer_pool_delta(
    before: &CounterSnapshot,
    after: &CounterSnapshot,
    pool_bytes: Option<u64>,
) -> Option<BufferPoolResult> {
    let s = |n: &str| status_delta(before, after, n);
    let page_requests = s("Innodb_buffer_pool_read_requests");
    let pages_read = s("Innodb_buffer_pool_reads");
    if page_requests.is_none() && pages_read.is_none() {
        return None;
    }
    // Handler_* count every engine's rows (system tables too) server-wide: close enough
    // for a table keylab is loading, and only used where InnoDB's own counters are gone.
    let row_ops =
        sum_deltas(&["Innodb_rows_inserted", "Innodb_rows_deleted", "Innodb_rows_updated"], s)
            .or_else(|| sum_deltas(&["Handler_write", "Handler_delete", "Handler_update"], s));
    let m = |name: &str| {
        delta(
            before.metrics.get(name).copied().flatten(),
            after.metrics.get(name).copied().flatten(),
        )
    };
    let merged = sum_deltas(
        &[
            "Innodb_ibuf_merged_inserts",
            "Innodb_ibuf_merged_delete_marks",
            "Innodb_ibuf_merged_deletes",
        ],
        s,
    )
    .or_else(|| sum_deltas(&IBUF_COUNTERS, m));
    let pages_written = delta(before.pages_written, after.pages_written);
    Some(BufferPoolResult {
        pool_bytes,
        page_requests,
        pages_read,
        // `None` unless both counters were enabled at both ends.
        index_pages_read: Figure::of(sum_deltas(&INDEX_READ_COUNTERS, m)),
        pages_written,
        reads_per_1k_rows: per_1k_rows(pages_read, row_ops),
        writes_per_1k_rows: per_1k_rows(pages_written, row_ops),
        // The engine adds the curve it sampled during the load.
        curve: None,
        row_ops,
        hit_ratio: hit_ratio(page_requests, pages_read),
        misses_per_op: misses_per_op(pages_read, row_ops),
        evictions: s("Innodb_buffer_pool_pages_LRU_freed"),
        // Neither server counts changes buffered or refused; only merges.
        // Its page I/O is not told apart from other pages' (null); its size is a gauge.
        change_buffer: merged.map(|merged| ChangeBufferResult {
            buffered: None,
            merged: Some(merged),
            refused: None,
            size_pages: after.metrics.get(IBUF_SIZE_METRIC).copied().flatten(),
            ..ChangeBufferResult::default()
        }),
        est_io_s_hdd: None,
        est_io_s_ssd: None,
    })
}

/// Undo logs of committed transactions not yet purged (the "History list length"): the
/// `trx_rseg_history_len` counter when enabled, else MariaDB's `Innodb_history_list_length`
/// status, else `SHOW ENGINE INNODB STATUS` (which needs the PROCESS privilege).
pub fn history_length(conn: &mut Conn) -> Option<u64> {
    let row: Option<mysql::Row> = conn
        .query_first(
            "SELECT * FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'",
        )
        .ok()
        .flatten();
    if let Some(row) = row {
        let enabled = get_u64(&row, "ENABLED")
            .map(|e| e == 1)
            .or_else(|| get_string(&row, "STATUS").map(|s| s.eq_ignore_ascii_case("enabled")));
        if enabled == Some(true) {
            if let Some(n) = get_u64(&row, "COUNT") {
                return Some(n);
            }
        }
    }
    let status: Option<(String, String)> =
        conn.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'").ok().flatten();
    if let Some(n) = status.and_then(|(_, v)| v.parse().ok()) {
        return Some(n);
    }
    let text: Option<(String, String, String)> =
        conn.query_first("SHOW ENGINE INNODB STATUS").ok().flatten();
    history_from_status(&text?.2)
}

/// The number after `History list length` in `SHOW ENGINE INNODB STATUS` text.
pub fn history_from_status(text: &str) -> Option<u64> {
    let at = text.find("History list length")?;
    text[at + "History list length".len()..].split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_length_is_read_from_status_text() {
        let text = "------------\nTRANSACTIONS\n------------\nTrx id counter 52\n\
                    Purge done for trx's n:o < 50 undo n:o < 0 state: running\n\
                    History list length 17\nLIST OF TRANSACTIONS FOR EACH SESSION:\n";
        assert_eq!(history_from_status(text), Some(17));
        assert_eq!(history_from_status("nothing here"), None);
    }

    #[test]
    fn counter_deltas_keep_unavailable_as_none() {
        let mut a = CounterSnapshot::default();
        let mut b = CounterSnapshot::default();
        a.metrics.insert("index_page_merge_attempts".into(), Some(3));
        b.metrics.insert("index_page_merge_attempts".into(), Some(10));
        a.pages_written = Some(5);
        b.pages_written = Some(9);
        let d = counter_delta(&a, &b);
        assert_eq!(d.merge_attempts, Some(7));
        assert_eq!(d.pages_written, Some(4));
        assert_eq!(d.page_splits, None);
        assert_eq!(d.pages_read, None);
        assert_eq!(d.page_requests, None);
    }

    #[test]
    fn buffer_pool_delta_from_status() {
        let mut a = CounterSnapshot::default();
        let mut b = CounterSnapshot::default();
        assert_eq!(buffer_pool_delta(&a, &b, None), None);
        for (name, x, y) in [
            ("Innodb_buffer_pool_read_requests", 100, 1100),
            ("Innodb_buffer_pool_reads", 10, 110),
            ("Innodb_rows_inserted", 0, 40),
            ("Innodb_rows_deleted", 0, 10),
            ("Innodb_rows_updated", 5, 5),
        ] {
            a.status.insert(name.to_ascii_lowercase(), x);
            b.status.insert(name.to_ascii_lowercase(), y);
        }
        a.metrics.insert("ibuf_merges_insert".into(), Some(1));
        b.metrics.insert("ibuf_merges_insert".into(), Some(4));
        let d = buffer_pool_delta(&a, &b, Some(1 << 27)).unwrap();
        assert_eq!(d.page_requests, Some(1000));
        assert_eq!(d.hit_ratio, Some(0.9));
        assert_eq!(d.misses_per_op, Some(2.0));
        // Only one of the three ibuf metrics is enabled: no sum, no guess.
        assert_eq!(d.change_buffer, None);
        assert_eq!((d.est_io_s_hdd, d.est_io_s_ssd), (None, None));
        // Index pages read: null unless both counters are enabled, then their sum.
        assert_eq!(d.index_pages_read, Figure::Null);
        for (name, x, y) in
            [("buffer_page_read_index_leaf", 5, 85), ("buffer_page_read_index_non_leaf", 1, 3)]
        {
            a.metrics.insert(name.into(), Some(x));
            b.metrics.insert(name.into(), Some(y));
        }
        let d = buffer_pool_delta(&a, &b, None).unwrap();
        assert_eq!(d.index_pages_read, Figure::Value(82));
    }
}
