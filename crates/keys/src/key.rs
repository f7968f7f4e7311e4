//! A generated id in its stored form: an integer, or up to 36 bytes kept inline so ids are
//! `Copy` and generating them never touches the heap.
//!
//! `Key`'s order is the order the stored column sorts in (numeric for integers, memcmp for
//! bytes), which for single-case ASCII ids is also the order a case-insensitive collation
//! gives. Parsing keys back from text lives in `parse.rs`.

use crate::text::hex_encode;
use keylab_schema::Value;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Longest stored id in bytes: a UUID's canonical text.
pub const MAX_KEY_BYTES: usize = 36;

/// Up to 36 bytes stored inline, plus whether they are text (ASCII) or raw binary.
///
/// Equality, hashing and order look only at the bytes (`as_slice()`), in memcmp order.
#[derive(Clone, Copy)]
pub struct InlineBytes {
    buf: [u8; MAX_KEY_BYTES],
    len: u8,
    text: bool,
}

impl InlineBytes {
    /// `bytes` as text (`text == true`: printable ASCII as stored) or raw binary.
    ///
    /// # Panics
    /// When `bytes` is longer than [`MAX_KEY_BYTES`].
    pub fn new(bytes: &[u8], text: bool) -> InlineBytes {
        let mut buf = [0u8; MAX_KEY_BYTES];
        buf[..bytes.len()].copy_from_slice(bytes);
        InlineBytes { buf, len: bytes.len() as u8, text }
    }

    /// A buffer of `len` zero bytes for a writer to fill through [`InlineBytes::as_mut_slice`].
    #[inline]
    pub(crate) fn zeroed(len: usize, text: bool) -> InlineBytes {
        debug_assert!(len <= MAX_KEY_BYTES);
        InlineBytes { buf: [0u8; MAX_KEY_BYTES], len: len as u8, text }
    }

    /// The stored bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len as usize]
    }

    /// Number of stored bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when no bytes are stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when the bytes are text (ASCII characters), false for raw binary.
    pub fn is_text(&self) -> bool {
        self.text
    }
}

impl PartialEq for InlineBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for InlineBytes {}

impl Hash for InlineBytes {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl PartialOrd for InlineBytes {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InlineBytes {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl fmt::Debug for InlineBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}

/// Text as stored; binary as lowercase hex.
impl fmt::Display for InlineBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text {
            // Generated and parsed text is ASCII; lossy only guards against misuse of `new`.
            f.write_str(&String::from_utf8_lossy(self.as_slice()))
        } else {
            let mut hex = [0u8; 2 * MAX_KEY_BYTES];
            let n = 2 * self.len();
            hex_encode(self.as_slice(), &mut hex[..n]);
            f.write_str(std::str::from_utf8(&hex[..n]).map_err(|_| fmt::Error)?)
        }
    }
}

/// An id in its stored form.
///
/// The derived order is the stored order: a generator yields only one kind of key, and
/// within a kind integers compare numerically and bytes in memcmp order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A 64-bit integer id (`bigint`).
    Int(i64),
    /// Text or binary id bytes.
    Bytes(InlineBytes),
}

impl Key {
    /// The stored bytes of a text or binary id; `None` for integers.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Key::Int(_) => None,
            Key::Bytes(b) => Some(b.as_slice()),
        }
    }

    /// The integer of a `bigint` id; `None` for bytes.
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Key::Int(v) => Some(v),
            Key::Bytes(_) => None,
        }
    }

    /// Appends a memcmp-comparable form (InnoDB's stored order) to `out`: integers
    /// big-endian with the sign bit flipped, as InnoDB stores a signed `BIGINT`; bytes as
    /// they are. Same rule as `keylab_schema::Value::write_sort_key`.
    pub fn write_sort_key(&self, out: &mut Vec<u8>) {
        match self {
            Key::Int(v) => out.extend_from_slice(&((*v as u64) ^ (1 << 63)).to_be_bytes()),
            Key::Bytes(b) => out.extend_from_slice(b.as_slice()),
        }
    }

    /// The id as a column value: integers as `Value::Int`, text as its ASCII bytes, binary
    /// as the raw bytes.
    pub fn to_value(&self) -> Value {
        match self {
            Key::Int(v) => Value::Int(*v),
            Key::Bytes(b) => Value::Bytes(b.as_slice().to_vec()),
        }
    }
}

/// What `keylab keys` prints: text encodings as stored, binary encodings as lowercase hex,
/// integers in decimal.
impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Int(v) => write!(f, "{v}"),
            Key::Bytes(b) => write!(f, "{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_memcmp_not_length_first() {
        let a = InlineBytes::new(b"b", true);
        let b = InlineBytes::new(b"ab", true);
        assert!(b < a);
        assert!(Key::Int(-5) < Key::Int(3));
    }

    #[test]
    fn display_and_values() {
        let bin = Key::Bytes(InlineBytes::new(&[0x01, 0xab], false));
        assert_eq!(bin.to_string(), "01ab");
        assert_eq!(bin.to_value(), Value::Bytes(vec![0x01, 0xab]));
        let text = Key::Bytes(InlineBytes::new(b"01AB", true));
        assert_eq!(text.to_string(), "01AB");
        assert_eq!(Key::Int(42).to_string(), "42");
        assert_eq!(Key::Int(42).to_value(), Value::Int(42));
        let mut a = Vec::new();
        let mut b = Vec::new();
        Key::Int(-1).write_sort_key(&mut a);
        Key::Int(1).write_sort_key(&mut b);
        assert!(a < b);
        assert!(std::mem::size_of::<Key>() <= 40, "Key stays small enough to copy");
    }
}
