//! A partitioning as written resolved against its table's columns: key columns by name,
//! each bound literal as a value of its column (or of the key function), each partition's
//! bound checked against the method. A refusal names what cannot be modelled and where.

use super::{RawBound, RawPartitioning, RawValue, Refusal};
use crate::Position;
use keylab_schema::{
    parse_time_text, BoundValue, Column, ColumnType, Partition, PartitionBound, PartitionFn,
    PartitionMethod, Partitioning, Value, DAY_S, TO_DAYS_EPOCH,
};

fn int_type(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Int | ColumnType::BigInt { .. } | ColumnType::Integer { .. })
}

/// A bound literal as a value of the key (column `col` under `function`).
fn value_of(
    v: &RawValue,
    col: &Column,
    function: PartitionFn,
    at: Position,
) -> Result<BoundValue, Refusal> {
    let bad = |what: String| (at, what);
    let number = |n: &str| {
        n.parse::<i64>()
            .map_err(|_| bad(format!("bound `{n}` is not an integer (column `{}`)", col.name)))
    };
    let time = |s: &str| {
        parse_time_text(s).ok_or_else(|| {
            bad(format!("bound '{s}' is not a date or time (column `{}`)", col.name))
        })
    };
    Ok(BoundValue::Value(match v {
        RawValue::Min => return Ok(BoundValue::MinValue),
        RawValue::Max => return Ok(BoundValue::MaxValue),
        RawValue::Null => Value::Null,
        RawValue::Call(f, inner) => {
            let RawValue::Text(s) = inner.as_ref() else {
                return Err(bad(format!("{f}(...) of something else than a quoted time")));
            };
            let s = time(s)?;
            match f.as_str() {
                "TO_DAYS" => Value::Int(s.div_euclid(DAY_S) + TO_DAYS_EPOCH),
                "UNIX_TIMESTAMP" => Value::Int(s),
                "YEAR" => PartitionFn::Year.apply(&Value::Time(s)).unwrap_or(Value::Null),
                _ => return Err(bad(format!("function {f}(...) in a bound is not read; valid: TO_DAYS, UNIX_TIMESTAMP, YEAR"))),
            }
        }
        _ if function != PartitionFn::Column => match v {
            RawValue::Number(n) => Value::Int(number(n)?),
            _ => return Err(bad("a bound of a partition function is an integer".into())),
        },
        RawValue::Number(n) if int_type(&col.ty) => Value::Int(number(n)?),
        RawValue::Text(s) if int_type(&col.ty) => Value::Int(number(s)?),
        RawValue::Text(s) if col.ty.is_date_or_datetime() => Value::Time(time(s)?),
        RawValue::Text(s) | RawValue::Number(s) if col.ty.is_character() => {
            Value::Bytes(s.as_bytes().to_vec())
        }
        _ => {
            return Err(bad(format!(
                "partition key column `{}` ({}): bounds are read for integer, date/time and \
                 text columns",
                col.name,
                col.ty.sql(keylab_schema::Dialect::Mariadb)
            )))
        }
    }))
}

/// The partitioning of a table of `columns` as declared; a refusal names what cannot be
/// modelled and where.
pub(crate) fn resolve(raw: &RawPartitioning, columns: &[Column]) -> Result<Partitioning, Refusal> {
    let mut cols = Vec::new();
    for name in &raw.columns {
        let Some(i) = columns.iter().position(|c| c.name.eq_ignore_ascii_case(name)) else {
            let valid: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            return Err((
                raw.at,
                format!(
                    "partition key column `{name}` is not a column of the table; valid: {}",
                    valid.join(", ")
                ),
            ));
        };
        cols.push(i);
    }
    if raw.function != PartitionFn::Column && !columns[cols[0]].ty.is_date_or_datetime() {
        return Err((
            raw.at,
            format!(
                "{:?}(`{}`) is modelled for date and time columns",
                raw.function, columns[cols[0]].name
            ),
        ));
    }
    if matches!(raw.method, PartitionMethod::Hash)
        && raw.function == PartitionFn::Column
        && !cols.iter().all(|&c| int_type(&columns[c].ty))
    {
        return Err((raw.at, "HASH partitioning is modelled on integer columns; valid: an integer key, or KEY(...) partitioning".into()));
    }
    let mut partitions = Vec::new();
    for p in &raw.partitions {
        let tuple = |vals: &[RawValue]| -> Result<Vec<BoundValue>, Refusal> {
            if vals.len() != cols.len() && vals != [RawValue::Max] {
                return Err((
                    p.at,
                    format!(
                        "partition `{}`: {} bound values for {} key columns",
                        p.name,
                        vals.len(),
                        cols.len()
                    ),
                ));
            }
            vals.iter()
                .enumerate()
                .map(|(k, v)| {
                    value_of(v, &columns[cols[k.min(cols.len() - 1)]], raw.function, p.at)
                })
                .collect()
        };
        let bound = match &p.bound {
            RawBound::LessThan(v) => PartitionBound::LessThan(tuple(v)?),
            RawBound::FromTo(a, b) => PartitionBound::FromTo(tuple(a)?, tuple(b)?),
            RawBound::In(list) => {
                PartitionBound::In(list.iter().map(|t| tuple(t)).collect::<Result<_, _>>()?)
            }
            RawBound::Default => PartitionBound::Default,
            RawBound::Remainder(m, r) => PartitionBound::Remainder { modulus: *m, remainder: *r },
            RawBound::Nth => PartitionBound::Nth,
        };
        let fits = match (raw.method, &bound) {
            (
                PartitionMethod::Range,
                PartitionBound::LessThan(_) | PartitionBound::FromTo(..) | PartitionBound::Default,
            ) => true,
            (PartitionMethod::List, PartitionBound::In(_) | PartitionBound::Default) => true,
            (PartitionMethod::Hash, PartitionBound::Remainder { .. }) => raw.postgres,
            (PartitionMethod::Hash | PartitionMethod::Key, PartitionBound::Nth) => !raw.postgres,
            _ => false,
        };
        if !fits {
            return Err((
                p.at,
                format!(
                    "partition `{}`: its bound does not suit {} partitioning",
                    p.name,
                    raw.method.sql()
                ),
            ));
        }
        partitions.push(Partition { name: p.name.clone(), bound });
    }
    if matches!(raw.method, PartitionMethod::Hash | PartitionMethod::Key)
        && !raw.postgres
        && partitions.is_empty()
    {
        let n = raw.count.unwrap_or(1);
        partitions = (0..n)
            .map(|k| Partition { name: format!("p{k}"), bound: PartitionBound::Nth })
            .collect();
    }
    if partitions.is_empty() {
        let why = if raw.postgres {
            "a partitioned table without partitions (no PARTITION OF or ATTACH PARTITION for it in the file) holds no row"
        } else {
            "RANGE and LIST partitioning need their partitions listed"
        };
        return Err((raw.at, why.into()));
    }
    Ok(Partitioning {
        method: raw.method,
        columns: cols,
        columns_form: raw.columns_form,
        function: raw.function,
        partitions,
    })
}
