//! A value in a row, as the engines see it: what it stores and how it orders.

use crate::ColumnType;

/// One column value of a generated row.
///
/// Strings and binary strings are both bytes: for the ids keylab generates (ASCII text in one
/// letter case, or raw bytes) byte order is the order the server's collation gives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// Text (UTF-8) or binary bytes.
    Bytes(Vec<u8>),
    /// A TIMESTAMP/DATETIME as seconds since the Unix epoch (UTC).
    Time(i64),
}

impl Value {
    /// Bytes the value occupies in an InnoDB record of column type `ty` (0 for NULL).
    pub fn stored_len(&self, ty: &ColumnType) -> u32 {
        match self {
            Value::Null => 0,
            Value::Bytes(b) => ty.stored_len(b.len() as u32),
            _ => ty.fixed_len().unwrap_or(8),
        }
    }

    /// True for SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Appends a memcmp-comparable encoding (the order InnoDB compares these values in) to
    /// `out`: integers big-endian with the sign bit flipped, bytes as they are.
    pub fn write_sort_key(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => {}
            Value::Int(v) | Value::Time(v) => {
                out.extend_from_slice(&((*v as u64) ^ (1 << 63)).to_be_bytes())
            }
            Value::UInt(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Bytes(b) => out.extend_from_slice(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        v.write_sort_key(&mut out);
        out
    }

    #[test]
    fn signed_integers_sort_as_numbers() {
        assert!(key(&Value::Int(-1)) < key(&Value::Int(0)));
        assert!(key(&Value::Int(0)) < key(&Value::Int(1)));
        assert!(key(&Value::Int(i64::MIN)) < key(&Value::Int(i64::MAX)));
    }
}
