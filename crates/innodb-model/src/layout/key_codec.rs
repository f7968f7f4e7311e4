//! The key codec of a [`Layout`]: the fixed-width, memcmp-ordered key bytes the simulator
//! stores in its pages (encoding a row's key or a prefix of it, re-encoding when a variable
//! field's width grows, and a secondary record's clustered key).
//!
//! Not for: record sizes (the parent module).

use super::{KeySlot, Layout};
use keylab_schema::Value;

impl Layout {
    pub(super) fn width_of(&self, slots: &[KeySlot]) -> usize {
        slots.iter().map(|s| s.nullable as usize + s.width as usize + 2 * s.var as usize).sum()
    }

    /// Encoded width of the leading `n_unique_slots` slots.
    pub fn unique_prefix_width(&self) -> usize {
        self.width_of(&self.slots[..self.n_unique_slots])
    }

    /// True when a unique check applies to this row (no NULL in the unique columns).
    pub fn unique_applies(&self, row: &[Value]) -> bool {
        self.slots[..self.n_unique_slots].iter().all(|s| !row[s.col].is_null())
    }

    /// The slot widths a row needs, when wider than the current ones (variable fields grow).
    #[inline]
    pub fn needed_widths(&self, row: &[Value]) -> Option<Vec<u32>> {
        if !self.any_var_slot {
            return None;
        }
        self.needed_var_widths(&self.prefixed(row))
    }

    fn needed_var_widths(&self, row: &[Value]) -> Option<Vec<u32>> {
        let grows = |s: &KeySlot| matches!(&row[s.col], Value::Bytes(b) if s.var && b.len() as u32 > s.width);
        if !self.slots.iter().any(grows) {
            return None;
        }
        let mut grow = false;
        let w: Vec<u32> = self
            .slots
            .iter()
            .map(|s| match &row[s.col] {
                Value::Bytes(b) if s.var && b.len() as u32 > s.width => {
                    grow = true;
                    b.len() as u32
                }
                _ => s.width,
            })
            .collect();
        grow.then_some(w)
    }

    /// Re-encodes `key` (in the current widths) into `new` widths, appending to `out`.
    pub fn reencode(&self, key: &[u8], new: &[u32], out: &mut Vec<u8>) {
        let mut at = 0;
        for (s, &nw) in self.slots.iter().zip(new) {
            if s.nullable {
                out.push(key[at]);
                at += 1;
            }
            let w = s.width as usize;
            out.extend_from_slice(&key[at..at + w]);
            // Zero padding, inverted in a DESC slot.
            out.resize(out.len() + (nw as usize - w), if s.desc { 0xff } else { 0 });
            at += w;
            if s.var {
                out.extend_from_slice(&key[at..at + 2]);
                at += 2;
            }
        }
    }

    /// Adopts new slot widths (after every stored key was re-encoded).
    pub fn set_widths(&mut self, new: &[u32]) {
        for (s, &w) in self.slots.iter_mut().zip(new) {
            s.width = w;
        }
        self.key_width = self.width_of(&self.slots);
    }

    /// Appends the memcmp-ordered key of `row` to `out`: per slot an optional NULL flag
    /// (0 = NULL sorts first), the value padded with zero bytes to the slot width, and for
    /// variable fields a 2-byte length so that "ab" < "ab\0". Ids are ASCII or binary, so byte
    /// order is the collation order.
    pub fn encode_key(&self, row: &[Value], out: &mut Vec<u8>) {
        let row = &*self.prefixed(row);
        for s in &self.slots {
            let v = &row[s.col];
            let slot_start = out.len();
            if s.nullable {
                out.push(!v.is_null() as u8);
            }
            let start = out.len();
            if s.int_like {
                v.write_sort_key(out);
            } else if let Value::Bytes(b) = v {
                // A 16-byte value (uuid as BINARY(16)) as a fixed-size copy, not a memcpy call.
                match <&[u8; 16]>::try_from(b.as_slice()) {
                    Ok(b16) => out.extend_from_slice(b16),
                    Err(_) => out.extend_from_slice(b),
                }
            }
            let len = (out.len() - start) as u32;
            out.resize(start + s.width as usize, 0);
            if s.var {
                out.extend_from_slice(&(len as u16).to_be_bytes());
            }
            if s.desc {
                out[slot_start..].iter_mut().for_each(|b| *b = !*b);
            }
        }
    }

    /// Appends the key bytes of the first `n` slots of `row` (as [`Layout::encode_key`]
    /// writes them): the search prefix of a lookup by an index's own columns.
    pub fn encode_key_prefix(&self, row: &[Value], n: usize, out: &mut Vec<u8>) {
        let start = out.len();
        self.encode_key(row, out);
        out.truncate(start + self.width_of(&self.slots[..n.min(self.slots.len())]));
    }

    /// Appends to `out` the key `clustered` (PRIMARY's layout) gives the row whose key in
    /// this (secondary) index is `key`: each primary-key column's bytes taken from this
    /// index's slot for it, in PRIMARY's slot widths. The secondary record holds the whole
    /// primary key (`dict_index_build_internal_non_clust`), which is what a lookup through
    /// it follows to the row (`row_sel_get_clust_rec_for_mysql`, `row_build_row_ref`).
    pub fn clustered_key_of(&self, key: &[u8], clustered: &Layout, out: &mut Vec<u8>) {
        for c in &clustered.slots {
            let mut at = 0;
            let own = self.slots.iter().find_map(|s| {
                let start = at;
                at += s.nullable as usize + s.width as usize + 2 * s.var as usize;
                (s.col == c.col).then_some((s, start))
            });
            let (s, start) = own.expect("a secondary index holds every primary-key column");
            let flip = |b: u8| if s.desc { !b } else { b };
            let mut i = start + s.nullable as usize;
            if c.nullable {
                out.push(if s.nullable { flip(key[start]) } else { 1 });
            }
            let at = out.len();
            out.extend(key[i..i + s.width as usize].iter().map(|&b| flip(b)));
            i += s.width as usize;
            let len = if s.var {
                u16::from_be_bytes([flip(key[i]), flip(key[i + 1])]) as usize
            } else {
                s.width as usize
            };
            // The value in PRIMARY's slot width: padded with zeros, or cut.
            let w = c.width as usize;
            out.resize(at + w, 0);
            if c.var {
                out.extend_from_slice(&(len.min(w) as u16).to_be_bytes());
            }
        }
    }
}
