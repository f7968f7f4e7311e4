//! Rows for a scenario's table: the id from `keylab_keys::KeyGen`, the surrogate key as a
//! single writer's AUTO_INCREMENT assigns it, and each payload column from its generator.
//! Deterministic: the same plan and seed give the same rows on every engine.
//!
//! Random payload parts come from their own seeded ChaCha stream per column, so adding a
//! column never changes another column's values (nor the ids).

use crate::plan::RunPlan;
use crate::table::ColumnGen;
use keylab_core::Row;
use keylab_keys::KeyGen;
use keylab_schema::{ColumnType, Value, DAY_S};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ChaCha stream numbers of payload columns start here (the key generators use 0..=10).
const PAYLOAD_STREAM_BASE: u64 = 1_000;

/// Letters and digits of `ascii` values.
const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// An endless, deterministic stream of a run's rows, in table column order.
pub struct TableRows {
    keys: KeyGen,
    /// Each column's generator, random stream, and whether it is a `DATE` (whose times are
    /// the day's start, as the server stores them).
    columns: Vec<(ColumnGen, ChaCha8Rng, bool)>,
    /// Rows made so far.
    made: u64,
    /// The server-assigned `AUTO_INCREMENT` key's column, if the table has one.
    auto_column: Option<usize>,
    /// Values the server's counter skipped so far ([`TableRows::skip_auto_values`]).
    auto_skipped: u64,
}

impl TableRows {
    /// The rows of `run` under `seed`.
    pub fn new(run: &RunPlan, seed: u64) -> TableRows {
        let keys = KeyGen::new(run.variant, &run.gen_config(seed));
        let columns = run
            .table
            .columns
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(PAYLOAD_STREAM_BASE + i as u64);
                let date = run.table().columns.get(i).is_some_and(|c| c.ty == ColumnType::Date);
                (g.clone(), rng, date)
            })
            .collect();
        let table = run.table();
        let auto_column = match table.primary_key.as_slice() {
            [c] if table.auto_increment => Some(*c),
            _ => None,
        };
        TableRows { keys, columns, made: 0, auto_column, auto_skipped: 0 }
    }

    /// Rows made so far.
    pub fn made(&self) -> u64 {
        self.made
    }

    /// Moves the `AUTO_INCREMENT` key of the rows made from now on `n` values further, as
    /// the server's counter moves past values a bulk statement reserved and did not use.
    pub fn skip_auto_values(&mut self, n: u64) {
        self.auto_skipped += n;
    }

    /// The next row.
    pub fn next_row(&mut self) -> Row {
        let n = self.made;
        self.made += 1;
        let mut row = Vec::with_capacity(self.columns.len());
        for (g, rng, date) in &mut self.columns {
            row.push(match g {
                ColumnGen::Id => self.keys.next_key().to_value(),
                // What a single-writer AUTO_INCREMENT assigns (servers skip the column and
                // assign it themselves).
                ColumnGen::Surrogate => Value::Int(n as i64 + 1),
                ColumnGen::Fixed(b) => Value::Bytes(b.clone()),
                ColumnGen::Ascii { min, max } => {
                    let len = rng.random_range(*min..=*max) as usize;
                    // Characters from SplitMix64 seeded by the column's ChaCha stream: one
                    // ChaCha draw per value instead of one per character (ChaCha is slow in
                    // debug builds). Filler text needs spread, not cryptographic quality.
                    let mut state = rng.next_u64();
                    let mut bytes = Vec::with_capacity(len);
                    while bytes.len() < len {
                        let mut word = splitmix64(&mut state);
                        for _ in 0..8.min(len - bytes.len()) {
                            bytes.push(ALPHANUMERIC[(word % ALPHANUMERIC.len() as u64) as usize]);
                            word /= ALPHANUMERIC.len() as u64;
                        }
                    }
                    Value::Bytes(bytes)
                }
                ColumnGen::UuidPrefix { chars } => {
                    // Random hex rather than the server's time-based UUID(): only the length
                    // (and so the row's size) shapes the pages, and this column is in no index.
                    let mut word = rng.next_u64();
                    let bytes = (0..*chars as usize)
                        .map(|i| {
                            if matches!(i, 8 | 13 | 18 | 23) {
                                return b'-';
                            }
                            if i % 16 == 0 && i > 0 {
                                word = rng.next_u64();
                            }
                            let d = (word >> (4 * (i % 16))) & 0xf;
                            b"0123456789abcdef"[d as usize]
                        })
                        .collect();
                    Value::Bytes(bytes)
                }
                ColumnGen::PrefixDigit(prefix) => {
                    let mut bytes = prefix.clone();
                    bytes.push(b'0' + rng.random_range(0..10u8));
                    Value::Bytes(bytes)
                }
                // In range: the scenario checks refuse a run whose values leave the column's.
                ColumnGen::Seq { start, steps, unsigned } => {
                    let v = i128::from(*start) + i128::from(steps.index(n));
                    if *unsigned {
                        Value::UInt(u64::try_from(v).unwrap_or(u64::MAX))
                    } else {
                        Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
                    }
                }
                ColumnGen::Int { lo, hi } => Value::Int(rng.random_range(*lo..=*hi)),
                ColumnGen::Timestamp { start_unix_s, step_s, steps } => {
                    let k = i128::from(steps.index(n));
                    let s = i128::from(*start_unix_s) + k * i128::from(*step_s);
                    let s = i64::try_from(s).unwrap_or(if s < 0 { i64::MIN } else { i64::MAX });
                    Value::Time(if *date { s.div_euclid(DAY_S) * DAY_S } else { s })
                }
                ColumnGen::Null => Value::Null,
            });
        }
        if let Some(c) = self.auto_column.filter(|_| self.auto_skipped > 0) {
            row[c] = match row[c] {
                Value::Int(v) => Value::Int(v.saturating_add_unsigned(self.auto_skipped)),
                Value::UInt(v) => Value::UInt(v.saturating_add(self.auto_skipped)),
                ref other => other.clone(),
            };
        }
        row
    }
}

impl Iterator for TableRows {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        Some(self.next_row())
    }
}

/// One step of SplitMix64 (Steele, Lea and Flood 2014; the public-domain reference
/// constants).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    #[test]
    fn rows_are_deterministic_and_follow_the_generators() {
        let src = r#"name = "t"
variants = ["uuid4:bin"]
placements = ["secondary"]
[[tables]]
name = "t"
columns = [
  { name = "a", type = "varchar(20)", gen = { ascii = [5, 9] } },
  { name = "s", type = "bigint", gen = { seq = 10 } },
  { name = "i", type = "int", gen = { int = [3, 4] } },
  { name = "t", type = "datetime", gen = { timestamp = { start_unix_s = 100, step_s = 2 } } },
  { name = "n", type = "int", gen = "null" },
  { name = "f", type = "char(4)", gen = { fixed = "data" } },
]
[[phases]]
load = { rows = 10 }
"#;
        let run = &Scenario::parse(src, "t").unwrap().plan(1.0).unwrap()[0];
        let a: Vec<Row> = TableRows::new(run, 7).take(50).collect();
        let b: Vec<Row> = TableRows::new(run, 7).take(50).collect();
        let c: Vec<Row> = TableRows::new(run, 8).take(50).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        for (n, row) in a.iter().enumerate() {
            assert_eq!(row[0], Value::Int(n as i64 + 1), "surrogate key");
            assert!(matches!(&row[1], Value::Bytes(b) if b.len() == 16));
            let Value::Bytes(text) = &row[2] else { panic!() };
            assert!((5..=9).contains(&text.len()) && text.iter().all(u8::is_ascii_alphanumeric));
            assert_eq!(row[3], Value::Int(10 + n as i64));
            assert!(matches!(row[4], Value::Int(3 | 4)));
            assert_eq!(row[5], Value::Time(100 + 2 * n as i64));
            assert_eq!(row[6], Value::Null);
            assert_eq!(row[7], Value::Bytes(b"data".to_vec()));
        }
    }

    /// `LEFT(UUID(), N)` and `CONCAT('test', FLOOR(RAND()*10))` as E5's author wrote them.
    #[test]
    fn uuid_prefixes_and_prefix_digits_have_the_authors_shapes() {
        let src = r#"name = "t"
variants = ["auto-inc"]
[[tables]]
name = "t"
columns = [
  { name = "u4", type = "varchar(10)", gen = { uuid_prefix = 4 } },
  { name = "u36", type = "char(36)", gen = { uuid_prefix = 36 } },
  { name = "r", type = "varchar(100)", gen = { prefix_digit = "test" } },
]
[[phases]]
load = { rows = 10 }
"#;
        let run = &Scenario::parse(src, "t").unwrap().plan(1.0).unwrap()[0];
        let rows: Vec<Row> = TableRows::new(run, 3).take(2000).collect();
        assert_eq!(rows, TableRows::new(run, 3).take(2000).collect::<Vec<_>>());
        assert_ne!(rows, TableRows::new(run, 4).take(2000).collect::<Vec<_>>());
        let text = |v: &Value| match v {
            Value::Bytes(b) => String::from_utf8(b.clone()).unwrap(),
            other => panic!("{other:?}"),
        };
        let mut digits = std::collections::BTreeSet::new();
        let mut firsts = std::collections::BTreeSet::new();
        for row in &rows {
            let u4 = text(&row[1]);
            assert!(
                u4.len() == 4
                    && u4.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            );
            firsts.insert(u4.chars().next().unwrap());
            let u36 = text(&row[2]);
            let dashes: Vec<usize> = u36.match_indices('-').map(|(i, _)| i).collect();
            assert_eq!((u36.len(), dashes), (36, vec![8, 13, 18, 23]));
            let r = text(&row[3]);
            assert!(r.len() == 5 && r.starts_with("test"));
            digits.insert(r.chars().last().unwrap().to_digit(10).unwrap());
        }
        assert_eq!(digits.len(), 10, "every digit 0..=9 appears");
        assert_eq!(firsts.len(), 16, "every hex digit appears");
    }

    #[test]
    fn text_generators_must_fit_their_columns() {
        for (gen, want) in [
            ("{ uuid_prefix = 5 }", "cannot hold 5 characters"),
            ("{ uuid_prefix = 37 }", "valid: 1..=36"),
            ("{ prefix_digit = \"test\" }", "cannot hold `test` and a digit (5 characters)"),
        ] {
            let src = format!(
                "name = \"t\"\nvariants = [\"auto-inc\"]\n[[tables]]\nname = \"t\"\ncolumns = \
                 [{{ name = \"c\", type = \"varchar(4)\", gen = {gen} }}]\n[[phases]]\n\
                 load = {{ rows = 1 }}\n"
            );
            let err = Scenario::parse(&src, "t").and_then(|s| s.plan(1.0)).unwrap_err();
            assert!(err.to_string().contains(want), "{gen}: {err}");
        }
    }

    #[test]
    fn an_unsigned_seq_goes_on_past_the_signed_maximum() {
        let src = r#"name = "t"
variants = ["auto-inc"]
[[tables]]
name = "t"
columns = [{ name = "u", type = "bigint unsigned", gen = { seq = 9_223_372_036_854_775_806 } }]
[[phases]]
load = { rows = 4 }
"#;
        let run = &Scenario::parse(src, "t").unwrap().plan(1.0).unwrap()[0];
        let u: Vec<Value> = TableRows::new(run, 1).take(4).map(|r| r[1].clone()).collect();
        let max = i64::MAX as u64;
        assert_eq!(u, [max - 1, max, max + 1, max + 2].map(Value::UInt));
    }

    #[test]
    fn e2_is_a_grid_of_room_types_by_360_real_dates_at_full_scale() {
        let e2 = crate::builtin("e2-bulk-load").unwrap().scenario().unwrap();
        let runs = e2.plan(1.0).expect("every value of E2 at full scale fits its column");
        let run = &runs[0];
        let day = |d: i64| Value::Time(crate::spec::DEFAULT_START_UNIX_S + d * 86_400);
        let rows: Vec<Row> = TableRows::new(run, 1).take(721).collect();
        // (room_type_id, date): each room type's 360 days, then the next room type.
        for (n, want) in [(0, (1, 0)), (359, (1, 359)), (360, (2, 0)), (720, (3, 0))] {
            assert_eq!((rows[n][1].clone(), rows[n][2].clone()), (Value::Int(want.0), day(want.1)));
        }
        // The last of 3.6M rows: room type 10,000 on 2025-12-26.
        let last = run.phases.iter().map(|p| match p {
            crate::PhasePlan::Load { rows, .. } => *rows,
            _ => 0,
        });
        assert_eq!(last.sum::<u64>(), 3_600_000);
        let ColumnGen::Timestamp { steps, .. } = run.table.columns[2] else { panic!() };
        assert_eq!(steps.last_index(3_600_000), 359);
        let ColumnGen::Seq { steps, .. } = run.table.columns[1] else { panic!() };
        assert_eq!(steps.index(3_599_999), 9_999);
    }
}
