//! Churn: rounds of inserting new rows and deleting random existing ones, as engine-neutral
//! [`Op`]s. It keeps the primary keys of the live rows and picks the ones to delete with a
//! seeded generator, so the same seed deletes the same rows on every engine.
//!
//! It only produces operations; applying them is the engine's `apply`.

use crate::rows::TableRows;
use keylab_core::Op;
use keylab_schema::Value;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ChaCha stream of the delete picks (apart from ids and payload columns).
const CHURN_STREAM: u64 = 900;

/// The primary keys of the live rows (single-column primary keys, as every scenario table
/// has: the id, or the surrogate key).
pub struct LiveKeys {
    keys: KeyStore,
    pk_column: usize,
    rng: ChaCha8Rng,
}

/// Live keys, packed while every key has the same shape: 8 bytes per integer key, the bytes
/// alone for byte keys of one length (a `Vec<Value>` took 32 bytes per key plus an allocation
/// per byte key: 1.3 GB of E4's 40M rows), else the values themselves.
enum KeyStore {
    Empty,
    Ints(Vec<i64>),
    Fixed { width: usize, bytes: Vec<u8> },
    Values(Vec<Value>),
}

impl KeyStore {
    fn len(&self) -> usize {
        match self {
            KeyStore::Empty => 0,
            KeyStore::Ints(v) => v.len(),
            KeyStore::Fixed { width, bytes } => bytes.len() / width.max(&1),
            KeyStore::Values(v) => v.len(),
        }
    }

    fn push(&mut self, key: &Value) {
        match (&mut *self, key) {
            (KeyStore::Empty, Value::Int(i)) => *self = KeyStore::Ints(vec![*i]),
            (KeyStore::Empty, Value::Bytes(b)) if !b.is_empty() => {
                *self = KeyStore::Fixed { width: b.len(), bytes: b.clone() }
            }
            (KeyStore::Ints(v), Value::Int(i)) => v.push(*i),
            (KeyStore::Fixed { width, bytes }, Value::Bytes(b)) if b.len() == *width => {
                bytes.extend_from_slice(b)
            }
            (KeyStore::Values(v), key) => v.push(key.clone()),
            (_, key) => {
                // A key of another shape: keep every key as a value from now on.
                let mut all: Vec<Value> = (0..self.len()).map(|i| self.get(i)).collect();
                all.push(key.clone());
                *self = KeyStore::Values(all);
            }
        }
    }

    fn get(&self, i: usize) -> Value {
        match self {
            KeyStore::Empty => unreachable!("no key in an empty store"),
            KeyStore::Ints(v) => Value::Int(v[i]),
            KeyStore::Fixed { width, bytes } => {
                Value::Bytes(bytes[i * width..(i + 1) * width].to_vec())
            }
            KeyStore::Values(v) => v[i].clone(),
        }
    }

    /// `Vec::swap_remove` on the keys.
    fn swap_remove(&mut self, i: usize) -> Value {
        match self {
            KeyStore::Empty => unreachable!("no key in an empty store"),
            KeyStore::Ints(v) => Value::Int(v.swap_remove(i)),
            KeyStore::Fixed { width, bytes } => {
                let w = *width;
                let last = bytes.len() - w;
                let key = bytes[i * w..(i + 1) * w].to_vec();
                bytes.copy_within(last.., i * w);
                bytes.truncate(last);
                Value::Bytes(key)
            }
            KeyStore::Values(v) => v.swap_remove(i),
        }
    }
}

impl LiveKeys {
    /// Tracks the key at `pk_column` of every row passed to `record`.
    pub fn new(pk_column: usize, seed: u64) -> LiveKeys {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(CHURN_STREAM);
        LiveKeys { keys: KeyStore::Empty, pk_column, rng }
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
        self.keys.len() == 0
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
