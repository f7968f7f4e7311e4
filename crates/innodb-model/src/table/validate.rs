//! Row validation of a [`SimTable`]: each column's value rules (NULL, byte length, the values
//! its type holds), checked quickly per row and, for a row they reject, again with the reason,
//! so a row the server would refuse is refused here too instead of being stored.
//!
//! This module does not change any index or assign AUTO_INCREMENT values.

use crate::{SimError, SimTable};
use keylab_schema::{Table, Value, ValueRange};

impl SimTable {
    pub(super) fn col_checks(table: &Table) -> Vec<ColCheck> {
        let auto_col = table.auto_increment.then(|| table.primary_key[0]);
        let checks = table.columns.iter().enumerate().map(|(i, col)| {
            let (lo, hi) = match col.ty.value_range() {
                ValueRange::Int { lo, hi } => (lo, hi),
                ValueRange::Time { lo, hi } => (i128::from(lo), i128::from(hi)),
                ValueRange::Chars(_) | ValueRange::Bytes(_) => (i128::MIN, i128::MAX),
            };
            ColCheck {
                null_ok: col.nullable || auto_col == Some(i),
                max_bytes: col.ty.holds_bytes().then(|| col.ty.max_bytes()),
                lo,
                hi,
            }
        });
        checks.collect()
    }

    /// Checks a row against the table's columns: the quick per-column rules first, the full
    /// rules (with the reason) only for a row they reject.
    #[inline]
    pub(super) fn validate(&self, row: &[Value]) -> Result<(), SimError> {
        let ok = row.len() == self.col_checks.len()
            && row.iter().zip(&self.col_checks).all(|(v, c)| match v {
                Value::Null => c.null_ok,
                Value::Bytes(b) => c.max_bytes.is_some_and(|m| b.len() as u64 <= m as u64),
                Value::Int(_) | Value::UInt(_) | Value::Time(_) => {
                    c.max_bytes.is_none() && numeric(v).is_some_and(|n| c.lo <= n && n <= c.hi)
                }
            });
        if ok {
            return Ok(());
        }
        self.validate_full(row)
    }

    fn validate_full(&self, row: &[Value]) -> Result<(), SimError> {
        let bad = |reason: String| SimError::BadRow { table: self.table.name.clone(), reason };
        if row.len() != self.table.columns.len() {
            return Err(bad(format!(
                "{} values for {} columns",
                row.len(),
                self.table.columns.len()
            )));
        }
        for (i, (v, col)) in row.iter().zip(&self.table.columns).enumerate() {
            let auto = self.table.auto_increment && self.table.primary_key[0] == i;
            match (v, &col.ty) {
                (Value::Null, _) if col.nullable || auto => {}
                (Value::Null, _) => {
                    return Err(bad(format!("NULL in NOT NULL column {}", col.name)))
                }
                (Value::Bytes(b), ty) if ty.holds_bytes() => {
                    if b.len() as u32 > ty.max_bytes() {
                        return Err(bad(format!(
                            "{} bytes do not fit column {} ({} bytes at most)",
                            b.len(),
                            col.name,
                            ty.max_bytes()
                        )));
                    }
                }
                (Value::Int(_) | Value::UInt(_) | Value::Time(_), ty) if !ty.holds_bytes() => {
                    let range = ty.value_range();
                    let n = numeric(v).unwrap_or_default();
                    if !(range.holds_int(n) || i64::try_from(n).is_ok_and(|s| range.holds_time(s)))
                    {
                        return Err(bad(format!(
                            "{v:?} is outside what column {} holds ({range})",
                            col.name
                        )));
                    }
                }
                _ => return Err(bad(format!("value {v:?} does not suit column {}", col.name))),
            }
        }
        Ok(())
    }
}

/// One column's value rules: NULL allowed (nullable, or the AUTO_INCREMENT key), for
/// byte-valued types the byte limit (`None`: the type takes integer values), and for the
/// others the values the server's column holds (integers, or Unix seconds of a time type):
/// a value the server would refuse is refused here too, not stored.
#[derive(Debug, Clone, Copy)]
pub(super) struct ColCheck {
    null_ok: bool,
    max_bytes: Option<u32>,
    lo: i128,
    hi: i128,
}

/// The number a numeric value stands for (`None` for NULL and bytes).
fn numeric(v: &Value) -> Option<i128> {
    match *v {
        Value::Int(n) | Value::Time(n) => Some(i128::from(n)),
        Value::UInt(n) => Some(i128::from(n)),
        Value::Null | Value::Bytes(_) => None,
    }
}
