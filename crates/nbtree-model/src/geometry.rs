//! Page and tuple geometry of PostgreSQL 15 on 8 KiB pages, and the memcmp-comparable sort
//! keys the model stores. Sizes follow `bufpage.h` (page header, line pointers), `itup.h`
//! (`IndexTupleData`), `nbtree.h` (`BTPageOpaqueData`) and `htup_details.h` (heap tuple
//! header). It does not decide where anything goes; the tree and heap modules do.

use keylab_schema::{ColumnType, PgStorage, Value};

mod sort_key;
pub use sort_key::*;

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
    /// `date` (4 bytes, int-aligned: days since 2000-01-01); keylab's value is the day's
    /// first second, so its sort key is the 8-byte time, in the same order.
    Date,
    /// The native `uuid` type (16 bytes, byte-aligned): keylab's 16-byte binary ids.
    Uuid,
    /// A varlena (`varchar`/`text` under `COLLATE "C"`, or `bytea`) of at most this many bytes.
    Varlena {
        /// The longest value in bytes.
        max_bytes: u32,
    },
    /// Another fixed-length type whose values are numbers or times (`smallint`, `real`,
    /// `boolean`, `timestamptz`, `interval`, `money`...) or at most 8 bytes (`macaddr`):
    /// 8 sort-key bytes, stored as `bytes` at `align`.
    Fixed {
        /// `typlen`.
        bytes: u8,
        /// `typalign` in bytes.
        align: u8,
    },
    /// A varlena storing `extra` bytes more than its sort key holds: `inet` (the key is the
    /// address, the value adds family and bits), `jsonb` (the key is the JSON text of a
    /// string, the value a one-element container of it).
    Packed {
        /// The longest sort-key value in bytes.
        max_bytes: u32,
        /// Stored data bytes beyond the sort-key bytes.
        extra: u8,
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
            ColumnType::Date => KeyType::Date,
            ColumnType::Binary { bytes: 16 } => KeyType::Uuid,
            ColumnType::Binary { bytes } => KeyType::Varlena { max_bytes: bytes },
            ColumnType::Char { chars, charset } | ColumnType::VarChar { chars, charset } => {
                KeyType::Varlena { max_bytes: chars * charset.max_bytes_per_char() }
            }
            // No declared maximum: the layout's key width cap decides (`KeyLayout::capped`).
            ColumnType::Text { .. } => KeyType::Varlena { max_bytes: MAX_KEY_BYTES },
            ColumnType::Inet { .. } => KeyType::Packed { max_bytes: 16, extra: 2 },
            // The key holds `"text"` (2 quote bytes), the value 8 bytes of container.
            ColumnType::Json { binary: true } => {
                KeyType::Packed { max_bytes: MAX_KEY_BYTES, extra: 6 }
            }
            ColumnType::VarBinary { bytes } => KeyType::Varlena { max_bytes: bytes },
            ColumnType::Blob | ColumnType::Opaque => KeyType::Varlena { max_bytes: MAX_KEY_BYTES },
            ColumnType::Integer { .. }
            | ColumnType::Float { .. }
            | ColumnType::Bool
            | ColumnType::Year
            | ColumnType::Enum { .. }
            | ColumnType::PgEnum { .. }
            | ColumnType::Set { .. }
            | ColumnType::Temporal { .. }
            | ColumnType::MacAddr { .. }
            | ColumnType::Money => match ty.pg_storage() {
                PgStorage::Fixed { bytes, align } => {
                    KeyType::Fixed { bytes: bytes as u8, align: align as u8 }
                }
                PgStorage::Varlena => unreachable!("fixed-length types"),
            },
            ColumnType::BigInt { unsigned: true }
            | ColumnType::Decimal { .. }
            | ColumnType::Bit { .. }
            | ColumnType::Json { binary: false }
            | ColumnType::Numeric
            | ColumnType::TsVector
            | ColumnType::Array { .. } => {
                return Err(format!(
                    "the nbtree model has no key type for {}; valid key types: bigint, integer, \
                     timestamp, date, 16-byte binary (uuid), varchar/text (COLLATE \"C\"), bytea",
                    ty.sql(keylab_schema::Dialect::Postgres)
                ))
            }
        })
    }

    /// Sort-key bytes of the value part (fixed width per type; varlenas padded).
    pub fn width(self) -> usize {
        match self {
            KeyType::BigInt | KeyType::Timestamp | KeyType::Date | KeyType::Fixed { .. } => 8,
            KeyType::Int => 4,
            KeyType::Uuid => 16,
            KeyType::Varlena { max_bytes } | KeyType::Packed { max_bytes, .. } => {
                max_bytes.min(MAX_KEY_BYTES) as usize
            }
        }
    }

    /// This type with a varlena's sort-key width cut to `cap_bytes` (other types as they are).
    pub fn capped(self, cap_bytes: u32) -> KeyType {
        match self {
            KeyType::Varlena { max_bytes } => {
                KeyType::Varlena { max_bytes: max_bytes.min(cap_bytes) }
            }
            KeyType::Packed { max_bytes, extra } => {
                KeyType::Packed { max_bytes: max_bytes.min(cap_bytes), extra }
            }
            other => other,
        }
    }

    /// Bytes of an index tuple holding a value of `len` bytes (`index_form_tuple`): the
    /// 8-byte header, the value at its type's alignment (a short varlena has a 1-byte header
    /// and no alignment; a longer one a 4-byte header, 4-aligned), MAXALIGNed.
    pub fn leaf_tuple_bytes(self, len: u32) -> u32 {
        maxalign(self.data_end(INDEX_TUPLE_HEADER_BYTES, len))
    }

    /// Where a value of `len` bytes of this type ends when the previous column ended at
    /// `off` (`att_align_nominal` then the value: `heap_fill_tuple`'s layout).
    pub fn data_end(self, off: u32, len: u32) -> u32 {
        match self {
            KeyType::BigInt | KeyType::Timestamp => align(off, 8) + 8,
            KeyType::Int | KeyType::Date => align(off, 4) + 4,
            KeyType::Uuid => off + 16,
            KeyType::Varlena { .. } => varlena_end(off, len),
            KeyType::Fixed { bytes, align: a } => align(off, u32::from(a)) + u32::from(bytes),
            KeyType::Packed { extra, .. } => varlena_end(off, len + u32::from(extra)),
        }
    }
}

/// Appends one column's part of a sort key: the value's order-preserving bytes padded to
/// the type's width, then its length ([`LEN_BYTES`] big-endian; `NULL_LEN` for NULL, which
/// sorts last).
#[inline]
fn encode_column(ty: KeyType, value: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    let w = ty.width();
    match (ty, value) {
        (_, Value::Null) => {
            out.resize(start + w, 0xFF);
            out.extend_from_slice(&NULL_LEN.to_be_bytes());
            return Ok(());
        }
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
    let len = out.len() - start;
    if len > w {
        return Err(format!(
            "a key of {len} bytes is longer than the nbtree model keeps ({w} bytes)"
        ));
    }
    out.resize(start + w, 0);
    out.extend_from_slice(&(len as u16).to_be_bytes());
    Ok(())
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
            // The types past `Decimal`: their own typlen/typalign or varlena size.
            _ => match (ty.pg_storage(), v) {
                (PgStorage::Fixed { bytes, align: a }, _) => align(off, a) + bytes,
                (PgStorage::Varlena, Value::Bytes(b)) => match ty.pg_varlena_data_bytes(b, None) {
                    Some(len) => varlena_end(off, len),
                    None => varlena_end(off, b.len() as u32),
                },
                (PgStorage::Varlena, Value::Int(n)) => {
                    match ty.pg_varlena_data_bytes(&[], Some(*n)) {
                        Some(len) => varlena_end(off, len),
                        None => varlena_end(off, 8),
                    }
                }
                (PgStorage::Varlena, _) => varlena_end(off, 8),
            },
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
    fn new_fixed_types_order_and_align_as_the_server() {
        // A TINYINT built as smallint, a double: numbers in order, negatives first.
        for ty in
            [ColumnType::Integer { bytes: 1, unsigned: false }, ColumnType::Float { double: true }]
        {
            let l = KeyLayout::new(KeyType::of(&ty).unwrap());
            let key = |v: i64| {
                let mut k = Vec::new();
                l.encode(&Value::Int(v), 1, &mut k).unwrap();
                k
            };
            assert!(key(-128) < key(-1) && key(-1) < key(0) && key(0) < key(127), "{ty:?}");
        }
        let small = KeyType::of(&ColumnType::Integer { bytes: 2, unsigned: false }).unwrap();
        // smallint: 8-byte header + 2, MAXALIGNed: 16 bytes (+ 4 line pointer = 20).
        assert_eq!(small.leaf_tuple_bytes(8), 16);
        let inet = KeyType::of(&ColumnType::Inet { cidr: false }).unwrap();
        // 8 + 1 + 2 + 4 = 15 -> 16.
        assert_eq!(inet.leaf_tuple_bytes(4), 16);
        let interval = ColumnType::Temporal { kind: keylab_schema::TemporalKind::Interval, fsp: 6 };
        // A heap tuple of a smallint then an interval: 2, aligned to 8, + 16.
        let cols = [ColumnType::Integer { bytes: 2, unsigned: false }, interval];
        assert_eq!(heap_tuple_bytes(&cols, &[Value::Int(1), Value::Int(5)]), 24 + 8 + 16);
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
    fn long_text_keys_up_to_bt_max_item_size() {
        let text = KeyType::of(&ColumnType::Text { charset: keylab_schema::Charset::Utf8mb4 });
        let text = text.unwrap();
        let l = KeyLayout::capped(&[text], 2000).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        l.encode(&Value::Bytes(vec![b'a'; 1500]), 1, &mut a).unwrap();
        l.encode(&Value::Bytes(vec![b'a'; 1499]), 2, &mut b).unwrap();
        assert!(b < a, "a prefix sorts first");
        assert_eq!(l.len_of(&a), 1500);
        // 8-byte header, 4-byte varlena header, 1500 bytes: 1512 MAXALIGNed.
        assert_eq!(l.leaf_bytes(&a), 1512);
        assert!(l.encode(&Value::Bytes(vec![b'a'; 2001]), 1, &mut a).is_err());
        // The longest value the server takes in a one-column index tuple.
        assert_eq!(maxalign(INDEX_TUPLE_HEADER_BYTES + 4 + MAX_KEY_BYTES), BT_MAX_ITEM_BYTES);
        let wide = KeyLayout::capped(&[text, KeyType::Int], MAX_KEY_BYTES).unwrap();
        wide.encode_values(&[Value::Bytes(vec![b'z'; 2692]), Value::Null], 3, &mut a).unwrap();
        assert_eq!((wide.tid(&a), wide.keep_natts(&a, &a)), (3, 3));
        // A NULL second column: the null bitmap moves the data to 16; 16 + 4 + 2692.
        assert_eq!(wide.leaf_bytes(&a), maxalign(16 + 4 + 2692));
    }

    #[test]
    fn composite_keys_order_by_column_and_truncate_by_column() {
        let l = KeyLayout::composite(&[KeyType::BigInt, KeyType::Int]).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        l.encode_values(&[Value::Int(1), Value::Int(9)], 5, &mut a).unwrap();
        l.encode_values(&[Value::Int(2), Value::Int(-3)], 1, &mut b).unwrap();
        assert!(a < b, "the first column decides");
        // int8 at 8, int4 at 16: 20 bytes, MAXALIGNed to 24 (pageinspect: itemlen 24).
        assert_eq!(l.leaf_bytes(&a), 24);
        assert_eq!(l.keep_natts(&a, &b), 1);
        let (hk, z) = l.truncate_pivot(&a, &b);
        assert_eq!(z, 16, "only the first column is kept");
        assert!(hk > a && hk < b && l.tid(&hk) == 0);
        l.encode_values(&[Value::Int(1), Value::Int(9)], 8, &mut b).unwrap();
        assert_eq!(l.keep_natts(&a, &b), 3);
        let (hk, z) = l.truncate_pivot(&a, &b);
        assert_eq!((z, l.tid(&hk)), (24 + 8, 5), "all columns and the last left heap TID");
        // A NULL sorts last and adds the null bitmap: data from 16, int8 at 16 = 24.
        l.encode_values(&[Value::Null, Value::Int(1)], 1, &mut b).unwrap();
        assert!(b > a);
        assert_eq!(l.leaf_bytes(&b), 24);
        assert!(l.encode_values(&[Value::Int(1)], 1, &mut b).is_err(), "one value for two columns");
    }

    #[test]
    fn heap_tuples_are_header_plus_aligned_data() {
        let cols = [ColumnType::Binary { bytes: 16 }];
        assert_eq!(heap_tuple_bytes(&cols, &[Value::Bytes(vec![0; 16])]), 24 + 16);
        let cols = [ColumnType::BigInt { unsigned: false }];
        assert_eq!(heap_tuple_bytes(&cols, &[Value::Int(1)]), 32);
    }
}
