//! The memcmp-comparable sort keys the model stores for index tuples: their layout per key
//! column, the byte limit of a key value (what fits in `BTMaxItemSize`), and the index
//! tuple size a key stands for. It does not decide where a tuple goes.

use super::*;

/// `BTMaxItemSize` on 8 KiB pages: a third of a page less a line pointer's share and a heap
/// TID, 2704 bytes (`nbtree.h`). `_bt_check_third_page` refuses a longer (MAXALIGNed) index
/// tuple at insert.
pub const BT_MAX_ITEM_BYTES: u32 = 2704;

/// The longest key value the model stores, bytes: the most data a one-column index tuple
/// holds within [`BT_MAX_ITEM_BYTES`] (the 8-byte tuple header and a 4-byte varlena header
/// before it). A longer value is refused rather than cut, as the server refuses it.
pub const MAX_KEY_BYTES: u32 = BT_MAX_ITEM_BYTES - INDEX_TUPLE_HEADER_BYTES - 4;

/// The sort-key width of a varlena column without a smaller declared maximum, unless the
/// table is built with a wider one (`NbtreeSettings::key_value_bytes`): every sort key is
/// as wide as its widest value may be, so the width is kept to what the values need.
pub const DEFAULT_KEY_VALUE_BYTES: u32 = 64;

/// Key columns an index may have: PostgreSQL's `INDEX_MAX_KEYS` (32 in a default build).
pub const MAX_KEY_COLUMNS: usize = 32;
/// A sort key up to this long is probed on the stack (four columns of the default width);
/// a longer one, rare, in a heap buffer.
pub const INLINE_STRIDE: usize = 4 * (DEFAULT_KEY_VALUE_BYTES as usize + LEN_BYTES) + 8;
/// Bytes of a column's length in a sort key (a value is at most `MAX_KEY_BYTES` long).
pub(super) const LEN_BYTES: usize = 2;
/// The length of a NULL column (a real value's length is at most `MAX_KEY_BYTES`).
pub(super) const NULL_LEN: u16 = 0xFFFF;

/// The length of the column whose length bytes end at `key[end]`.
#[inline]
pub(super) fn len_at(key: &[u8], end: usize) -> u16 {
    u16::from_be_bytes([key[end - 1], key[end]])
}

/// Sort-key layout of one index: per key column, its value bytes (padded with zeros) and one
/// length byte; then the heap TID big-endian (8 bytes; 0 means "truncated", the minus
/// infinity of pivots). Bytewise comparison of two sort keys is the server's order: column by
/// column (values as `uuid` bytewise, integers numerically, text bytewise as `COLLATE "C"`,
/// NULL last as under the default `NULLS LAST`), then heap TID (heapkeyspace order). A pivot's
/// truncated columns are all zeros, below every real value of the column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLayout {
    /// Stored type of each key column (the first `ncols` are used).
    pub cols: [KeyType; MAX_KEY_COLUMNS],
    /// Key columns.
    pub ncols: usize,
    /// Offset of the last byte of the last column's length: the value part is
    /// `key[..=width]`.
    pub width: usize,
}

impl KeyLayout {
    /// The layout of a one-column key.
    pub fn new(ty: KeyType) -> Self {
        Self::composite(&[ty]).expect("one column always fits")
    }

    /// The layout of a key of `types`, in index column order, varlenas at most
    /// [`DEFAULT_KEY_VALUE_BYTES`] wide.
    pub fn composite(types: &[KeyType]) -> Result<Self, String> {
        Self::capped(types, DEFAULT_KEY_VALUE_BYTES)
    }

    /// The layout of a key of `types`, varlena values at most `cap_bytes` wide (at most
    /// [`MAX_KEY_BYTES`]).
    pub fn capped(types: &[KeyType], cap_bytes: u32) -> Result<Self, String> {
        if types.is_empty() || types.len() > MAX_KEY_COLUMNS {
            return Err(format!(
                "an index of {} key columns is more than PostgreSQL allows (1 to \
                 {MAX_KEY_COLUMNS}, INDEX_MAX_KEYS)",
                types.len()
            ));
        }
        let mut cols = [KeyType::Int; MAX_KEY_COLUMNS];
        for (c, t) in cols.iter_mut().zip(types) {
            *c = t.capped(cap_bytes);
        }
        let width = cols[..types.len()].iter().map(|t| t.width() + LEN_BYTES).sum::<usize>() - 1;
        Ok(KeyLayout { cols, ncols: types.len(), width })
    }

    /// Key columns in use.
    pub fn types(&self) -> &[KeyType] {
        &self.cols[..self.ncols]
    }

    /// Bytes of one sort key.
    pub fn stride(&self) -> usize {
        self.width + 1 + 8
    }

    /// Writes the sort key of a one-column `value` with heap TID `tid` into `out`.
    pub fn encode(&self, value: &Value, tid: u64, out: &mut Vec<u8>) -> Result<(), String> {
        if self.ncols != 1 {
            return Err(format!("1 key value for an index of {} columns", self.ncols));
        }
        out.clear();
        encode_column(self.cols[0], value, out)?;
        out.extend_from_slice(&tid.to_be_bytes());
        Ok(())
    }

    /// Writes the sort key of `values` (one per key column, in order) with heap TID `tid`
    /// into `out` (cleared first).
    pub fn encode_values<'a>(
        &self,
        values: impl IntoIterator<Item = &'a Value>,
        tid: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        out.clear();
        let mut n = 0;
        for (&ty, value) in self.types().iter().zip(values) {
            n += 1;
            encode_column(ty, value, out)?;
        }
        if n != self.ncols {
            return Err(format!("{n} key values for an index of {} columns", self.ncols));
        }
        out.extend_from_slice(&tid.to_be_bytes());
        Ok(())
    }

    /// Writes the sort key of the `columns` of `row` with heap TID `tid` into `out`.
    #[inline]
    pub fn encode_row(
        &self,
        columns: &[usize],
        row: &[Value],
        tid: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        match columns {
            [c] => self.encode(&row[*c], tid, out),
            _ => self.encode_values(columns.iter().map(|&c| &row[c]), tid, out),
        }
    }

    /// Value length of a one-column sort key.
    pub fn len_of(&self, key: &[u8]) -> u32 {
        u32::from(len_at(key, self.width))
    }

    /// The value part with its length bytes (what `_bt_keep_natts_fast` compares).
    pub fn value<'a>(&self, key: &'a [u8]) -> &'a [u8] {
        &key[..=self.width]
    }

    /// Heap TID of a sort key (0 = truncated).
    pub fn tid(&self, key: &[u8]) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&key[self.width + 1..self.width + 9]);
        u64::from_be_bytes(b)
    }

    /// Sets the heap TID of a sort key.
    pub fn set_tid(&self, key: &mut [u8], tid: u64) {
        key[self.width + 1..self.width + 9].copy_from_slice(&tid.to_be_bytes());
    }

    /// Leaf tuple bytes (MAXALIGNed, no line pointer) of a sort key: every key column.
    #[inline]
    pub fn leaf_bytes(&self, key: &[u8]) -> u32 {
        self.tuple_bytes(key, self.ncols)
    }

    /// Bytes of an index tuple holding the first `natts` key columns of `key`
    /// (`index_form_tuple`, and `index_truncate_tuple` for pivots): the 8-byte header, a
    /// null bitmap when a kept column is NULL (the data then starts at 16), each non-NULL
    /// value at its type's alignment, MAXALIGNed.
    #[inline]
    pub fn tuple_bytes(&self, key: &[u8], natts: usize) -> u32 {
        let len = len_at(key, self.width);
        if self.ncols == 1 && natts == 1 && len != NULL_LEN {
            // The common one-column key, without the per-column walk.
            return self.cols[0].leaf_tuple_bytes(u32::from(len));
        }
        self.tuple_bytes_by_column(key, natts)
    }

    /// [`KeyLayout::tuple_bytes`] column by column.
    fn tuple_bytes_by_column(&self, key: &[u8], natts: usize) -> u32 {
        let mut lens = [0u16; MAX_KEY_COLUMNS];
        let mut at = 0;
        for (i, ty) in self.types().iter().enumerate() {
            at += ty.width() + LEN_BYTES;
            lens[i] = len_at(key, at - 1);
        }
        let has_null = lens[..natts].contains(&NULL_LEN);
        let mut off = if has_null { 16 } else { INDEX_TUPLE_HEADER_BYTES };
        for (ty, &len) in self.types()[..natts].iter().zip(&lens) {
            if len != NULL_LEN {
                off = ty.data_end(off, u32::from(len));
            }
        }
        maxalign(off)
    }

    /// `_bt_keep_natts_fast`: the key columns a pivot between `a` and `b` must keep (the
    /// leading equal columns plus one; `ncols + 1` when every column is equal and the heap
    /// TID must be kept). Compares value parts only.
    pub fn keep_natts(&self, a: &[u8], b: &[u8]) -> usize {
        let mut at = 0;
        for (i, ty) in self.types().iter().enumerate() {
            let end = at + ty.width() + LEN_BYTES;
            if a[at..end] != b[at..end] {
                return i + 1;
            }
            at = end;
        }
        self.ncols + 1
    }

    /// `_bt_truncate`: the left half's new high key between its last item `last_left` and
    /// the right half's first item `first_right`, with its tuple bytes. The columns past
    /// the distinguishing one are cut (zeroed here); when every column is equal the pivot
    /// keeps them all plus `last_left`'s heap TID (a MAXALIGNed TID more).
    pub fn truncate_pivot(&self, last_left: &[u8], first_right: &[u8]) -> (Vec<u8>, u16) {
        let natts = self.keep_natts(last_left, first_right);
        let mut hk = first_right.to_vec();
        if natts > self.ncols {
            self.set_tid(&mut hk, self.tid(last_left));
            let z = self.leaf_bytes(&hk) + PIVOT_TID_BYTES;
            return (hk, z as u16);
        }
        let cut: usize = self.types()[..natts].iter().map(|t| t.width() + LEN_BYTES).sum();
        hk[cut..].fill(0);
        let z = self.tuple_bytes(&hk, natts);
        (hk, z as u16)
    }
}
