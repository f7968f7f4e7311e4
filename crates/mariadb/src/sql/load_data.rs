//! `LOAD DATA LOCAL INFILE`: the statement and the tab-separated stream it reads (binary
//! columns as hex, times as text, integers as the column stores them).
//!
//! Not for INSERT statements or parameters (`sql.rs`, `params`).

use super::{quote_ident, sent_columns, session_bytes, time_value_text};
use keylab_schema::{ColumnType, Table, Value};

/// The `LOAD DATA LOCAL INFILE` statement matching [`write_tsv_row`]: binary columns arrive
/// as hex (`UNHEX`), time columns as their text.
pub fn load_data_sql(table: &Table, stream_name: &str) -> String {
    let mut targets = Vec::new();
    let mut sets = Vec::new();
    for c in sent_columns(table) {
        let col = &table.columns[c];
        match col.ty {
            ty if is_binary(&ty) => {
                targets.push(format!("@v{c}"));
                sets.push(format!("{} = UNHEX(@v{c})", quote_ident(&col.name)));
            }
            // A BIT column stores a string's bytes: its number goes through a cast.
            ColumnType::Bit { .. } => {
                targets.push(format!("@v{c}"));
                sets.push(format!("{} = CAST(@v{c} AS UNSIGNED)", quote_ident(&col.name)));
            }
            _ => targets.push(quote_ident(&col.name)),
        }
    }
    let mut sql = format!(
        "LOAD DATA LOCAL INFILE '{stream_name}' INTO TABLE {} CHARACTER SET utf8mb4 \
         FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ({})",
        quote_ident(&table.name),
        targets.join(", ")
    );
    if !sets.is_empty() {
        sql.push_str(" SET ");
        sql.push_str(&sets.join(", "));
    }
    sql
}

/// Appends one row of the `LOAD DATA` stream (tab-separated, `\`-escaped, `\N` for NULL).
pub fn write_tsv_row(out: &mut Vec<u8>, table: &Table, cols: &[usize], row: &[Value]) {
    for (k, &c) in cols.iter().enumerate() {
        if k > 0 {
            out.push(b'\t');
        }
        let ty = &table.columns[c].ty;
        let binary = is_binary(ty);
        match &row[c] {
            Value::Null => out.extend_from_slice(b"\\N"),
            Value::Int(n) | Value::Time(n) if ty.is_time() => {
                out.extend_from_slice(time_value_text(*n, ty).as_bytes())
            }
            Value::Int(n) | Value::Time(n) => {
                let _ = std::io::Write::write_fmt(out, format_args!("{n}"));
            }
            Value::UInt(n) => {
                let _ = std::io::Write::write_fmt(out, format_args!("{n}"));
            }
            Value::Bytes(b) if binary => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                for &x in b {
                    out.push(HEX[(x >> 4) as usize]);
                    out.push(HEX[(x & 15) as usize]);
                }
            }
            Value::Bytes(b) => {
                // The stream is read as utf8mb4 (`CHARACTER SET utf8mb4` above).
                for &x in &session_bytes(b, ty) {
                    match x {
                        b'\\' => out.extend_from_slice(b"\\\\"),
                        b'\t' => out.extend_from_slice(b"\\t"),
                        b'\n' => out.extend_from_slice(b"\\n"),
                        b'\r' => out.extend_from_slice(b"\\r"),
                        0 => out.extend_from_slice(b"\\0"),
                        _ => out.push(x),
                    }
                }
            }
        }
    }
    out.push(b'\n');
}

/// True for the binary-string types, sent as hex in the `LOAD DATA` stream.
fn is_binary(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Binary { .. }
            | ColumnType::VarBinary { .. }
            | ColumnType::Blob
            | ColumnType::Opaque
            | ColumnType::MacAddr { .. }
            | ColumnType::Inet { .. }
    )
}

/// The text `CONCAT_WS` gives of the integer `n` stored in column `col` (an ENUM's label, a
/// SET's labels, a BIT's bytes, a DECIMAL's scale digits), `None` where it is `n` in decimal.
pub(super) fn stored_int_text(n: i64, col: &keylab_schema::Column) -> Option<Vec<u8>> {
    let label = |i: usize| col.labels.get(i - 1).cloned().unwrap_or_else(|| format!("m{i}"));
    Some(match col.ty {
        ColumnType::Decimal { scale, .. } if scale > 0 => {
            format!("{n}.{}", "0".repeat(scale as usize)).into()
        }
        ColumnType::Numeric => format!("{n}.{}", "0".repeat(30)).into(),
        ColumnType::Enum { .. } | ColumnType::PgEnum { .. } => label(n.max(1) as usize).into(),
        ColumnType::Set { .. } => {
            let on: Vec<String> =
                (0..63).filter(|b| n >> b & 1 == 1).map(|b| label(b + 1)).collect();
            on.join(",").into()
        }
        ColumnType::Bit { bits } => {
            let bytes = usize::from(bits).div_ceil(8);
            (n as u64).to_be_bytes()[8 - bytes..].to_vec()
        }
        _ => return None,
    })
}
