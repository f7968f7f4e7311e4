//! Shared by the benchmark (`benches/insert.rs`) and the speed tool (`tools/speed.rs`): seeded
//! 16-byte keys, the tables they go in, and the same keys into the simulator or a `BTreeMap`.
//!
//! Not a test: it measures nothing and checks nothing itself.

use super::Rng;

/// An ascending 16-byte key (uuid7:bin-like: time-ordered prefix, random tail).
pub fn ascending16(i: u64, rng: &mut Rng) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&(0x0190_0000_0000_0000u64 + i).to_be_bytes());
    k[8..].copy_from_slice(&rng.next_u64().to_be_bytes());
    k
}

/// `id BINARY(16) PRIMARY KEY, data VARCHAR(255)` (E1 payload).
pub fn bin16_table() -> keylab_schema::Table {
    use keylab_schema::*;
    Table {
        name: "t".into(),
        columns: vec![
            Column::new("id", ColumnType::Binary { bytes: 16 }, false),
            Column::new(
                "data",
                ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 },
                true,
            ),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: vec![],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

/// `pk BIGINT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)`.
pub fn autoinc_table() -> keylab_schema::Table {
    let mut t = bin16_table();
    t.columns[0] = keylab_schema::Column::new(
        "pk",
        keylab_schema::ColumnType::BigInt { unsigned: false },
        false,
    );
    t.auto_increment = true;
    t
}

/// Inserts `n` rows of `pattern` ("random", "ascending", "autoinc") into a simulator.
pub fn run_sim(pattern: &str, n: u64, seed: u64) -> crate::SimTable {
    use keylab_schema::Value;
    let mut rng = Rng(seed);
    let table = if pattern == "autoinc" { autoinc_table() } else { bin16_table() };
    let mut sim = crate::SimTable::new(&table, crate::SimSettings::default()).unwrap();
    let mut row = vec![Value::Bytes(vec![0; 16]), Value::Bytes(b"data".to_vec())];
    if pattern == "autoinc" {
        row[0] = Value::Null;
    }
    for i in 0..n {
        if let Value::Bytes(b) = &mut row[0] {
            let k = if pattern == "random" { rng.random16() } else { ascending16(i, &mut rng) };
            b.copy_from_slice(&k);
        }
        sim.insert(&row).unwrap();
    }
    sim
}

/// The same keys into a `BTreeMap`.
pub fn run_btreemap(pattern: &str, n: u64, seed: u64) -> usize {
    let mut rng = Rng(seed);
    if pattern == "autoinc" {
        let mut m = std::collections::BTreeMap::new();
        for i in 0..n {
            m.insert(i + 1, ());
        }
        return m.len();
    }
    let mut m = std::collections::BTreeMap::new();
    for i in 0..n {
        let k = if pattern == "random" { rng.random16() } else { ascending16(i, &mut rng) };
        m.insert(k, ());
    }
    m.len()
}
