//! Model tests: shapes the server's rules imply, the invariants after every operation, and
//! the model against a `BTreeMap`. The fingerprints of fixed workloads are in `fingerprint`.

mod buffers;
mod fingerprint;
mod reads;

use super::*;
use keylab_schema::{Charset, Column, Index, RowFormat};

fn table(ty: ColumnType, secondary: bool) -> Table {
    let id = Column::new("id", ty, false);
    let (columns, indexes) = if secondary {
        (
            vec![Column::new("pk", ColumnType::BigInt { unsigned: false }, false), id],
            vec![Index::new("k_id", vec![1], false)],
        )
    } else {
        (vec![id], Vec::new())
    };
    Table {
        name: "t".into(),
        columns,
        primary_key: vec![0],
        auto_increment: secondary,
        indexes,
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

fn uuid(i: u64) -> Value {
    let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ i;
    let mut b = h.to_be_bytes().to_vec();
    b.extend_from_slice(&i.wrapping_mul(0xD6E8_FEB8_6659_FD93).to_be_bytes());
    Value::Bytes(b)
}

fn checked() -> NbtreeSettings {
    NbtreeSettings { check_every: Some(1), ..NbtreeSettings::default() }
}

#[test]
fn ascending_bigints_fill_leaves_to_the_fillfactor() {
    let t = table(ColumnType::BigInt { unsigned: false }, false);
    let mut m = NbtreeTable::new(&t, NbtreeSettings::default()).unwrap();
    for i in 0..100_000 {
        m.insert(&[Value::Int(i)]).unwrap();
    }
    m.check_all().unwrap();
    let s = &m.stats().indexes[0].1;
    // 367 items of 20 bytes per 90 % leaf: 100000 / 367 = 273 leaves.
    assert!((270..=276).contains(&s.leaf_pages), "{s:?}");
    assert!((89.0..=91.0).contains(&s.avg_leaf_density), "{s:?}");
    assert_eq!(s.leaf_fragmentation, 0.0);
    assert_eq!(s.height, 2);
}

/// One index's own fillfactor: the secondary index at 70 fills its leaves to 70 % while the
/// primary key keeps the table-wide 90 %; the heap fillfactor leaves its reserve.
#[test]
fn an_index_fillfactor_applies_to_that_index_only() {
    let t = table(ColumnType::BigInt { unsigned: false }, true);
    let settings = NbtreeSettings { heap_fillfactor_pct: 80, ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&t, settings).unwrap();
    m.set_index_fillfactor(1, 70).unwrap();
    assert!(m.set_index_fillfactor(2, 70).is_err());
    assert!(m.set_index_fillfactor(0, 5).is_err());
    let mut full = NbtreeTable::new(&t, NbtreeSettings::default()).unwrap();
    for i in 0..20_000 {
        m.insert(&[Value::Int(i), Value::Int(i)]).unwrap();
        full.insert(&[Value::Int(i), Value::Int(i)]).unwrap();
    }
    let (s, f) = (m.stats(), full.stats());
    assert!((89.0..=91.0).contains(&s.indexes[0].1.avg_leaf_density), "{s:?}");
    assert!((69.0..=71.0).contains(&s.indexes[1].1.avg_leaf_density), "{s:?}");
    // 20 % of each 8 KiB heap page kept free: a quarter more pages than at 100.
    let ratio = s.heap_pages as f64 / f.heap_pages as f64;
    assert!((1.2..=1.3).contains(&ratio), "{} vs {}", s.heap_pages, f.heap_pages);
}

#[test]
fn random_uuids_split_in_half_and_fragment() {
    let t = table(ColumnType::Binary { bytes: 16 }, false);
    let mut m = NbtreeTable::new(&t, NbtreeSettings::default()).unwrap();
    for i in 0..50_000 {
        m.insert(&[uuid(i)]).unwrap();
    }
    m.check_all().unwrap();
    let s = &m.stats().indexes[0].1;
    assert!((60.0..=80.0).contains(&s.avg_leaf_density), "{s:?}");
    assert!(s.leaf_fragmentation > 30.0, "{s:?}");
    let w = &m.stats().wal;
    assert_eq!(w.new_roots, 2, "the first root and one root split");
}

#[test]
fn every_operation_keeps_the_invariants() {
    let t = table(ColumnType::VarChar { chars: 36, charset: Charset::Utf8mb4 }, true);
    let settings = NbtreeSettings { check_every: Some(61), ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&t, settings).unwrap();
    for i in 0..20_000u64 {
        let id = format!("{:036x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        m.insert(&[Value::Int(i as i64 + 1), Value::Bytes(id.into_bytes())]).unwrap();
    }
    for i in 0..15_000 {
        assert!(m.delete(&[Value::Int(i + 1)]).unwrap());
    }
    assert!(!m.delete(&[Value::Int(1)]).unwrap(), "already deleted");
    m.commit();
    m.vacuum().unwrap();
    let s = m.stats();
    let pk = &s.indexes[0].1;
    assert!(pk.deleted_pages > 0, "{pk:?}");
    assert_eq!(pk.entries, 5_000);
    assert_eq!(s.indexes[1].1.entries, 5_000);
    assert_eq!(pk.recyclable_pages, 0, "not before a later transaction and VACUUM");
    m.commit();
    m.vacuum().unwrap();
    assert_eq!(m.stats().indexes[0].1.recyclable_pages, pk.deleted_pages);
    m.rebuild(70).unwrap();
    let after = &m.stats().indexes[0].1;
    assert_eq!(after.deleted_pages, 0);
    assert!((68.0..=72.0).contains(&after.avg_leaf_density), "{after:?}");
}

#[test]
fn a_live_duplicate_is_refused_a_dead_one_is_not() {
    let t = table(ColumnType::BigInt { unsigned: false }, false);
    let mut m = NbtreeTable::new(&t, checked()).unwrap();
    m.insert(&[Value::Int(5)]).unwrap();
    let e = m.insert(&[Value::Int(5)]).unwrap_err();
    assert!(e.to_string().contains("t_pkey"), "{e}");
    m.delete(&[Value::Int(5)]).unwrap();
    m.insert(&[Value::Int(5)]).unwrap();
}

#[test]
fn checkpoints_cost_one_image_per_page_touched() {
    let t = table(ColumnType::Binary { bytes: 16 }, false);
    let settings =
        NbtreeSettings { checkpoint_every_rows: Some(20_000), ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&t, settings).unwrap();
    for i in 0..40_000 {
        m.insert(&[uuid(i)]).unwrap();
    }
    let s = m.stats();
    let ix = &s.indexes[0].1;
    // After the checkpoint half-way nearly every existing leaf is touched again.
    assert!(s.wal.full_page_images > ix.leaf_pages / 3, "{:?} {ix:?}", s.wal);
    let mut ordered =
        NbtreeTable::new(&table(ColumnType::BigInt { unsigned: false }, false), settings).unwrap();
    for i in 0..40_000 {
        ordered.insert(&[Value::Int(i)]).unwrap();
    }
    assert!(ordered.stats().wal.full_page_images < 10, "{:?}", ordered.stats().wal);
}

#[test]
fn sorted_build_of_ascending_keys_matches_the_fillfactor() {
    let t = table(ColumnType::BigInt { unsigned: false }, false);
    let mut m = NbtreeTable::new(&t, NbtreeSettings::default()).unwrap();
    for i in 0..100_000 {
        m.insert(&[Value::Int(i)]).unwrap();
    }
    let before = m.stats().indexes[0].1.clone();
    m.rebuild(90).unwrap();
    let after = &m.stats().indexes[0].1;
    assert!(before.leaf_pages.abs_diff(after.leaf_pages) <= 2, "{before:?} {after:?}");
}

/// `t(pk bigint, a bigint, b int)` with non-unique indexes on `(a, b)` and on `a`.
fn composite_table() -> Table {
    let big = ColumnType::BigInt { unsigned: false };
    Table {
        name: "t".into(),
        columns: vec![
            Column::new("pk", big, false),
            Column::new("a", big, false),
            Column::new("b", ColumnType::Int, false),
        ],
        primary_key: vec![0],
        auto_increment: true,
        indexes: vec![Index::new("t_a_b", vec![1, 2], false), Index::new("t_a", vec![1], false)],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

#[test]
fn duplicates_become_posting_lists_and_vacuum_shrinks_them() {
    let settings = NbtreeSettings { check_every: Some(997), ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&composite_table(), settings).unwrap();
    for i in 0..20_000i64 {
        m.insert(&[Value::Int(i + 1), Value::Int(i % 50), Value::Int(i % 3)]).unwrap();
    }
    let s = m.stats();
    let (ab, a) = (&s.indexes[1].1, &s.indexes[2].1);
    assert_eq!((ab.heap_tids, a.heap_tids), (20_000, 20_000));
    // 400 TIDs per value of `a`: posting lists of at most 1356 bytes hold 222 of them, so
    // a leaf holds far fewer items than TIDs; without deduplication 20,000 16-byte tuples
    // need at least 20000 / 407 = 50 leaves.
    assert!(a.entries < 2_000 && a.leaf_pages < 25, "{a:?}");
    assert!(ab.entries < 2_000, "{ab:?}");
    for i in (0..20_000i64).step_by(2) {
        assert!(m.delete(&[Value::Int(i + 1)]).unwrap());
    }
    m.commit();
    m.vacuum().unwrap();
    let after = &m.stats().indexes[2].1;
    assert_eq!(after.heap_tids, 10_000);
    assert!(after.avg_leaf_density < a.avg_leaf_density, "{a:?} {after:?}");
    m.rebuild(90).unwrap();
    let built = &m.stats().indexes[2].1;
    // Sorted builds cap posting lists at 812 bytes (133 int8 TIDs).
    assert_eq!(built.heap_tids, 10_000);
    assert!(built.entries >= 10_000 / 133, "{built:?}");
}

#[test]
fn a_tid_inside_a_posting_list_splits_it() {
    let mut m = NbtreeTable::new(&composite_table(), checked()).unwrap();
    // Fill one leaf with value 7 so the dedup pass merges it; then free heap space by
    // deleting and vacuuming, so the next rows get low heap TIDs inside the lists' ranges.
    for i in 0..3_000i64 {
        m.insert(&[Value::Int(i + 1), Value::Int(7), Value::Int(0)]).unwrap();
    }
    for i in (0..3_000i64).step_by(3) {
        m.delete(&[Value::Int(i + 1)]).unwrap();
    }
    m.commit();
    m.vacuum().unwrap();
    for i in 3_000..4_000i64 {
        m.insert(&[Value::Int(i + 1), Value::Int(7), Value::Int(0)]).unwrap();
    }
    m.check_all().unwrap();
    let a = &m.indexes()[2].tree;
    let tids: Vec<u64> = a.entries().map(|k| a.layout.tid(k)).collect();
    assert_eq!(tids.len(), 3_000);
    assert!(tids.windows(2).all(|w| w[0] < w[1]), "entries stay in heap TID order");
}

mod prop {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn the_model_holds_what_a_btreemap_holds(
            ops in proptest::collection::vec((any::<bool>(), 0i64..3000), 1..2500),
            vacuum_every in 50usize..800,
        ) {
            let t = table(ColumnType::BigInt { unsigned: false }, true);
            let mut m = NbtreeTable::new(&t, checked()).unwrap();
            let mut want: BTreeMap<i64, i64> = BTreeMap::new();
            let mut next_pk = 1;
            let mut by_pk: BTreeMap<i64, i64> = BTreeMap::new();
            for (n, (ins, v)) in ops.into_iter().enumerate() {
                if ins {
                    m.insert(&[Value::Int(next_pk), Value::Int(v)]).unwrap();
                    by_pk.insert(next_pk, v);
                    *want.entry(v).or_default() += 1;
                    next_pk += 1;
                } else if let Some((&pk, &val)) = by_pk.range(v..).next() {
                    prop_assert!(m.delete(&[Value::Int(pk)]).unwrap());
                    by_pk.remove(&pk);
                    *want.get_mut(&val).unwrap() -= 1;
                }
                if n % vacuum_every == 0 {
                    m.commit();
                    m.vacuum().unwrap();
                }
            }
            m.commit();
            m.vacuum().unwrap();
            let ix = &m.indexes()[1].tree;
            let layout = ix.layout;
            let mut got: BTreeMap<i64, i64> = BTreeMap::new();
            for k in ix.entries() {
                let mut b = [0u8; 8];
                b.copy_from_slice(&k[..8]);
                let v = (u64::from_be_bytes(b) ^ (1 << 63)) as i64;
                *got.entry(v).or_default() += 1;
                prop_assert!(layout.tid(k) != 0);
            }
            want.retain(|_, n| *n > 0);
            prop_assert_eq!(got, want);
            prop_assert_eq!(m.live_rows(), by_pk.len() as u64);
        }

        #[test]
        fn composite_posting_lists_hold_what_a_btreemap_holds(
            ops in proptest::collection::vec((0u8..4, 0i64..12, 0i64..4), 1..1500),
            rebuild_at in 0usize..1500,
        ) {
            let mut m = NbtreeTable::new(&composite_table(), checked()).unwrap();
            let mut rows: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
            let mut next_pk = 1;
            for (n, (op, a, b)) in ops.into_iter().enumerate() {
                if op < 3 {
                    m.insert(&[Value::Int(next_pk), Value::Int(a), Value::Int(b)]).unwrap();
                    rows.insert(next_pk, (a, b));
                    next_pk += 1;
                } else if let Some(&pk) = rows.keys().nth((a * 7 + b) as usize % (rows.len().max(1))) {
                    prop_assert!(m.delete(&[Value::Int(pk)]).unwrap());
                    rows.remove(&pk);
                }
                if n % 97 == 0 {
                    m.commit();
                    m.vacuum().unwrap();
                }
                if n == rebuild_at {
                    m.rebuild(80).unwrap();
                }
            }
            m.commit();
            m.vacuum().unwrap();
            let mut want: BTreeMap<(i64, i64), usize> = BTreeMap::new();
            for &(a, b) in rows.values() {
                *want.entry((a, b)).or_default() += 1;
            }
            let ix = &m.indexes()[1].tree;
            let mut got: BTreeMap<(i64, i64), usize> = BTreeMap::new();
            for k in ix.entries() {
                let a = (u64::from_be_bytes(k[..8].try_into().unwrap()) ^ (1 << 63)) as i64;
                let b = (u32::from_be_bytes(k[10..14].try_into().unwrap()) ^ (1 << 31)) as i32;
                *got.entry((a, i64::from(b))).or_default() += 1;
            }
            prop_assert_eq!(got, want);
            let one = &m.indexes()[2].tree;
            prop_assert_eq!(one.entries().count(), rows.len());
            prop_assert_eq!(m.stats().indexes[2].1.heap_tids, rows.len() as u64);
        }
    }
}

/// A table without a key is a heap with its secondary indexes only: the same heap and the
/// same secondary index as with a key, no key index, and unique secondaries still refuse.
#[test]
fn a_table_without_a_key_is_a_heap_and_its_secondaries() {
    let keyed = table(ColumnType::Binary { bytes: 16 }, true);
    let mut bare = keyed.clone();
    bare.primary_key.clear();
    bare.auto_increment = false;
    let (mut a, mut b) =
        (NbtreeTable::new(&keyed, checked()).unwrap(), NbtreeTable::new(&bare, checked()).unwrap());
    assert!(!b.has_primary_key());
    for i in 0..5_000 {
        let row = [Value::Int(i), uuid(i as u64)];
        a.insert(&row).unwrap();
        b.insert(&row).unwrap();
    }
    let (sa, sb) = (a.stats(), b.stats());
    assert_eq!(sb.indexes.len(), 1);
    assert_eq!(sa.heap_pages, sb.heap_pages);
    assert_eq!(sa.indexes[1], sb.indexes[0]);
    assert!(b.delete(&[Value::Int(1)]).is_err(), "no key to delete by");
    bare.indexes[0].unique = true;
    let mut u = NbtreeTable::new(&bare, checked()).unwrap();
    u.insert(&[Value::Int(1), uuid(7)]).unwrap();
    assert!(u.insert(&[Value::Int(2), uuid(7)]).is_err(), "a unique secondary refuses");
}

/// `date` keys (4 bytes, int-aligned) and indexes of more than four key columns, up to
/// PostgreSQL's 32 (INDEX_MAX_KEYS); 33 are refused.
#[test]
fn date_keys_and_wide_indexes() {
    use geometry::{KeyLayout, KeyType};
    assert_eq!(KeyType::of(&ColumnType::Date), Ok(KeyType::Date));
    let l = KeyLayout::new(KeyType::Date);
    let mut k = Vec::new();
    l.encode(&Value::Time(86_400), 1, &mut k).unwrap();
    // 8-byte header + 4-byte date, MAXALIGNed: 16, as an int4 (pageinspect: itemlen 16).
    assert_eq!(l.leaf_bytes(&k), 16);
    let six = [KeyType::Int; 6];
    let l = KeyLayout::composite(&six).unwrap();
    let vals: Vec<Value> = (0..6).map(Value::Int).collect();
    l.encode_values(&vals, 1, &mut k).unwrap();
    // 8 + 6 * 4 = 32.
    assert_eq!(l.leaf_bytes(&k), 32);
    assert!(KeyLayout::composite(&[KeyType::Int; 32]).is_ok());
    assert!(KeyLayout::composite(&[KeyType::Int; 33]).is_err());
}
