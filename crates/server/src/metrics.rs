//! Reading a table's structure and the server's counters: `INNODB_METRICS`, status
//! counters, `mysql.innodb_index_stats`, `INFORMATION_SCHEMA.TABLES`,
//! `INFORMATION_SCHEMA.INNODB_BUFFER_PAGE`, and the index-id-to-name map the tablespace
//! reader needs.
//!
//! Whatever a server does not offer (a missing table, a disabled counter, no privilege)
//! is `None`, never a guess. This module does not decide what to read when; the engine does.

use crate::private::Flavour;
use crate::sql::quote_ident;
use keylab_core::Counters;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::collections::BTreeMap;

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
}

fn get_u64(row: &mysql::Row, col: &str) -> Option<u64> {
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
    let names = INDEX_COUNTERS.map(|n| format!("'{n}'")).join(",");
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
    let status: Vec<(String, String)> = conn
        .query(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_pages_read', \
             'Innodb_pages_written')",
        )
        .unwrap_or_default();
    for (name, value) in status {
        let v = value.parse().ok();
        match name.as_str() {
            "Innodb_pages_read" => snap.pages_read = v,
            "Innodb_pages_written" => snap.pages_written = v,
            _ => {}
        }
    }
    snap
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
    }
}

/// `DATA_LENGTH`, `INDEX_LENGTH`, `DATA_FREE` of a table.
pub fn table_sizes(conn: &mut Conn, db: &str, table: &str) -> keylab_core::TableSizes {
    let row: Option<mysql::Row> = conn
        .exec_first(
            "SELECT DATA_LENGTH, INDEX_LENGTH, DATA_FREE FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            (db, table),
        )
        .ok()
        .flatten();
    match row {
        Some(r) => keylab_core::TableSizes {
            data_length: get_u64(&r, "DATA_LENGTH"),
            index_length: get_u64(&r, "INDEX_LENGTH"),
            data_free: get_u64(&r, "DATA_FREE"),
        },
        None => keylab_core::TableSizes::default(),
    }
}

/// Per index: `size` and `n_leaf_pages` from `mysql.innodb_index_stats`.
pub fn index_stats(
    conn: &mut Conn,
    db: &str,
    table: &str,
) -> BTreeMap<String, (Option<u64>, Option<u64>)> {
    let rows: Vec<(String, String, u64)> = conn
        .exec(
            "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats \
             WHERE database_name = ? AND table_name = ? AND stat_name IN ('size', 'n_leaf_pages')",
            (db, table),
        )
        .unwrap_or_default();
    let mut out: BTreeMap<String, (Option<u64>, Option<u64>)> = BTreeMap::new();
    for (index, stat, value) in rows {
        let e = out.entry(index).or_default();
        if stat == "size" {
            e.0 = Some(value);
        } else {
            e.1 = Some(value);
        }
    }
    out
}

/// An index's pages as the buffer pool holds them (`INNODB_BUFFER_PAGE`, INDEX pages).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BufferedIndex {
    /// Pages of the index in the buffer pool (leaf and non-leaf: they cannot be told apart).
    pub pages: u64,
    /// Mean `DATA_SIZE` / page size × 100 over those pages.
    pub fill_pct: f64,
    /// Mean `NUMBER_RECORDS` over those pages.
    pub records_per_page: f64,
    /// Pages by fill, ten buckets.
    pub fill_histogram: Vec<u64>,
}

/// Per index, the buffered pages of `db.table`. `None` when the table cannot be read (no
/// PROCESS privilege, or a server without it).
pub fn buffered_pages(
    conn: &mut Conn,
    db: &str,
    table: &str,
    page_size: u32,
) -> Option<BTreeMap<String, BufferedIndex>> {
    let name = format!("{}.{}", quote_ident(db), quote_ident(table));
    let rows: Vec<(Option<String>, u64, u64)> = conn
        .exec(
            "SELECT INDEX_NAME, NUMBER_RECORDS, DATA_SIZE FROM \
             information_schema.INNODB_BUFFER_PAGE WHERE TABLE_NAME = ? AND PAGE_TYPE = 'INDEX'",
            (name,),
        )
        .ok()?;
    let mut out: BTreeMap<String, BufferedIndex> = BTreeMap::new();
    for (index, recs, data) in rows {
        let e = out
            .entry(index.unwrap_or_default())
            .or_insert_with(|| BufferedIndex { fill_histogram: vec![0; 10], ..Default::default() });
        let fill = data as f64 / f64::from(page_size);
        e.pages += 1;
        e.fill_pct += fill * 100.0;
        e.records_per_page += recs as f64;
        e.fill_histogram[((fill * 10.0) as usize).min(9)] += 1;
    }
    for e in out.values_mut() {
        e.fill_pct /= e.pages as f64;
        e.records_per_page /= e.pages as f64;
    }
    Some(out)
}

/// Index id → index name for `db.table`, from the server's InnoDB dictionary views.
pub fn index_ids(
    conn: &mut Conn,
    flavour: Flavour,
    db: &str,
    table: &str,
) -> Result<BTreeMap<u64, String>, mysql::Error> {
    let (indexes, tables) = match flavour {
        Flavour::Mariadb => ("INNODB_SYS_INDEXES", "INNODB_SYS_TABLES"),
        Flavour::Mysql => ("INNODB_INDEXES", "INNODB_TABLES"),
    };
    let rows: Vec<(u64, String)> = conn.exec(
        format!(
            "SELECT i.INDEX_ID, i.NAME FROM information_schema.{indexes} i \
             JOIN information_schema.{tables} t ON t.TABLE_ID = i.TABLE_ID WHERE t.NAME = ?"
        ),
        (format!("{db}/{table}"),),
    )?;
    Ok(rows.into_iter().collect())
}
