//! Whether every value a run's generators make fits its column, decided from the generators'
//! definitions before anything runs: a value a column cannot hold fails on a server (or, worse,
//! is stored as something else) while the simulator would take it, so such a scenario is a
//! usage error on every engine. The error points at the generator and names the column, the
//! first row that would break it, that row's value and the column's range.
//!
//! Stepping generators (`seq`, `timestamp`) are monotone in their value number, so the first
//! row out of range follows by arithmetic; random ones (`int`) are checked at both ends.
//! Text lengths (`fixed`, `ascii`, `uuid_prefix`, `prefix_digit`) do not depend on the row count and are checked with the
//! column's type in `table.rs`. This module makes no rows.

use crate::error::ScenarioError;
use crate::spec::TableSpec;
use crate::table::{type_text, BuiltTable, ColumnGen, Ctx, Steps};
use keylab_schema::{date_text, datetime_text, ColumnType, ValueRange};

/// Checks the payload generators of `built` (made from `spec`) over the run's `rows` rows
/// (load and churn inserts together, in generation order), or over its first row only when
/// `rows` is `None`; `run` names the run.
pub(crate) fn check(
    cx: &Ctx,
    spec: &TableSpec,
    built: &BuiltTable,
    rows: Option<u64>,
    run: &str,
) -> Result<(), ScenarioError> {
    let all = rows.unwrap_or(1).max(1);
    let first_payload = built.columns.len() - spec.columns.len();
    for (i, c) in spec.columns.iter().enumerate() {
        let col = &built.table.columns[first_payload + i];
        let Some(bad) = first_bad(&built.columns[first_payload + i], &col.ty, all) else {
            continue;
        };
        let type_text = type_text(cx, c);
        let value = show(bad.value, &col.ty);
        let which = match (bad.row, rows) {
            (Some(n), Some(rows)) => format!("row {} of the {rows} rows of run `{run}`", n + 1),
            (Some(n), None) => format!("row {}", n + 1),
            (None, _) => "any row (it is random)".to_string(),
        };
        return Err(cx.err(
            c.gen.span(),
            format!(
                "column `{}` ({type_text}) cannot hold {value}, which this generator makes at \
                 {which}; valid: {}",
                col.name,
                range_text(&col.ty)
            ),
        ));
    }
    Ok(())
}

/// A value out of range: which row first makes it (`None` for a random generator, which may
/// make it at any row) and the value (an integer, or Unix seconds for a time column).
struct Bad {
    row: Option<u64>,
    value: i128,
}

fn first_bad(gen: &ColumnGen, ty: &ColumnType, rows: u64) -> Option<Bad> {
    let range = ty.value_range();
    let (lo, hi) = match range {
        ValueRange::Int { lo, hi } => (lo, hi),
        ValueRange::Time { lo, hi } => (i128::from(lo), i128::from(hi)),
        // Lengths: checked in `table.rs`.
        ValueRange::Chars(_) | ValueRange::Bytes(_) => return None,
    };
    match *gen {
        ColumnGen::Int { lo: a, hi: b } => {
            let bad = [a, b].into_iter().map(i128::from).find(|v| *v < lo || *v > hi)?;
            Some(Bad { row: None, value: bad })
        }
        ColumnGen::Seq { start, steps, .. } => stepping(i128::from(start), 1, steps, rows, lo, hi),
        ColumnGen::Timestamp { start_unix_s, step_s, steps } => {
            stepping(i128::from(start_unix_s), i128::from(step_s), steps, rows, lo, hi)
        }
        ColumnGen::Id
        | ColumnGen::Surrogate
        | ColumnGen::Fixed(_)
        | ColumnGen::Ascii { .. }
        | ColumnGen::UuidPrefix { .. }
        | ColumnGen::PrefixDigit(_)
        | ColumnGen::Null => None,
    }
}

/// The first row among `0..rows` whose value `start + k × step` (`k` its value number) is
/// outside `lo..=hi`: values move one way with `k`, so it is the first row of the first `k`
/// past the bound the values move towards.
fn stepping(start: i128, step: i128, steps: Steps, rows: u64, lo: i128, hi: i128) -> Option<Bad> {
    if start < lo || start > hi {
        return Some(Bad { row: Some(0), value: start });
    }
    let last = i128::from(steps.last_index(rows));
    let k = match step {
        0 => return None,
        s if s > 0 => (hi - start) / s + 1,
        s => (start - lo) / -s + 1,
    };
    if k > last {
        return None;
    }
    let k64 = u64::try_from(k).ok()?;
    Some(Bad { row: Some(steps.first_row(k64)), value: start + k * step })
}

/// A value as the column shows it.
fn show(v: i128, ty: &ColumnType) -> String {
    if !ty.is_time() {
        return v.to_string();
    }
    let text = i64::try_from(v).ok().and_then(|s| match ty {
        ColumnType::Date => date_text(s),
        _ => datetime_text(s),
    });
    match text {
        Some(t) => format!("{t} (Unix seconds {v})"),
        None => format!("Unix seconds {v} (past year 9999)"),
    }
}

/// The column's range in words.
fn range_text(ty: &ColumnType) -> String {
    match (ty, ty.value_range()) {
        (ColumnType::Date, _) => "1000-01-01 to 9999-12-31".to_string(),
        (ColumnType::Timestamp, r) => format!("{r} on MariaDB 10.11"),
        (_, r) => r.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EACH: Steps = Steps::EACH_ROW;

    #[test]
    fn the_first_row_out_of_range_is_exact() {
        // 10, 11, ... 20 fit; row 11 (from 0) makes 21.
        let b = stepping(10, 1, EACH, 100, 0, 20).unwrap();
        assert_eq!((b.row, b.value), (Some(11), 21));
        assert!(stepping(10, 1, EACH, 11, 0, 20).is_none(), "rows 0..11 make 10..=20");
        // Each value for 3 rows: value 21 is value number 11, first made at row 33.
        let every3 = Steps { every: 3, cycle: None };
        assert_eq!(stepping(10, 1, every3, 34, 0, 20).unwrap().row, Some(33));
        assert!(stepping(10, 1, every3, 33, 0, 20).is_none());
        // Cycling over 11 values never leaves the range, however many rows.
        let cycle = Steps { every: 1, cycle: Some(11) };
        assert!(stepping(10, 1, cycle, u64::MAX, 0, 20).is_none());
        // Going down.
        let b = stepping(5, -2, EACH, 100, 0, 20).unwrap();
        assert_eq!((b.row, b.value), (Some(3), -1));
        // The start itself.
        assert_eq!(stepping(-1, 1, EACH, 1, 0, 20).unwrap().row, Some(0));
    }
}
