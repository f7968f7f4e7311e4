//! Rows for `keylab advise`: the key column from the candidate's generator (so inserts come
//! in the candidate's key order), every other column from its type and width. Columns of a
//! UNIQUE index get distinct values (a bijection of the row number), times rise with the
//! insert order (as a `created_at` does), integers and text are uniform at random.
//! Deterministic: one seeded ChaCha stream per column, so the same seed gives the same rows
//! on every engine and for every candidate (only the key column differs between candidates).

mod partition_key;
mod plan;

pub use partition_key::plan_partition_key;
pub use plan::{plan_columns, plan_predicate_columns, unique_capacity, ColumnValues};

use keylab_core::Row;
use keylab_keys::{GenConfig, Key, KeyGen, Variant};
use keylab_schema::{ArrayElem, ColumnType, Table, Value, DAY_S, ROW_ID_BYTES};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ChaCha stream numbers of advise's columns (the key generators use 0..=10, scenario
/// payloads 1,000 and up).
const STREAM_BASE: u64 = 2_000;

/// 2024-01-01T00:00:00Z: where rising times start.
const TIME_START_UNIX_S: i64 = 1_704_067_200;

/// Letters of random text: one letter case and digits, whose byte order is the order of the
/// servers' case-insensitive collations too (`utf8mb4_general_ci` sorts `a` and `A` alike, so
/// mixed-case text would sort on the server otherwise than in the model, which compares
/// bytes: a secondary index on such a column split differently, 8% more leaves at 20,000 rows).
const ALPHANUMERIC: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// An odd-multiplier and xor-shift mix: a bijection of u64 (so distinct row numbers give
/// distinct values) that scatters neighbours.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The same on u32.
fn mix32(mut z: u32) -> u32 {
    z = (z ^ (z >> 16)).wrapping_mul(0x7feb_352d);
    z = (z ^ (z >> 15)).wrapping_mul(0x846c_a68b);
    z ^ (z >> 16)
}

/// The generator of a candidate's ids under `seed`, as its rows take them.
pub fn key_gen(variant: Variant, seed: u64) -> KeyGen {
    KeyGen::new(variant, &GenConfig { seed, ..GenConfig::default() })
}

/// The rows of one candidate: endless, deterministic.
pub struct AdviseRows {
    keys: Option<KeyGen>,
    columns: Vec<(ColumnValues, ChaCha8Rng, ColumnType)>,
    made: u64,
}

impl AdviseRows {
    /// Rows of `table` filled as `plan` says, ids from `variant` (none for a composite
    /// current key).
    pub fn new(table: &Table, plan: &[ColumnValues], variant: Option<Variant>, seed: u64) -> Self {
        let keys = variant.map(|v| key_gen(v, seed));
        let columns = plan
            .iter()
            .zip(&table.columns)
            .enumerate()
            .map(|(i, (p, col))| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(STREAM_BASE + i as u64);
                (p.clone(), rng, col.ty)
            })
            .collect();
        AdviseRows { keys, columns, made: 0 }
    }

    /// The next row into `row`, reusing its values' buffers (a load makes millions of rows,
    /// and allocating three or four buffers per row was a tenth of row making).
    pub fn fill(&mut self, row: &mut Row) {
        let n = self.made;
        self.made += 1;
        row.resize(self.columns.len(), Value::Null);
        for ((p, rng, _ty), out) in self.columns.iter_mut().zip(row.iter_mut()) {
            let v = match p {
                ColumnValues::Key => match &mut self.keys {
                    Some(k) => match k.next_key() {
                        Key::Int(v) => Value::Int(v),
                        Key::Bytes(b) => {
                            bytes_of(out).extend_from_slice(b.as_slice());
                            continue;
                        }
                    },
                    None => Value::Int(n as i64 + 1),
                },
                ColumnValues::Int { lo: 0, hi: -1 } => Value::Int(n as i64),
                ColumnValues::Sequence { start } => Value::Int(start.saturating_add(n as i64)),
                ColumnValues::JsonString { len, unique } => {
                    let s = bytes_of(out);
                    s.push(b'"');
                    if *unique {
                        push_hex16(mix64(n), s);
                    }
                    let left = (*len as usize).saturating_sub(s.len() + 1);
                    push_alnum(rng, left, s);
                    s.push(b'"');
                    continue;
                }
                ColumnValues::Array { elem, count } => {
                    let s = bytes_of(out);
                    push_array(rng, *elem, *count, s);
                    continue;
                }
                ColumnValues::Int { lo, hi } => Value::Int(rng.random_range(*lo..=*hi)),
                ColumnValues::UniqueInt { bits: 32, .. } => {
                    Value::Int(mix32(n as u32) as i32 as i64)
                }
                ColumnValues::UniqueInt { unsigned: true, .. } => Value::UInt(mix64(n)),
                ColumnValues::UniqueInt { .. } => Value::Int(mix64(n) as i64),
                ColumnValues::Text { len } => {
                    push_alnum(rng, *len as usize, bytes_of(out));
                    continue;
                }
                ColumnValues::UniqueText { len } => {
                    let len = *len as usize;
                    let s = bytes_of(out);
                    if len >= 16 {
                        push_hex16(mix64(n), s);
                    } else {
                        push_base36(n, len, s);
                    }
                    if s.len() < len {
                        push_alnum(rng, len - s.len(), s);
                    }
                    continue;
                }
                ColumnValues::Bytes { len } => {
                    let b = bytes_of(out);
                    b.resize(*len as usize, 0);
                    rng.fill_bytes(b);
                    continue;
                }
                ColumnValues::UniqueBytes { len } => {
                    let len = *len as usize;
                    let b = bytes_of(out);
                    if len >= 8 {
                        b.extend_from_slice(&mix64(n).to_be_bytes());
                    } else {
                        b.extend_from_slice(&n.to_be_bytes()[8 - len..]);
                    }
                    if b.len() < len {
                        let at = b.len();
                        b.resize(len, 0);
                        rng.fill_bytes(&mut b[at..]);
                    }
                    continue;
                }
                ColumnValues::RowId => {
                    let b = bytes_of(out);
                    b.extend_from_slice(&(n + 1).to_be_bytes()[8 - ROW_ID_BYTES as usize..]);
                    continue;
                }
                ColumnValues::Spread { lo, hi, rows, time, date } => {
                    let span = i128::from(*hi - *lo);
                    let at = i128::from(n % (*rows).max(1)) * span / i128::from((*rows).max(1));
                    let v = *lo + at as i64;
                    match (*time, *date) {
                        (false, _) => Value::Int(v),
                        (true, true) => Value::Time(v.div_euclid(DAY_S) * DAY_S),
                        (true, false) => Value::Time(v),
                    }
                }
                ColumnValues::Cycle { values } => {
                    match values.get((n % values.len().max(1) as u64) as usize) {
                        Some(Value::Bytes(b)) => {
                            let b = b.clone();
                            bytes_of(out).extend_from_slice(&b);
                            continue;
                        }
                        Some(v) => v.clone(),
                        None => Value::Null,
                    }
                }
                ColumnValues::Time { date, step_s } => {
                    let s = TIME_START_UNIX_S + n as i64 * *step_s;
                    Value::Time(if *date { s.div_euclid(DAY_S) * DAY_S } else { s })
                }
            };
            *out = v;
        }
    }
}

/// `v`'s byte buffer, emptied (made a `Bytes` first if it is not one).
fn bytes_of(v: &mut Value) -> &mut Vec<u8> {
    if !matches!(v, Value::Bytes(_)) {
        *v = Value::Bytes(Vec::new());
    }
    match v {
        Value::Bytes(b) => {
            b.clear();
            b
        }
        _ => unreachable!("made Bytes above"),
    }
}

impl Iterator for AdviseRows {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        let mut row = Vec::with_capacity(self.columns.len());
        self.fill(&mut row);
        Some(row)
    }
}

/// Every two-character run `push_alnum` writes, by the pair's value `d0 + 36 * d1` (`d0`'s
/// character first).
const ALNUM_PAIRS: [[u8; 2]; 36 * 36] = {
    let mut t = [[0u8; 2]; 36 * 36];
    let mut i = 0;
    while i < 36 * 36 {
        t[i] = [ALPHANUMERIC[i % 36], ALPHANUMERIC[i / 36]];
        i += 1;
    }
    t
};

/// Appends `len` random letters and digits: one ChaCha draw per 8 characters, the draw's
/// base-36 digits lowest first.
fn push_alnum(rng: &mut ChaCha8Rng, len: usize, out: &mut Vec<u8>) {
    const BASE: u64 = ALPHANUMERIC.len() as u64;
    let mut left = len;
    // A whole draw: its low 8 digits (the value mod 36^8) as four pairs of digits.
    while left >= 8 {
        let mut word = rng.next_u64() % BASE.pow(8);
        let mut chars = [0u8; 8];
        for pair in chars.chunks_exact_mut(2) {
            pair.copy_from_slice(&ALNUM_PAIRS[(word % (BASE * BASE)) as usize]);
            word /= BASE * BASE;
        }
        out.extend_from_slice(&chars);
        left -= 8;
    }
    if left > 0 {
        let mut word = rng.next_u64();
        for _ in 0..left {
            out.push(ALPHANUMERIC[(word % BASE) as usize]);
            word /= BASE;
        }
    }
}

/// Appends row number `n` as `len` base-36 digits (`0-9a-z`, most significant first: byte
/// order is number order), its low digits when it has more.
fn push_base36(mut n: u64, len: usize, out: &mut Vec<u8>) {
    let at = out.len();
    out.resize(at + len, b'0');
    for d in out[at..].iter_mut().rev() {
        *d = ALPHANUMERIC[(n % 36) as usize];
        n /= 36;
    }
}

/// Appends an array's text: `count` elements, numbers 1..=999, `t`/`f`, or 8 quoted letters.
fn push_array(rng: &mut ChaCha8Rng, elem: ArrayElem, count: u32, out: &mut Vec<u8>) {
    out.push(b'{');
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        match elem {
            ArrayElem::Bool => out.push(if rng.next_u32() & 1 == 1 { b't' } else { b'f' }),
            ArrayElem::Text => {
                out.push(b'"');
                push_alnum(rng, 8, out);
                out.push(b'"');
            }
            // Written in place: this runs for every element of every row.
            _ => {
                use std::io::Write;
                write!(out, "{}", rng.random_range(1..=999u32)).expect("a Vec takes every write");
            }
        }
    }
    out.push(b'}');
}

/// Appends `v` as 16 lowercase hex digits (what `format!("{v:016x}")` gives, without
/// formatting machinery: this runs for every row of a UNIQUE text column).
fn push_hex16(v: u64, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend((0..16).rev().map(|i| HEX[(v >> (4 * i) & 0xf) as usize]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Charset, Column, Index, RowFormat};
    use std::collections::HashSet;

    fn table() -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("id", ColumnType::BigInt { unsigned: false }, false),
                Column::new(
                    "email",
                    ColumnType::VarChar { chars: 40, charset: Charset::Utf8mb4 },
                    true,
                ),
                Column::new("n", ColumnType::Int, false),
                Column::new("at", ColumnType::DateTime, false),
            ],
            primary_key: vec![0],
            auto_increment: true,
            indexes: vec![Index::new("u", vec![1], true), Index::new("k", vec![2, 3], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    #[test]
    fn unique_columns_are_distinct_and_times_rise() {
        let t = table();
        let plan = plan_columns(&t, &[0], 10_000, true, &|_| None);
        assert_eq!(plan[0], ColumnValues::Key);
        assert_eq!(plan[1], ColumnValues::UniqueText { len: 20 });
        let rows: Vec<Row> =
            AdviseRows::new(&t, &plan, Some("auto-inc".parse().unwrap()), 3).take(10_000).collect();
        let emails: HashSet<&Value> = rows.iter().map(|r| &r[1]).collect();
        assert_eq!(emails.len(), 10_000);
        assert!(rows.windows(2).all(|w| w[0][3] < w[1][3]));
        let again: Vec<Row> =
            AdviseRows::new(&t, &plan, Some("auto-inc".parse().unwrap()), 3).take(100).collect();
        assert_eq!(&rows[..100], &again[..]);
    }

    #[test]
    fn a_unique_date_takes_a_day_per_row() {
        let mut t = table();
        t.columns[3] = Column::new("day", ColumnType::Date, false);
        t.indexes[1].unique = true;
        let plan = plan_columns(&t, &[0], 1_000, true, &|_| None);
        let rows: Vec<Row> =
            AdviseRows::new(&t, &plan, Some("auto-inc".parse().unwrap()), 3).take(1_000).collect();
        let days: HashSet<&Value> = rows.iter().map(|r| &r[3]).collect();
        assert_eq!(days.len(), 1_000);
    }

    #[test]
    fn hex_and_text_are_made_as_before() {
        for v in [0, 1, 0xabc, u64::MAX, mix64(12345)] {
            let mut out = b"x".to_vec();
            push_hex16(v, &mut out);
            assert_eq!(out, format!("x{v:016x}").into_bytes());
        }
        // The text of seed 1, stream 0, as the generator made it a character at a time
        // before it appended in place and wrote pairs of characters.
        let lens = [11usize, 3, 8, 16, 48, 1, 0, 10, 64, 7];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut out = Vec::new();
        for len in lens {
            push_alnum(&mut rng, len, &mut out);
        }
        assert_eq!(out.len(), lens.iter().sum::<usize>());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut want = Vec::new();
        for len in lens {
            let mut made = 0;
            while made < len {
                let mut word = rng.next_u64();
                for _ in 0..8.min(len - made) {
                    want.push(ALPHANUMERIC[(word % 36) as usize]);
                    word /= 36;
                    made += 1;
                }
            }
        }
        assert_eq!(out, want);
    }

    #[test]
    fn rows_filled_in_place_are_the_rows_made_afresh() {
        let mut t = table();
        t.columns.push(Column::new("b", ColumnType::Binary { bytes: 12 }, false));
        t.columns.push(Column::new("u", ColumnType::Binary { bytes: 4 }, false));
        t.indexes.push(Index::new("ub", vec![5], true));
        let plan = plan_columns(&t, &[0], 1000, true, &|_| None);
        for key in ["uuid4:bin", "auto-inc"] {
            let v = Some(key.parse().unwrap());
            let fresh: Vec<Row> = AdviseRows::new(&t, &plan, v, 9).take(50).collect();
            let mut gen = AdviseRows::new(&t, &plan, v, 9);
            // A reused row starts from other values: each is overwritten whole.
            let mut row = vec![Value::Bytes(b"stale bytes".to_vec()); 3];
            for want in &fresh {
                gen.fill(&mut row);
                assert_eq!(&row, want, "{key}");
            }
        }
    }

    #[test]
    fn widths_are_taken_and_capped() {
        let t = table();
        let plan = plan_columns(&t, &[0], 10, true, &|c| (c == 1).then_some(30));
        assert_eq!(plan[1], ColumnValues::UniqueText { len: 30 });
        let mut t2 = t.clone();
        t2.indexes.clear();
        let plan = plan_columns(&t2, &[0], 10, true, &|c| (c == 1).then_some(300));
        assert_eq!(plan[1], ColumnValues::Text { len: 40 });
    }
}
