//! How PostgreSQL stores each [`ColumnType`]: `typlen`/`typalign` from `pg_type`, or a varlena
//! and its data bytes for a given value.
//!
//! Not for: InnoDB's sizes or any dialect's spelling (the parent module and `column_sql`).

use super::{ArrayElem, ColumnType, TemporalKind};

/// How PostgreSQL stores a column type: `typlen`/`typalign`, or a varlena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgStorage {
    /// A fixed-length type.
    Fixed {
        /// `typlen`.
        bytes: u32,
        /// `typalign` in bytes.
        align: u32,
    },
    /// A varlena (1-byte header up to 126 data bytes, else a 4-byte int-aligned one).
    Varlena,
}

impl ColumnType {
    /// How PostgreSQL stores the type (`pg_type.typlen`/`typalign`), as keylab creates it
    /// there (MySQL-only types as their nearest PostgreSQL type, [`ColumnType::pg_sql`]).
    pub fn pg_storage(&self) -> PgStorage {
        let fixed = |bytes, align| PgStorage::Fixed { bytes, align };
        match *self {
            ColumnType::Int | ColumnType::Date => fixed(4, 4),
            ColumnType::BigInt { unsigned: false }
            | ColumnType::Timestamp
            | ColumnType::DateTime
            | ColumnType::Money => fixed(8, 8),
            ColumnType::Binary { bytes: 16 } => fixed(16, 1),
            // No unsigned integers on PostgreSQL: SMALLINT UNSIGNED takes an integer.
            ColumnType::Integer { bytes: 1, .. }
            | ColumnType::Integer { bytes: 2, unsigned: false }
            | ColumnType::Year => fixed(2, 2),
            ColumnType::Integer { bytes: 2 | 3, .. }
            | ColumnType::Integer { bytes: 4, unsigned: false } => fixed(4, 4),
            ColumnType::Integer { .. } => fixed(8, 8),
            ColumnType::Float { double: false } => fixed(4, 4),
            ColumnType::Float { double: true } => fixed(8, 8),
            ColumnType::Bool => fixed(1, 1),
            ColumnType::Enum { .. } => fixed(2, 2),
            // `anyenum`: an OID (pg_type.dat: typlen 4, typalign i).
            ColumnType::PgEnum { .. } => fixed(4, 4),
            ColumnType::Set { members } => match set_pg_bytes(members) {
                2 => fixed(2, 2),
                4 => fixed(4, 4),
                _ => fixed(8, 8),
            },
            ColumnType::Temporal { kind: TemporalKind::TimeTz, .. } => fixed(12, 8),
            ColumnType::Temporal { kind: TemporalKind::Interval, .. } => fixed(16, 8),
            ColumnType::Temporal { .. } => fixed(8, 8),
            // macaddr/macaddr8 are int-aligned (pg_type.dat).
            ColumnType::MacAddr { bytes } => fixed(u32::from(bytes), 4),
            _ => PgStorage::Varlena,
        }
    }

    /// Data bytes (after the varlena header) PostgreSQL stores for a value of a varlena
    /// type whose keylab value is `value_len` bytes of text or binary, or the integer `int`.
    /// `None` when the type is not one of the new varlenas modelled here (the caller keeps
    /// its own rule).
    pub fn pg_varlena_data_bytes(&self, value: &[u8], int: Option<i64>) -> Option<u32> {
        let len = value.len() as u32;
        Some(match *self {
            ColumnType::VarBinary { .. } | ColumnType::Blob | ColumnType::Opaque => len,
            ColumnType::Json { binary: false } => len,
            // A jsonb scalar is a one-element raw-scalar array (`convertJsonbScalar`): a
            // 4-byte container header and a 4-byte JEntry before the string without its quotes.
            ColumnType::Json { binary: true } => len.saturating_sub(2) + 8,
            // `inet_struct`: family and bits (2 bytes) then 4 (IPv4) or 16 (IPv6) address bytes.
            ColumnType::Inet { .. } => 2 + len,
            // `numeric` short format: a 2-byte header and 2 bytes per base-10000 digit
            // (`make_result`, leading and trailing zero digits stripped).
            // `numeric(p,s)` alike: `apply_typmod` keeps the scale as the display scale only,
            // and `make_result` strips its zero digits (a whole number `n` is `n.00`;
            // PostgreSQL 15: 37 in numeric(4,2) takes 1 + 4 bytes in a row).
            ColumnType::Numeric | ColumnType::Decimal { .. } => {
                2 + 2 * numeric_digits(int.unwrap_or(0).unsigned_abs())
            }
            // One lexeme, no positions: `CALCDATASIZE`: the entry count (4), one WordEntry (4).
            ColumnType::TsVector => 8 + len,
            // `varbit`: a 4-byte bit length, then the bits.
            ColumnType::Bit { bits } => 4 + u32::from(bits).div_ceil(8),
            ColumnType::Array { elem } => array_data_bytes(elem, value),
            _ => return None,
        })
    }
}

/// The PostgreSQL integer a SET's bit mask is created as: smallint up to 15 members,
/// integer up to 31, bigint beyond.
pub(crate) fn set_pg_bytes(members: u8) -> u32 {
    match members {
        0..=15 => 2,
        16..=31 => 4,
        _ => 8,
    }
}

/// Base-10000 digits of `n` from its highest to its lowest non-zero one (what `numeric`
/// stores of a whole number).
fn numeric_digits(mut n: u64) -> u32 {
    if n == 0 {
        return 0;
    }
    while n % 10_000 == 0 {
        n /= 10_000;
    }
    let mut digits = 0;
    while n > 0 {
        digits += 1;
        n /= 10_000;
    }
    digits
}

/// Data bytes of a one-dimensional array without NULLs whose text form is `text`
/// (`{1,2,3}` or `{"ab","cd"}`): the header (`ARR_OVERHEAD_NONULLS(1)`, MAXALIGN(16 + 8) = 24
/// bytes with the 4-byte length word) less the length word, then each element at its
/// alignment; a text element keeps a 4-byte header (`array_in` detoasts each element).
fn array_data_bytes(elem: ArrayElem, text: &[u8]) -> u32 {
    let inner = text.strip_prefix(b"{").and_then(|t| t.strip_suffix(b"}")).unwrap_or(text);
    if inner.is_empty() {
        // An empty array has no dimensions: the 16-byte header alone.
        return 12;
    }
    let mut off = 24u32;
    {
        for e in inner.split(|&b| b == b',') {
            off = match elem.fixed() {
                Some((bytes, align)) => off.div_ceil(align) * align + bytes,
                None => {
                    let chars = e.iter().filter(|&&b| b != b'"').count() as u32;
                    off.div_ceil(4) * 4 + 4 + chars
                }
            };
        }
    }
    off - 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_sizes() {
        assert_eq!(
            ColumnType::Integer { bytes: 2, unsigned: false }.pg_storage(),
            PgStorage::Fixed { bytes: 2, align: 2 }
        );
        assert_eq!(
            ColumnType::MacAddr { bytes: 6 }.pg_storage(),
            PgStorage::Fixed { bytes: 6, align: 4 }
        );
        let d = |t: ColumnType, v: &[u8], i| t.pg_varlena_data_bytes(v, i).unwrap();
        assert_eq!(d(ColumnType::Inet { cidr: false }, &[10, 0, 0, 1], None), 6);
        assert_eq!(d(ColumnType::Json { binary: true }, b"\"abc\"", None), 11);
        assert_eq!(d(ColumnType::Numeric, b"", Some(0)), 2);
        assert_eq!(d(ColumnType::Numeric, b"", Some(12_345)), 6);
        assert_eq!(d(ColumnType::Numeric, b"", Some(10_000)), 4);
        // numeric(4,2): 37 is 37.00, its zero fraction stripped (pg_column_size 5 in a row).
        assert_eq!(d(ColumnType::Decimal { precision: 4, scale: 2 }, b"", Some(37)), 4);
        assert_eq!(d(ColumnType::Decimal { precision: 4, scale: 2 }, b"", Some(0)), 2);
        assert_eq!(d(ColumnType::Array { elem: ArrayElem::Int8 }, b"{1,2,3}", None), 20 + 24);
        assert_eq!(d(ColumnType::Array { elem: ArrayElem::Int4 }, b"{}", None), 12);
        // Text elements: 4-byte header each, int-aligned: 24 + (4+2) -> 30, align 32 + 4+2.
        assert_eq!(
            d(ColumnType::Array { elem: ArrayElem::Text }, b"{\"ab\",\"cd\"}", None),
            38 - 4
        );
    }
}
