//! Fingerprints: the figures of fixed workloads, pinned, so that any change in the model's
//! output is seen and explained (the rules behind them are checked against PostgreSQL 15.20 by
//! `tests/cli/postgres/model.rs`); update a fingerprint only with the reason in the commit.

use crate::*;
use keylab_schema::{Charset, Column, RowFormat};

fn table(ty: ColumnType) -> Table {
    Table {
        name: "t".into(),
        columns: vec![
            Column::new("id", ty, false),
            Column::new(
                "data",
                ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 },
                true,
            ),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: Vec::new(),
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

/// splitmix64: fixed pseudo-random ids without entropy.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fingerprint(ty: ColumnType, id: impl Fn(u64) -> Value, ckpt: Option<u64>) -> String {
    let settings = NbtreeSettings { checkpoint_every_rows: ckpt, ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&table(ty), settings).unwrap();
    for i in 0..30_000 {
        m.insert(&[id(i), Value::Bytes(b"data".to_vec())]).unwrap();
        if i % 1000 == 999 {
            m.commit();
        }
    }
    for i in (0..30_000).step_by(3) {
        m.delete(&[id(i)]).unwrap();
    }
    m.commit();
    m.vacuum().unwrap();
    let s = m.stats();
    let ix = &s.indexes[0].1;
    format!(
        "leaf={} internal={} height={} density={:.2} frag={:.2} deleted={} heap={} fpi={} \
         fpi_bytes={} split_l={} split_r={} new_roots={}",
        ix.leaf_pages,
        ix.internal_pages,
        ix.height,
        ix.avg_leaf_density,
        ix.leaf_fragmentation,
        ix.deleted_pages,
        s.heap_pages,
        s.wal.full_page_images,
        s.wal.full_page_image_bytes,
        s.wal.split_left,
        s.wal.split_right,
        s.wal.new_roots
    )
}

#[test]
fn random_uuids() {
    let uuid = |i: u64| {
        let mut b = mix(i).to_be_bytes().to_vec();
        b.extend_from_slice(&mix(!i).to_be_bytes());
        Value::Bytes(b)
    };
    assert_eq!(
        fingerprint(ColumnType::Binary { bytes: 16 }, uuid, Some(10_000)),
        "leaf=144 internal=1 height=2 density=48.09 frag=49.31 deleted=0 heap=192 fpi=492 \
         fpi_bytes=2998144 split_l=72 split_r=71 new_roots=2"
    );
}

#[test]
fn ascending_bigints() {
    assert_eq!(
        fingerprint(ColumnType::BigInt { unsigned: false }, |i| Value::Int(i as i64), Some(10_000)),
        "leaf=82 internal=1 height=2 density=60.13 frag=0.00 deleted=0 heap=163 fpi=251 \
         fpi_bytes=1739232 split_l=0 split_r=81 new_roots=2"
    );
}

/// Page deletion, recycling through the free space map, inserts into recycled pages, and a
/// sorted rebuild: the paths that remove items from pages.
#[test]
fn deleted_recycled_and_rebuilt_pages() {
    let settings =
        NbtreeSettings { checkpoint_every_rows: Some(7_000), ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&table(ColumnType::BigInt { unsigned: false }), settings).unwrap();
    let data = || Value::Bytes(b"data".to_vec());
    for i in 0..30_000 {
        m.insert(&[Value::Int(i), data()]).unwrap();
    }
    for i in (0..20_000).chain((20_000..30_000).step_by(2)) {
        m.delete(&[Value::Int(i)]).unwrap();
    }
    m.commit();
    let first = m.vacuum().unwrap();
    m.commit();
    let second = m.vacuum().unwrap();
    for i in 0..10_000u64 {
        m.insert(&[Value::Int((mix(i) >> 20) as i64 - (1 << 42)), data()]).unwrap();
    }
    let line = |m: &NbtreeTable| {
        let s = m.stats();
        let ix = &s.indexes[0].1;
        format!(
            "leaf={} internal={} height={} density={:.2} frag={:.2} deleted={} recyclable={} \
             size={} fpi={} fpi_bytes={} split_l={} split_r={}",
            ix.leaf_pages,
            ix.internal_pages,
            ix.height,
            ix.avg_leaf_density,
            ix.leaf_fragmentation,
            ix.deleted_pages,
            ix.recyclable_pages,
            ix.size_pages,
            s.wal.full_page_images,
            s.wal.full_page_image_bytes,
            s.wal.split_left,
            s.wal.split_right
        )
    };
    let loaded = line(&m);
    m.rebuild(70).unwrap();
    let rebuilt = line(&m);
    assert_eq!(
        format!("{first:?} {second:?}\n{loaded}\n{rebuilt}"),
        "[VacuumOutcome { removed: 25000, deleted_pages: 54, recycled_pages: 0 }] \
         [VacuumOutcome { removed: 0, deleted_pages: 0, recycled_pages: 54 }]\n\
         leaf=60 internal=1 height=2 density=61.62 frag=28.33 deleted=22 recyclable=22 size=84 \
         fpi=287 fpi_bytes=1876848 split_l=16 split_r=97\n\
         leaf=53 internal=1 height=2 density=69.73 frag=0.00 deleted=0 recyclable=0 size=55 \
         fpi=342 fpi_bytes=2181140 split_l=16 split_r=97"
    );
}
