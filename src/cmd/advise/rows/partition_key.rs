//! The values of a partition key, made to fall in the declared partitions: a RANGE key
//! rises evenly over the declared ranges, a LIST key takes the listed values in turn. Which
//! partition a row goes to is `partitions.rs`'s.

use super::ColumnValues;
use crate::cmd::advise::partitions::int_of;
use keylab_schema::{
    BoundValue, ColumnType, PartitionBound, PartitionFn, PartitionMethod, Partitioning, Table,
    Value, DAY_S, TO_DAYS_EPOCH,
};

/// A bound value as the partition column's own value (Unix seconds for a time column).
fn column_space(v: &Value, f: PartitionFn) -> Option<i64> {
    let n = match v {
        Value::Int(n) | Value::Time(n) => *n,
        Value::UInt(n) => i64::try_from(*n).ok()?,
        _ => return None,
    };
    Some(match f {
        PartitionFn::Column | PartitionFn::UnixTimestamp => n,
        PartitionFn::ToDays => (n - TO_DAYS_EPOCH) * DAY_S,
        PartitionFn::Year => keylab_schema::parse_time_text(&format!("{n:04}-01-01"))?,
    })
}

/// Makes the partition key's values fall in the declared partitions: a RANGE key rises
/// over the declared ranges (from the lowest bound to the highest, one range more when the
/// last is open), a LIST key takes the listed values in turn. A column filled with the
/// candidate's ids keeps them. Returns what it did, for a note.
pub fn plan_partition_key(table: &Table, rows: u64, plan: &mut [ColumnValues]) -> Option<String> {
    let p = table.partitioning.as_ref()?;
    let c = *p.columns.first()?;
    if plan[c] == ColumnValues::Key {
        return None;
    }
    let col = &table.columns[c];
    match p.method {
        PartitionMethod::Range => {
            let (lo, hi) = range_span(p)?;
            let time = col.ty.is_date_or_datetime();
            let f = p.function;
            let (lo, hi) = (column_space(&lo, f)?, column_space(&hi, f)?);
            if hi <= lo {
                return None;
            }
            let date = col.ty == ColumnType::Date;
            plan[c] = ColumnValues::Spread { lo, hi, rows, time, date };
            let show = |v: i64| {
                if time {
                    keylab_schema::datetime_text(v).unwrap_or_default()
                } else {
                    v.to_string()
                }
            };
            Some(format!(
                "partition key `{}`: values rise evenly from {} to {} over the rows (the \
                 declared ranges, filled in insert order)",
                col.name,
                show(lo),
                show(hi)
            ))
        }
        PartitionMethod::List => {
            let mut values = Vec::new();
            for q in &p.partitions {
                if let PartitionBound::In(list) = &q.bound {
                    values.extend(list.iter().filter_map(|t| match t.first() {
                        Some(BoundValue::Value(v)) => Some(v.clone()),
                        _ => None,
                    }));
                }
            }
            // Each further column of a LIST COLUMNS key takes the same tuple's value.
            for (k, &kc) in p.columns.iter().enumerate().skip(1) {
                let vals: Vec<Value> = p
                    .partitions
                    .iter()
                    .filter_map(|q| match &q.bound {
                        PartitionBound::In(list) => Some(list),
                        _ => None,
                    })
                    .flatten()
                    .map(|t| match t.get(k) {
                        Some(BoundValue::Value(v)) => v.clone(),
                        _ => Value::Null,
                    })
                    .collect();
                plan[kc] = ColumnValues::Cycle { values: vals };
            }
            if values.is_empty() {
                return None;
            }
            plan[c] = ColumnValues::Cycle { values };
            Some(format!("partition key `{}`: the listed values in turn", col.name))
        }
        _ => None,
    }
}

/// The lowest and highest finite bounds of a RANGE partitioning's first key column,
/// widened by one range where the first range starts at MINVALUE (MySQL's first partition
/// always does) or the last ends at MAXVALUE.
fn range_span(p: &Partitioning) -> Option<(Value, Value)> {
    let mut finite: Vec<i64> = Vec::new();
    let (mut open_low, mut open_high) = (false, false);
    for q in &p.partitions {
        let (from, to) = match &q.bound {
            PartitionBound::LessThan(to) => {
                open_low = true;
                (None, to.first())
            }
            PartitionBound::FromTo(from, to) => (from.first(), to.first()),
            _ => continue,
        };
        for (b, low) in [(from, true), (to, false)] {
            match b {
                Some(BoundValue::Value(v)) => finite.push(int_of(v)? as i64),
                Some(BoundValue::MaxValue) => open_high = true,
                Some(BoundValue::MinValue) if low => open_low = true,
                _ => {}
            }
        }
    }
    let lo = *finite.iter().min()?;
    let hi = *finite.iter().max()?;
    let n = finite.len().max(2) as i64;
    let step = ((hi - lo) / (n - 1)).max(1);
    // MySQL's first partition holds everything below its bound: it is counted as one range.
    let lo = if open_low { lo - step } else { lo };
    let hi = if open_high { hi + step } else { hi };
    let as_value = |v: i64| match p.partitions.iter().find_map(|q| match &q.bound {
        PartitionBound::LessThan(t) | PartitionBound::FromTo(_, t) => match t.first() {
            Some(BoundValue::Value(v)) => Some(v.clone()),
            _ => None,
        },
        _ => None,
    }) {
        Some(Value::Time(_)) => Value::Time(v),
        _ => Value::Int(v),
    };
    Some((as_value(lo), as_value(hi)))
}
