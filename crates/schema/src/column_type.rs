//! [`ColumnType`]: how a value of each SQL type is stored by InnoDB (fixed or variable
//! length, maximum byte length) and by PostgreSQL (`typlen`/`typalign` from `pg_type`, or a
//! varlena), and how the type is spelled in each dialect. The types keylab's own scenarios
//! use come first; the others are read from users' DDL by `keylab advise`, each built as
//! declared where the engine has the type and as the nearest type where it has not (the DDL
//! reader says so in a note). PostgreSQL's storage of each type is in `column_type/pg.rs`.

mod pg;

use crate::Charset;
pub(crate) use pg::set_pg_bytes;
pub use pg::PgStorage;
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
}
