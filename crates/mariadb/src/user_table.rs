//! Reading a user's table for `keylab advise --url ... --table DB.TABLE`, read-only, into
//! keylab-server-common's [`UserTable`]: its definition (`SHOW CREATE TABLE`), its row count
//! (`information_schema.TABLES.TABLE_ROWS`, then `COUNT(*)` when that estimate is under
//! [`EXACT_COUNT_BELOW`]) and the average stored width of each variable-length column over a
//! bounded sample (`LIMIT` [`SAMPLE_ROWS`]), and `@@innodb_buffer_pool_size`. A view, a table of a system schema (`mysql`,
//! `information_schema`, ...) or a table of another engine than InnoDB is refused before
//! anything else is read, naming the table and why. What the server sends is read cell by cell
//! into errors, never panics.
//!
//! Every statement is a `SHOW` or a `SELECT` (plain consistent reads: InnoDB takes no row
//! locks for them), run in a read-only transaction; nothing is created, changed or locked.
//! It does not parse the definition (`keylab-ddl` does) and never prints the password.

use crate::client::{sql_err, url_opts};
use crate::sql::quote_ident;
use keylab_server_common::user_table::{UserTable, EXACT_COUNT_BELOW, SAMPLE_ROWS};
use keylab_server_common::{deadline, CONNECT_TIMEOUT};
use keylab_server_common::{ServerError, ServerUrl};
use mysql::prelude::{FromValue, Queryable};

/// Schemas of the server itself: their tables are the server's (Aria or MyISAM, views, or
/// in-memory), not a user's.
const SYSTEM_SCHEMAS: [&str; 4] = ["mysql", "information_schema", "performance_schema", "sys"];

/// Cell `i` of a row the server sent, as `T`; a missing or unconvertible cell is an error
/// naming `what` (never a panic: the server, not keylab, decides what comes back).
fn cell<T: FromValue>(row: &mut mysql::Row, i: usize, what: &str) -> Result<T, ServerError> {
    match row.take_opt::<T, usize>(i) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(ServerError::Sql(format!("{what}: unexpected value {:?}", e.0))),
        None => Err(ServerError::Sql(format!("{what}: the server sent no column {}", i + 1))),
    }
}

/// Why keylab cannot advise on `schema.table` of this type and engine, if it cannot: what
/// it models is an InnoDB table's own storage.
fn refusal(schema: &str, table: &str, table_type: &str, engine: Option<&str>) -> Option<String> {
    if SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(schema)) {
        return Some(format!(
            "{schema}.{table} is in the system schema `{schema}`, which holds the server's own \
             tables; name a table of your own database"
        ));
    }
    if table_type.to_ascii_uppercase().contains("VIEW") {
        return Some(format!(
            "{schema}.{table} is a view: a view has no storage of its own; name the table it \
             reads"
        ));
    }
    match engine {
        Some(e) if e.eq_ignore_ascii_case("InnoDB") => None,
        Some(e) => {
            let a = if e.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            Some(format!(
                "{schema}.{table} is {a} {e} table, not InnoDB: keylab models InnoDB tables only"
            ))
        }
        None => Some(format!(
            "{schema}.{table} has no storage engine ({table_type}): keylab models InnoDB tables \
             only"
        )),
    }
}

/// Reads `schema.table` on the server at `url`. A view, a system table or a table of
/// another engine is [`ServerError::Unsupported`], naming the table and why.
pub fn read_user_table(
    url: &ServerUrl,
    schema: &str,
    table: &str,
) -> Result<UserTable, ServerError> {
    let opts = url_opts(url, CONNECT_TIMEOUT);
    let mut conn = match deadline::within(CONNECT_TIMEOUT, move || mysql::Conn::new(opts)) {
        Some(Ok(conn)) => conn,
        Some(Err(e)) => {
            return Err(ServerError::Connect(format!("cannot connect to {}: {e}", url.address())))
        }
        None => {
            return Err(ServerError::Connect(format!(
                "cannot connect to {}: {}",
                url.address(),
                deadline::no_answer(CONNECT_TIMEOUT)
            )))
        }
    };
    let name = format!("{}.{}", quote_ident(schema), quote_ident(table));
    conn.query_drop("START TRANSACTION READ ONLY")
        .map_err(|e| sql_err("START TRANSACTION READ ONLY", e))?;
    const TABLES: &str = "information_schema.TABLES";
    let found: Option<mysql::Row> = conn
        .exec_first(
            "SELECT TABLE_TYPE, ENGINE, TABLE_ROWS FROM information_schema.TABLES WHERE \
             TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            (schema, table),
        )
        .map_err(|e| sql_err(TABLES, e))?;
    let Some(mut found) = found else {
        return Err(ServerError::Sql(format!("no table {schema}.{table}")));
    };
    let table_type: Option<String> = cell(&mut found, 0, TABLES)?;
    let table_type = table_type.unwrap_or_default();
    let engine: Option<String> = cell(&mut found, 1, TABLES)?;
    if let Some(why) = refusal(schema, table, &table_type, engine.as_deref()) {
        return Err(ServerError::Unsupported(why));
    }
    let estimate: Option<u64> = cell(&mut found, 2, TABLES)?;
    let estimate = estimate.unwrap_or(0);
    let create: Option<mysql::Row> = conn
        .query_first(format!("SHOW CREATE TABLE {name}"))
        .map_err(|e| sql_err("SHOW CREATE TABLE", e))?;
    let Some(mut create) = create else {
        return Err(ServerError::Sql(format!("no table {schema}.{table}")));
    };
    let create_sql: String = cell(&mut create, 1, "SHOW CREATE TABLE")?;

    let (rows, rows_counted) = if estimate < EXACT_COUNT_BELOW {
        let n: Option<mysql::Row> = conn
            .query_first(format!("SELECT COUNT(*) FROM {name}"))
            .map_err(|e| sql_err("COUNT(*)", e))?;
        let n: Option<u64> = match n {
            Some(mut r) => cell(&mut r, 0, "COUNT(*)")?,
            None => None,
        };
        (n.unwrap_or(0), true)
    } else {
        (estimate, false)
    };
    let columns: Vec<mysql::Row> = conn
        .exec(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND \
             TABLE_NAME = ? AND (DATA_TYPE IN ('varchar', 'varbinary', 'char', 'tinytext', \
             'text', 'mediumtext', 'longtext', 'tinyblob', 'blob', 'mediumblob', 'longblob')) \
             ORDER BY ORDINAL_POSITION",
            (schema, table),
        )
        .map_err(|e| sql_err("information_schema.COLUMNS", e))?;
    let columns = columns
        .into_iter()
        .map(|mut r| cell::<String>(&mut r, 0, "information_schema.COLUMNS"))
        .collect::<Result<Vec<String>, ServerError>>()?;
    let mut avg_widths = Vec::new();
    let mut sampled_rows = 0;
    if !columns.is_empty() {
        let avgs: Vec<String> =
            columns.iter().map(|c| format!("AVG(LENGTH({}))", quote_ident(c))).collect();
        let cols: Vec<String> = columns.iter().map(|c| quote_ident(c)).collect();
        let q = format!(
            "SELECT COUNT(*), {} FROM (SELECT {} FROM {name} LIMIT {SAMPLE_ROWS}) AS sample",
            avgs.join(", "),
            cols.join(", ")
        );
        let row: Option<mysql::Row> =
            conn.query_first(q).map_err(|e| sql_err("width sample", e))?;
        if let Some(mut row) = row {
            let n: Option<u64> = cell(&mut row, 0, "width sample")?;
            sampled_rows = n.unwrap_or(0);
            for (i, c) in columns.iter().enumerate() {
                let v: Option<String> = cell(&mut row, i + 1, "width sample")?;
                avg_widths.push((c.clone(), v.and_then(|s| s.parse().ok())));
            }
        }
    }
    // The pool a workload would run under there; a server that hides it leaves it unknown.
    let pool: Option<mysql::Row> =
        conn.query_first("SELECT @@innodb_buffer_pool_size").ok().flatten();
    let pool_bytes = pool.and_then(|mut r| cell::<Option<u64>>(&mut r, 0, "pool").ok().flatten());
    conn.query_drop("COMMIT").map_err(|e| sql_err("COMMIT", e))?;
    Ok(UserTable { create_sql, rows, rows_counted, avg_widths, sampled_rows, pool_bytes })
}
