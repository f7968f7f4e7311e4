//! A table's pages as the buffer pool holds them (`INFORMATION_SCHEMA.INNODB_BUFFER_PAGE`):
//! per-index counts, fill and records per page, and the page numbers of one index.
//!
//! Not for on-disk sizes or counters; `None` when the view cannot be read, never a guess.

use crate::sql::quote_ident;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::collections::BTreeMap;

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

/// Page numbers of `index`'s pages of `db.table` in the buffer pool (INDEX pages, freed
/// ones included: a freed page keeps its index id until the pool drops it). `None` when
/// `INNODB_BUFFER_PAGE` cannot be read.
pub fn buffered_page_numbers(
    conn: &mut Conn,
    db: &str,
    table: &str,
    index: &str,
) -> Option<Vec<u64>> {
    let name = format!("{}.{}", quote_ident(db), quote_ident(table));
    conn.exec(
        "SELECT PAGE_NUMBER FROM information_schema.INNODB_BUFFER_PAGE \
         WHERE TABLE_NAME = ? AND INDEX_NAME = ? AND PAGE_TYPE = 'INDEX'",
        (name, index),
    )
    .ok()
}
