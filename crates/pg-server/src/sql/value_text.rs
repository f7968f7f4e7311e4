//! Row values as PostgreSQL's text form of their column's type: what `::text` of the stored
//! value gives, used for INSERT literals, `COPY` text and the load checksum. This module does
//! not quote or escape; its callers do.

use keylab_schema::{datetime_text, time_text, Column, ColumnType, TemporalKind, Value};
use std::fmt::Write as _;

/// The value as PostgreSQL's text form of the column's type: what `::text` of the stored
/// value gives, so the checksum's two halves agree. `None` for NULL.
pub fn value_text(v: &Value, ty: &ColumnType) -> Option<String> {
    if let Some(text) = newer_value_text(v, ty) {
        return Some(text);
    }
    Some(match v {
        Value::Null => return None,
        Value::Int(n) | Value::Time(n) if is_time(ty) => {
            time_text(*n, ty).unwrap_or_else(|| n.to_string())
        }
        Value::Int(n) => match *ty {
            ColumnType::Decimal { scale, .. } if scale > 0 => {
                format!("{n}.{}", "0".repeat(scale as usize))
            }
            _ => n.to_string(),
        },
        Value::UInt(n) => n.to_string(),
        Value::Time(s) => s.to_string(),
        Value::Bytes(b) => match *ty {
            ColumnType::Binary { bytes: 16 } if b.len() == 16 => uuid_text(b),
            ColumnType::Binary { .. } => {
                let mut s = String::with_capacity(2 + 2 * b.len());
                s.push_str("\\x");
                for byte in b {
                    let _ = write!(s, "{byte:02x}");
                }
                s
            }
            _ => String::from_utf8_lossy(b).into_owned(),
        },
    })
}

/// [`value_text`] of the value `v` of column `col`: an enum's member number as its label.
pub fn cell_text(v: &Value, col: &Column) -> Option<String> {
    match (v, col.ty) {
        (Value::Int(n), ColumnType::PgEnum { .. }) => {
            let k = (*n).max(1) as usize;
            Some(col.labels.get(k - 1).cloned().unwrap_or_else(|| format!("m{k}")))
        }
        _ => value_text(v, &col.ty),
    }
}

/// [`value_text`] of the types past `Decimal` (PostgreSQL's own and MySQL's nearest), `None`
/// for the others and for NULL.
fn newer_value_text(v: &Value, ty: &ColumnType) -> Option<String> {
    let hms = |s: i64| format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    Some(match (v, *ty) {
        (Value::Null, _) => return None,
        (Value::Int(n) | Value::Time(n), ColumnType::Temporal { kind, .. }) => match kind {
            TemporalKind::Interval => hms(*n),
            TemporalKind::Time => hms(n.rem_euclid(86_400)),
            TemporalKind::TimeTz => hms(n.rem_euclid(86_400)) + "+00",
            TemporalKind::TimestampTz => datetime_text(*n)? + "+00",
            TemporalKind::DateTime | TemporalKind::Timestamp => datetime_text(*n)?,
        },
        (Value::Int(n), ColumnType::Bool) => (if *n != 0 { "true" } else { "false" }).into(),
        // `cash_out` under the C locale: "," between groups of 3 digits (its defaults when
        // the locale gives no separator or grouping), the sign before the "$".
        (Value::Int(n), ColumnType::Money) => {
            let digits = n.unsigned_abs().to_string();
            let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            format!("{}${grouped}.00", if *n < 0 { "-" } else { "" })
        }
        (Value::Int(n), ColumnType::Bit { bits }) => {
            format!("{:0w$b}", *n as u64, w = usize::from(bits))
        }
        (Value::Bytes(b), ColumnType::VarBinary { .. } | ColumnType::Blob | ColumnType::Opaque) => {
            let mut s = String::with_capacity(2 + 2 * b.len());
            s.push_str("\\x");
            for byte in b {
                let _ = write!(s, "{byte:02x}");
            }
            s
        }
        (Value::Bytes(b), ColumnType::MacAddr { .. }) => {
            b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(":")
        }
        (Value::Bytes(b), ColumnType::Inet { .. }) if b.len() == 4 => {
            format!("{}.{}.{}.{}/32", b[0], b[1], b[2], b[3])
        }
        (Value::Bytes(b), ColumnType::TsVector) => format!("'{}'", String::from_utf8_lossy(b)),
        // The server writes an array's text elements without the quotes keylab sends.
        (Value::Bytes(b), ColumnType::Array { .. }) => String::from_utf8_lossy(b).replace('"', ""),
        _ => return None,
    })
}

fn is_time(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Timestamp | ColumnType::DateTime | ColumnType::Date)
}

/// 16 bytes as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (lower case, as PostgreSQL prints).
fn uuid_text(b: &[u8]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        let _ = write!(s, "{byte:02x}");
    }
    s
}
