//! `keylab advise` on a partitioned table: which partition a generated row goes to (the
//! servers' routing), the partition key's values made to fall in the declared partitions,
//! and the candidate keys made valid for the servers (a primary key must hold the
//! partitioning columns). Running the partitions on a model is `sim.rs`'s.
//!
//! RANGE and LIST route exactly as the servers do (MariaDB `get_partition_id_range` /
//! `get_partition_id_list` in sql/sql_partition.cc; PostgreSQL `get_partition_for_tuple` in
//! src/backend/executor/execPartition.c). MySQL HASH is the value modulo the partitions, and
//! KEY MariaDB's key hash (`keylab_core::key_shard`); PostgreSQL HASH uses the type's
//! extended hash with a seed (`compute_partition_hash_value`), which keylab does not
//! reproduce: it routes by the value modulo the modulus and says so.

use super::rows::AdviseRows;
use keylab_core::key_shard;
use keylab_core::Row;
use keylab_schema::{
    BoundValue, Charset, ColumnType, PartitionBound, PartitionMethod, Table, Value,
};
use std::cmp::Ordering;

/// The partition `row` of `table` goes to, `None` when it fits none (the servers refuse
/// such a row).
pub fn route(table: &Table, row: &[Value]) -> Option<usize> {
    let p = table.partitioning.as_ref()?;
    let key: Vec<Value> =
        p.columns.iter().map(|&c| p.function.apply(&row[c]).unwrap_or(Value::Null)).collect();
    let n = p.partitions.len();
    let default = p.partitions.iter().position(|q| q.bound == PartitionBound::Default);
    match p.method {
        PartitionMethod::Range => p
            .partitions
            .iter()
            .position(|q| match &q.bound {
                PartitionBound::LessThan(b) => cmp_tuple(&key, b) == Ordering::Less,
                PartitionBound::FromTo(from, to) => {
                    !key.iter().any(Value::is_null)
                        && cmp_tuple(&key, from) != Ordering::Less
                        && cmp_tuple(&key, to) == Ordering::Less
                }
                _ => false,
            })
            .or(default),
        PartitionMethod::List => p
            .partitions
            .iter()
            .position(|q| match &q.bound {
                PartitionBound::In(list) => {
                    list.iter().any(|t| cmp_tuple(&key, t) == Ordering::Equal)
                }
                _ => false,
            })
            .or(default),
        PartitionMethod::Hash => {
            let v = int_of(key.first()?)?;
            match p.partitions.first().map(|q| &q.bound) {
                Some(PartitionBound::Remainder { .. }) => p.partitions.iter().position(|q| {
                    matches!(q.bound, PartitionBound::Remainder { modulus, remainder }
                        if v.rem_euclid(i128::from(modulus)) == i128::from(remainder))
                }),
                // MariaDB's get_part_id_hash: the value modulo the partitions, made positive.
                _ => Some((v % n as i128).unsigned_abs() as usize),
            }
        }
        PartitionMethod::Key => match p.columns.as_slice() {
            [c] => key_shard(&row[*c], &table.columns[*c].ty, n),
            _ => None,
        },
    }
}

pub(super) fn int_of(v: &Value) -> Option<i128> {
    match *v {
        Value::Int(n) | Value::Time(n) => Some(i128::from(n)),
        Value::UInt(n) => Some(i128::from(n)),
        _ => None,
    }
}

fn cmp_value(a: &Value, b: &Value) -> Ordering {
    match (int_of(a), int_of(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

/// `key` against a bound tuple, column by column (MAXVALUE above every value, MINVALUE
/// below; a shorter bound compares on its columns).
fn cmp_tuple(key: &[Value], bound: &[BoundValue]) -> Ordering {
    for (k, b) in key.iter().zip(bound) {
        let o = match b {
            BoundValue::MaxValue => return Ordering::Less,
            BoundValue::MinValue => return Ordering::Greater,
            BoundValue::Value(v) => cmp_value(k, v),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Why keylab cannot route the rows of `table` at all (KEY partitioning on columns whose
/// server hash keylab does not reproduce), for a refusal.
pub fn unroutable(table: &Table) -> Option<String> {
    let p = table.partitioning.as_ref()?;
    if p.method != PartitionMethod::Key {
        return None;
    }
    let hashed = match p.columns.as_slice() {
        [c] => matches!(
            table.columns[*c].ty,
            ColumnType::Int
                | ColumnType::BigInt { .. }
                | ColumnType::Binary { .. }
                | ColumnType::Char { charset: Charset::Utf8mb4 | Charset::Utf8mb4Bin, .. }
                | ColumnType::VarChar { charset: Charset::Utf8mb4 | Charset::Utf8mb4Bin, .. }
        ),
        _ => false,
    };
    (!hashed).then(|| {
        "PARTITION BY KEY is routed with MariaDB's key hash for one INT, BIGINT, BINARY or \
         utf8mb4 CHAR/VARCHAR column (keylab_core::key_shard); this key's hash is not \
         reproduced; valid: such a column, or RANGE, LIST or HASH partitioning"
            .to_string()
    })
}

/// Why rows of `table` cannot be routed as the server routes them, for a note.
pub fn routing_note(table: &Table) -> Option<String> {
    let p = table.partitioning.as_ref()?;
    let remainder =
        p.partitions.iter().any(|q| matches!(q.bound, PartitionBound::Remainder { .. }));
    (p.method == PartitionMethod::Hash && remainder).then(|| {
        "PostgreSQL HASH partitions: rows are routed by the key modulo the modulus, not by \
         PostgreSQL's seeded hash of the type (compute_partition_hash_value), so which rows \
         share a partition differs from the server's; each partition's size is alike"
            .to_string()
    })
}

/// Makes candidate `table` (its key `key` just put in place) valid for the servers: both
/// refuse a primary key without every partitioning column (MariaDB error 1503, PostgreSQL
/// "unique constraint on partitioned table must include all partitioning columns"), so the
/// missing ones are appended to the key; the key then is composite, so its ids are sent
/// rather than assigned by the server. `Err` when the candidate cannot be: it changes the
/// type of a partitioning column whose bounds or hash need the old one.
pub fn fit_candidate(table: &mut Table, key: &[usize]) -> Result<Option<String>, String> {
    let Some(p) = table.partitioning.clone() else { return Ok(None) };
    if let Some(&k) = key.iter().find(|k| p.columns.contains(k)) {
        let int = matches!(table.columns[k].ty, ColumnType::Int | ColumnType::BigInt { .. });
        let keeps = p.method == PartitionMethod::Key || (p.method == PartitionMethod::Hash && int);
        if !keeps {
            return Err(format!(
                "its key replaces partitioning column `{}`, whose {} bounds are of the \
                 current type",
                table.columns[k].name,
                p.method.sql()
            ));
        }
    }
    let missing: Vec<usize> =
        p.columns.iter().copied().filter(|c| !table.primary_key.contains(c)).collect();
    if missing.is_empty() {
        return Ok(None);
    }
    table.primary_key.extend(&missing);
    table.auto_increment = false;
    let names: Vec<&str> = missing.iter().map(|&c| table.columns[c].name.as_str()).collect();
    Ok(Some(format!(
        "partitioned table: each candidate's primary key ends with the partitioning column(s) \
         {} (both servers refuse a primary key without them), and its ids are sent, not \
         assigned by the server",
        names.join(", ")
    )))
}

/// A candidate's rows with the rows that fit no partition left out (the servers refuse
/// them), each with its partition.
pub struct Routed<'a> {
    gen: AdviseRows,
    table: &'a Table,
    skipped: u64,
    limit: u64,
}

impl<'a> Routed<'a> {
    /// The rows of `gen` for `table`, of which `rows` are wanted.
    pub fn new(gen: AdviseRows, table: &'a Table, rows: u64) -> Self {
        Routed { gen, table, skipped: 0, limit: rows.saturating_mul(4).max(10_000) }
    }

    /// The next row that fits a partition into `row`, and its partition (`None` for a table
    /// without partitions). An error when too many rows fit none: the partitions leave no
    /// room for the values keylab makes.
    pub fn fill(&mut self, row: &mut Row) -> Result<Option<usize>, String> {
        loop {
            self.gen.fill(row);
            if self.table.partitioning.is_none() {
                return Ok(None);
            }
            if let Some(k) = route(self.table, row) {
                return Ok(Some(k));
            }
            self.skipped += 1;
            if self.skipped > self.limit {
                return Err(format!(
                    "{} generated rows fit no partition of table `{}`: its partitions leave no \
                     room for the values keylab makes for the partition key (rows that fit no \
                     partition are not loaded); give partitions that cover the key's values",
                    self.skipped, self.table.name
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::advise::rows::{plan_partition_key, ColumnValues};
    use keylab_schema::{Column, Partition, RowFormat};
    use keylab_schema::{PartitionFn, Partitioning};

    fn table(method: PartitionMethod, parts: Vec<PartitionBound>) -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("id", ColumnType::BigInt { unsigned: false }, false),
                Column::new("d", ColumnType::DateTime, false),
            ],
            primary_key: vec![0],
            auto_increment: false,
            indexes: Vec::new(),
            row_format: RowFormat::Dynamic,
            partitioning: Some(Partitioning {
                method,
                columns: vec![1],
                columns_form: false,
                function: PartitionFn::Column,
                partitions: parts
                    .into_iter()
                    .enumerate()
                    .map(|(k, bound)| Partition { name: format!("p{k}"), bound })
                    .collect(),
            }),
        }
    }

    fn v(s: i64) -> BoundValue {
        BoundValue::Value(Value::Time(s))
    }

    #[test]
    fn range_rows_go_below_their_bound_and_from_to_is_half_open() {
        let t = table(
            PartitionMethod::Range,
            vec![
                PartitionBound::LessThan(vec![v(100)]),
                PartitionBound::LessThan(vec![BoundValue::MaxValue]),
            ],
        );
        assert_eq!(route(&t, &[Value::Int(1), Value::Time(99)]), Some(0));
        assert_eq!(route(&t, &[Value::Int(1), Value::Time(100)]), Some(1));
        let t = table(
            PartitionMethod::Range,
            vec![
                PartitionBound::FromTo(vec![v(0)], vec![v(100)]),
                PartitionBound::FromTo(vec![v(200)], vec![v(300)]),
            ],
        );
        assert_eq!(route(&t, &[Value::Int(1), Value::Time(0)]), Some(0));
        assert_eq!(route(&t, &[Value::Int(1), Value::Time(150)]), None);
        assert_eq!(route(&t, &[Value::Int(1), Value::Time(299)]), Some(1));
        let mut plan = vec![ColumnValues::Key, ColumnValues::Time { date: false, step_s: 1 }];
        assert!(plan_partition_key(&t, 300, &mut plan).is_some());
        assert_eq!(
            plan[1],
            ColumnValues::Spread { lo: 0, hi: 300, rows: 300, time: true, date: false }
        );
    }

    #[test]
    fn list_and_default() {
        let mut t = table(
            PartitionMethod::List,
            vec![
                PartitionBound::In(vec![vec![BoundValue::Value(Value::Int(1))]]),
                PartitionBound::Default,
            ],
        );
        t.columns[1] = Column::new("r", ColumnType::Int, false);
        assert_eq!(route(&t, &[Value::Int(0), Value::Int(1)]), Some(0));
        assert_eq!(route(&t, &[Value::Int(0), Value::Int(7)]), Some(1));
    }

    #[test]
    fn a_candidate_key_takes_the_partitioning_columns() {
        let mut t = table(
            PartitionMethod::Range,
            vec![PartitionBound::LessThan(vec![BoundValue::MaxValue])],
        );
        t.auto_increment = true;
        let note = fit_candidate(&mut t, &[0]).unwrap();
        assert!(note.is_some());
        assert_eq!(t.primary_key, [0, 1]);
        assert!(!t.auto_increment);
        assert!(fit_candidate(&mut t.clone(), &[1]).is_err());
    }
}
