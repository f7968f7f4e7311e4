//! SQL column types as keylab's engines need them: how a value of each type is stored by
//! InnoDB (fixed or variable length, maximum byte length, length-byte rules) and how the type
//! is spelled in each SQL dialect.
//!
//! This crate is the bottom of the workspace: the key generators say which column type an id
//! needs, the simulator sizes records from these types, and the server drivers render them as
//! DDL. It knows nothing about keys, pages or servers.
#![deny(missing_docs)]

mod clustered;
mod column_sql;
mod column_type;
mod encode;
pub mod limits;
mod partition;
mod predicate;
mod range;
mod table;
mod value;

pub use clustered::{Clustered, ROW_ID_BYTES, ROW_ID_COLUMN, ROW_ID_INDEX};
pub use column_type::{ArrayElem, ColumnType, PgStorage, TemporalKind};
pub use partition::{
    BoundValue, Partition, PartitionBound, PartitionFn, PartitionMethod, Partitioning,
    TO_DAYS_EPOCH,
};
pub use predicate::{CmpOp, KeyFn, Predicate};
pub use range::{
    date_text, datetime_text, parse_time_text, time_text, ValueRange, DATE_MAX_UNIX_S,
    DATE_MIN_UNIX_S, DAY_S, TIMESTAMP_MAX_UNIX_S, TIMESTAMP_MIN_UNIX_S,
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
    /// The member labels of an `ENUM` or `SET`, in declared order (empty for other types,
    /// and for one whose labels are not known: it is created with labels `m1`, `m2`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
}

impl Column {
    /// A column definition.
    pub fn new(name: impl Into<String>, ty: ColumnType, nullable: bool) -> Self {
        Column { name: name.into(), ty, nullable, labels: Vec::new() }
    }

    /// The column's type as written in `CREATE TABLE` for `dialect`: an `ENUM`/`SET` on
    /// MySQL/MariaDB with its own labels.
    pub fn type_sql(&self, dialect: Dialect) -> String {
        let quoted = || {
            self.labels.iter().map(|l| format!("'{}'", l.replace('\'', "''"))).collect::<Vec<_>>()
        };
        match self.ty {
            ColumnType::Enum { .. } | ColumnType::PgEnum { .. }
                if dialect != Dialect::Postgres && !self.labels.is_empty() =>
            {
                format!("ENUM({})", quoted().join(","))
            }
            ColumnType::Set { .. } if dialect != Dialect::Postgres && !self.labels.is_empty() => {
                format!("SET({})", quoted().join(","))
            }
            ty => ty.sql(dialect),
        }
    }

    /// `name TYPE [NOT NULL]` for `CREATE TABLE`.
    pub fn sql(&self, dialect: Dialect) -> String {
        let null = if self.nullable { "" } else { " NOT NULL" };
        format!("{} {}{}", self.name, self.type_sql(dialect), null)
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
    fn column_rendering() {
        let c =
            Column::new("id", ColumnType::VarChar { chars: 36, charset: Charset::Utf8mb4 }, false);
        assert_eq!(c.sql(Dialect::Mysql), "id VARCHAR(36) CHARACTER SET utf8mb4 NOT NULL");
        let mut e = Column::new("state", ColumnType::Enum { members: 2 }, true);
        assert_eq!(e.sql(Dialect::Mariadb), "state ENUM('m1','m2')");
        e.labels = vec!["on".into(), "it's".into()];
        assert_eq!(e.sql(Dialect::Mariadb), "state ENUM('on','it''s')");
        assert_eq!(e.sql(Dialect::Postgres), "state smallint");
        // A PostgreSQL enum: 4 bytes there; on InnoDB an ENUM of the same labels, noted.
        let mut p = Column::new("mood", ColumnType::PgEnum { members: 2 }, false);
        p.labels = vec!["sad".into(), "ok".into()];
        assert_eq!(p.sql(Dialect::Mariadb), "mood ENUM('sad','ok') NOT NULL");
        assert_eq!(p.ty.fixed_len(), Some(1));
        assert_eq!(p.ty.pg_storage(), crate::PgStorage::Fixed { bytes: 4, align: 4 });
        assert_eq!(p.ty.nearest_note(Dialect::Postgres), None);
        let note = p.ty.nearest_note(Dialect::Mariadb).unwrap();
        assert!(note.starts_with("built on InnoDB as an ENUM of its labels (the member"), "{note}");
    }
}
