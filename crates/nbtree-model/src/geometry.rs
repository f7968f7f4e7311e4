//! Page and tuple geometry of PostgreSQL 15 on 8 KiB pages, and the memcmp-comparable sort
//! keys the model stores. Sizes follow `bufpage.h` (page header, line pointers), `itup.h`
//! (`IndexTupleData`), `nbtree.h` (`BTPageOpaqueData`) and `htup_details.h` (heap tuple
//! header). It does not decide where anything goes; the tree and heap modules do.

use keylab_schema::{ColumnType, Value};

/// `BLCKSZ`.
pub const PAGE_BYTES: u32 = 8192;
/// `SizeOfPageHeaderData`.
pub const PAGE_HEADER_BYTES: u32 = 24;
/// `MAXALIGN(sizeof(BTPageOpaqueData))`: the special space of every nbtree page.
pub const BT_SPECIAL_BYTES: u32 = 16;
/// Space for items on an nbtree page (`_bt_findsplitloc`'s leftspace/rightspace).
pub const BT_USABLE_BYTES: u32 = PAGE_BYTES - PAGE_HEADER_BYTES - BT_SPECIAL_BYTES;
/// Space for items on a heap page (no special space).
pub const HEAP_USABLE_BYTES: u32 = PAGE_BYTES - PAGE_HEADER_BYTES;
/// `sizeof(ItemIdData)`: one line pointer.
pub const LINE_POINTER_BYTES: u32 = 4;
/// `sizeof(IndexTupleData)`: heap TID (6) + info (2).
pub const INDEX_TUPLE_HEADER_BYTES: u32 = 8;
/// `MAXALIGN(sizeof(ItemPointerData))`: what a heap TID adds to a pivot tuple.
pub const PIVOT_TID_BYTES: u32 = 8;
/// `SizeofHeapTupleHeader`.
pub const HEAP_TUPLE_HEADER_BYTES: u32 = 23;
/// `MaxHeapTuplesPerPage` for 8 KiB pages.
pub const MAX_HEAP_TUPLES_PER_PAGE: u32 = 291;

/// `MAXALIGN` (8 on 64-bit builds).
pub fn maxalign(n: u32) -> u32 {
    (n + 7) & !7
}

fn align(n: u32, to: u32) -> u32 {
    n.div_ceil(to) * to
}

/// How PostgreSQL stores one key column, from the keylab column type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    /// `bigint` (8 bytes, 8-aligned).
    BigInt,
    /// `integer` (4 bytes, 4-aligned).
    Int,
    /// `timestamp` (8 bytes, 8-aligned).
    Timestamp,
    /// The native `uuid` type (16 bytes, byte-aligned): keylab's 16-byte binary ids.
    Uuid,
    /// A varlena (`varchar`/`text` under `COLLATE "C"`, or `bytea`) of at most this many bytes.
    Varlena {
        /// The longest value in bytes.
        max_bytes: u32,
    },
}

impl KeyType {
    /// The PostgreSQL type keylab's `ty` becomes, or why the model cannot key on it.
    /// Text is compared bytewise, as under `COLLATE "C"`; other collations are not modelled.
    pub fn of(ty: &ColumnType) -> Result<KeyType, String> {
        Ok(match *ty {
            ColumnType::BigInt { unsigned: false } => KeyType::BigInt,
            ColumnType::Int => KeyType::Int,
            ColumnType::Timestamp | ColumnType::DateTime => KeyType::Timestamp,
            ColumnType::Binary { bytes: 16 } => KeyType::Uuid,
            ColumnType::Binary { bytes } => KeyType::Varlena { max_bytes: bytes },
            ColumnType::Char { chars, charset } | ColumnType::VarChar { chars, charset } => {
                KeyType::Varlena { max_bytes: chars * charset.max_bytes_per_char() }
            }
            ColumnType::Text { .. } => KeyType::Varlena { max_bytes: MAX_KEY_BYTES },
            ColumnType::BigInt { unsigned: true }
            | ColumnType::Date
            | ColumnType::Decimal { .. } => {
                return Err(format!(
                    "the nbtree model has no key type for {}; valid key types: bigint, integer, \
                     timestamp, 16-byte binary (uuid), varchar/text (COLLATE \"C\"), bytea",
                    ty.sql(keylab_schema::Dialect::Postgres)
                ))
            }
        })
    }

    /// Sort-key bytes of the value part (fixed width per type; varlenas padded).
    pub fn width(self) -> usize {
        match self {
            KeyType::BigInt | KeyType::Timestamp => 8,
            KeyType::Int => 4,
            KeyType::Uuid => 16,
            KeyType::Varlena { max_bytes } => max_bytes.min(MAX_KEY_BYTES) as usize,
        }
    }

    /// Bytes of an index tuple holding a value of `len` bytes (`index_form_tuple`): the
    /// 8-byte header, the value at its type's alignment (a short varlena has a 1-byte header
    /// and no alignment; a longer one a 4-byte header, 4-aligned), MAXALIGNed.
    pub fn leaf_tuple_bytes(self, len: u32) -> u32 {
        let h = INDEX_TUPLE_HEADER_BYTES;
        maxalign(match self {
            KeyType::BigInt | KeyType::Timestamp => align(h, 8) + 8,
            KeyType::Int => align(h, 4) + 4,
            KeyType::Uuid => h + 16,
            KeyType::Varlena { .. } => varlena_end(h, len),
        })
    }
}

/// Where a varlena of `len` data bytes ends when it starts at `off` (short 1-byte header up
/// to 126 data bytes, `VARATT_CAN_MAKE_SHORT`; otherwise a 4-byte header, int-aligned).
pub fn varlena_end(off: u32, len: u32) -> u32 {
    if len < 127 {
        off + 1 + len
    } else {
        align(off, 4) + 4 + len
    }
}

/// The longest key value the model stores, bytes. keylab's ids are at most 36 bytes; longer
/// keys are refused rather than cut.
pub const MAX_KEY_BYTES: u32 = 64;

/// Sort-key layout of one index: value bytes (padded with zeros), one length byte, then the
/// heap TID big-endian (8 bytes; 0 means "truncated", the minus infinity of pivots). Bytewise
/// comparison of two sort keys is the server's order: values as `uuid` bytewise, integers
/// numerically, text bytewise (`COLLATE "C"`), then heap TID (nbtree's heapkeyspace order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLayout {
    /// Stored type of the key column.
    pub ty: KeyType,
    /// Width of the value part.
    pub width: usize,
}

impl KeyLayout {
    /// The layout for `ty`.
    pub fn new(ty: KeyType) -> Self {
        KeyLayout { ty, width: ty.width() }
    }

    /// Bytes of one sort key.
    pub fn stride(&self) -> usize {
        self.width + 1 + 8
    }

    /// Writes the sort key of `value` with heap TID `tid` into `out` (cleared first).
    pub fn encode(&self, value: &Value, tid: u64, out: &mut Vec<u8>) -> Result<(), String> {
        out.clear();
        match (self.ty, value) {
            (_, Value::Null) => return Err("a NULL key is not modelled".into()),
            (KeyType::Int, Value::Int(v)) => {
                out.extend_from_slice(&((*v as i32 as u32) ^ (1 << 31)).to_be_bytes())
            }
            (KeyType::Int, Value::UInt(v)) => {
                out.extend_from_slice(&((*v as u32) ^ (1 << 31)).to_be_bytes())
            }
            (KeyType::BigInt | KeyType::Timestamp, Value::UInt(v)) => {
                out.extend_from_slice(&(*v ^ (1 << 63)).to_be_bytes())
            }
            _ => value.write_sort_key(out),
        }
        let len = out.len();
        if len > self.width {
            return Err(format!(
                "a key of {len} bytes is longer than the nbtree model keeps ({} bytes)",
                self.width
            ));
        }
        out.resize(self.width, 0);
        out.push(len as u8);
        out.extend_from_slice(&tid.to_be_bytes());
        Ok(())
    }

    /// Value length of a sort key.
    pub fn len_of(&self, key: &[u8]) -> u32 {
        u32::from(key[self.width])
    }

    /// The value part with its length byte (what `_bt_keep_natts_fast` compares).
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

    /// Leaf tuple bytes (MAXALIGNed, no line pointer) of a sort key.
    pub fn leaf_bytes(&self, key: &[u8]) -> u32 {
        self.ty.leaf_tuple_bytes(self.len_of(key))
    }
}

/// A heap TID as the model numbers it: block and 1-based line pointer offset.
pub fn tid(block: u32, offset: u16) -> u64 {
    (u64::from(block) << 16) | u64::from(offset)
}

/// Bytes of a heap tuple of `values` in `columns` (`heap_compute_data_size` after the
/// 23-byte header and null bitmap, both MAXALIGNed as `t_hoff`), before the MAXALIGN the
/// page applies. Text is assumed uncompressed and inline (no TOAST).
pub fn heap_tuple_bytes(columns: &[ColumnType], values: &[Value]) -> u32 {
    let has_nulls = values.iter().any(Value::is_null);
    let bitmap = if has_nulls { (columns.len() as u32).div_ceil(8) } else { 0 };
    let mut off = 0u32;
    for (ty, v) in columns.iter().zip(values) {
        if v.is_null() {
            continue;
        }
        off = match *ty {
            ColumnType::BigInt { .. } | ColumnType::Timestamp | ColumnType::DateTime => {
                align(off, 8) + 8
            }
            ColumnType::Int | ColumnType::Date => align(off, 4) + 4,
            ColumnType::Binary { bytes: 16 } => off + 16,
            _ => {
                let len = match v {
                    Value::Bytes(b) => b.len() as u32,
                    _ => 8,
                };
                varlena_end(off, len)
            }
        };
    }
    maxalign(HEAP_TUPLE_HEADER_BYTES + bitmap) + off
}

/// The collation a text key column is compared under, `None` for other types. The model
/// compares text bytewise, which is `COLLATE "C"`: keylab's binary charsets ask for it, and
/// the others run under the database default, which is "C" on keylab's private instances
/// (`initdb --locale=C`); other collations are not modelled and are refused by the table.
pub fn collation_of(ty: &ColumnType) -> Option<&'static str> {
    match ty {
        ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. } => Some("C"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuple_sizes_match_the_servers_slots() {
        // nbtree slot sizes (tuple + line pointer) seen with pageinspect on PostgreSQL 15.
        assert_eq!(KeyType::BigInt.leaf_tuple_bytes(8) + LINE_POINTER_BYTES, 20);
        assert_eq!(KeyType::Uuid.leaf_tuple_bytes(16) + LINE_POINTER_BYTES, 28);
        assert_eq!(KeyType::Int.leaf_tuple_bytes(4) + LINE_POINTER_BYTES, 20);
        let text = KeyType::Varlena { max_bytes: 36 };
        assert_eq!(text.leaf_tuple_bytes(36) + LINE_POINTER_BYTES, 52);
        assert_eq!(BT_USABLE_BYTES, 8152);
    }

    #[test]
    fn sort_keys_order_as_the_server() {
        let l = KeyLayout::new(KeyType::BigInt);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        l.encode(&Value::Int(-5), 1, &mut a).unwrap();
        l.encode(&Value::Int(3), 1, &mut b).unwrap();
        assert!(a < b);
        let t = KeyLayout::new(KeyType::Varlena { max_bytes: 8 });
        t.encode(&Value::Bytes(b"ab".to_vec()), 9, &mut a).unwrap();
        t.encode(&Value::Bytes(b"ab\0".to_vec()), 1, &mut b).unwrap();
        assert!(a < b, "a prefix sorts first");
        assert_eq!(t.tid(&a), 9);
        assert!(t.encode(&Value::Bytes(vec![b'x'; 9]), 1, &mut a).is_err());
    }

    #[test]
    fn heap_tuples_are_header_plus_aligned_data() {
        let cols = [ColumnType::Binary { bytes: 16 }];
        assert_eq!(heap_tuple_bytes(&cols, &[Value::Bytes(vec![0; 16])]), 24 + 16);
        let cols = [ColumnType::BigInt { unsigned: false }];
        assert_eq!(heap_tuple_bytes(&cols, &[Value::Int(1)]), 32);
    }
}
