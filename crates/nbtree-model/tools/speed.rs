//! Speed check (release): 10M random 16-byte keys into the nbtree model (a `uuid` primary
//! key: heap, index, unique check) and into `std::collections::BTreeMap`, side by side in one
//! process. `cargo run --release -p keylab-nbtree-model --example nbtree_speed [ROWS]`.

use keylab_nbtree_model::{NbtreeSettings, NbtreeTable};
use keylab_schema::{Column, ColumnType, RowFormat, Table, Value};
use std::collections::BTreeMap;
use std::time::Instant;

/// A fixed-seed 64-bit mixer (splitmix64): the same keys on every run, no entropy.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn key(i: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&mix(i).to_be_bytes());
    k[8..].copy_from_slice(&mix(!i).to_be_bytes());
    k
}

fn main() {
    let rows: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000_000);
    let t0 = Instant::now();
    let mut map = BTreeMap::new();
    for i in 0..rows {
        map.insert(key(i), ());
    }
    let map_s = t0.elapsed().as_secs_f64();
    assert_eq!(map.len() as u64, rows);
    drop(map);

    let table = Table {
        name: "t".into(),
        columns: vec![Column::new("id", ColumnType::Binary { bytes: 16 }, false)],
        primary_key: vec![0],
        auto_increment: false,
        indexes: Vec::new(),
        row_format: RowFormat::Dynamic,
        partitioning: None,
    };
    let t0 = Instant::now();
    let mut m = NbtreeTable::new(&table, NbtreeSettings::default()).expect("table");
    let mut row = vec![Value::Bytes(Vec::new())];
    for i in 0..rows {
        row[0] = Value::Bytes(key(i).to_vec());
        m.insert(&row).expect("insert");
    }
    let model_s = t0.elapsed().as_secs_f64();
    let s = m.stats();
    println!(
        "{rows} random 16-byte keys: BTreeMap {map_s:.2} s, nbtree model {model_s:.2} s \
         ({:.2}x); model: {} leaf pages, density {:.2} %",
        model_s / map_s,
        s.indexes[0].1.leaf_pages,
        s.indexes[0].1.avg_leaf_density
    );
}
