//! The limits of the engine a candidate runs on, checked before anything runs: MariaDB's
//! (`keylab_schema::limits`: errors 1074, 1118, 1071, 1709, 1170) where the table is stored
//! by InnoDB (the InnoDB model or a MariaDB/MySQL server), PostgreSQL 15's where it is a heap
//! with nbtree indexes (the nbtree model or a PostgreSQL server): at most `INDEX_MAX_KEYS`
//! key columns, and an index tuple of the generated values within `BTMaxItemSize`.

use super::rows::key_gen;
use super::rows::ColumnValues;
use super::Candidate;
use keylab_keys::{Key, Variant};
use keylab_nbtree_model::geometry::{
    collation_of, maxalign, KeyType, BT_MAX_ITEM_BYTES, DEFAULT_KEY_VALUE_BYTES,
    INDEX_TUPLE_HEADER_BYTES, MAX_KEY_BYTES, MAX_KEY_COLUMNS,
};
use keylab_schema::{ColumnType, Table};

/// PostgreSQL's most columns in a table (`MaxHeapAttributeNumber`, htup_details.h).
pub const MAX_HEAP_COLUMNS: usize = 1600;

/// Why the engine refuses candidate `c`, or `None`. `heap_table`: it runs on PostgreSQL;
/// `nbtree_model`: on the nbtree model, which keeps key values of at most `MAX_KEY_BYTES`
/// (what fits in `BTMaxItemSize`, 2692 bytes).
pub fn check(
    c: &Candidate,
    heap_table: bool,
    nbtree_model: bool,
    page_size_bytes: u32,
) -> Option<String> {
    if !heap_table {
        return keylab_schema::limits::check(&c.table, page_size_bytes)
            .err()
            .map(|e| e.to_string());
    }
    let t = &c.table;
    if t.columns.len() > MAX_HEAP_COLUMNS {
        return Some(format!(
            "the table has {} columns, more than PostgreSQL's {MAX_HEAP_COLUMNS} \
             (MaxHeapAttributeNumber: tables can have at most {MAX_HEAP_COLUMNS} columns); \
             valid: at most {MAX_HEAP_COLUMNS} columns",
            t.columns.len()
        ));
    }
    for (name, columns) in key_indexes(t) {
        if columns.len() > MAX_KEY_COLUMNS {
            return Some(format!(
                "index `{name}` has {} key columns, more than PostgreSQL's {MAX_KEY_COLUMNS} \
                 (INDEX_MAX_KEYS); valid: at most {MAX_KEY_COLUMNS}",
                columns.len()
            ));
        }
        if nbtree_model {
            for &col in columns {
                let ty = &t.columns[col].ty;
                let width = value_bytes(ty, c.plan.get(col), c.variant);
                if let (Some(w), Some(_)) = (width, collation_of(ty)) {
                    if w > MAX_KEY_BYTES {
                        return Some(format!(
                            "index `{name}`: values of `{}` are {w} bytes wide, more than the \
                             nbtree model keeps in a key ({MAX_KEY_BYTES} bytes); valid: \
                             --width {}=1..={MAX_KEY_BYTES}, or --engine postgres",
                            t.columns[col].name, t.columns[col].name
                        ));
                    }
                }
            }
        }
        let bytes = tuple_bytes(t, &c.plan, c.variant, columns);
        if bytes > BT_MAX_ITEM_BYTES {
            return Some(format!(
                "index `{name}` would hold tuples of {bytes} bytes with the generated widths, \
                 more than PostgreSQL's {BT_MAX_ITEM_BYTES}-byte limit (BTMaxItemSize: the \
                 server fails the insert); valid: a shorter --width of its text columns"
            ));
        }
    }
    None
}

/// The sort-key width the nbtree model needs for candidate `c`'s text and binary key values
/// (`NbtreeSettings::key_value_bytes`): the longest planned value of any key column, at
/// least the model's default and at most `MAX_KEY_BYTES`.
pub fn key_value_bytes(c: &Candidate) -> u32 {
    let t = &c.table;
    key_indexes(t)
        .into_iter()
        .flat_map(|(_, cols)| cols.iter())
        .filter_map(|&col| value_bytes(&t.columns[col].ty, c.plan.get(col), c.variant))
        .fold(DEFAULT_KEY_VALUE_BYTES, u32::max)
        .min(MAX_KEY_BYTES)
}

/// The primary key (when there is one) and every secondary index, with their columns.
fn key_indexes(t: &Table) -> Vec<(&str, &[usize])> {
    let pk = (!t.primary_key.is_empty()).then_some(("PRIMARY KEY", t.primary_key.as_slice()));
    pk.into_iter()
        .chain(t.indexes.iter().map(|ix| (ix.name.as_str(), ix.columns.as_slice())))
        .collect()
}

/// Bytes of a generated value of column type `ty` filled by `values`: its planned width, or
/// for the key column the variant's id length; `None` when not known before the load (a
/// current key without a variant).
fn value_bytes(
    ty: &ColumnType,
    values: Option<&ColumnValues>,
    variant: Option<Variant>,
) -> Option<u32> {
    match values? {
        // Every id of a variant has one length: the first one's.
        ColumnValues::Key => variant.map(|v| match key_gen(v, 1).next_key() {
            Key::Int(_) => ty.fixed_len().unwrap_or(8),
            Key::Bytes(b) => b.as_slice().len() as u32,
        }),
        p => p.width_bytes(ty),
    }
}

/// Bytes of the index tuple of `columns` with the planned value widths (`index_form_tuple`:
/// the header, each value at its alignment, MAXALIGNed); a type the nbtree model has no key
/// type for counts as a varlena of its generated length; a length not known counts 0.
fn tuple_bytes(
    t: &Table,
    plan: &[ColumnValues],
    variant: Option<Variant>,
    columns: &[usize],
) -> u32 {
    let mut off = INDEX_TUPLE_HEADER_BYTES;
    for &c in columns {
        let ty: &ColumnType = &t.columns[c].ty;
        let len = value_bytes(ty, plan.get(c), variant).unwrap_or(0);
        let kt = KeyType::of(ty).unwrap_or(KeyType::Varlena { max_bytes: len });
        off = kt.data_end(off, len);
    }
    maxalign(off)
}

/// What the nbtree model and keylab's private PostgreSQL assume of text keys, when an index
/// of `t` has one: bytes compared as under `COLLATE "C"`.
pub fn collation_note(t: &Table) -> Option<String> {
    let text: Vec<&str> = key_indexes(t)
        .into_iter()
        .flat_map(|(_, cols)| cols.iter())
        .filter(|&&c| collation_of(&t.columns[c].ty).is_some())
        .map(|&c| t.columns[c].name.as_str())
        .collect();
    if text.is_empty() {
        return None;
    }
    let mut names = text;
    names.dedup();
    Some(format!(
        "text key columns ({}) are compared bytewise, as under COLLATE \"C\" (the collation of \
         keylab's private PostgreSQL, initdb --locale=C); under a linguistic collation such as \
         en_US.UTF-8 the order differs only for values that mix letter case, punctuation or \
         non-ASCII letters. keylab's generated text is lowercase letters and digits (uuid text \
         with its hyphens at fixed places), which sorts alike under both, so the page counts \
         hold for either; the server's comparisons cost more CPU under a linguistic collation",
        names.join(", ")
    ))
}
