//! Record layouts: which fields an index record holds, how many bytes each record takes in
//! ROW_FORMAT=COMPACT/DYNAMIC, and the fixed-width, memcmp-ordered key encoding the simulator
//! stores in its pages.
//!
//! This module sizes records and encodes keys; it knows nothing about pages or trees. Sizes
//! follow `rec_get_converted_size_comp` (rem0rec.cc) and `dtuple_convert_big_rec`
//! (data0data.cc) as described in docs/model-rules.md §2.

mod key_codec;

use crate::{Geometry, SimError};
use keylab_schema::{ColumnType, RowFormat, Table, Value};

/// Bytes of the fixed COMPACT record header (`REC_N_NEW_EXTRA_BYTES`).
pub(crate) const REC_HEADER_BYTES: u32 = 5;
/// Bytes of the child page number in a node-pointer record (`REC_NODE_PTR_SIZE`).
pub(crate) const NODE_PTR_CHILD_BYTES: u32 = 4;
/// In-record size of an off-page field reference (`BTR_EXTERN_FIELD_REF_SIZE`).
const EXTERN_REF_BYTES: u32 = 20;
/// COMPACT keeps this prefix of an off-page column in the record.
const COMPACT_LOCAL_PREFIX_BYTES: u32 = 768;

/// How a field is stored in a COMPACT/DYNAMIC record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldKind {
    /// Fixed length, no length byte.
    Fixed(u32),
    /// Variable length with 1 or 2 length bytes; `big` is `DATA_BIG_COL`.
    Var { max_bytes: u32, big: bool, blob: bool },
}

/// One field of an index record.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// Table column, or `None` for DB_TRX_ID / DB_ROLL_PTR.
    pub col: Option<usize>,
    pub kind: FieldKind,
    pub nullable: bool,
}

/// How a key field is encoded in the simulator's fixed-width key bytes.
#[derive(Debug, Clone, Copy)]
struct KeySlot {
    col: usize,
    nullable: bool,
    kind: FieldKind,
    /// Encoded width of the value part (without null flag and length suffix).
    width: u32,
    /// For variable fields the width grows to the longest value seen (see `widen`).
    var: bool,
    /// Integer-like columns encode as 8 bytes from `Value::write_sort_key`.
    int_like: bool,
    /// A `DESC` key part: its bytes (NULL flag, value, length) are stored inverted, so that
    /// byte order is the reverse of the column's order, NULL last (`cmp_data` negates a
    /// descending field's comparison, rem/rem0cmp.cc).
    desc: bool,
}

/// The record layout of one index and its key codec.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub name: String,
    pub clustered: bool,
    pub unique: bool,
    /// Leaf record fields, in record order.
    pub fields: Vec<Field>,
    /// What a leaf record takes besides its column fields: header, NULL bitmap and the
    /// system fields (their sizes do not depend on the row).
    base_bytes: u32,
    /// The column fields of `fields` (column, kind), in record order: the only ones a
    /// record size reads the row for.
    col_fields: Vec<(usize, FieldKind)>,
    /// NULL-bitmap bytes (`n_core_null_bytes`), the same on leaf and node-pointer records.
    pub null_bytes: u32,
    /// Leading key slots that a unique secondary index checks for duplicates.
    pub n_unique_slots: usize,
    slots: Vec<KeySlot>,
    /// True when a slot is variable-length (only then can a row need wider slots).
    any_var_slot: bool,
    /// Total encoded key width.
    pub key_width: usize,
    row_format: RowFormat,
    /// Columns this (secondary) index keeps only a prefix of, with the characters kept and
    /// the column's bytes per character: the server's silent prefix index
    /// (`keylab_schema::limits::PrefixKey`).
    prefix: Vec<(usize, u32, u32)>,
}

/// The size of one leaf record and its off-page parts.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LeafRecord {
    pub size_bytes: u32,
    /// BLOB pages the off-page columns of this record take.
    pub blob_pages: u32,
}

fn field_kind(ty: &ColumnType) -> FieldKind {
    match ty.fixed_len() {
        Some(n) if n <= 768 => FieldKind::Fixed(n),
        _ => FieldKind::Var { max_bytes: ty.max_bytes(), big: ty.is_big(), blob: ty.is_blob() },
    }
}

/// Numbers and times (compared as numbers), not text or binary strings.
fn is_int_like(ty: &ColumnType) -> bool {
    !ty.holds_bytes()
}

/// Length bytes of a non-NULL variable field holding `len` bytes (`rec_get_converted_size_comp`).
fn len_bytes(kind: FieldKind, len: u32, off_page: bool) -> u32 {
    match kind {
        FieldKind::Fixed(_) => 0,
        FieldKind::Var { .. } if off_page => 2,
        FieldKind::Var { big: false, .. } => 1,
        FieldKind::Var { big: true, .. } => {
            if len < 128 {
                1
            } else {
                2
            }
        }
    }
}

impl Layout {
    /// The clustered index (PRIMARY): PK columns, DB_TRX_ID, DB_ROLL_PTR, the other columns
    /// (`dict_index_build_internal_clust`).
    pub fn clustered(table: &Table) -> Layout {
        let mut fields: Vec<Field> =
            table.primary_key.iter().map(|&c| col_field(table, c)).collect();
        fields.push(Field { col: None, kind: FieldKind::Fixed(6), nullable: false });
        fields.push(Field { col: None, kind: FieldKind::Fixed(7), nullable: false });
        for c in 0..table.columns.len() {
            if !table.primary_key.contains(&c) {
                fields.push(col_field(table, c));
            }
        }
        let key_cols = table.primary_key.clone();
        Layout::build("PRIMARY".into(), true, true, fields, &key_cols, key_cols.len(), table)
    }

    /// A secondary index: its columns, then PK columns not already in it
    /// (`dict_index_build_internal_non_clust`). The tree key is every field.
    /// `prefixes`: key parts the server shortens (only this index's are used): their field
    /// holds at most the prefix's bytes, and each row's value is cut to it.
    pub fn secondary(
        table: &Table,
        ix: &keylab_schema::Index,
        prefixes: &[keylab_schema::limits::PrefixKey],
    ) -> Layout {
        let mut cols = ix.columns.clone();
        for &c in &table.primary_key {
            if !cols.contains(&c) {
                cols.push(c);
            }
        }
        let mut prefix = Vec::new();
        let fields = cols
            .iter()
            .map(|&c| {
                let mut f = col_field(table, c);
                let p = prefixes.iter().find(|p| p.index == ix.name && p.column == c);
                if let (Some(p), Some(per_char)) = (p, char_bytes(&table.columns[c].ty)) {
                    f.kind =
                        FieldKind::Var { max_bytes: p.chars * per_char, big: true, blob: false };
                    prefix.push((c, p.chars, per_char));
                }
                f
            })
            .collect();
        let mut l = Layout::build(
            ix.name.clone(),
            false,
            ix.unique,
            fields,
            &cols,
            ix.columns.len(),
            table,
        );
        // The index's own DESC parts; the primary-key columns it adds are ascending.
        for (k, slot) in l.slots.iter_mut().enumerate() {
            slot.desc = ix.descending_at(k);
        }
        l.prefix = prefix;
        l
    }

    /// `row` with the values of prefixed columns cut to their prefix (`row` itself when the
    /// index has none): the part of a long value a prefix index stores and compares.
    fn prefixed<'a>(&self, row: &'a [Value]) -> std::borrow::Cow<'a, [Value]> {
        if self.prefix.is_empty() {
            return std::borrow::Cow::Borrowed(row);
        }
        let mut cut = row.to_vec();
        for &(c, chars, per_char) in &self.prefix {
            if let Value::Bytes(b) = &mut cut[c] {
                let keep = prefix_len(b, chars, per_char);
                b.truncate(keep);
            }
        }
        std::borrow::Cow::Owned(cut)
    }

    fn build(
        name: String,
        clustered: bool,
        unique: bool,
        fields: Vec<Field>,
        key_cols: &[usize],
        n_unique_slots: usize,
        table: &Table,
    ) -> Layout {
        let n_nullable = fields.iter().filter(|f| f.nullable).count() as u32;
        let slots: Vec<KeySlot> = key_cols
            .iter()
            .map(|&c| {
                let col = &table.columns[c];
                let kind = field_kind(&col.ty);
                let int_like = is_int_like(&col.ty);
                let (width, var) = match kind {
                    _ if int_like => (8, false),
                    FieldKind::Fixed(n) => (n, false),
                    FieldKind::Var { .. } => (0, true),
                };
                KeySlot { col: c, nullable: col.nullable, kind, width, var, int_like, desc: false }
            })
            .collect();
        let null_bytes = n_nullable.div_ceil(8);
        let system: u32 = fields
            .iter()
            .filter(|f| f.col.is_none())
            .map(|f| match f.kind {
                FieldKind::Fixed(n) => n,
                FieldKind::Var { .. } => 0,
            })
            .sum();
        let col_fields = fields.iter().filter_map(|f| Some((f.col?, f.kind))).collect();
        let mut l = Layout {
            name,
            clustered,
            unique,
            fields,
            base_bytes: REC_HEADER_BYTES + null_bytes + system,
            col_fields,
            null_bytes,
            n_unique_slots,
            any_var_slot: slots.iter().any(|s| s.var),
            slots,
            key_width: 0,
            row_format: table.row_format,
            prefix: Vec::new(),
        };
        l.key_width = l.width_of(&l.slots);
        l
    }

    /// Size of a node-pointer record whose key is `key`: header, the index's NULL-bitmap bytes,
    /// length bytes and data of the key fields, child page number (docs/model-rules.md §2).
    pub fn node_ptr_size(&self, key: &[u8]) -> u32 {
        let mut size = REC_HEADER_BYTES + self.null_bytes + NODE_PTR_CHILD_BYTES;
        let mut at = 0;
        for s in &self.slots {
            let mut null = false;
            // A DESC slot's bytes are inverted.
            let flip = if s.desc { 0xff } else { 0 };
            if s.nullable {
                null = key[at] ^ flip == 0;
                at += 1;
            }
            at += s.width as usize;
            let len = if s.var {
                let l = u16::from_be_bytes([key[at] ^ flip, key[at + 1] ^ flip]) as u32;
                at += 2;
                l
            } else if let FieldKind::Fixed(n) = s.kind {
                n
            } else {
                s.width
            };
            if !null {
                size += len + len_bytes(s.kind, len, false);
            }
        }
        size
    }

    /// Size of the leaf record of `row`, moving columns off-page as `dtuple_convert_big_rec`
    /// does when the record reaches the half-page limit (clustered index only).
    pub fn leaf_record(
        &self,
        row: &[Value],
        table: &Table,
        g: &Geometry,
    ) -> Result<LeafRecord, SimError> {
        let row = &*self.prefixed(row);
        // Stored length of field `f`, `u32::MAX` for NULL.
        let field_len = |f: &Field| match (f.col, f.kind) {
            (None, FieldKind::Fixed(n)) => n,
            (None, FieldKind::Var { .. }) => 0,
            (Some(c), _) if row[c].is_null() => u32::MAX,
            // A fixed-length column stores every (valid) value in its n bytes.
            (Some(c), FieldKind::Fixed(n)) => {
                debug_assert_eq!(n, row[c].stored_len(&table.columns[c].ty));
                n
            }
            (Some(c), _) => row[c].stored_len(&table.columns[c].ty),
        };
        // The size first, without the per-field lengths only the off-page path needs; the
        // same sum as over `field_len` of every field, reading only the column fields.
        let mut size = self.base_bytes;
        for &(c, kind) in &self.col_fields {
            let v = &row[c];
            size += match kind {
                _ if v.is_null() => 0,
                // A fixed-length column stores every (valid) value in its n bytes.
                FieldKind::Fixed(n) => n,
                FieldKind::Var { .. } => {
                    let len = v.stored_len(&table.columns[c].ty);
                    len + len_bytes(kind, len, false)
                }
            };
        }
        debug_assert_eq!(
            size,
            self.fields
                .iter()
                .map(|f| (field_len(f), f.kind))
                .filter(|&(len, _)| len != u32::MAX)
                .fold(REC_HEADER_BYTES + self.null_bytes, |s, (len, kind)| {
                    s + len + len_bytes(kind, len, false)
                })
        );
        let mut rec = LeafRecord { size_bytes: size, blob_pages: 0 };
        if !g.needs_ext(rec.size_bytes) {
            return Ok(rec);
        }
        let lens: Vec<u32> = self.fields.iter().map(field_len).collect();
        if !self.clustered {
            return Err(SimError::RowTooLarge {
                index: self.name.clone(),
                record_bytes: rec.size_bytes,
                limit_bytes: g.max_rec_bytes(),
            });
        }
        // Move the longest eligible column off-page until the record fits; key fields stay.
        let local = match self.row_format {
            // COMPRESSED stores DYNAMIC's records (its pages are not modelled).
            RowFormat::Dynamic | RowFormat::Compressed => EXTERN_REF_BYTES,
            RowFormat::Compact => COMPACT_LOCAL_PREFIX_BYTES + EXTERN_REF_BYTES,
        };
        let mut off = vec![false; self.fields.len()];
        let n_key = self.slots.len();
        while g.needs_ext(rec.size_bytes) {
            let mut best: Option<usize> = None;
            for (i, f) in self.fields.iter().enumerate().skip(n_key) {
                let FieldKind::Var { big, blob, .. } = f.kind else { continue };
                let l = lens[i];
                if off[i] || l == u32::MAX || l <= local.max(40) {
                    continue;
                }
                if self.row_format != RowFormat::Compact && !(big || blob) {
                    continue;
                }
                if best.is_none_or(|b| lens[b] < l) {
                    best = Some(i);
                }
            }
            let Some(i) = best else {
                return Err(SimError::RowTooLarge {
                    index: self.name.clone(),
                    record_bytes: rec.size_bytes,
                    limit_bytes: g.max_rec_bytes(),
                });
            };
            let l = lens[i];
            off[i] = true;
            rec.size_bytes = rec.size_bytes - l - len_bytes(self.fields[i].kind, l, false)
                + local
                + len_bytes(self.fields[i].kind, local, true);
            let ext = if self.row_format != RowFormat::Compact {
                l
            } else {
                l - COMPACT_LOCAL_PREFIX_BYTES
            };
            rec.blob_pages += ext.div_ceil(g.blob_payload_bytes());
        }
        Ok(rec)
    }

    /// Worst-case leaf record size, with long columns counted as off-page where allowed
    /// (the CREATE TABLE check, `dict_index_t::record_size_info`).
    pub fn worst_case_bytes(&self) -> u32 {
        let n_key = self.slots.len();
        let mut size = REC_HEADER_BYTES + self.null_bytes;
        for (i, f) in self.fields.iter().enumerate() {
            size += match f.kind {
                FieldKind::Fixed(n) => n,
                FieldKind::Var { max_bytes, big, blob } => {
                    let can_go_off = self.clustered && i >= n_key && (big || blob);
                    let max = if can_go_off {
                        match self.row_format {
                            RowFormat::Dynamic | RowFormat::Compressed => {
                                max_bytes.min(EXTERN_REF_BYTES.max(40))
                            }
                            RowFormat::Compact => {
                                max_bytes.min(COMPACT_LOCAL_PREFIX_BYTES + EXTERN_REF_BYTES)
                            }
                        }
                    } else {
                        max_bytes
                    };
                    max + len_bytes(f.kind, max, false)
                }
            };
        }
        size
    }

    /// The smallest possible leaf record (for page capacity reservations).
    pub fn min_leaf_bytes(&self) -> u32 {
        let mut size = REC_HEADER_BYTES + self.null_bytes;
        for f in &self.fields {
            if let FieldKind::Fixed(n) = f.kind {
                if !f.nullable {
                    size += n;
                }
            } else if !f.nullable {
                size += 1;
            }
        }
        size
    }

    /// The smallest possible node-pointer record.
    pub fn min_node_ptr_bytes(&self) -> u32 {
        let mut size = REC_HEADER_BYTES + self.null_bytes + NODE_PTR_CHILD_BYTES;
        for s in &self.slots {
            if let FieldKind::Fixed(n) = s.kind {
                if !s.nullable {
                    size += n;
                }
            } else if !s.nullable {
                size += 1;
            }
        }
        size
    }
}

/// Bytes per character of a string column (`None` for others).
fn char_bytes(ty: &ColumnType) -> Option<u32> {
    match *ty {
        ColumnType::Char { charset, .. } | ColumnType::VarChar { charset, .. } => {
            Some(charset.max_bytes_per_char())
        }
        _ => None,
    }
}

/// Bytes of the first `chars` characters of `b` (UTF-8 when characters take several bytes).
fn prefix_len(b: &[u8], chars: u32, per_char: u32) -> usize {
    if per_char == 1 {
        return b.len().min(chars as usize);
    }
    // Character starts are the bytes that are not UTF-8 continuation bytes (0b10xx_xxxx).
    let mut seen = 0u32;
    for (i, &x) in b.iter().enumerate() {
        if x & 0xc0 != 0x80 {
            if seen == chars {
                return i;
            }
            seen += 1;
        }
    }
    b.len()
}

fn col_field(table: &Table, c: usize) -> Field {
    let col = &table.columns[c];
    Field { col: Some(c), kind: field_kind(&col.ty), nullable: col.nullable }
}
