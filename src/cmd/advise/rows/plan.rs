//! How each column of an advised table is filled: the plan per column type (within the
//! type's range: unsigned and small integers, YEAR 1901..2155, ENUM/SET members, a DECIMAL's
//! digits), and how many distinct values a UNIQUE or key column's plan can make, so a table
//! whose key cannot hold `--rows` distinct values is refused before anything runs.

use keylab_schema::{ArrayElem, ColumnType, Table, TemporalKind, ValueRange, DAY_S};

/// Elements of a generated array when `--width` does not give the column's bytes.
pub const DEFAULT_ARRAY_ELEMENTS: u32 = 4;

/// How one column's values are made.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues {
    /// The candidate's id.
    Key,
    /// Uniform integers in `[lo, hi]` (`lo: 0, hi: -1`: the row number).
    Int { lo: i64, hi: i64 },
    /// `start` + the row number (distinct, rising).
    Sequence { start: i64 },
    /// Distinct integers: a bijection of the row number onto `bits` bits.
    UniqueInt { bits: u32, unsigned: bool },
    /// Random letters and digits, `len` characters.
    Text { len: u32 },
    /// Distinct text of `len` characters (hex of a bijection of the row number; below 16
    /// characters the row number in base 36, digits then lower-case letters).
    UniqueText { len: u32 },
    /// Random bytes.
    Bytes { len: u32 },
    /// Distinct bytes.
    UniqueBytes { len: u32 },
    /// Start + row number seconds (rising); a DATE keeps the day.
    Time { date: bool, step_s: i64 },
    /// A JSON string of `len` bytes with its quotes (`"a1b2"`), distinct when `unique`.
    JsonString { len: u32, unique: bool },
    /// A one-dimensional array text (`{1,2,3}`, `{"ab","cd"}`) of `count` elements.
    Array { elem: ArrayElem, count: u32 },
    /// InnoDB's hidden row id: the row number from 1, big-endian in `ROW_ID_BYTES` bytes.
    RowId,
    /// Rising values spread evenly over `[lo, hi)` across `rows` rows, then again from
    /// `lo` (a partition key: the declared ranges filled in insert order). Unix seconds for
    /// a time column (a DATE keeps the day), integers otherwise.
    Spread { lo: i64, hi: i64, rows: u64, time: bool, date: bool },
    /// The values of a LIST partition key in turn.
    Cycle { values: Vec<keylab_schema::Value> },
}

impl ColumnValues {
    /// Average stored bytes of a value (for the report's "widths used").
    pub fn width_bytes(&self, ty: &ColumnType) -> Option<u32> {
        match self {
            ColumnValues::Text { len } | ColumnValues::UniqueText { len } => Some(*len),
            ColumnValues::Bytes { len } | ColumnValues::UniqueBytes { len } => Some(*len),
            ColumnValues::JsonString { len, .. } => Some(*len),
            ColumnValues::Array { elem, count } => Some(array_elem_bytes(*elem) * count),
            _ => ty.fixed_len(),
        }
    }
}

/// Bytes one generated element takes in an array's text: digits and a comma, or an
/// 8-letter quoted text and a comma.
fn array_elem_bytes(elem: ArrayElem) -> u32 {
    match elem {
        ArrayElem::Text => 11,
        ArrayElem::Bool => 2,
        _ => 4,
    }
}

/// How each column of `table` is filled. `key` is the column that takes the candidate's ids;
/// `width_of(c)` the given average width of column `c`. `key_generated` is false for a
/// current key with no id generator: a single key column of a type other than an integer
/// then gets distinct values of its own type (a code table's `CHAR(2)` key).
pub fn plan_columns(
    table: &Table,
    key: &[usize],
    rows: u64,
    key_generated: bool,
    width_of: &dyn Fn(usize) -> Option<u32>,
) -> Vec<ColumnValues> {
    let in_unique = |c: usize| table.indexes.iter().any(|ix| ix.unique && ix.columns.contains(&c));
    let mut plan: Vec<ColumnValues> = table
        .columns
        .iter()
        .enumerate()
        .map(|(c, col)| {
            let int_key = matches!(col.ty, ColumnType::Int | ColumnType::BigInt { .. });
            if key.contains(&c) && key.len() == 1 && (key_generated || int_key) {
                return ColumnValues::Key;
            }
            // A composite primary key's parts are unique together; each part is made
            // unique on its own, which is unique together too (see `relax_composite_parts`
            // for a part too small for that).
            let unique = in_unique(c) || key.contains(&c);
            plan_column(col, c, unique, rows, width_of)
        })
        .collect();
    relax_composite_parts(table, key, rows, width_of, &mut plan);
    plan
}

/// Columns a partial index's predicate compares with constants (`status = 'open'`,
/// `kind IN (1, 2)`) take those constants in turn with one value outside them, so that the
/// index holds some rows and leaves some out (random values would almost never equal a
/// constant). Columns of the key or of a UNIQUE index keep their distinct values. Gives a
/// note per column changed.
pub fn plan_predicate_columns(table: &Table, plan: &mut [ColumnValues]) -> Vec<String> {
    use keylab_schema::{CmpOp, Predicate, Value};
    let fixed = |c: usize| {
        table.primary_key.contains(&c)
            || table
                .indexes
                .iter()
                .any(|ix| ix.unique && ix.predicate.is_none() && ix.columns.contains(&c))
    };
    let mut notes = Vec::new();
    for ix in &table.indexes {
        let Some(p) = &ix.predicate else { continue };
        let parts = match p {
            Predicate::And(all) => all.clone(),
            other => vec![other.clone()],
        };
        for part in parts {
            let (c, mut values) = match part {
                Predicate::Cmp(c, CmpOp::Eq | CmpOp::Ne, v) => (c, vec![v]),
                Predicate::In(c, list, _) => (c, list),
                _ => continue,
            };
            if fixed(c) || plan[c] == ColumnValues::Key || values.iter().any(Value::is_null) {
                continue;
            }
            let outside = match values.iter().max() {
                Some(Value::Int(n)) => Value::Int(n.saturating_add(1)),
                Some(Value::Time(s)) => Value::Time(s + DAY_S),
                Some(Value::Bytes(_)) => {
                    let mut b = b"other".to_vec();
                    while values.contains(&Value::Bytes(b.clone())) {
                        b.push(b'0');
                    }
                    Value::Bytes(b)
                }
                _ => continue,
            };
            values.push(outside);
            notes.push(format!(
                "column `{}` takes the constants of index `{}`'s condition in turn, with one \
                 value outside them, so the partial index holds some of the rows",
                table.columns[c].name, ix.name
            ));
            plan[c] = ColumnValues::Cycle { values };
        }
    }
    notes
}

/// A part of a composite key or UNIQUE index whose type cannot take `rows` distinct values (a
/// `TINYINT` type code beside an id) need not: the tuple is unique when another part of every
/// such set it belongs to is. Such a part takes values that repeat, within its range.
fn relax_composite_parts(
    table: &Table,
    key: &[usize],
    rows: u64,
    width_of: &dyn Fn(usize) -> Option<u32>,
    plan: &mut [ColumnValues],
) {
    let mut sets: Vec<&[usize]> =
        table.indexes.iter().filter(|ix| ix.unique).map(|ix| ix.columns.as_slice()).collect();
    if !key.is_empty() {
        sets.push(key);
    }
    let enough = |plan: &[ColumnValues], c: usize| {
        unique_capacity(&plan[c], &table.columns[c].ty).is_none_or(|cap| cap >= u128::from(rows))
    };
    for c in 0..plan.len() {
        if enough(plan, c) || plan[c] == ColumnValues::Key {
            continue;
        }
        let mine: Vec<&&[usize]> = sets.iter().filter(|s| s.contains(&c)).collect();
        let covered = !mine.is_empty()
            && mine.iter().all(|s| s.len() > 1 && s.iter().any(|&d| d != c && enough(plan, d)));
        if covered {
            plan[c] = plan_column(&table.columns[c], c, false, rows, width_of);
        }
    }
}

/// How column `c` (`col`) is filled, distinct values when `unique`.
fn plan_column(
    col: &keylab_schema::Column,
    c: usize,
    unique: bool,
    rows: u64,
    width_of: &dyn Fn(usize) -> Option<u32>,
) -> ColumnValues {
    let width =
        |max_bytes: u32| width_of(c).unwrap_or((max_bytes / 2).clamp(1, 64)).min(max_bytes).max(1);
    match col.ty {
        ColumnType::Int if unique => ColumnValues::UniqueInt { bits: 32, unsigned: false },
        ColumnType::BigInt { unsigned } if unique => ColumnValues::UniqueInt { bits: 64, unsigned },
        ColumnType::Int | ColumnType::BigInt { .. } => {
            ColumnValues::Int { lo: 1, hi: rows.clamp(1, i32::MAX as u64) as i64 }
        }
        ColumnType::Decimal { precision, scale } => {
            let digits = precision.saturating_sub(scale).min(9);
            let hi = 10i64.pow(digits) - 1;
            if unique && hi as u64 >= rows {
                ColumnValues::Int { lo: 0, hi: -1 } // marks: row number
            } else {
                ColumnValues::Int { lo: 0, hi: hi.max(0) }
            }
        }
        ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } => {
            let len = match col.ty {
                ColumnType::Char { .. } => width_of(c).unwrap_or(chars).min(chars),
                _ => width(chars),
            };
            if unique {
                ColumnValues::UniqueText { len: len.max(16).min(chars) }
            } else {
                ColumnValues::Text { len }
            }
        }
        ColumnType::Text { .. } | ColumnType::TsVector => {
            let len = width_of(c).unwrap_or(64);
            if unique {
                ColumnValues::UniqueText { len: len.max(16) }
            } else {
                ColumnValues::Text { len }
            }
        }
        ColumnType::Binary { bytes } if unique => ColumnValues::UniqueBytes { len: bytes },
        ColumnType::Binary { bytes } => ColumnValues::Bytes { len: bytes },
        // A DATE in a UNIQUE key takes a new day per row (one a second repeated the
        // day, and both engines refused the load at its second row).
        ColumnType::Date if unique => ColumnValues::Time { date: true, step_s: DAY_S },
        ColumnType::Date => ColumnValues::Time { date: true, step_s: 1 },
        ColumnType::Timestamp | ColumnType::DateTime => {
            ColumnValues::Time { date: false, step_s: 1 }
        }
        ColumnType::Temporal { kind: TemporalKind::Interval, .. } if unique => {
            ColumnValues::Sequence { start: 0 }
        }
        ColumnType::Temporal { kind: TemporalKind::Interval, .. } => {
            ColumnValues::Int { lo: 0, hi: 30 * DAY_S }
        }
        ColumnType::Temporal { .. } => ColumnValues::Time { date: false, step_s: 1 },
        ColumnType::VarBinary { bytes } if unique => {
            ColumnValues::UniqueBytes { len: width(bytes).max(8).min(bytes) }
        }
        ColumnType::VarBinary { bytes } => ColumnValues::Bytes { len: width(bytes) },
        ColumnType::Blob | ColumnType::Opaque => {
            let len = width_of(c).unwrap_or(64).max(1);
            if unique {
                ColumnValues::UniqueBytes { len: len.max(8) }
            } else {
                ColumnValues::Bytes { len }
            }
        }
        ColumnType::MacAddr { bytes } if unique => {
            ColumnValues::UniqueBytes { len: u32::from(bytes) }
        }
        ColumnType::MacAddr { bytes } => ColumnValues::Bytes { len: u32::from(bytes) },
        // IPv4 addresses (4 bytes; 7 stored on PostgreSQL, 4 in VARBINARY(16)): the
        // addresses of most tables; an IPv6 one is 12 bytes more.
        ColumnType::Inet { .. } if unique => ColumnValues::UniqueBytes { len: 4 },
        ColumnType::Inet { .. } => ColumnValues::Bytes { len: 4 },
        ColumnType::Json { .. } => {
            let len = width_of(c).unwrap_or(64).max(if unique { 18 } else { 2 });
            ColumnValues::JsonString { len, unique }
        }
        ColumnType::Array { elem } => {
            let count = width_of(c)
                .map(|w| w / array_elem_bytes(elem))
                .unwrap_or(DEFAULT_ARRAY_ELEMENTS)
                .max(1);
            ColumnValues::Array { elem, count }
        }
        ty => {
            // The integer types: within their range, distinct when unique.
            let (lo, hi) = match ty.value_range() {
                ValueRange::Int { lo, hi } => (lo, hi),
                _ => (0, i128::from(i32::MAX)),
            };
            let lo = lo.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
            if unique {
                // From the lowest value, or from 0 where the range is wider than
                // any run (money's, numeric's: no negative text forms).
                let wide = hi - i128::from(lo) > i128::from(i32::MAX);
                ColumnValues::Sequence { start: if wide { 0 } else { lo } }
            } else {
                let first = lo.max(if matches!(ty, ColumnType::Bool) { 0 } else { 1 });
                let last = hi.min(i128::from(first) + rows.max(1) as i128 - 1);
                ColumnValues::Int { lo: first, hi: (last as i64).max(first) }
            }
        }
    }
}

/// How many distinct values the plan `p` of a column of type `ty` makes, `None` when more
/// than any run needs.
pub fn unique_capacity(p: &ColumnValues, ty: &ColumnType) -> Option<u128> {
    match (p, *ty) {
        (ColumnValues::UniqueText { len }, _) if *len < 16 => Some(36u128.pow(*len)),
        (ColumnValues::UniqueBytes { len }, _) if *len < 8 => Some(1u128 << (8 * len)),
        (ColumnValues::Sequence { start }, ty) => match ty.value_range() {
            ValueRange::Int { hi, .. } => Some((hi - i128::from(*start) + 1).max(0) as u128),
            _ => None,
        },
        (ColumnValues::Int { lo: 0, hi: -1 }, ty) => match ty.value_range() {
            ValueRange::Int { hi, .. } => Some((hi + 1).max(0) as u128),
            _ => None,
        },
        (
            ColumnValues::Time { date: false, .. },
            ColumnType::Temporal { kind: TemporalKind::Time | TemporalKind::TimeTz, .. },
        ) => Some(DAY_S as u128),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::advise::rows::AdviseRows;
    use keylab_core::Row;
    use keylab_schema::{Column, Index, RowFormat, Value};

    /// A TINYINT part of a composite key repeats (the id part beside it keeps the tuple
    /// unique); a TINYINT key of its own, or a UNIQUE index of it alone, stays distinct.
    #[test]
    fn a_small_part_of_a_composite_key_repeats() {
        let tiny = ColumnType::Integer { bytes: 1, unsigned: false };
        let mut t = table(&[tiny, tiny], &[2]);
        t.primary_key = vec![0, 1];
        t.auto_increment = false;
        let plan = plan_columns(&t, &[0, 1], 10_000, false, &|_| None);
        assert!(matches!(plan[0], ColumnValues::UniqueInt { .. }), "{plan:?}");
        assert!(matches!(plan[1], ColumnValues::Int { .. }), "{:?}", plan[1]);
        assert!(unique_capacity(&plan[2], &tiny).is_some(), "a UNIQUE of one column stays");
        // Few enough rows: every part distinct, as before.
        let plan = plan_columns(&t, &[0, 1], 100, false, &|_| None);
        assert!(unique_capacity(&plan[1], &tiny).is_some(), "{plan:?}");
    }

    fn table(types: &[ColumnType], unique: &[usize]) -> Table {
        let mut columns = vec![Column::new("id", ColumnType::BigInt { unsigned: false }, false)];
        for (i, &ty) in types.iter().enumerate() {
            columns.push(Column::new(format!("c{i}"), ty, false));
        }
        Table {
            name: "t".into(),
            columns,
            primary_key: vec![0],
            auto_increment: true,
            indexes: unique.iter().map(|&c| Index::new(format!("u{c}"), vec![c], true)).collect(),
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn rows(t: &Table, n: usize) -> Vec<Row> {
        let plan = plan_columns(t, &[0], n as u64, true, &|_| None);
        AdviseRows::new(t, &plan, Some("auto-inc".parse().unwrap()), 1).take(n).collect()
    }

    #[test]
    fn values_stay_in_each_types_range() {
        let types = [
            ColumnType::Integer { bytes: 1, unsigned: false },
            ColumnType::Integer { bytes: 1, unsigned: true },
            ColumnType::Year,
            ColumnType::Enum { members: 3 },
            ColumnType::Set { members: 4 },
            ColumnType::Bit { bits: 3 },
            ColumnType::Bool,
            ColumnType::Integer { bytes: 2, unsigned: true },
        ];
        let t = table(&types, &[]);
        for row in rows(&t, 5_000) {
            for (v, col) in row.iter().zip(&t.columns).skip(1) {
                let Value::Int(n) = v else { panic!("{v:?} for {:?}", col.ty) };
                assert!(col.ty.value_range().holds_int(i128::from(*n)), "{n} in {:?}", col.ty);
            }
        }
    }

    #[test]
    fn unique_small_types_count_their_distinct_values() {
        let t =
            table(&[ColumnType::Year, ColumnType::Integer { bytes: 1, unsigned: false }], &[1, 2]);
        let plan = plan_columns(&t, &[0], 100, true, &|_| None);
        assert_eq!(plan[1], ColumnValues::Sequence { start: 1901 });
        assert_eq!(unique_capacity(&plan[1], &t.columns[1].ty), Some(255));
        assert_eq!(unique_capacity(&plan[2], &t.columns[2].ty), Some(256));
        let made = rows(&t, 100);
        assert_eq!(made[99][1], Value::Int(2000));
        assert_eq!(made[0][2], Value::Int(-128));
    }

    #[test]
    fn json_inet_and_arrays_are_valid_values_of_their_width() {
        let types = [
            ColumnType::Json { binary: true },
            ColumnType::Inet { cidr: false },
            ColumnType::Array { elem: ArrayElem::Int8 },
            ColumnType::Array { elem: ArrayElem::Text },
        ];
        let t = table(&types, &[1]);
        let made = rows(&t, 50);
        let text = |v: &Value| match v {
            Value::Bytes(b) => String::from_utf8(b.clone()).unwrap(),
            _ => panic!("{v:?}"),
        };
        let json = text(&made[3][1]);
        assert!(json.starts_with('"') && json.ends_with('"') && json.len() == 64, "{json}");
        assert!(matches!(&made[3][2], Value::Bytes(b) if b.len() == 4));
        let ints = text(&made[3][3]);
        assert_eq!(ints.matches(',').count() + 1, DEFAULT_ARRAY_ELEMENTS as usize, "{ints}");
        let words = text(&made[3][4]);
        assert!(words.starts_with("{\"") && words.ends_with("\"}"), "{words}");
    }

    #[test]
    fn a_short_text_key_without_a_generator_is_filled_with_codes() {
        let mut t = table(&[], &[]);
        t.columns[0] = Column::new(
            "code",
            ColumnType::Char { chars: 2, charset: keylab_schema::Charset::Ascii },
            false,
        );
        t.auto_increment = false;
        let plan = plan_columns(&t, &[0], 1_000, false, &|_| None);
        assert_eq!(plan[0], ColumnValues::UniqueText { len: 2 });
        assert_eq!(unique_capacity(&plan[0], &t.columns[0].ty), Some(1296));
        let made: Vec<Row> = AdviseRows::new(&t, &plan, None, 1).take(1_000).collect();
        assert_eq!(made[37][0], Value::Bytes(b"11".to_vec()));
        assert!(made.windows(2).all(|w| w[0][0] < w[1][0]), "distinct, in row order");
    }
}
