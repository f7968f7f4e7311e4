//! Churn: rounds of inserting new rows and deleting random existing ones, as engine-neutral
//! [`Op`]s. It keeps the primary keys of the live rows and picks the ones to delete with a
//! seeded generator, so the same seed deletes the same rows on every engine.
//!
//! It only produces operations; applying them is the engine's `apply`.

use crate::rows::TableRows;
use keylab_core::{Op, ValueStore};
use keylab_schema::Value;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ChaCha stream of the delete picks (apart from ids and payload columns).
const CHURN_STREAM: u64 = 900;

/// The primary keys of the live rows (single-column primary keys, as every scenario table
/// has: the id, or the surrogate key), packed ([`ValueStore`]).
pub struct LiveKeys {
    keys: ValueStore,
    pk_column: usize,
    rng: ChaCha8Rng,
}

impl LiveKeys {
    /// Tracks the key at `pk_column` of every row passed to `record`.
    pub fn new(pk_column: usize, seed: u64) -> LiveKeys {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(CHURN_STREAM);
        LiveKeys { keys: ValueStore::default(), pk_column, rng }
    }

    /// Notes an inserted row.
    pub fn record(&mut self, row: &[Value]) {
        self.keys.push(&row[self.pk_column]);
    }

    /// Live rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when no row is live.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Removes and returns a random live key.
    pub fn take_random(&mut self) -> Option<Value> {
        if self.is_empty() {
            return None;
        }
        let i = self.rng.random_range(0..self.keys.len());
        Some(self.keys.swap_remove(i))
    }
}

/// One round's operations: `inserts` new rows, then `deletes` random live rows (which may
/// include rows of this round), as E5 runs them.
pub struct ChurnRound<'a> {
    rows: &'a mut TableRows,
    live: &'a mut LiveKeys,
    inserts_left: u64,
    deletes_left: u64,
}

impl<'a> ChurnRound<'a> {
    /// A round.
    pub fn new(
        rows: &'a mut TableRows,
        live: &'a mut LiveKeys,
        inserts: u64,
        deletes: u64,
    ) -> Self {
        ChurnRound { rows, live, inserts_left: inserts, deletes_left: deletes }
    }
}

impl Iterator for ChurnRound<'_> {
    type Item = Op;

    fn next(&mut self) -> Option<Op> {
        if self.inserts_left > 0 {
            self.inserts_left -= 1;
            let row = self.rows.next_row();
            self.live.record(&row);
            return Some(Op::Insert(row));
        }
        if self.deletes_left > 0 {
            self.deletes_left -= 1;
            return self.live.take_random().map(|k| Op::Delete(vec![k]));
        }
        None
    }
}

#[cfg(test)]
mod live_key_tests {
    use super::*;

    /// The packed store takes the same keys in the same order as a plain `Vec<Value>` would,
    /// whatever shapes the keys have.
    #[test]
    fn packed_keys_behave_like_a_vec_of_values() {
        let int = |i: i64| vec![Value::Int(i)];
        let text = |s: &str| vec![Value::Bytes(s.as_bytes().to_vec())];
        let cases: Vec<Vec<Vec<Value>>> = vec![
            (0..50).map(int).collect(),
            (0..50).map(|i| text(&format!("{i:04}"))).collect(),
            vec![text("ab"), text("cd"), text("efg"), int(3), text("h")],
        ];
        for rows in cases {
            let mut live = LiveKeys::new(0, 7);
            let mut model = Vec::new();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            rng.set_stream(CHURN_STREAM);
            for row in &rows {
                live.record(row);
                model.push(row[0].clone());
            }
            while !model.is_empty() {
                let i = rng.random_range(0..model.len());
                assert_eq!(live.take_random(), Some(model.swap_remove(i)));
            }
            assert!(live.is_empty() && live.take_random().is_none());
        }
    }
}
