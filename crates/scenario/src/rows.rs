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
use keylab_schema::Value;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ChaCha stream numbers of payload columns start here (the key generators use 0..=10).
const PAYLOAD_STREAM_BASE: u64 = 1_000;

/// Letters and digits of `ascii` values.
const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// An endless, deterministic stream of a run's rows, in table column order.
pub struct TableRows {
    keys: KeyGen,
    columns: Vec<(ColumnGen, ChaCha8Rng)>,
    /// Rows made so far.
    made: u64,
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
                (g.clone(), rng)
            })
            .collect();
        TableRows { keys, columns, made: 0 }
    }

    /// Rows made so far.
    pub fn made(&self) -> u64 {
        self.made
    }

    /// The next row.
    pub fn next_row(&mut self) -> Row {
        let n = self.made;
        self.made += 1;
        let mut row = Vec::with_capacity(self.columns.len());
        for (g, rng) in &mut self.columns {
            row.push(match g {
                ColumnGen::Id => self.keys.next_key().to_value(),
                // What a single-writer AUTO_INCREMENT assigns (servers skip the column and
                // assign it themselves).
                ColumnGen::Surrogate => Value::Int(n as i64 + 1),
                ColumnGen::Fixed(b) => Value::Bytes(b.clone()),
                ColumnGen::Ascii { min, max } => {
                    let len = rng.random_range(*min..=*max) as usize;
                    Value::Bytes(
                        (0..len)
                            .map(|_| ALPHANUMERIC[rng.random_range(0..ALPHANUMERIC.len())])
                            .collect(),
                    )
                }
                ColumnGen::Seq(start) => Value::Int(start.saturating_add(n as i64)),
                ColumnGen::Int { lo, hi } => Value::Int(rng.random_range(*lo..=*hi)),
                ColumnGen::Timestamp { start_unix_s, step_s } => {
                    Value::Time(start_unix_s.saturating_add(step_s.saturating_mul(n as i64)))
                }
                ColumnGen::Null => Value::Null,
            });
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
