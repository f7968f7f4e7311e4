//! E5's table and churn (docs/experiments.md), shared by the `e5` tool and the scaled-down test
//! `tests/e5_churn.rs`.
//!
//! Not a test: the figures it returns are checked by its callers.

use super::Rng;

/// `test0(id VARCHAR(128) PK, seq_1, seq_2, seq_3 BIGINT, name VARCHAR(10), remark
/// VARCHAR(100), created_at, updated_at DATETIME)`, keys (seq_1, seq_2), (seq_3),
/// (seq_1, created_at); utf8mb4, DYNAMIC.
pub fn e5_table() -> keylab_schema::Table {
    use keylab_schema::*;
    let vc = |n| ColumnType::VarChar { chars: n, charset: Charset::Utf8mb4 };
    let big = ColumnType::BigInt { unsigned: false };
    Table {
        name: "test0".into(),
        columns: vec![
            Column::new("id", vc(128), false),
            Column::new("seq_1", big, true),
            Column::new("seq_2", big, true),
            Column::new("seq_3", big, true),
            Column::new("name", vc(10), true),
            Column::new("remark", vc(100), true),
            Column::new("created_at", ColumnType::DateTime, true),
            Column::new("updated_at", ColumnType::DateTime, true),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: vec![
            Index::new("idx_seq_1_2", vec![1, 2], false),
            Index::new("idx_seq_3", vec![3], false),
            Index::new("idx_seq_1_created", vec![1, 6], false),
        ],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

/// One row: random seq values, a 10-char name, a remark of 0–100 chars, one timestamp.
pub fn e5_row(rng: &mut Rng, id: Vec<u8>) -> Vec<keylab_schema::Value> {
    use keylab_schema::Value;
    let r = rng.next_u64();
    let remark_len = (r % 101) as usize;
    let ts = 1_700_000_000 + (rng.next_u64() % 86_400) as i64;
    vec![
        Value::Bytes(id),
        Value::Int((rng.next_u64() % 1_000_000) as i64),
        Value::Int((rng.next_u64() % 1_000_000) as i64),
        Value::Int((rng.next_u64() % 1_000_000) as i64),
        Value::Bytes(b"name_12345".to_vec()),
        Value::Bytes(vec![b'r'; remark_len]),
        Value::Time(ts),
        Value::Time(ts),
    ]
}

/// The loaded table and its live ids.
#[derive(Clone)]
pub struct E5Table {
    /// The simulated table.
    pub sim: crate::SimTable,
    /// The ids of its rows.
    pub ids: Vec<Vec<u8>>,
    /// The generator the load left (its state after the load).
    pub rng: Rng,
}

/// Loads `rows` rows of `test0` with ids in random order (`seed`).
pub fn load(rows: u64, seed: u64, flavour: crate::Flavour) -> E5Table {
    let settings = crate::SimSettings { flavour, ..Default::default() };
    let mut sim = crate::SimTable::new(&e5_table(), settings).unwrap();
    let mut rng = Rng(seed);
    let mut ids = Vec::with_capacity(rows as usize);
    for _ in 0..rows {
        let id = rng.md5_hex();
        sim.insert(&e5_row(&mut rng, id.clone())).unwrap();
        ids.push(id);
    }
    E5Table { sim, ids, rng }
}

/// One fill factor's E5 figures.
#[derive(Debug, Clone, Copy)]
pub struct E5Result {
    /// PRIMARY leaf pages after the first rebuild.
    pub pk_leaves_rebuilt: u64,
    /// Page splits during the churn (all indexes).
    pub splits: u64,
    /// Merge attempts during the churn.
    pub merge_attempts: u64,
    /// Merges during the churn.
    pub merges: u64,
    /// Page discards during the churn.
    pub discards: u64,
    /// PRIMARY leaf pages after the churn.
    pub pk_leaves_churned: u64,
    /// PRIMARY leaf pages after the final rebuild.
    pub pk_leaves_final: u64,
    /// Wall time of the churn (not a model figure).
    pub churn_wall_s: f64,
}

/// Rebuild at `ff`, churn, rebuild: the same operations for every fill factor (`seed`).
pub fn churn(w: &mut E5Table, ff: u8, rounds: u64, per_round: u64, seed: u64) -> E5Result {
    use keylab_schema::Value;
    w.sim.rebuild(ff).unwrap();
    let pk_leaves_rebuilt = w.sim.stats().indexes[0].pages_per_level[0];
    let c0 = w.sim.counters();
    let mut rng = Rng(seed);
    let t = std::time::Instant::now();
    for _ in 0..rounds {
        for _ in 0..per_round {
            let id = rng.md5_hex();
            w.sim.insert(&e5_row(&mut rng, id.clone())).unwrap();
            w.ids.push(id);
        }
        for _ in 0..per_round {
            let i = (rng.next_u64() % w.ids.len() as u64) as usize;
            let id = w.ids.swap_remove(i);
            assert!(w.sim.delete(&[Value::Bytes(id)]).unwrap());
        }
    }
    let churn_wall_s = t.elapsed().as_secs_f64();
    let c = w.sim.counters();
    let pk_leaves_churned = w.sim.stats().indexes[0].pages_per_level[0];
    w.sim.rebuild(ff).unwrap();
    E5Result {
        pk_leaves_rebuilt,
        splits: c.page_splits - c0.page_splits,
        merge_attempts: c.merge_attempts - c0.merge_attempts,
        merges: c.merges - c0.merges,
        discards: c.page_discards - c0.page_discards,
        pk_leaves_churned,
        pk_leaves_final: w.sim.stats().indexes[0].pages_per_level[0],
        churn_wall_s,
    }
}
