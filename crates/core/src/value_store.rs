//! A column of values in insertion order, packed while every value has the same shape: 8
//! bytes per integer or time, the bytes alone for byte strings of one length (a `Vec<Value>`
//! takes 32 bytes per value plus an allocation per byte string: 1.3 GB of E4's 40M keys),
//! else the values themselves. Churn's live keys and the reads' row columns are kept in it.

use keylab_schema::Value;

/// Values in the order they were pushed (see the module docs for the packing).
#[derive(Debug, Clone, Default)]
pub enum ValueStore {
    /// No value yet.
    #[default]
    Empty,
    /// Integers.
    Ints(Vec<i64>),
    /// Times (Unix seconds).
    Times(Vec<i64>),
    /// Byte strings of one length, end to end.
    Fixed {
        /// Bytes per value.
        width: usize,
        /// The values.
        bytes: Vec<u8>,
    },
    /// Values of mixed shapes.
    Values(Vec<Value>),
}

impl ValueStore {
    /// Values held.
    pub fn len(&self) -> usize {
        match self {
            ValueStore::Empty => 0,
            ValueStore::Ints(v) | ValueStore::Times(v) => v.len(),
            ValueStore::Fixed { width, bytes } => bytes.len() / (*width).max(1),
            ValueStore::Values(v) => v.len(),
        }
    }

    /// True when no value is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `value`.
    pub fn push(&mut self, value: &Value) {
        match (&mut *self, value) {
            (ValueStore::Empty, Value::Int(i)) => *self = ValueStore::Ints(vec![*i]),
            (ValueStore::Empty, Value::Time(t)) => *self = ValueStore::Times(vec![*t]),
            (ValueStore::Empty, Value::Bytes(b)) if !b.is_empty() => {
                *self = ValueStore::Fixed { width: b.len(), bytes: b.clone() }
            }
            (ValueStore::Ints(v), Value::Int(i)) => v.push(*i),
            (ValueStore::Times(v), Value::Time(t)) => v.push(*t),
            (ValueStore::Fixed { width, bytes }, Value::Bytes(b)) if b.len() == *width => {
                bytes.extend_from_slice(b)
            }
            (ValueStore::Values(v), value) => v.push(value.clone()),
            (_, value) => {
                // A value of another shape: keep every value as a value from now on.
                let mut all: Vec<Value> = (0..self.len()).map(|i| self.get(i)).collect();
                all.push(value.clone());
                *self = ValueStore::Values(all);
            }
        }
    }

    /// Value `i` (panics past the end).
    pub fn get(&self, i: usize) -> Value {
        match self {
            ValueStore::Empty => panic!("no value in an empty store"),
            ValueStore::Ints(v) => Value::Int(v[i]),
            ValueStore::Times(v) => Value::Time(v[i]),
            ValueStore::Fixed { width, bytes } => {
                Value::Bytes(bytes[i * width..(i + 1) * width].to_vec())
            }
            ValueStore::Values(v) => v[i].clone(),
        }
    }

    /// `Vec::swap_remove`: removes value `i`, the last value takes its place.
    pub fn swap_remove(&mut self, i: usize) -> Value {
        match self {
            ValueStore::Empty => panic!("no value in an empty store"),
            ValueStore::Ints(v) => Value::Int(v.swap_remove(i)),
            ValueStore::Times(v) => Value::Time(v.swap_remove(i)),
            ValueStore::Fixed { width, bytes } => {
                let w = *width;
                let last = bytes.len() - w;
                let value = bytes[i * w..(i + 1) * w].to_vec();
                bytes.copy_within(last.., i * w);
                bytes.truncate(last);
                Value::Bytes(value)
            }
            ValueStore::Values(v) => v.swap_remove(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed store holds the same values in the same order as a plain `Vec<Value>`,
    /// whatever shapes they have, through pushes and swap-removes.
    #[test]
    fn packed_values_behave_like_a_vec_of_values() {
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let cases: Vec<Vec<Value>> = vec![
            (0..50).map(Value::Int).collect(),
            (0..50).map(Value::Time).collect(),
            (0..50).map(|i| text(&format!("{i:04}"))).collect(),
            vec![text("ab"), text("cd"), text("efg"), Value::Int(3), Value::Time(4), text("h")],
        ];
        for values in cases {
            let mut store = ValueStore::default();
            let mut plain = Vec::new();
            for v in &values {
                store.push(v);
                plain.push(v.clone());
            }
            assert_eq!((0..store.len()).map(|i| store.get(i)).collect::<Vec<_>>(), plain);
            let mut k = 7usize;
            while !plain.is_empty() {
                k = (k * 31 + 3) % plain.len();
                assert_eq!(store.swap_remove(k), plain.swap_remove(k));
            }
            assert!(store.is_empty());
        }
    }
}
