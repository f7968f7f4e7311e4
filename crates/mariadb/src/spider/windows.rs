//! The Spider run's hotspot curve, exactly: after the load, each backend's key column is read
//! back, and every row the client sent (in the order it sent them) is looked up on the
//! backends, which gives the shard the server actually placed it on; rows are then counted in
//! windows of rows sent ([`keylab_core::windows_of`]), as the simulator counts its routing.
//! The backends must hold exactly the rows sent, one copy each, or the count fails.
//!
//! Nothing here is timed, and nothing is taken from keylab's own routing: the placement is
//! what the backends hold. This module does not sample counters during a load (the fallback
//! for keys the client does not know, see `spider.rs`).

use crate::client::sql_err;
use crate::engine::MariaDbEngine;
use crate::sql::quote_ident;
use keylab_schema::{ColumnType, Table, Value};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use std::collections::HashMap;

/// The bytes MariaDB's text protocol returns for `key` in a column of type `ty`: an integer's
/// decimal digits, a string's bytes (`BINARY(n)` right-padded with zero bytes, as stored).
/// `None` for keys this comparison does not cover (times).
pub fn wire_bytes(key: &Value, ty: &ColumnType) -> Option<Vec<u8>> {
    match key {
        Value::Int(n) if !ty.is_time() => Some(n.to_string().into_bytes()),
        Value::UInt(n) => Some(n.to_string().into_bytes()),
        Value::Bytes(b) => {
            let mut v = b.clone();
            if let ColumnType::Binary { bytes } = ty {
                v.resize((*bytes as usize).max(v.len()), 0);
            }
            Some(v)
        }
        _ => None,
    }
}

/// Which backend holds each of `sent` (the key of every row sent, in order), read from the
/// backends' tables after the load. Fails when a row sent is on no backend, on two, or when a
/// backend holds a row that was not sent.
pub fn placements(
    backends: &[MariaDbEngine],
    table: &Table,
    sent: &[Value],
) -> Result<Vec<usize>, ServerError> {
    let col = table.primary_key[0];
    let ty = &table.columns[col].ty;
    let sql = format!(
        "SELECT {} FROM {}",
        quote_ident(&table.columns[col].name),
        quote_ident(&table.name)
    );
    let mut held: HashMap<Vec<u8>, usize> = HashMap::with_capacity(sent.len());
    for (k, b) in backends.iter().enumerate() {
        let mut conn = b.new_connection()?;
        let rows =
            conn.query_iter(&sql).map_err(|e| sql_err(&format!("reading shard {k}'s keys"), e))?;
        for row in rows {
            let row = row.map_err(|e| sql_err(&format!("reading shard {k}'s keys"), e))?;
            let key = match row.as_ref(0) {
                Some(mysql::Value::Bytes(b)) => b.clone(),
                other => {
                    return Err(ServerError::Sql(format!(
                        "shard {k} returned a key keylab cannot read back: {other:?}"
                    )))
                }
            };
            if let Some(first) = held.insert(key, k) {
                return Err(ServerError::Sql(format!(
                    "a key is on shard {first} and on shard {k}: the backends hold a row twice"
                )));
            }
        }
    }
    if held.len() != sent.len() {
        return Err(ServerError::Sql(format!(
            "the backends hold {} rows, the client sent {}",
            held.len(),
            sent.len()
        )));
    }
    sent.iter()
        .enumerate()
        .map(|(i, key)| {
            let bytes = wire_bytes(key, ty).ok_or_else(|| {
                ServerError::Unsupported(format!("row {i}'s key {key:?} cannot be read back"))
            })?;
            held.get(&bytes).copied().ok_or_else(|| {
                ServerError::Sql(format!("row {i} sent ({key:?}) is on no backend after the load"))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_as_the_text_protocol_returns_them() {
        let big = ColumnType::BigInt { unsigned: false };
        assert_eq!(wire_bytes(&Value::Int(-42), &big), Some(b"-42".to_vec()));
        assert_eq!(wire_bytes(&Value::UInt(7), &big), Some(b"7".to_vec()));
        let bin = ColumnType::Binary { bytes: 4 };
        assert_eq!(wire_bytes(&Value::Bytes(vec![1, 2]), &bin), Some(vec![1, 2, 0, 0]));
        assert_eq!(wire_bytes(&Value::Time(0), &ColumnType::Timestamp), None);
    }
}
