//! The secondary-column values of every stored row, by primary key, so that a delete by
//! primary key finds the row's secondary records. Kept only for tables with secondary indexes.
//!
//! One allocation per row holds the primary key's map key and the packed values together;
//! a `HashMap<Vec<u8>, Box<[Value]>>` took about three times the memory (two allocations and
//! a 32-byte `Value` per column: E4 at 40M rows peaked at 10.9 GB). Hand-written because the
//! lookup is by a prefix of the stored bytes, which the std map supports only through
//! `Borrow` on a wrapper like this one. Hashed with foldhash, not SipHash: the set is only
//! looked up, never iterated, so the hasher changes speed alone (SipHash was ~6% of E4);
//! with a fixed seed, as a model crate reads no entropy.

use keylab_schema::Value;
use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

/// `[key length: u32 LE][key][packed values]`; hashed and compared by the key alone.
#[derive(Debug, Clone)]
struct RowEntry(Box<[u8]>);

impl RowEntry {
    fn key_len(&self) -> usize {
        u32::from_le_bytes(self.0[..4].try_into().expect("4-byte length")) as usize
    }
    fn key(&self) -> &[u8] {
        &self.0[4..4 + self.key_len()]
    }
    fn packed(&self) -> &[u8] {
        &self.0[4 + self.key_len()..]
    }
}

impl Hash for RowEntry {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Must hash exactly as the borrowed `[u8]` does.
        self.key().hash(state);
    }
}

impl PartialEq for RowEntry {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for RowEntry {}

impl Borrow<[u8]> for RowEntry {
    fn borrow(&self) -> &[u8] {
        self.key()
    }
}

const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const TIME: u8 = 3;
const BYTES: u8 = 4;

/// Rows' secondary-column values by primary-key map key.
#[derive(Debug, Clone, Default)]
pub(crate) struct SecondaryValues {
    rows: HashSet<RowEntry, foldhash::fast::FixedState>,
}

impl SecondaryValues {
    /// Stores `values` for the row whose map key is `key` (replacing what was stored).
    pub(crate) fn insert<'a>(&mut self, key: &[u8], values: impl Iterator<Item = &'a Value>) {
        let mut bytes = Vec::with_capacity(4 + key.len() + 9);
        bytes.extend_from_slice(&(key.len() as u32).to_le_bytes());
        bytes.extend_from_slice(key);
        for v in values {
            match v {
                Value::Null => bytes.push(NULL),
                Value::Int(i) => push_word(&mut bytes, INT, i.to_le_bytes()),
                Value::UInt(u) => push_word(&mut bytes, UINT, u.to_le_bytes()),
                Value::Time(t) => push_word(&mut bytes, TIME, t.to_le_bytes()),
                Value::Bytes(b) => {
                    bytes.push(BYTES);
                    bytes.extend_from_slice(&(b.len() as u32).to_le_bytes());
                    bytes.extend_from_slice(b);
                }
            }
        }
        self.rows.replace(RowEntry(bytes.into_boxed_slice()));
    }

    /// Removes the row of map key `key`, writing its values into `row` at `cols` (byte
    /// values reuse `row`'s buffers). False when no such row is stored.
    pub(crate) fn take_into(&mut self, key: &[u8], cols: &[usize], row: &mut [Value]) -> bool {
        let Some(entry) = self.rows.take(key) else {
            return false;
        };
        let mut rest = entry.packed();
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
        true
    }

    /// Rows stored.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
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
}
