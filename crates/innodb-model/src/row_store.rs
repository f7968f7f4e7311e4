//! The secondary-column values of every stored row, by primary key, so that a delete by
//! primary key finds the row's secondary records. Kept only for tables with secondary indexes.
//!
//! Entries live back to back in one arena (`[key length: u32][values length: u32][key]
//! [packed values]`) indexed by a hash table of arena offsets: no allocation per row and two
//! to drop the store (a `HashSet` of one boxed entry per row spent ~15 % of E4 in malloc,
//! free and the final drop; a `HashMap<Vec<u8>, Box<[Value]>>` before it took three times the
//! memory: E4 at 40M rows peaked at 10.9 GB). Hand-written because no map crate stores
//! variable-length keys and values inline. Hashed with foldhash (fixed seed: a model crate
//! reads no entropy); the table is only looked up, never iterated for results, so neither the
//! hasher nor the arena's layout changes a figure.

use keylab_schema::Value;
use std::hash::BuildHasher;

type Hasher = foldhash::fast::FixedState;

const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const TIME: u8 = 3;
const BYTES: u8 = 4;

/// Rows' secondary-column values by primary-key map key.
#[derive(Debug, Clone, Default)]
pub(crate) struct SecondaryValues {
    /// Arena offsets of the live entries.
    index: hashbrown::HashTable<usize>,
    arena: Vec<u8>,
    /// Bytes of removed entries still in the arena.
    garbage: usize,
    hasher: Hasher,
}

fn entry_at(arena: &[u8], at: usize) -> (&[u8], &[u8], usize) {
    let word = |i: usize| u32::from_le_bytes(arena[i..i + 4].try_into().expect("4 bytes")) as usize;
    let (key_len, values_len) = (word(at), word(at + 4));
    let key = &arena[at + 8..at + 8 + key_len];
    let values = &arena[at + 8 + key_len..at + 8 + key_len + values_len];
    (key, values, 8 + key_len + values_len)
}

impl SecondaryValues {
    /// Stores `values` for the row whose map key is `key` (replacing what was stored).
    pub(crate) fn insert<'a>(&mut self, key: &[u8], values: impl Iterator<Item = &'a Value>) {
        self.remove(key);
        let at = self.arena.len();
        self.arena.extend_from_slice(&(key.len() as u32).to_le_bytes());
        self.arena.extend_from_slice(&[0; 4]);
        self.arena.extend_from_slice(key);
        for v in values {
            match v {
                Value::Null => self.arena.push(NULL),
                Value::Int(i) => push_word(&mut self.arena, INT, i.to_le_bytes()),
                Value::UInt(u) => push_word(&mut self.arena, UINT, u.to_le_bytes()),
                Value::Time(t) => push_word(&mut self.arena, TIME, t.to_le_bytes()),
                Value::Bytes(b) => {
                    self.arena.push(BYTES);
                    self.arena.extend_from_slice(&(b.len() as u32).to_le_bytes());
                    self.arena.extend_from_slice(b);
                }
            }
        }
        let values_len = (self.arena.len() - at - 8 - key.len()) as u32;
        self.arena[at + 4..at + 8].copy_from_slice(&values_len.to_le_bytes());
        let hash = self.hasher.hash_one(key);
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.index.insert_unique(hash, at, |&o| hasher.hash_one(entry_at(arena, o).0));
    }

    /// Removes the row of map key `key`; its arena offset, if it was stored.
    fn remove(&mut self, key: &[u8]) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        let arena = &self.arena;
        let entry = self.index.find_entry(hash, |&o| entry_at(arena, o).0 == key).ok()?;
        let (at, _) = entry.remove();
        self.garbage += entry_at(&self.arena, at).2;
        Some(at)
    }

    /// Removes the row of map key `key`, writing its values into `row` at `cols` (byte
    /// values reuse `row`'s buffers). False when no such row is stored.
    pub(crate) fn take_into(&mut self, key: &[u8], cols: &[usize], row: &mut [Value]) -> bool {
        let Some(at) = self.remove(key) else {
            return false;
        };
        let mut rest = entry_at(&self.arena, at).1;
        for &c in cols {
            let (tag, tail) = rest.split_first().expect("a packed value per column");
            rest = tail;
            let mut word = || {
                let (w, tail) = rest.split_at(8);
                rest = tail;
                i64::from_le_bytes(w.try_into().expect("8 bytes"))
            };
            row[c] = match *tag {
                NULL => Value::Null,
                INT => Value::Int(word()),
                UINT => Value::UInt(word() as u64),
                TIME => Value::Time(word()),
                _ => {
                    let (len, tail) = rest.split_at(4);
                    let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
                    let (b, tail) = tail.split_at(len);
                    rest = tail;
                    match &mut row[c] {
                        Value::Bytes(dst) => {
                            dst.clear();
                            dst.extend_from_slice(b);
                            continue;
                        }
                        _ => Value::Bytes(b.to_vec()),
                    }
                }
            };
        }
        if self.garbage > 1 << 20 && self.garbage > self.arena.len() / 2 {
            self.compact();
        }
        true
    }

    /// Copies the live entries into a new arena (removed ones leave holes behind).
    fn compact(&mut self) {
        let mut arena = Vec::with_capacity(self.arena.len() - self.garbage);
        for at in self.index.iter_mut() {
            let len = entry_at(&self.arena, *at).2;
            let new_at = arena.len();
            arena.extend_from_slice(&self.arena[*at..*at + len]);
            *at = new_at;
        }
        self.arena = arena;
        self.garbage = 0;
    }

    /// Rows stored.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }
}

fn push_word(bytes: &mut Vec<u8>, tag: u8, word: [u8; 8]) {
    bytes.push(tag);
    bytes.extend_from_slice(&word);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_by_key() {
        let mut store = SecondaryValues::default();
        let a = [Value::Int(-7), Value::Null, Value::Bytes(b"abc".to_vec()), Value::Time(9)];
        let b = [Value::UInt(u64::MAX), Value::Bytes(Vec::new()), Value::Null, Value::Int(1)];
        store.insert(b"k1", a.iter());
        store.insert(b"k2", b.iter());
        store.insert(b"k1", a.iter());
        assert_eq!(store.len(), 2);
        let cols = [0, 1, 2, 3];
        let mut row = vec![Value::Bytes(b"old".to_vec()); 4];
        assert!(store.take_into(b"k2", &cols, &mut row));
        assert_eq!(row, b);
        assert!(!store.take_into(b"k2", &cols, &mut row), "taken once");
        assert!(store.take_into(b"k1", &cols, &mut row));
        assert_eq!(row, a);
        assert_eq!(store.len(), 0);
    }

    /// Many inserts and takes (past the compaction threshold) keep every live row's values.
    #[test]
    fn compaction_keeps_live_rows() {
        let mut store = SecondaryValues::default();
        let cols = [0, 1];
        let vals = |i: i64| [Value::Int(i), Value::Bytes(vec![b'x'; (i % 50) as usize])];
        for i in 0..60_000i64 {
            store.insert(&i.to_le_bytes(), vals(i).iter());
        }
        let mut row = vec![Value::Null, Value::Null];
        for i in (0..60_000i64).filter(|i| i % 3 != 0) {
            assert!(store.take_into(&i.to_le_bytes(), &cols, &mut row));
            assert_eq!(row, vals(i));
        }
        assert!(store.garbage < store.arena.len(), "compacted at least once");
        assert_eq!(store.len(), 20_000);
        for i in (0..60_000i64).step_by(3) {
            assert!(store.take_into(&i.to_le_bytes(), &cols, &mut row));
            assert_eq!(row, vals(i));
        }
        assert_eq!(store.len(), 0);
    }
}
