//! SQL text for loading rows into MariaDB/MySQL: INSERT statements (literal, multi-row and
//! prepared), the `LOAD DATA LOCAL INFILE` statement and its tab-separated stream, and the
//! client-side half of the load checksum.
//!
//! Parts: `params` (values as prepared-statement parameters), `load_data` (the `LOAD DATA`
//! statement and its stream).
//!
//! Values are rendered so that no `sql_mode` changes their meaning: strings are quoted only
//! when they are plain printable ASCII without quotes or backslashes (so the
//! `NO_BACKSLASH_ESCAPES` mode cannot matter), anything else is sent as a hex literal.
//! (Hex for every string would spare the server converting each quoted literal's item name
//! to the system character set, `make_name` in sql/item.cc, under 2% of a multi-row INSERT's
//! server time on E1's rows; paired runs showed no gain beyond the noise, so quoting stays.)
//! Times travel as `'YYYY-MM-DD[ HH:MM:SS]'` text, read in the session time zone the engine
//! sets to UTC: the server reads that form over each type's whole range (1000-01-01 to
//! 9999-12-31), where `FROM_UNIXTIME` returns NULL before 1970 and fails after 2038 on
//! MariaDB 10.11. This module does not talk to a server.

use keylab_schema::{time_text, ColumnType, Table, Value};
use std::fmt::Write as _;

mod load_data;
mod params;

use load_data::stored_int_text;
pub use load_data::{load_data_sql, write_tsv_row};
use params::{column_charset, session_bytes};
pub use params::{into_param, param, prepared_params, push_params_of};

/// `name` quoted as a MySQL identifier.
pub fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Positions of the columns keylab sends: all but an `AUTO_INCREMENT` primary key, which the
/// server assigns.
pub fn sent_columns(table: &Table) -> Vec<usize> {
    (0..table.columns.len())
        .filter(|&i| !(table.auto_increment && table.primary_key == [i]))
        .collect()
}

/// The text a time value of column type `ty` is sent as. A value outside years 1..9999 (the
/// scenario checks refuse them) goes as its number, which the server refuses in strict mode
/// rather than storing something else.
pub fn time_value_text(s: i64, ty: &ColumnType) -> String {
    time_text(s, ty).unwrap_or_else(|| s.to_string())
}

/// `INSERT INTO t (a, b) VALUES ` for the sent columns.
pub fn insert_prefix(table: &Table) -> String {
    let cols: Vec<String> =
        sent_columns(table).iter().map(|&i| quote_ident(&table.columns[i].name)).collect();
    format!("INSERT INTO {} ({}) VALUES ", quote_ident(&table.name), cols.join(", "))
}

fn safe_to_quote(b: &[u8]) -> bool {
    b.iter().all(|&c| (0x20..0x7f).contains(&c) && c != b'\'' && c != b'\\')
}

/// Appends `v` as an SQL literal for a column of type `ty`.
pub fn write_literal(out: &mut String, v: &Value, ty: &ColumnType) {
    match v {
        Value::Null => out.push_str("NULL"),
        Value::Int(n) | Value::Time(n) if ty.is_time() => {
            let _ = write!(out, "'{}'", time_value_text(*n, ty));
        }
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::UInt(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Time(s) => {
            let _ = write!(out, "{s}");
        }
        Value::Bytes(b) if matches!(ty, ColumnType::Array { .. }) => {
            write_literal(out, &Value::Bytes(session_bytes(b, ty)), &ColumnType::Blob)
        }
        Value::Bytes(b) if safe_to_quote(b) => {
            out.push('\'');
            // Safe bytes are ASCII, hence valid UTF-8.
            out.push_str(std::str::from_utf8(b).unwrap_or_default());
            out.push('\'');
        }
        Value::Bytes(b) => {
            if b.is_empty() {
                out.push_str("''");
            } else {
                out.push_str("X'");
                push_hex(out, b);
                out.push('\'');
            }
        }
    }
}

fn push_hex(out: &mut String, b: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &c in b {
        out.push(HEX[(c >> 4) as usize] as char);
        out.push(HEX[(c & 15) as usize] as char);
    }
}

/// A multi-row `INSERT` of `rows` with literal values.
pub fn multi_insert_sql(table: &Table, rows: &[Vec<Value>]) -> String {
    let cols = sent_columns(table);
    let mut sql = insert_prefix(table);
    sql.reserve(rows.len() * 48);
    for (r, row) in rows.iter().enumerate() {
        if r > 0 {
            sql.push(',');
        }
        write_values_tuple(&mut sql, table, &cols, row);
    }
    sql
}

/// Appends `(v1,v2,...)`: the literals of `row`'s sent columns `cols`, one tuple of a
/// multi-row `INSERT` (the caller writes the [`insert_prefix`] and the commas between tuples).
pub fn write_values_tuple(out: &mut String, table: &Table, cols: &[usize], row: &[Value]) {
    out.push('(');
    for (k, &c) in cols.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        write_literal(out, &row[c], &table.columns[c].ty);
    }
    out.push(')');
}

/// A prepared `INSERT` of exactly `n_rows` tuples of placeholders.
pub fn prepared_insert_sql(table: &Table, n_rows: usize) -> String {
    let cols = sent_columns(table);
    let tuple = format!("({})", vec!["?"; cols.len()].join(","));
    let mut sql = insert_prefix(table);
    sql.reserve(n_rows * (tuple.len() + 1));
    for r in 0..n_rows {
        if r > 0 {
            sql.push(',');
        }
        sql.push_str(&tuple);
    }
    sql
}

/// The primary key columns, quoted and comma-separated (`a`, `b`).
pub fn pk_columns(table: &Table) -> String {
    let cols: Vec<String> =
        table.primary_key.iter().map(|&c| quote_ident(&table.columns[c].name)).collect();
    cols.join(", ")
}

/// `a = ? AND b = ?` over the primary key, for keys as keylab's rows carry them (each
/// parameter made by [`param`]) and for keys as the server returned them alike.
pub fn pk_equals_params(table: &Table) -> String {
    let terms: Vec<String> = table
        .primary_key
        .iter()
        .map(|&c| format!("{} = ?", quote_ident(&table.columns[c].name)))
        .collect();
    terms.join(" AND ")
}

/// `(a, b) >= (?, ?)` (or `a >= ?` for one column) over the primary key, for keys as the
/// server returned them.
pub fn pk_at_least(table: &Table) -> String {
    let marks = vec!["?"; table.primary_key.len()].join(", ");
    if table.primary_key.len() == 1 {
        format!("{} >= ?", pk_columns(table))
    } else {
        format!("({}) >= ({marks})", pk_columns(table))
    }
}

/// A `LIKE` pattern matching values that start with `prefix`, for `ESCAPE '!'`: `!`, `%` and
/// `_` in the prefix match themselves. (`!` rather than `\`, whose meaning in a string
/// literal depends on `sql_mode`.)
pub fn like_prefix_pattern(prefix: &str) -> String {
    let mut p = String::with_capacity(prefix.len() + 1);
    for ch in prefix.chars() {
        if matches!(ch, '!' | '%' | '_') {
            p.push('!');
        }
        p.push(ch);
    }
    p.push('%');
    p
}

/// The columns the load checksum is taken over: every column keylab generates and sends
/// (all but a server-assigned `AUTO_INCREMENT` key, whose value per row keylab does not know),
/// so a value the server stored differently, or another session changed, fails the check.
/// Empty when nothing is sent.
pub fn checksum_columns(table: &Table) -> Vec<usize> {
    sent_columns(table)
}

/// The server's half of the checksum: the SUM over rows of the CRC32 of [`checksum_columns`]
/// joined by `|` (`CONCAT_WS` skips NULLs; a row of NULLs adds 0). A sum, not `BIT_XOR`: two
/// equal rows (a constant payload) would cancel out of an XOR, and so would two rows changed
/// alike. Exact while rows × 2^32 fits 64 bits (4 billion rows).
pub fn checksum_sql(table: &Table) -> String {
    let cols = checksum_columns(table);
    if cols.is_empty() {
        return "0".into();
    }
    // A latin1 column is compared as its utf8mb4 text, as the client side hashes it.
    let names: Vec<String> = cols
        .iter()
        .map(|&c| {
            let col = &table.columns[c];
            match column_charset(&col.ty) {
                Some(cs) if cs.is_single_byte() => {
                    format!("CONVERT({} USING utf8mb4)", quote_ident(&col.name))
                }
                _ => quote_ident(&col.name),
            }
        })
        .collect();
    format!("CAST(COALESCE(SUM(CRC32(CONCAT_WS('|', {}))), 0) AS UNSIGNED)", names.join(", "))
}

/// The client's half: the CRC32 the server's [`checksum_sql`] takes of `row` (integers as
/// decimal text, `BINARY(n)` zero-padded, times as the server writes them), `cols` from
/// [`checksum_columns`].
pub fn row_crc32(row: &[Value], table: &Table, cols: &[usize]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    let mut first = true;
    for &c in cols {
        let ty = &table.columns[c].ty;
        let text: Vec<u8> = match &row[c] {
            Value::Null => continue,
            Value::Int(n) | Value::Time(n) if ty.is_time() => time_value_text(*n, ty).into(),
            // The server writes a DECIMAL with all its scale digits: 12 in DECIMAL(5,2) is 12.00.
            Value::Int(n) => {
                stored_int_text(*n, &table.columns[c]).unwrap_or_else(|| n.to_string().into())
            }
            Value::Time(n) => n.to_string().into(),
            Value::UInt(n) => n.to_string().into(),
            Value::Bytes(b) => match *ty {
                ColumnType::Binary { bytes } if b.len() < bytes as usize => {
                    let mut padded = b.clone();
                    padded.resize(bytes as usize, 0);
                    padded
                }
                // CHAR reads back without trailing spaces (no PAD_CHAR_TO_FULL_LENGTH).
                ColumnType::Char { .. } => session_bytes(b.trim_ascii_end(), ty),
                _ => session_bytes(b, ty),
            },
        };
        if !first {
            h.update(b"|");
        }
        first = false;
        h.update(&text);
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Charset, Column, Index, RowFormat};

    fn table(auto: bool) -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("pk", ColumnType::BigInt { unsigned: false }, false),
                Column::new("id", ColumnType::Binary { bytes: 16 }, false),
                Column::new(
                    "data",
                    ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 },
                    true,
                ),
                Column::new("created_at", ColumnType::Timestamp, true),
            ],
            primary_key: vec![0],
            auto_increment: auto,
            indexes: vec![Index::new("k_id", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn row() -> Vec<Value> {
        vec![
            Value::Int(7),
            Value::Bytes(vec![0, 0xab]),
            Value::Bytes(b"it's".to_vec()),
            Value::Time(5),
        ]
    }

    #[test]
    fn multi_insert_skips_auto_increment_and_hexes_unsafe_bytes() {
        let sql = multi_insert_sql(&table(true), &[row(), row()]);
        assert_eq!(
            sql,
            "INSERT INTO `t` (`id`, `data`, `created_at`) VALUES \
             (X'00ab',X'69742773','1970-01-01 00:00:05'),(X'00ab',X'69742773','1970-01-01 00:00:05')"
        );
        let sql = multi_insert_sql(
            &table(false),
            &[vec![
                Value::Int(1),
                Value::Bytes(vec![]),
                Value::Bytes(b"data".to_vec()),
                Value::Null,
            ]],
        );
        assert!(sql.ends_with("VALUES (1,'','data',NULL)"), "{sql}");
    }

    #[test]
    fn prepared_shape() {
        let sql = prepared_insert_sql(&table(true), 2);
        assert!(sql.ends_with("VALUES (?,?,?),(?,?,?)"), "{sql}");
        let params = prepared_params(&table(true), &[row()]);
        assert_eq!(params.len(), 3);
        assert_eq!(params[2], mysql::Value::Bytes(b"1970-01-01 00:00:05".to_vec()));
    }

    #[test]
    fn load_data_stream() {
        let t = table(true);
        let sql = load_data_sql(&t, "s");
        assert!(sql.contains("(@v1, `data`, `created_at`) SET `id` = UNHEX(@v1)"), "{sql}");
        let mut out = Vec::new();
        let r = vec![
            Value::Int(1),
            Value::Bytes(vec![1, 2]),
            Value::Bytes(b"a\tb\\\n".to_vec()),
            Value::Null,
        ];
        write_tsv_row(&mut out, &t, &sent_columns(&t), &r);
        assert_eq!(out, b"0102\ta\\tb\\\\\\n\t\\N\n");
        out.clear();
        let r = vec![Value::Int(1), Value::Bytes(vec![1]), Value::Null, Value::Time(-86_400)];
        write_tsv_row(&mut out, &t, &sent_columns(&t), &r);
        assert_eq!(out, b"01\t\\N\t1969-12-31 00:00:00\n");
    }

    #[test]
    fn key_predicates_and_like_patterns() {
        let t = table(true);
        assert_eq!(pk_columns(&t), "`pk`");
        assert_eq!(pk_equals_params(&t), "`pk` = ?");
        assert_eq!(pk_at_least(&t), "`pk` >= ?");
        let mut two = table(false);
        two.primary_key = vec![0, 3];
        assert_eq!(pk_equals_params(&two), "`pk` = ? AND `created_at` = ?");
        assert_eq!(pk_at_least(&two), "(`pk`, `created_at`) >= (?, ?)");
        assert_eq!(like_prefix_pattern("01J"), "01J%");
        assert_eq!(like_prefix_pattern("a_b%c!"), "a!_b!%c!!%");
    }

    #[test]
    fn checksum_takes_every_sent_column() {
        assert_eq!(checksum_columns(&table(true)), vec![1, 2, 3], "not the AUTO_INCREMENT key");
        assert_eq!(checksum_columns(&table(false)), vec![0, 1, 2, 3]);
        assert_eq!(
            checksum_sql(&table(true)),
            "CAST(COALESCE(SUM(CRC32(CONCAT_WS('|', `id`, `data`, `created_at`))), 0) AS UNSIGNED)"
        );
        let mut d = table(true);
        d.columns[2].ty = ColumnType::Decimal { precision: 5, scale: 2 };
        assert_eq!(
            row_crc32(&[Value::Int(0), Value::Null, Value::Int(-12)], &d, &[2]),
            crc32fast::hash(b"-12.00")
        );
        let mut t = table(true);
        t.columns[1].ty = ColumnType::Binary { bytes: 4 };
        let row = vec![Value::Int(9), Value::Bytes(vec![1]), Value::Null, Value::Time(0)];
        assert_eq!(
            row_crc32(&row, &t, &[1, 3]),
            crc32fast::hash(b"\x01\0\0\0|1970-01-01 00:00:00")
        );
        let nulls = vec![Value::Int(9), Value::Null, Value::Null, Value::Null];
        assert_eq!(row_crc32(&nulls, &t, &[1, 3]), 0, "CRC32('') is 0");
        assert_eq!(row_crc32(&[Value::Int(42)], &t, &[0]), crc32fast::hash(b"42"));
    }
}
