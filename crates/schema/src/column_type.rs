//! [`ColumnType`]: how a value of each SQL type is stored by InnoDB (fixed or variable
//! length, maximum byte length) and by PostgreSQL (`typlen`/`typalign` from `pg_type`, or a
//! varlena), and how the type is spelled in each dialect. The types keylab's own scenarios
//! use come first; the others are read from users' DDL by `keylab advise`, each built as
//! declared where the engine has the type and as the nearest type where it has not (the DDL
//! reader says so in a note).

use crate::Charset;
use serde::{Deserialize, Serialize};

/// A column type, with everything InnoDB's record format and PostgreSQL's tuple layout
/// depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ColumnType {
    /// `INT` (4 bytes).
    Int,
    /// `BIGINT` (8 bytes), signed or unsigned.
    BigInt {
        /// `BIGINT UNSIGNED` when true.
        unsigned: bool,
    },
    /// `CHAR(n)`: fixed-length only in a single-byte character set.
    Char {
        /// Declared length in characters.
        chars: u32,
        /// Character set.
        charset: Charset,
    },
    /// `VARCHAR(n)`.
    VarChar {
        /// Declared length in characters.
        chars: u32,
        /// Character set.
        charset: Charset,
    },
    /// `BINARY(n)` (`bytea` on PostgreSQL, `uuid` when 16 bytes).
    Binary {
        /// Declared length in bytes.
        bytes: u32,
    },
    /// `TEXT` (a BLOB-family column: may go off-page).
    Text {
        /// Character set.
        charset: Charset,
    },
    /// `TIMESTAMP` without fractional seconds (4 bytes).
    Timestamp,
    /// `DATETIME` without fractional seconds (5 bytes).
    DateTime,
    /// `DATE` (3 bytes on InnoDB, 4 on PostgreSQL).
    Date,
    /// `DECIMAL(p,s)` in MySQL's binary format.
    Decimal {
        /// Precision (total digits).
        precision: u32,
        /// Scale (digits after the point).
        scale: u32,
    },
    /// An integer of 1 to 4 bytes other than the signed `INT`: MySQL's `TINYINT` (1),
    /// `SMALLINT` (2), `MEDIUMINT` (3), `INT UNSIGNED` (4); PostgreSQL's `smallint` (2).
    Integer {
        /// Stored bytes on InnoDB (`Field_tiny`/`Field_short`/`Field_medium`/`Field_long`
        /// `::pack_length`).
        bytes: u8,
        /// `UNSIGNED`.
        unsigned: bool,
    },
    /// `FLOAT`/`REAL` (4 bytes) or `DOUBLE`/`double precision` (8 bytes).
    Float {
        /// 8-byte `DOUBLE` when true.
        double: bool,
    },
    /// PostgreSQL's `boolean` (1 byte); MySQL's `BOOL` is `TINYINT(1)`, an [`Integer`](ColumnType::Integer).
    Bool,
    /// MySQL's `YEAR` (1 byte, 1901 to 2155).
    Year,
    /// MySQL's `ENUM`: its member labels are [`Column::labels`](crate::Column::labels).
    Enum {
        /// Number of members.
        members: u16,
    },
    /// PostgreSQL's `CREATE TYPE ... AS ENUM`: the label's `pg_enum` OID, 4 bytes, ordered
    /// by the declared order of the labels ([`Column::labels`](crate::Column::labels)); on
    /// InnoDB built as an `ENUM` of the same labels.
    PgEnum {
        /// Number of labels.
        members: u16,
    },
    /// MySQL's `SET`.
    Set {
        /// Number of members (at most 64).
        members: u8,
    },
    /// `BIT(n)`.
    Bit {
        /// Declared bits (1 to 64).
        bits: u8,
    },
    /// A time type with fractional seconds or a time zone, `TIME`, or an `interval`
    /// (`DATETIME(0)` and `TIMESTAMP(0)` are [`DateTime`](ColumnType::DateTime) and
    /// [`Timestamp`](ColumnType::Timestamp)).
    Temporal {
        /// Which time type.
        kind: TemporalKind,
        /// Fractional-second digits, 0 to 6.
        fsp: u8,
    },
    /// `VARBINARY(n)`.
    VarBinary {
        /// Declared length in bytes.
        bytes: u32,
    },
    /// A BLOB-family column (`BLOB`, `MEDIUMBLOB`...) or PostgreSQL's `bytea`.
    Blob,
    /// PostgreSQL's `json` (its text) or `jsonb` (binary); MariaDB's `JSON` is `LONGTEXT`.
    Json {
        /// `jsonb` when true.
        binary: bool,
    },
    /// PostgreSQL's `inet` or `cidr`.
    Inet {
        /// `cidr` when true.
        cidr: bool,
    },
    /// PostgreSQL's `macaddr` (6 bytes) or `macaddr8` (8).
    MacAddr {
        /// 6 or 8.
        bytes: u8,
    },
    /// PostgreSQL's `numeric` without a precision (variable length).
    Numeric,
    /// PostgreSQL's `money` (8 bytes).
    Money,
    /// PostgreSQL's `tsvector`.
    TsVector,
    /// A one-dimensional PostgreSQL array.
    Array {
        /// The element type.
        elem: ArrayElem,
    },
    /// A type with no storage rule in keylab (an extension's: pgvector, PostGIS, `citext`,
    /// `hstore`...): a variable-length value of the `--width` bytes, created as `bytea`/`BLOB`.
    Opaque,
}

/// Which time type a [`ColumnType::Temporal`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TemporalKind {
    /// `DATETIME(n)` / PostgreSQL `timestamp(n)`.
    DateTime,
    /// `TIMESTAMP(n)`.
    Timestamp,
    /// PostgreSQL `timestamptz`.
    TimestampTz,
    /// `TIME(n)`.
    Time,
    /// PostgreSQL `timetz`.
    TimeTz,
    /// PostgreSQL `interval`.
    Interval,
}

/// The element type of a [`ColumnType::Array`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrayElem {
    /// `smallint`.
    Int2,
    /// `integer`.
    Int4,
    /// `bigint`.
    Int8,
    /// `real`.
    Float4,
    /// `double precision`.
    Float8,
    /// `boolean`.
    Bool,
    /// `text`/`varchar` (each element its own varlena).
    Text,
}

impl ArrayElem {
    /// `typlen`/`typalign` of a fixed-width element, `None` for text.
    pub fn fixed(self) -> Option<(u32, u32)> {
        match self {
            ArrayElem::Int2 => Some((2, 2)),
            ArrayElem::Int4 | ArrayElem::Float4 => Some((4, 4)),
            ArrayElem::Int8 | ArrayElem::Float8 => Some((8, 8)),
            ArrayElem::Bool => Some((1, 1)),
            ArrayElem::Text => None,
        }
    }

    /// The element type's PostgreSQL name.
    pub fn pg_name(self) -> &'static str {
        match self {
            ArrayElem::Int2 => "smallint",
            ArrayElem::Int4 => "integer",
            ArrayElem::Int8 => "bigint",
            ArrayElem::Float4 => "real",
            ArrayElem::Float8 => "double precision",
            ArrayElem::Bool => "boolean",
            ArrayElem::Text => "text",
        }
    }
}

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
    /// The stored length when InnoDB treats the column as fixed-length in COMPACT/DYNAMIC
    /// records, `None` when the column is variable-length and carries length bytes.
    ///
    /// `CHAR(n)` in a multi-byte character set is variable-length (`dtype_get_fixed_size_low`
    /// reports no fixed size for it when `mbminlen != mbmaxlen`).
    pub fn fixed_len(&self) -> Option<u32> {
        match *self {
            ColumnType::Int => Some(4),
            ColumnType::BigInt { .. } => Some(8),
            ColumnType::Char { chars, charset } if charset.max_bytes_per_char() == 1 => Some(chars),
            ColumnType::Binary { bytes } => Some(bytes),
            ColumnType::Timestamp => Some(4),
            ColumnType::DateTime => Some(5),
            ColumnType::Date => Some(3),
            ColumnType::Decimal { precision, scale } => Some(decimal_bin_len(precision, scale)),
            ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. } => None,
            ColumnType::Integer { bytes, .. } => Some(u32::from(bytes)),
            ColumnType::Float { double } => Some(if double { 8 } else { 4 }),
            // BOOLEAN is TINYINT(1) on InnoDB; YEAR is `Field_year` (1 byte).
            ColumnType::Bool | ColumnType::Year => Some(1),
            // `get_enum_pack_length`: 1 byte up to 255 members, else 2.
            ColumnType::Enum { members } | ColumnType::PgEnum { members } => {
                Some(if members < 256 { 1 } else { 2 })
            }
            ColumnType::Set { members } => Some(set_bytes(members)),
            // `Field_bit::pack_length`: (n + 7) / 8 (DATA_FIXBINARY in InnoDB).
            ColumnType::Bit { bits } => Some(u32::from(bits).div_ceil(8)),
            ColumnType::Temporal { kind, fsp } => Some(temporal_innodb_bytes(kind, fsp)),
            ColumnType::MacAddr { bytes } => Some(u32::from(bytes)),
            // money is BIGINT (cents) on InnoDB; numeric without precision DECIMAL(65,30).
            ColumnType::Money => Some(8),
            ColumnType::Numeric => Some(decimal_bin_len(65, 30)),
            ColumnType::VarBinary { .. }
            | ColumnType::Blob
            | ColumnType::Json { .. }
            | ColumnType::Inet { .. }
            | ColumnType::TsVector
            | ColumnType::Array { .. }
            | ColumnType::Opaque => None,
        }
    }

    /// Maximum stored length in bytes (declared characters × bytes per character for strings).
    pub fn max_bytes(&self) -> u32 {
        match *self {
            ColumnType::Char { chars, charset } | ColumnType::VarChar { chars, charset } => {
                chars * charset.max_bytes_per_char()
            }
            ColumnType::Text { .. } => 65_535,
            ColumnType::VarBinary { bytes } => bytes,
            // VARBINARY(16) on InnoDB: 4 bytes of an IPv4 address, 16 of an IPv6 one.
            ColumnType::Inet { .. } => 16,
            ColumnType::Blob
            | ColumnType::Json { .. }
            | ColumnType::TsVector
            | ColumnType::Array { .. }
            | ColumnType::Opaque => 65_535,
            _ => self.fixed_len().unwrap_or(0),
        }
    }

    /// True for the types whose values are a date or a point in time (`DATE`, `DATETIME`,
    /// `TIMESTAMP`, `timestamptz`; not a time of day or an interval): what a partition
    /// bound or an index predicate writes as a quoted date.
    pub fn is_date_or_datetime(&self) -> bool {
        matches!(
            self,
            ColumnType::Date
                | ColumnType::Timestamp
                | ColumnType::DateTime
                | ColumnType::Temporal {
                    kind: TemporalKind::DateTime
                        | TemporalKind::Timestamp
                        | TemporalKind::TimestampTz,
                    ..
                }
        )
    }

    /// True for character columns (`CHAR`, `VARCHAR`, `TEXT`).
    pub fn is_character(&self) -> bool {
        matches!(
            self,
            ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. }
        )
    }

    /// True for BLOB/TEXT-family columns (`DATA_BLOB`): `TEXT`, `BLOB`, and the PostgreSQL
    /// types InnoDB holds as LONGTEXT or BLOB (json, tsvector, arrays, extension types).
    pub fn is_blob(&self) -> bool {
        matches!(
            self,
            ColumnType::Text { .. }
                | ColumnType::Blob
                | ColumnType::Json { .. }
                | ColumnType::TsVector
                | ColumnType::Array { .. }
                | ColumnType::Opaque
        )
    }

    /// True when a length field for this column may take 2 bytes (`DATA_BIG_COL`): its maximum
    /// exceeds 255 bytes or it is a BLOB-family column.
    pub fn is_big(&self) -> bool {
        self.is_blob() || self.max_bytes() > 255
    }

    /// Minimum stored bytes of a non-NULL value of `len` bytes: `CHAR(n)` in a multi-byte
    /// character set is padded with spaces to at least `n` bytes (`row_mysql_store_col_in_innobase_format`).
    pub fn stored_len(&self, value_len: u32) -> u32 {
        match *self {
            ColumnType::Char { chars, .. } => value_len.max(chars),
            _ => self.fixed_len().unwrap_or(value_len),
        }
    }

    /// True when values of this type are bytes (text or binary strings), false for numbers
    /// and times.
    pub fn holds_bytes(&self) -> bool {
        matches!(
            self,
            ColumnType::Char { .. }
                | ColumnType::VarChar { .. }
                | ColumnType::Binary { .. }
                | ColumnType::Text { .. }
                | ColumnType::VarBinary { .. }
                | ColumnType::Blob
                | ColumnType::Json { .. }
                | ColumnType::Inet { .. }
                | ColumnType::MacAddr { .. }
                | ColumnType::TsVector
                | ColumnType::Array { .. }
                | ColumnType::Opaque
        )
    }

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

/// Bytes of MySQL's binary DECIMAL: 4 bytes per 9 digits, plus the leftover digits' bytes, on
/// each side of the point (`decimal_bin_size`).
pub(crate) fn decimal_bin_len(precision: u32, scale: u32) -> u32 {
    const LEFTOVER: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let int_digits = precision.saturating_sub(scale);
    let side = |d: u32| (d / 9) * 4 + LEFTOVER[(d % 9) as usize];
    side(int_digits) + side(scale)
}

/// Bytes of a SET of `members` (`get_set_pack_length`): 1, 2, 3, 4 or 8.
pub(crate) fn set_bytes(members: u8) -> u32 {
    match u32::from(members).div_ceil(8) {
        n @ 0..=4 => n.max(1),
        _ => 8,
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

/// InnoDB bytes of a time type with `fsp` fractional digits, in the temporal formats MariaDB
/// 10.11 and MySQL 8.0 create by default (`mysql56_temporal_format`): `Field_datetimef`,
/// `Field_timestampf` and `Field_timef::pack_length` add (fsp + 1) / 2 bytes to 5, 4 and 3
/// (`my_datetime_binary_length`, `my_timestamp_binary_length`, `my_time_binary_length`).
fn temporal_innodb_bytes(kind: TemporalKind, fsp: u8) -> u32 {
    let frac = u32::from(fsp.min(6)).div_ceil(2);
    match kind {
        TemporalKind::DateTime => 5 + frac,
        TemporalKind::Timestamp | TemporalKind::TimestampTz => 4 + frac,
        TemporalKind::Time | TemporalKind::TimeTz => 3 + frac,
        // BIGINT of seconds.
        TemporalKind::Interval => 8,
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
    use crate::Dialect;

    #[test]
    fn varchar_length_rules() {
        let ulid = ColumnType::VarChar { chars: 26, charset: Charset::Utf8mb4 };
        assert_eq!(ulid.max_bytes(), 104);
        assert!(!ulid.is_big());
        assert_eq!(ulid.fixed_len(), None);
        let data = ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 };
        assert!(data.is_big());
        let c = ColumnType::Char { chars: 26, charset: Charset::Utf8mb4 };
        assert_eq!(c.fixed_len(), None);
        assert_eq!(c.stored_len(26), 26);
        let c1 = ColumnType::Char { chars: 32, charset: Charset::Ascii };
        assert_eq!(c1.fixed_len(), Some(32));
    }

    #[test]
    fn decimal_sizes() {
        assert_eq!(decimal_bin_len(10, 2), 5);
        assert_eq!(decimal_bin_len(18, 9), 8);
    }

    #[test]
    fn dialect_rendering() {
        let t = ColumnType::Binary { bytes: 16 };
        assert_eq!(t.sql(Dialect::Mariadb), "BINARY(16)");
        assert_eq!(t.sql(Dialect::Postgres), "BYTEA");
        let t = ColumnType::Integer { bytes: 3, unsigned: true };
        assert_eq!(t.sql(Dialect::Mariadb), "MEDIUMINT UNSIGNED");
        assert_eq!(t.sql(Dialect::Postgres), "integer");
        let a = ColumnType::Array { elem: ArrayElem::Int8 };
        assert_eq!(a.sql(Dialect::Postgres), "bigint[]");
    }

    #[test]
    fn innodb_sizes_of_the_mysql_types() {
        let len = |t: ColumnType| t.fixed_len().unwrap();
        assert_eq!(len(ColumnType::Integer { bytes: 1, unsigned: false }), 1);
        assert_eq!(len(ColumnType::Integer { bytes: 3, unsigned: true }), 3);
        assert_eq!(len(ColumnType::Year), 1);
        assert_eq!(len(ColumnType::Enum { members: 255 }), 1);
        assert_eq!(len(ColumnType::Enum { members: 256 }), 2);
        for (m, b) in [(1, 1), (8, 1), (9, 2), (17, 3), (25, 4), (33, 8), (64, 8)] {
            assert_eq!(len(ColumnType::Set { members: m }), b, "SET of {m}");
        }
        assert_eq!(len(ColumnType::Bit { bits: 9 }), 2);
        let t = |kind, fsp| len(ColumnType::Temporal { kind, fsp });
        assert_eq!(t(TemporalKind::DateTime, 3), 7);
        assert_eq!(t(TemporalKind::DateTime, 6), 8);
        assert_eq!(t(TemporalKind::Timestamp, 1), 5);
        assert_eq!(t(TemporalKind::Time, 4), 5);
        assert_eq!(len(ColumnType::Float { double: true }), 8);
        assert!(ColumnType::Blob.is_blob() && ColumnType::Blob.fixed_len().is_none());
    }

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
