//! Model tests: shapes the server's rules imply, the invariants after every operation, and
//! the model against a `BTreeMap`.

use super::*;
use keylab_schema::{Charset, Column, Index, RowFormat};

fn table(ty: ColumnType, secondary: bool) -> Table {
    let id = Column::new("id", ty, false);
    let (columns, indexes) = if secondary {
        (
            vec![Column::new("pk", ColumnType::BigInt { unsigned: false }, false), id],
            vec![Index {
                name: "k_id".into(),
                columns: vec![1],
                unique: false,
                prefix_chars: Vec::new(),
            }],
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
    }
}
