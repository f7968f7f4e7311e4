//! A partitioned table's partitioning as declared: the method (RANGE, LIST, HASH, KEY), the
//! partition key (columns, or one column under `YEAR()`, `TO_DAYS()` or `UNIX_TIMESTAMP()`),
//! and each partition's bound; written back as each dialect declares it.
//!
//! Every partition is its own set of B-trees on both servers (InnoDB: one tablespace per
//! partition, `ha_partition` over one handler each; PostgreSQL: each partition a relation
//! with its own heap and indexes). This module holds the declaration only: which partition a
//! row goes to is the caller's (routing needs the servers' hash functions for HASH and KEY).

use crate::{Column, Dialect, Value};

/// How rows are assigned to partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartitionMethod {
    /// By ranges of the key (MySQL `VALUES LESS THAN`, PostgreSQL `FROM ... TO`).
    Range,
    /// By lists of key values.
    List,
    /// By a hash of an integer key (MySQL: the value modulo the partitions; PostgreSQL: the
    /// type's extended hash modulo the modulus).
    Hash,
    /// MySQL/MariaDB `KEY`: the server's own hash of the columns.
    Key,
}

impl PartitionMethod {
    /// The SQL word.
    pub fn sql(self) -> &'static str {
        match self {
            PartitionMethod::Range => "RANGE",
            PartitionMethod::List => "LIST",
            PartitionMethod::Hash => "HASH",
            PartitionMethod::Key => "KEY",
        }
    }
}

/// What a MySQL partition expression computes from its one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartitionFn {
    /// The column itself.
    Column,
    /// `YEAR(col)`.
    Year,
    /// `TO_DAYS(col)`: days since year 0 (`TO_DAYS('1970-01-01')` is 719,528).
    ToDays,
    /// `UNIX_TIMESTAMP(col)`.
    UnixTimestamp,
}

/// Days `TO_DAYS` gives 1970-01-01.
pub const TO_DAYS_EPOCH: i64 = 719_528;

/// One end of a range, or one value of a list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BoundValue {
    /// PostgreSQL `MINVALUE`.
    MinValue,
    /// `MAXVALUE`.
    MaxValue,
    /// A value, as the key's column (or function) gives it.
    Value(Value),
}

/// Which rows a partition holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PartitionBound {
    /// MySQL RANGE: keys below these (the partitions in order, each above the previous).
    LessThan(Vec<BoundValue>),
    /// PostgreSQL RANGE: `from <= key < to`.
    FromTo(Vec<BoundValue>, Vec<BoundValue>),
    /// LIST: these keys (one tuple per value).
    In(Vec<Vec<BoundValue>>),
    /// LIST (PostgreSQL `DEFAULT`, MySQL `VALUES IN (DEFAULT)` of MariaDB): every other key.
    Default,
    /// PostgreSQL HASH: `FOR VALUES WITH (MODULUS m, REMAINDER r)`.
    Remainder {
        /// The modulus.
        modulus: u32,
        /// The remainder.
        remainder: u32,
    },
    /// MySQL HASH/KEY: the partition's place among the table's.
    Nth,
}

/// One partition: its name and bound.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Partition {
    /// Its name (MySQL: `p0`; PostgreSQL: the partition table's name).
    pub name: String,
    /// The rows it holds.
    pub bound: PartitionBound,
}

/// A table's partitioning.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Partitioning {
    /// The method.
    pub method: PartitionMethod,
    /// The key columns, positions in the table's columns.
    pub columns: Vec<usize>,
    /// MySQL `RANGE COLUMNS` / `LIST COLUMNS` (the bounds are the columns' own values).
    pub columns_form: bool,
    /// The function of the one key column (MySQL), [`PartitionFn::Column`] otherwise.
    pub function: PartitionFn,
    /// The partitions in declared order.
    pub partitions: Vec<Partition>,
}

impl PartitionFn {
    fn sql(self, column: &str) -> String {
        match self {
            PartitionFn::Column => column.to_string(),
            PartitionFn::Year => format!("YEAR({column})"),
            PartitionFn::ToDays => format!("TO_DAYS({column})"),
            PartitionFn::UnixTimestamp => format!("UNIX_TIMESTAMP({column})"),
        }
    }

    /// The function's value of `v` (a time gives an integer; `None` for a value it does not
    /// take).
    pub fn apply(self, v: &Value) -> Option<Value> {
        match (self, v) {
            (PartitionFn::Column, v) => Some(v.clone()),
            (PartitionFn::Year, Value::Time(s)) => {
                let t = time::OffsetDateTime::from_unix_timestamp(*s).ok()?;
                Some(Value::Int(i64::from(t.year())))
            }
            (PartitionFn::ToDays, Value::Time(s)) => {
                Some(Value::Int(s.div_euclid(crate::DAY_S) + TO_DAYS_EPOCH))
            }
            (PartitionFn::UnixTimestamp, Value::Time(s)) => Some(Value::Int(*s)),
            _ => None,
        }
    }
}

/// A bound value as a SQL literal of column `col`'s type.
fn literal(v: &BoundValue, col: &Column, function: PartitionFn) -> String {
    match v {
        BoundValue::MinValue => "MINVALUE".into(),
        BoundValue::MaxValue => "MAXVALUE".into(),
        BoundValue::Value(Value::Null) => "NULL".into(),
        BoundValue::Value(Value::Int(n)) => n.to_string(),
        BoundValue::Value(Value::UInt(n)) => n.to_string(),
        BoundValue::Value(Value::Time(s)) if function == PartitionFn::Column => {
            let text = match col.ty {
                crate::ColumnType::Date => crate::date_text(*s),
                // UTC, whatever the session's time zone.
                crate::ColumnType::Temporal { kind: crate::TemporalKind::TimestampTz, .. } => {
                    crate::datetime_text(*s).map(|t| t + "+00")
                }
                _ => crate::datetime_text(*s),
            };
            format!("'{}'", text.unwrap_or_default())
        }
        BoundValue::Value(Value::Time(s)) => s.to_string(),
        BoundValue::Value(Value::Bytes(b)) => {
            format!("'{}'", String::from_utf8_lossy(b).replace('\'', "''"))
        }
    }
}

impl Partitioning {
    /// The key as written after `PARTITION BY METHOD`: `COLUMNS(a, b)`, `(YEAR(d))`, `(a)`.
    fn key_sql(&self, columns: &[Column], dialect: Dialect) -> String {
        let names: Vec<&str> = self.columns.iter().map(|&c| columns[c].name.as_str()).collect();
        if dialect == Dialect::Postgres {
            return format!("({})", names.join(", "));
        }
        if self.columns_form {
            return format!(" COLUMNS({})", names.join(", "));
        }
        match names.as_slice() {
            [one] => format!("({})", self.function.sql(one)),
            _ => format!("({})", names.join(", ")),
        }
    }

    fn tuple(&self, values: &[BoundValue], columns: &[Column]) -> String {
        let parts: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let col = &columns[self.columns[i.min(self.columns.len() - 1)]];
                literal(v, col, self.function)
            })
            .collect();
        parts.join(", ")
    }

    /// MySQL/MariaDB's clause after the table's options: `PARTITION BY RANGE (YEAR(d))
    /// (PARTITION p0 VALUES LESS THAN (2020), ...)`.
    pub fn mysql_clause(&self, columns: &[Column]) -> String {
        let key = self.key_sql(columns, Dialect::Mariadb);
        let mut sql = format!("PARTITION BY {}{key}", self.method.sql());
        let parts: Vec<String> = self
            .partitions
            .iter()
            .map(|p| {
                let bound = match &p.bound {
                    PartitionBound::LessThan(v) => {
                        if v == &[BoundValue::MaxValue] && !self.columns_form {
                            "VALUES LESS THAN MAXVALUE".to_string()
                        } else {
                            format!("VALUES LESS THAN ({})", self.tuple(v, columns))
                        }
                    }
                    PartitionBound::In(list) => {
                        let values: Vec<String> = list
                            .iter()
                            .map(|t| match t.as_slice() {
                                [one] => self.tuple(std::slice::from_ref(one), columns),
                                _ => format!("({})", self.tuple(t, columns)),
                            })
                            .collect();
                        format!("VALUES IN ({})", values.join(", "))
                    }
                    PartitionBound::Default => "DEFAULT".into(),
                    _ => return format!("PARTITION {}", p.name),
                };
                format!("PARTITION {} {bound}", p.name)
            })
            .collect();
        sql.push_str(&format!(" ({})", parts.join(", ")));
        sql
    }

    /// PostgreSQL's clause of the parent: `PARTITION BY RANGE (d)`.
    pub fn postgres_clause(&self, columns: &[Column]) -> String {
        format!("PARTITION BY {} {}", self.method.sql(), self.key_sql(columns, Dialect::Postgres))
    }

    /// PostgreSQL's bound of partition `p`: `FOR VALUES FROM (...) TO (...)`, `DEFAULT`.
    pub fn postgres_bound(&self, p: &Partition, columns: &[Column]) -> String {
        match &p.bound {
            PartitionBound::FromTo(from, to) => format!(
                "FOR VALUES FROM ({}) TO ({})",
                self.tuple(from, columns),
                self.tuple(to, columns)
            ),
            PartitionBound::In(list) => {
                let values: Vec<String> = list.iter().map(|t| self.tuple(t, columns)).collect();
                format!("FOR VALUES IN ({})", values.join(", "))
            }
            PartitionBound::Remainder { modulus, remainder } => {
                format!("FOR VALUES WITH (MODULUS {modulus}, REMAINDER {remainder})")
            }
            _ => "DEFAULT".into(),
        }
    }

    /// Partition `k` in a report: its name and bound (`p2022_01 [2022-01-01 00:00:00,
    /// 2022-02-01 00:00:00)`, `p0 < (100)`, `pe IN ('eu', 'uk')`, `p1 hash 2 of 4`).
    pub fn describe(&self, k: usize, columns: &[Column]) -> String {
        let Some(p) = self.partitions.get(k) else { return String::new() };
        let bound = match &p.bound {
            PartitionBound::LessThan(v) => format!("< ({})", self.tuple(v, columns)),
            PartitionBound::FromTo(a, b) => {
                format!("[{}, {})", self.tuple(a, columns), self.tuple(b, columns))
            }
            PartitionBound::In(list) => {
                let values: Vec<String> = list.iter().map(|t| self.tuple(t, columns)).collect();
                format!("IN ({})", values.join(", "))
            }
            PartitionBound::Default => "DEFAULT".into(),
            PartitionBound::Remainder { modulus, remainder } => {
                format!("hash remainder {remainder} of {modulus}")
            }
            PartitionBound::Nth => format!("hash {k} of {}", self.partitions.len()),
        };
        format!("{} {bound}", p.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ColumnType;

    #[test]
    fn each_dialect_declares_the_partitions_as_read() {
        let columns = vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }, false),
            Column::new("d", ColumnType::Date, false),
        ];
        let day = |s: &str| BoundValue::Value(Value::Time(crate::parse_time_text(s).unwrap()));
        let p = Partitioning {
            method: PartitionMethod::Range,
            columns: vec![1],
            columns_form: false,
            function: PartitionFn::Column,
            partitions: vec![
                Partition {
                    name: "p0".into(),
                    bound: PartitionBound::LessThan(vec![day("2024-01-01")]),
                },
                Partition {
                    name: "pmax".into(),
                    bound: PartitionBound::LessThan(vec![BoundValue::MaxValue]),
                },
            ],
        };
        assert_eq!(
            p.mysql_clause(&columns),
            "PARTITION BY RANGE(d) (PARTITION p0 VALUES LESS THAN ('2024-01-01'), PARTITION pmax \
             VALUES LESS THAN MAXVALUE)"
        );
        assert_eq!(p.describe(0, &columns), "p0 < ('2024-01-01')");
        let q = Partition {
            name: "y".into(),
            bound: PartitionBound::FromTo(vec![day("2024-01-01")], vec![day("2025-01-01")]),
        };
        assert_eq!(
            p.postgres_bound(&q, &columns),
            "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')"
        );
        assert_eq!(p.postgres_clause(&columns), "PARTITION BY RANGE (d)");
    }
}
