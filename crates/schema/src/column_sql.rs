//! How each [`ColumnType`] is written in `CREATE TABLE` for MySQL/MariaDB and PostgreSQL,
//! and what differs where an engine has no such type and keylab builds the nearest one
//! ([`ColumnType::nearest_note`]).

use crate::column_type::set_pg_bytes;
use crate::{Charset, ColumnType, Dialect, TemporalKind};

impl ColumnType {
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
            _ if pg => self.pg_sql(),
            _ => self.mysql_sql(),
        }
    }

    /// The PostgreSQL type of one of the types past `Decimal` (a MySQL-only type as its
    /// nearest PostgreSQL type).
    pub fn pg_sql(&self) -> String {
        match *self {
            ColumnType::Integer { bytes: 1, .. }
            | ColumnType::Integer { bytes: 2, unsigned: false }
            | ColumnType::Year
            | ColumnType::Enum { .. } => "smallint".into(),
            ColumnType::Integer { bytes: 2 | 3, .. }
            | ColumnType::Integer { bytes: 4, unsigned: false } => "integer".into(),
            ColumnType::Integer { .. } => "bigint".into(),
            ColumnType::Float { double: false } => "real".into(),
            // `double precision` as one word (a cast takes the type's first word).
            ColumnType::Float { double: true } => "float8".into(),
            ColumnType::Bool => "boolean".into(),
            ColumnType::Set { members } => match set_pg_bytes(members) {
                2 => "smallint".into(),
                4 => "integer".into(),
                _ => "bigint".into(),
            },
            ColumnType::Bit { bits } => format!("bit({bits})"),
            ColumnType::Temporal { kind, fsp } => match kind {
                TemporalKind::DateTime | TemporalKind::Timestamp => format!("timestamp({fsp})"),
                TemporalKind::TimestampTz => format!("timestamptz({fsp})"),
                TemporalKind::Time => format!("time({fsp})"),
                TemporalKind::TimeTz => format!("timetz({fsp})"),
                TemporalKind::Interval => "interval".into(),
            },
            ColumnType::VarBinary { .. } | ColumnType::Blob | ColumnType::Opaque => "bytea".into(),
            // The type's name is the server's own (keylab's PostgreSQL names it per table
            // and column, `keylab_pg_server::sql::enum_type_name`).
            ColumnType::PgEnum { .. } => "enum".into(),
            ColumnType::Json { binary: false } => "json".into(),
            ColumnType::Json { binary: true } => "jsonb".into(),
            ColumnType::Inet { cidr: false } => "inet".into(),
            ColumnType::Inet { cidr: true } => "cidr".into(),
            ColumnType::MacAddr { bytes: 8 } => "macaddr8".into(),
            ColumnType::MacAddr { .. } => "macaddr".into(),
            ColumnType::Numeric => "numeric".into(),
            ColumnType::Money => "money".into(),
            ColumnType::TsVector => "tsvector".into(),
            ColumnType::Array { elem } => format!("{}[]", elem.pg_name()),
            other => other.sql(Dialect::Postgres),
        }
    }

    /// The MySQL/MariaDB type of one of the types past `Decimal` (a PostgreSQL-only type as
    /// its nearest InnoDB type).
    pub fn mysql_sql(&self) -> String {
        let unsigned = |u: bool| if u { " UNSIGNED" } else { "" };
        match *self {
            ColumnType::Integer { bytes, unsigned: u } => {
                let name = match bytes {
                    1 => "TINYINT",
                    2 => "SMALLINT",
                    3 => "MEDIUMINT",
                    _ => "INT",
                };
                format!("{name}{}", unsigned(u))
            }
            ColumnType::Float { double: false } => "FLOAT".into(),
            ColumnType::Float { double: true } => "DOUBLE".into(),
            ColumnType::Bool => "TINYINT(1)".into(),
            ColumnType::Year => "YEAR".into(),
            // Labels live on the column (`Column::sql`); the type alone numbers them.
            ColumnType::Enum { members } | ColumnType::PgEnum { members } => {
                format!("ENUM({})", numbered_labels(u32::from(members)))
            }
            ColumnType::Set { members } => format!("SET({})", numbered_labels(u32::from(members))),
            ColumnType::Bit { bits } => format!("BIT({bits})"),
            ColumnType::Temporal { kind, fsp } => match kind {
                TemporalKind::DateTime => format!("DATETIME({fsp})"),
                TemporalKind::Timestamp | TemporalKind::TimestampTz => {
                    format!("TIMESTAMP({fsp}) NULL")
                }
                TemporalKind::Time | TemporalKind::TimeTz => format!("TIME({fsp})"),
                TemporalKind::Interval => "BIGINT".into(),
            },
            ColumnType::VarBinary { bytes } => format!("VARBINARY({bytes})"),
            ColumnType::Blob | ColumnType::Opaque => "BLOB".into(),
            ColumnType::Json { .. } | ColumnType::Array { .. } => {
                "LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin".into()
            }
            ColumnType::TsVector => "TEXT CHARACTER SET utf8mb4".into(),
            ColumnType::Inet { .. } => "VARBINARY(16)".into(),
            ColumnType::MacAddr { bytes } => format!("BINARY({bytes})"),
            ColumnType::Numeric => "DECIMAL(65,30)".into(),
            ColumnType::Money => "BIGINT".into(),
            other => other.sql(Dialect::Mariadb),
        }
    }

    /// What differs when this type is built on an engine of `dialect` that lacks it (the
    /// nearest type keylab creates there), `None` when the engine has the type itself.
    pub fn nearest_note(&self, dialect: Dialect) -> Option<String> {
        let pg = dialect == Dialect::Postgres;
        let built = |what: &str, why: &str| Some(format!("{what} ({why})"));
        let on_pg = |why: &str| built(&format!("built on PostgreSQL as {}", self.pg_sql()), why);
        let on_innodb = |why: &str| built(&format!("built on InnoDB as {}", self.mysql_sql()), why);
        match *self {
            ColumnType::Integer { bytes: 1, .. } if pg => on_pg("2 bytes, not 1"),
            ColumnType::Integer { bytes: 3, .. } if pg => on_pg("4 bytes, not 3"),
            ColumnType::Integer { bytes: 4, unsigned: true } if pg => {
                on_pg("8 bytes: PostgreSQL has no unsigned integers")
            }
            ColumnType::Integer { bytes: 2, unsigned: true } if pg => {
                on_pg("4 bytes: PostgreSQL has no unsigned integers")
            }
            ColumnType::Year if pg => on_pg("2 bytes, not 1"),
            ColumnType::Enum { .. } if pg => {
                on_pg("the member number, 2 bytes; a PostgreSQL enum would take 4")
            }
            ColumnType::Set { .. } if pg => on_pg("the members' bit mask"),
            ColumnType::Temporal {
                kind: TemporalKind::DateTime | TemporalKind::Timestamp, ..
            } if pg => on_pg("8 bytes, not 5-8"),
            ColumnType::Temporal { kind: TemporalKind::Time, .. } if pg => {
                on_pg("8 bytes, not 3-6")
            }
            ColumnType::VarBinary { .. } if pg => on_pg("a varlena: no declared maximum"),
            ColumnType::Bool if !pg => on_innodb("1 byte, as PostgreSQL's"),
            ColumnType::PgEnum { members } if !pg => built(
                "built on InnoDB as an ENUM of its labels",
                if members < 256 {
                    "the member number, 1 byte, not the label's 4-byte OID"
                } else {
                    "the member number, 2 bytes, not the label's 4-byte OID"
                },
            ),
            ColumnType::Json { binary } if !pg => on_innodb(if binary {
                "the JSON text, not jsonb's binary form"
            } else {
                "the JSON text, as json stores it"
            }),
            ColumnType::Array { .. } if !pg => {
                on_innodb("the elements as JSON text, not PostgreSQL's binary array")
            }
            ColumnType::Inet { .. } if !pg => on_innodb("4 address bytes, no family or netmask"),
            ColumnType::MacAddr { .. } if !pg => on_innodb("the same bytes"),
            ColumnType::Numeric if !pg => on_innodb("30 bytes fixed, not a varlena of the digits"),
            ColumnType::Money if !pg => on_innodb("8 bytes, as money's"),
            ColumnType::TsVector if !pg => on_innodb("the lexemes as text"),
            ColumnType::Temporal { kind: TemporalKind::TimestampTz, .. } if !pg => {
                on_innodb("TIMESTAMP keeps UTC, as timestamptz does")
            }
            ColumnType::Temporal { kind: TemporalKind::TimeTz, .. } if !pg => {
                on_innodb("no zone offset: 3-6 bytes, not 12")
            }
            ColumnType::Temporal { kind: TemporalKind::Interval, .. } if !pg => {
                on_innodb("whole seconds, 8 bytes, not 16")
            }
            ColumnType::BigInt { unsigned: true } if pg => {
                on_pg("a varlena: PostgreSQL has no unsigned integers")
            }
            _ => None,
        }
    }
}

/// `'m1','m2',...` for a type without its labels.
fn numbered_labels(members: u32) -> String {
    (1..=members.max(1)).map(|i| format!("'m{i}'")).collect::<Vec<_>>().join(",")
}

/// PostgreSQL's byte-order collation for the binary-collated character set.
fn pg_collate(charset: Charset) -> &'static str {
    match charset {
        Charset::Utf8mb4Bin => " COLLATE \"C\"",
        _ => "",
    }
}
