//! SQL column types as keylab's engines need them: how a value of each type is stored by
//! InnoDB (fixed or variable length, maximum byte length, length-byte rules) and how the type
//! is spelled in each SQL dialect.
//!
//! This crate is the bottom of the workspace: the key generators say which column type an id
//! needs, the simulator sizes records from these types, and the server drivers render them as
//! DDL. It knows nothing about keys, pages or servers.
#![deny(missing_docs)]

mod clustered;
mod encode;
pub mod limits;
mod range;
mod table;
mod value;

pub use clustered::{Clustered, ROW_ID_BYTES, ROW_ID_COLUMN, ROW_ID_INDEX};
pub use range::{
    date_text, datetime_text, time_text, ValueRange, DATE_MAX_UNIX_S, DATE_MIN_UNIX_S, DAY_S,
    TIMESTAMP_MAX_UNIX_S, TIMESTAMP_MIN_UNIX_S,
};
pub use table::{Index, RowFormat, Table};
pub use value::Value;

use serde::{Deserialize, Serialize};
use std::fmt;

/// The SQL dialect a column definition is rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// MySQL 8.x / 9.x.
    Mysql,
    /// MariaDB 10.x / 11.x.
    Mariadb,
    /// PostgreSQL.
    Postgres,
}

/// A character set, as far as storage is concerned: its maximum bytes per character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Charset {
    /// `utf8mb4`: up to 4 bytes per character (the MySQL/MariaDB default).
    Utf8mb4,
    /// `utf8mb4` with the binary collation `utf8mb4_bin`: compares bytes, so mixed-case ids
    /// (KSUID's base62) sort as the simulator sorts them and never collide by case.
    Utf8mb4Bin,
    /// `utf8mb3`: up to 3 bytes per character.
    Utf8mb3,
    /// `latin1`: one byte per character.
    Latin1,
    /// `ascii`: one byte per character.
    Ascii,
}

impl Charset {
    /// Maximum bytes one character takes (InnoDB's `mbmaxlen`).
    pub fn max_bytes_per_char(self) -> u32 {
        match self {
            Charset::Utf8mb4 | Charset::Utf8mb4Bin => 4,
            Charset::Utf8mb3 => 3,
            Charset::Latin1 | Charset::Ascii => 1,
        }
    }

    /// What follows `CHARACTER SET` in MySQL/MariaDB DDL (with the collation when it is not
    /// the character set's default).
    pub fn sql_name(self) -> &'static str {
        match self {
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb4Bin => "utf8mb4 COLLATE utf8mb4_bin",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Latin1 => "latin1",
            Charset::Ascii => "ascii",
        }
    }
}

/// A column type, with everything InnoDB's record format depends on.
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
    /// `BINARY(n)` (`bytea` on PostgreSQL).
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
    /// `DATE` (3 bytes).
    Date,
    /// `DECIMAL(p,s)` in MySQL's binary format.
    Decimal {
        /// Precision (total digits).
        precision: u32,
        /// Scale (digits after the point).
        scale: u32,
    },
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
        }
    }

    /// Maximum stored length in bytes (declared characters × bytes per character for strings).
    pub fn max_bytes(&self) -> u32 {
        match *self {
            ColumnType::Char { chars, charset } | ColumnType::VarChar { chars, charset } => {
                chars * charset.max_bytes_per_char()
            }
            ColumnType::Text { .. } => 65_535,
            _ => self.fixed_len().unwrap_or(0),
        }
    }

    /// True for BLOB/TEXT-family columns (`DATA_BLOB`).
    pub fn is_blob(&self) -> bool {
        matches!(self, ColumnType::Text { .. })
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

    /// The type as written in `CREATE TABLE` for `dialect`.
    pub fn sql(&self, dialect: Dialect) -> String {
        let pg = dialect == Dialect::Postgres;
        match *self {
            ColumnType::Int => "INT".into(),
            ColumnType::BigInt { unsigned: false } => "BIGINT".into(),
            // PostgreSQL has no unsigned integers; NUMERIC(20) holds every u64.
            ColumnType::BigInt { unsigned: true } if pg => "NUMERIC(20)".into(),
            ColumnType::BigInt { unsigned: true } => "BIGINT UNSIGNED".into(),
            ColumnType::Char { chars, charset } if pg => {
                format!("CHAR({chars}){}", pg_collate(charset))
            }
            ColumnType::VarChar { chars, charset } if pg => {
                format!("VARCHAR({chars}){}", pg_collate(charset))
            }
            ColumnType::Char { chars, charset } => {
                format!("CHAR({chars}) CHARACTER SET {}", charset.sql_name())
            }
            ColumnType::VarChar { chars, charset } => {
                format!("VARCHAR({chars}) CHARACTER SET {}", charset.sql_name())
            }
            ColumnType::Binary { .. } if pg => "BYTEA".into(),
            ColumnType::Binary { bytes } => format!("BINARY({bytes})"),
            ColumnType::Text { .. } if pg => "TEXT".into(),
            ColumnType::Text { charset } => format!("TEXT CHARACTER SET {}", charset.sql_name()),
            ColumnType::Timestamp if pg => "TIMESTAMP(0)".into(),
            ColumnType::Timestamp => "TIMESTAMP NULL".into(),
            ColumnType::DateTime if pg => "TIMESTAMP(0)".into(),
            ColumnType::DateTime => "DATETIME".into(),
            ColumnType::Date => "DATE".into(),
            ColumnType::Decimal { precision, scale } => format!("DECIMAL({precision},{scale})"),
        }
    }
}

/// PostgreSQL's byte-order collation for the binary-collated character set.
fn pg_collate(charset: Charset) -> &'static str {
    match charset {
        Charset::Utf8mb4Bin => " COLLATE \"C\"",
        _ => "",
    }
}

/// Bytes of MySQL's binary DECIMAL: 4 bytes per 9 digits, plus the leftover digits' bytes, on
/// each side of the point (`decimal_bin_size`).
fn decimal_bin_len(precision: u32, scale: u32) -> u32 {
    const LEFTOVER: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let int_digits = precision.saturating_sub(scale);
    let side = |d: u32| (d / 9) * 4 + LEFTOVER[(d % 9) as usize];
    side(int_digits) + side(scale)
}

/// A column of a table.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Column {
    /// Column name.
    pub name: String,
    /// Column type.
    #[serde(flatten)]
    pub ty: ColumnType,
    /// True when the column accepts NULL (gives it a bit in the record's NULL bitmap).
    pub nullable: bool,
}

impl Column {
    /// A column definition.
    pub fn new(name: impl Into<String>, ty: ColumnType, nullable: bool) -> Self {
        Column { name: name.into(), ty, nullable }
    }

    /// `name TYPE [NOT NULL]` for `CREATE TABLE`.
    pub fn sql(&self, dialect: Dialect) -> String {
        let null = if self.nullable { "" } else { " NOT NULL" };
        format!("{} {}{}", self.name, self.ty.sql(dialect), null)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Mysql => "mysql",
            Dialect::Mariadb => "mariadb",
            Dialect::Postgres => "postgres",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let c =
            Column::new("id", ColumnType::VarChar { chars: 36, charset: Charset::Utf8mb4 }, false);
        assert_eq!(c.sql(Dialect::Mysql), "id VARCHAR(36) CHARACTER SET utf8mb4 NOT NULL");
    }
}
