//! Row values as prepared-statement parameters: in placeholder order, text ids in the
//! session's character set, times as the text the server reads in UTC.
//!
//! Not for literal SQL text (`sql.rs`) nor for the `LOAD DATA` stream (`load_data`).

use super::{sent_columns, time_value_text};
use keylab_schema::{ColumnType, Table, Value};

/// The parameters of a prepared insert for `rows`, in placeholder order.
pub fn prepared_params(table: &Table, rows: &[Vec<Value>]) -> Vec<mysql::Value> {
    let cols = sent_columns(table);
    let mut params = Vec::with_capacity(rows.len() * cols.len());
    for row in rows {
        for &c in &cols {
            params.push(param(&row[c], &table.columns[c].ty));
        }
    }
    params
}

/// Appends the parameters of `row`'s sent columns `cols` of `table`, taking its values (no
/// copy of their bytes).
pub fn push_params_of(
    params: &mut Vec<mysql::Value>,
    table: &Table,
    cols: &[usize],
    mut row: Vec<Value>,
) {
    for &c in cols {
        let v = std::mem::replace(&mut row[c], Value::Null);
        params.push(into_param(v, &table.columns[c].ty));
    }
}

/// A value as a prepared-statement parameter for a column of type `ty` (times as their
/// text, as literals send them).
pub fn param(v: &Value, ty: &ColumnType) -> mysql::Value {
    match v {
        Value::Null => mysql::Value::NULL,
        Value::Int(n) | Value::Time(n) if ty.is_time() => {
            mysql::Value::Bytes(time_value_text(*n, ty).into_bytes())
        }
        Value::Int(n) | Value::Time(n) => mysql::Value::Int(*n),
        Value::UInt(n) => mysql::Value::UInt(*n),
        Value::Bytes(b) => mysql::Value::Bytes(session_bytes(b, ty)),
    }
}

/// A string value's bytes as the utf8mb4 session sends them: a `latin1` column's stored bytes
/// become their UTF-8, which the server converts back. (Hex literals skip this: the server
/// stores a hex string's bytes as they are.)
///
/// A PostgreSQL array's text (`{1,2}`) goes to MariaDB's JSON text as a JSON array (`[1,2]`).
pub(super) fn session_bytes(b: &[u8], ty: &ColumnType) -> Vec<u8> {
    if let (ColumnType::Array { .. }, [b'{', inner @ .., b'}']) = (ty, b) {
        let mut json = Vec::with_capacity(b.len());
        json.push(b'[');
        json.extend_from_slice(inner);
        json.push(b']');
        return json;
    }
    match column_charset(ty) {
        Some(cs) if cs.is_single_byte() => cs.to_utf8(b),
        _ => b.to_vec(),
    }
}

/// The character set of a string column.
pub(super) fn column_charset(ty: &ColumnType) -> Option<keylab_schema::Charset> {
    match *ty {
        ColumnType::Char { charset, .. }
        | ColumnType::VarChar { charset, .. }
        | ColumnType::Text { charset } => Some(charset),
        _ => None,
    }
}

/// [`param`] of an owned value, moving its bytes.
pub fn into_param(v: Value, ty: &ColumnType) -> mysql::Value {
    match v {
        Value::Bytes(b) if !column_charset(ty).is_some_and(|c| c.is_single_byte()) => {
            mysql::Value::Bytes(b)
        }
        v => param(&v, ty),
    }
}
