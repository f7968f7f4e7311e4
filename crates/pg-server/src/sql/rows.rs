//! Rows as PostgreSQL statements: the sent columns, multi-row and prepared `INSERT`s, `COPY`
//! text lines, and the two halves of the load checksum (the server's SQL, the client's hash).
//!
//! Not for a value's text form (`value_text`) nor for creating the table (the parent).

use super::{cell_text, declared_type, qualified, quote_ident, table_name, TextCollation};
use keylab_schema::{Table, Value};
use md5::{Digest, Md5};
use std::fmt::Write as _;

/// Positions of the columns keylab sends: all but an identity key, which the server assigns.
pub fn sent_columns(table: &Table) -> Vec<usize> {
    (0..table.columns.len())
        .filter(|&i| !(table.auto_increment && table.primary_key == [i]))
        .collect()
}

/// `(a, b)`: the sent columns' names.
pub fn column_list(table: &Table) -> String {
    let cols: Vec<String> =
        sent_columns(table).iter().map(|&i| quote_ident(&table.columns[i].name)).collect();
    format!("({})", cols.join(", "))
}

/// Appends the sent columns of `row` as a `VALUES` tuple of literals.
pub fn write_values_tuple(out: &mut String, table: &Table, cols: &[usize], row: &[Value]) {
    out.push('(');
    for (n, &c) in cols.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        match cell_text(&row[c], &table.columns[c]) {
            None => out.push_str("NULL"),
            Some(t) => {
                out.push('\'');
                out.push_str(&t.replace('\'', "''"));
                out.push('\'');
            }
        }
    }
    out.push(')');
}

/// A multi-row `INSERT` of `rows`.
pub fn multi_insert_sql(table: &Table, schema: &str, rows: &[Vec<Value>]) -> String {
    let cols = sent_columns(table);
    let mut out = insert_prefix(table, schema);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_values_tuple(&mut out, table, &cols, row);
    }
    out
}

/// `INSERT INTO s.t (a, b) VALUES `.
pub fn insert_prefix(table: &Table, schema: &str) -> String {
    format!("INSERT INTO {} {} VALUES ", qualified(schema, &table_name(table)), column_list(table))
}

/// A prepared `INSERT` of `n_rows` rows: every parameter is sent as text and cast to the
/// column's type on the server.
pub fn prepared_insert_sql(table: &Table, schema: &str, n_rows: usize) -> String {
    let cols = sent_columns(table);
    let mut out = insert_prefix(table, schema);
    let mut p = 0;
    for r in 0..n_rows {
        if r > 0 {
            out.push_str(", ");
        }
        out.push('(');
        for (n, &c) in cols.iter().enumerate() {
            p += 1;
            if n > 0 {
                out.push_str(", ");
            }
            let ty = declared_type(table, c, schema, TextCollation::Default);
            let _ = write!(out, "${p}::text::{}", ty.split(' ').next().unwrap_or("text"));
        }
        out.push(')');
    }
    out
}

/// Parameter `$n` of column `col`, sent as text and cast to the column's type (as the
/// prepared INSERT sends its values), so any value keylab generates binds as a string.
pub fn text_param(table: &Table, col: usize, schema: &str, n: usize) -> String {
    let ty = declared_type(table, col, schema, TextCollation::Default);
    format!("${n}::text::{}", ty.split(' ').next().unwrap_or("text"))
}

/// `COPY s.t (a, b) FROM STDIN` (text format).
pub fn copy_sql(table: &Table, schema: &str) -> String {
    format!("COPY {} {} FROM STDIN", qualified(schema, &table_name(table)), column_list(table))
}

/// Appends one `COPY` text-format line of the sent columns.
pub fn write_copy_line(out: &mut Vec<u8>, table: &Table, cols: &[usize], row: &[Value]) {
    for (n, &c) in cols.iter().enumerate() {
        if n > 0 {
            out.push(b'\t');
        }
        match cell_text(&row[c], &table.columns[c]) {
            None => out.extend_from_slice(b"\\N"),
            Some(t) => {
                for b in t.bytes() {
                    match b {
                        b'\\' => out.extend_from_slice(b"\\\\"),
                        b'\t' => out.extend_from_slice(b"\\t"),
                        b'\n' => out.extend_from_slice(b"\\n"),
                        b'\r' => out.extend_from_slice(b"\\r"),
                        _ => out.push(b),
                    }
                }
            }
        }
    }
    out.push(b'\n');
}

/// The server's half of the checksum: the sum over rows of the first 32 bits of the MD5 of
/// the sent columns' text joined by `|` (`concat_ws` skips NULLs), as decimal text.
/// PostgreSQL has no CRC32; MD5 is built in, and [`row_hash`] is the client's half.
pub fn checksum_sql(table: &Table, schema: &str) -> String {
    let cols: Vec<String> = sent_columns(table)
        .iter()
        .map(|&i| format!("{}::text", quote_ident(&table.columns[i].name)))
        .collect();
    if cols.is_empty() {
        return "SELECT '0'".into();
    }
    format!(
        "SELECT COALESCE(SUM(('x' || substr(md5(concat_ws('|', {})), 1, 8))::bit(32)::bigint), \
         0)::text FROM {}",
        cols.join(", "),
        qualified(schema, &table_name(table))
    )
}

/// The client's half: the first 32 bits of the MD5 [`checksum_sql`] takes of `row`.
pub fn row_hash(row: &[Value], table: &Table, cols: &[usize]) -> u32 {
    let parts: Vec<String> =
        cols.iter().filter_map(|&c| cell_text(&row[c], &table.columns[c])).collect();
    let digest = Md5::digest(parts.join("|").as_bytes());
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}
