//! A table's structure as the server's dictionary and statistics report it: sizes
//! (`INFORMATION_SCHEMA.TABLES`), per-index `size` and `n_leaf_pages`
//! (`mysql.innodb_index_stats`), index and tablespace ids, instant-ALTER row versions.
//!
//! Not for counters or the buffer pool's pages (the parent and `buffered` read those).

use super::get_u64;
use crate::private::Flavour;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::collections::BTreeMap;

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

/// The tablespace id of `db.table` (a table rebuild gives it a new one).
pub fn space_id(conn: &mut Conn, flavour: Flavour, db: &str, table: &str) -> Option<u64> {
    let view = match flavour {
        Flavour::Mariadb => "INNODB_SYS_TABLES",
        Flavour::Mysql => "INNODB_TABLES",
    };
    conn.exec_first(
        format!("SELECT SPACE FROM information_schema.{view} WHERE NAME = ?"),
        (format!("{db}/{table}"),),
    )
    .ok()
    .flatten()
}

/// MySQL 8.0.29+: `INNODB_TABLES.TOTAL_ROW_VERSIONS` of `db.table` (instant ADD/DROP
/// COLUMN row versions). `None` on MariaDB and older MySQL, which have no such column.
pub fn total_row_versions(conn: &mut Conn, db: &str, table: &str) -> Option<u64> {
    conn.exec_first(
        "SELECT TOTAL_ROW_VERSIONS FROM information_schema.INNODB_TABLES WHERE NAME = ?",
        (format!("{db}/{table}"),),
    )
    .ok()
    .flatten()
}

/// MariaDB's `Innodb_instant_alter_column` status: instant ADD/DROP/reorder COLUMN
/// operations since start. `None` where the server has no such counter (MySQL).
pub fn instant_alter_count(conn: &mut Conn) -> Option<u64> {
    let row: Option<(String, String)> =
        conn.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_instant_alter_column'").ok().flatten();
    row.and_then(|(_, v)| v.parse().ok())
}
