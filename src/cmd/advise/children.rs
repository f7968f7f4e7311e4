//! Foreign keys carry a parent's key choice: when a parent table's primary key changes type
//! (BIGINT to BINARY(16)), every column of a child table that refers to it changes type too,
//! and with it every record of the child that holds the column. This counts those bytes from
//! the child's definition; it runs no engine.
//!
//! Only a single-column foreign key to a single-column primary key is carried exactly (the
//! column takes the candidate's type); a multi-column one is listed with `null` bytes, and
//! one to other columns than the primary key is not changed by the candidate at all.

use keylab_core::ChildChange;
use keylab_ddl::ForeignKey;
use keylab_nbtree_model::geometry::{
    heap_tuple_bytes, maxalign, KeyType, INDEX_TUPLE_HEADER_BYTES,
};
use keylab_schema::{ColumnType, Table, Value};

/// How child bytes are counted, in the report's words.
pub const METHOD: &str = "a parent's best candidate gives its type to every single-column \
    foreign key referring to its single-column primary key. Records holding the column: the \
    child's row (InnoDB: its clustered PRIMARY record; PostgreSQL: its heap tuple); each index \
    with the column among its key columns; on InnoDB every secondary index when the column is \
    in the child's primary key (each secondary record carries the primary key), and the index \
    MySQL/MariaDB create for a foreign key whose columns begin no index. Each record changes by \
    the candidate key's stored bytes minus the column's own on InnoDB (a variable-length column \
    taken at the parent's current key bytes); on PostgreSQL by the tuple's MAXALIGNed bytes with \
    the new type minus with the old, every column at its alignment, from one generated row of \
    the child. bytes added = child rows × the sum of the records' changes: record bytes, before \
    page fill. A multi-column foreign key is listed with null bytes; one to other columns than \
    the primary key is not changed.";

/// The parent's side of a key change: its primary-key column names and the stored bytes of
/// one key value now and under the candidate.
pub struct KeyChange<'a> {
    /// The parent's name.
    pub parent: &'a str,
    /// Its primary-key column names.
    pub key_columns: Vec<&'a str>,
    /// Stored bytes of a key value under the current key.
    pub current_bytes: u32,
    /// Stored bytes of a key value under the candidate.
    pub candidate_bytes: u32,
    /// The candidate key's column type (a referencing column takes it).
    pub candidate_type: ColumnType,
}

/// Whether `fk` refers to the parent's primary key (no columns written means the primary key).
fn refers_to_key(fk: &ForeignKey, change: &KeyChange) -> bool {
    fk.parent.eq_ignore_ascii_case(change.parent)
        && (fk.parent_columns.is_empty()
            || (fk.parent_columns.len() == change.key_columns.len()
                && fk
                    .parent_columns
                    .iter()
                    .zip(&change.key_columns)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))))
}

/// What the change does to `child`'s foreign keys to the parent (`heap`: the child is a
/// PostgreSQL heap table), at `rows` rows; `row` is one of the child's generated rows (for
/// PostgreSQL's alignment, which depends on every column of a tuple), `None` when the child
/// was not advised (then each record changes by the stored width alone).
pub fn child_changes(
    change: &KeyChange,
    child: &Table,
    foreign_keys: &[ForeignKey],
    heap: bool,
    rows: u64,
    row: Option<&[Value]>,
) -> Vec<ChildChange> {
    foreign_keys
        .iter()
        .filter(|fk| refers_to_key(fk, change))
        .filter_map(|fk| {
            let cols: Option<Vec<usize>> = fk
                .columns
                .iter()
                .map(|n| child.columns.iter().position(|c| c.name.eq_ignore_ascii_case(n)))
                .collect();
            let cols = cols?;
            let held = records_holding(child, &cols, heap);
            let single = cols.len() == 1 && change.key_columns.len() == 1;
            let own_bytes = cols
                .first()
                .and_then(|&c| child.columns[c].ty.fixed_len())
                .unwrap_or(change.current_bytes);
            let per_record = i64::from(change.candidate_bytes) - i64::from(own_bytes);
            let changes: Vec<i64> = held
                .iter()
                .map(|(_, kind)| match (single, heap, row) {
                    (true, true, Some(row)) => {
                        pg_change(child, cols[0], change.candidate_type, row, kind.as_deref())
                            .unwrap_or(per_record)
                    }
                    (true, _, _) => per_record,
                    (false, _, _) => 0,
                })
                .collect();
            let bytes_added = single
                .then(|| changes.iter().map(|c| (rows as i64).saturating_mul(*c)).sum::<i64>());
            Some(ChildChange {
                table: child.name.clone(),
                columns: fk.columns.clone(),
                rows,
                width_change_bytes: if single { per_record } else { 0 },
                records: held.into_iter().map(|(name, _)| name).collect(),
                record_change_bytes: changes,
                bytes_added,
            })
        })
        .collect()
}

/// A value of a candidate key's type for a tuple's layout: binary ids fill their bytes, text
/// ids their characters (uuid and ulid text is ASCII of the declared length), others are
/// fixed-width numbers.
fn value_of(ty: ColumnType) -> Value {
    match ty {
        ColumnType::Binary { bytes } => Value::Bytes(vec![0; bytes as usize]),
        ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } => {
            Value::Bytes(vec![b'0'; chars as usize])
        }
        _ => Value::Int(1),
    }
}

/// The change of one PostgreSQL record when column `col` of `row` takes type `new`: the heap
/// tuple (`index` `None`; `heap_compute_data_size` after the header, MAXALIGNed on the page)
/// or an index tuple over `index`'s columns (`index_form_tuple`: header, each value at its
/// alignment, MAXALIGNed). `None` for a column type the nbtree model has no layout for.
fn pg_change(
    child: &Table,
    col: usize,
    new: ColumnType,
    row: &[Value],
    index: Option<&[usize]>,
) -> Option<i64> {
    let old_types: Vec<ColumnType> = child.columns.iter().map(|c| c.ty).collect();
    let mut new_types = old_types.clone();
    new_types[col] = new;
    let mut new_row = row.to_vec();
    new_row[col] = value_of(new);
    let bytes = |types: &[ColumnType], row: &[Value]| -> Option<u32> {
        let Some(cols) = index else {
            return Some(maxalign(heap_tuple_bytes(types, row)));
        };
        let mut off = INDEX_TUPLE_HEADER_BYTES;
        for &c in cols {
            let len = match &row[c] {
                Value::Bytes(b) => b.len() as u32,
                _ => types[c].fixed_len().unwrap_or(8),
            };
            off = KeyType::of(&types[c]).ok()?.data_end(off, len);
        }
        Some(maxalign(off))
    };
    Some(i64::from(bytes(&new_types, &new_row)?) - i64::from(bytes(&old_types, row)?))
}

/// The child's records holding every column of `cols`, by name, with the key columns of each
/// index (`None` for the row itself).
fn records_holding(child: &Table, cols: &[usize], heap: bool) -> Vec<(String, Option<Vec<usize>>)> {
    let in_key = cols.iter().all(|c| child.primary_key.contains(c));
    let row = if heap { "heap tuple" } else { "PRIMARY" };
    let mut out = vec![(row.to_string(), None)];
    if heap && in_key {
        out.push(("PRIMARY".into(), Some(child.primary_key.clone())));
    }
    let holds = |ix_cols: &[usize]| cols.iter().all(|c| ix_cols.contains(c));
    for ix in &child.indexes {
        // InnoDB's secondary records carry the primary key's columns after their own.
        if holds(&ix.columns) || (!heap && in_key) {
            out.push((ix.name.clone(), Some(ix.columns.clone())));
        }
    }
    // InnoDB needs an index beginning with a foreign key's columns (`dict_foreign_find_index`
    // finds none: error 150), so the server adds a KEY for a FOREIGN KEY when none does.
    let begins = |ix_cols: &[usize]| ix_cols.len() >= cols.len() && ix_cols[..cols.len()] == *cols;
    let indexed = begins(&child.primary_key) || child.indexes.iter().any(|ix| begins(&ix.columns));
    if !heap && !indexed {
        out.push(("(index InnoDB adds for the foreign key)".into(), Some(cols.to_vec())));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, Index, RowFormat};

    fn child() -> Table {
        let big = ColumnType::BigInt { unsigned: false };
        Table {
            name: "c".into(),
            columns: vec![
                Column::new("id", big, false),
                Column::new("p_id", big, false),
                Column::new("other", ColumnType::Int, false),
            ],
            primary_key: vec![0],
            auto_increment: true,
            indexes: vec![
                Index::new("ix_p", vec![1, 2], false),
                Index::new("ix_other", vec![2], false),
            ],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn fk(col: &str) -> ForeignKey {
        ForeignKey {
            columns: vec![col.into()],
            parent: "P".into(),
            parent_columns: vec![],
            at: Default::default(),
        }
    }

    fn change() -> KeyChange<'static> {
        KeyChange {
            parent: "p",
            key_columns: vec!["id"],
            current_bytes: 8,
            candidate_bytes: 16,
            candidate_type: ColumnType::Binary { bytes: 16 },
        }
    }

    #[test]
    fn a_referencing_column_widens_its_row_and_the_indexes_holding_it() {
        let got = child_changes(&change(), &child(), &[fk("p_id")], false, 1000, None);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].records, ["PRIMARY", "ix_p"]);
        assert_eq!(got[0].width_change_bytes, 8);
        assert_eq!(got[0].bytes_added, Some(1000 * 8 * 2));
    }

    #[test]
    fn a_key_column_reaches_every_innodb_secondary_but_not_a_heaps() {
        let innodb = child_changes(&change(), &child(), &[fk("id")], false, 10, None);
        assert_eq!(innodb[0].records, ["PRIMARY", "ix_p", "ix_other"]);
        let heap = child_changes(&change(), &child(), &[fk("id")], true, 10, None);
        assert_eq!(heap[0].records, ["heap tuple", "PRIMARY"]);
    }

    #[test]
    fn an_unindexed_foreign_key_gets_innodbs_own_index() {
        // ix_p (p_id, other) holds `other` but does not begin with it; ix_other does.
        let got = child_changes(&change(), &child(), &[fk("other")], false, 10, None);
        assert_eq!(got[0].records, ["PRIMARY", "ix_p", "ix_other"]);
        let mut t = child();
        t.indexes.pop();
        let got = child_changes(&change(), &t, &[fk("other")], false, 10, None);
        assert_eq!(got[0].records, ["PRIMARY", "ix_p", "(index InnoDB adds for the foreign key)"]);
        assert_eq!(got[0].bytes_added, Some(10 * 12 * 3));
        assert_eq!(got[0].width_change_bytes, 12, "INT (4 bytes) to 16");
    }

    #[test]
    fn postgres_records_change_by_their_aligned_tuples() {
        // (id bigint, p_id integer): heap data 8 + 4 after a 24-byte header, 36 -> 40 bytes;
        // p_id as bigint 8 + 8, 40 bytes: no change. Index on (p_id): 8 + 4 -> 16, 8 + 8 = 16.
        let mut t = child();
        t.columns[1].ty = ColumnType::Int;
        t.columns.truncate(2);
        t.indexes = vec![Index::new("ix_p", vec![1], false)];
        let row = [Value::Int(1), Value::Int(2)];
        let big = KeyChange {
            candidate_type: ColumnType::BigInt { unsigned: false },
            candidate_bytes: 8,
            ..change()
        };
        let got = child_changes(&big, &t, &[fk("p_id")], true, 10, Some(&row));
        assert_eq!(got[0].records, ["heap tuple", "ix_p"]);
        assert_eq!(got[0].record_change_bytes, [0, 0]);
        assert_eq!(got[0].bytes_added, Some(0));
        // As uuid (byte-aligned, 16): heap 24 + 8 + 16 = 48, index 8 + 16 = 24.
        let got = child_changes(&change(), &t, &[fk("p_id")], true, 10, Some(&row));
        assert_eq!(got[0].record_change_bytes, [8, 8]);
        assert_eq!(got[0].bytes_added, Some(160));
    }

    #[test]
    fn other_parents_and_other_columns_are_not_changed() {
        let mut other = fk("p_id");
        other.parent = "q".into();
        let mut not_key = fk("p_id");
        not_key.parent_columns = vec!["code".into()];
        assert!(child_changes(&change(), &child(), &[other, not_key], false, 10, None).is_empty());
    }
}
