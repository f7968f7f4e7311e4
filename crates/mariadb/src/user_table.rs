//! Reading a user's table for `keylab advise --url ... --table DB.TABLE`, read-only, into
//! keylab-server-common's [`UserTable`]: its definition (`SHOW CREATE TABLE`), its row count
//! (`information_schema.TABLES.TABLE_ROWS`, then `COUNT(*)` when that estimate is under
//! [`EXACT_COUNT_BELOW`]) and the average stored width of each variable-length column over a
//! bounded sample (`LIMIT` [`SAMPLE_ROWS`]).
//!
//! Every statement is a `SHOW` or a `SELECT` (plain consistent reads: InnoDB takes no row
//! locks for them), run in a read-only transaction; nothing is created, changed or locked.
//! It does not parse the definition (`keylab-ddl` does) and never prints the password.

use crate::client::{sql_err, url_opts};
use keylab_server_common::user_table::{UserTable, EXACT_COUNT_BELOW, SAMPLE_ROWS};
use keylab_server_common::{ServerError, ServerUrl};
use mysql::prelude::Queryable;
use std::time::Duration;

fn quote(ident: &str) -> String {
    format!("`{}`", ident.replace('`', "``"))
}

/// Reads `schema.table` on the server at `url`.
pub fn read_user_table(
    url: &ServerUrl,
    schema: &str,
    table: &str,
) -> Result<UserTable, ServerError> {
    let mut conn = mysql::Conn::new(url_opts(url, Duration::from_secs(5)))
        .map_err(|e| ServerError::Connect(format!("cannot connect to {}: {e}", url.address())))?;
    let name = format!("{}.{}", quote(schema), quote(table));
    conn.query_drop("START TRANSACTION READ ONLY")
        .map_err(|e| sql_err("START TRANSACTION READ ONLY", e))?;
    let estimate: Option<Option<u64>> = conn
        .exec_first(
            "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND \
             TABLE_NAME = ?",
            (schema, table),
        )
        .map_err(|e| sql_err("information_schema.TABLES", e))?;
    let Some(estimate) = estimate else {
        return Err(ServerError::Sql(format!("no table {schema}.{table}")));
    };
    let estimate = estimate.unwrap_or(0);
    let create: Option<(String, String)> = conn
        .query_first(format!("SHOW CREATE TABLE {name}"))
        .map_err(|e| sql_err("SHOW CREATE TABLE", e))?;
    let create_sql = create
        .map(|(_, s)| s)
        .ok_or_else(|| ServerError::Sql(format!("no table {schema}.{table}")))?;

    let (rows, rows_counted) = if estimate < EXACT_COUNT_BELOW {
        let n: Option<u64> = conn
            .query_first(format!("SELECT COUNT(*) FROM {name}"))
            .map_err(|e| sql_err("COUNT(*)", e))?;
        (n.unwrap_or(0), true)
    } else {
        (estimate, false)
    };
    let columns: Vec<String> = conn
        .exec(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND \
             TABLE_NAME = ? AND (DATA_TYPE IN ('varchar', 'varbinary', 'char', 'tinytext', \
             'text', 'mediumtext', 'longtext', 'tinyblob', 'blob', 'mediumblob', 'longblob')) \
             ORDER BY ORDINAL_POSITION",
            (schema, table),
        )
        .map_err(|e| sql_err("information_schema.COLUMNS", e))?;
    let mut avg_widths = Vec::new();
    let mut sampled_rows = 0;
    if !columns.is_empty() {
        let avgs: Vec<String> =
            columns.iter().map(|c| format!("AVG(LENGTH({}))", quote(c))).collect();
        let cols: Vec<String> = columns.iter().map(|c| quote(c)).collect();
        let q = format!(
            "SELECT COUNT(*), {} FROM (SELECT {} FROM {name} LIMIT {SAMPLE_ROWS}) AS sample",
            avgs.join(", "),
            cols.join(", ")
        );
        let row: Option<mysql::Row> =
            conn.query_first(q).map_err(|e| sql_err("width sample", e))?;
        if let Some(row) = row {
            sampled_rows = row.get::<Option<u64>, _>(0).flatten().unwrap_or(0);
            for (i, c) in columns.iter().enumerate() {
                let v: Option<f64> =
                    row.get::<Option<String>, _>(i + 1).flatten().and_then(|s| s.parse().ok());
                avg_widths.push((c.clone(), v));
            }
        }
    }
    conn.query_drop("COMMIT").map_err(|e| sql_err("COMMIT", e))?;
    Ok(UserTable { create_sql, rows, rows_counted, avg_widths, sampled_rows })
}
