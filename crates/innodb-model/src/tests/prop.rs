//! Property tests: after any sequence of inserts (and deletes), at every page size, each
//! index holds exactly the model's keys (a `BTreeMap`) in order, and the invariant checker
//! passes after every operation; also with a small buffer pool and the change buffer on.

use super::varchar;
use crate::*;
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table, Value};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// `id VARCHAR(16) latin1 PK, v BIGINT, pad VARCHAR(n) latin1 NULL, KEY(v)`: big, variable
/// records so that few rows make deep trees at every page size.
pub(crate) fn table(page: PageSize) -> Table {
    let pad = page.bytes() / 8;
    Table {
        name: "p".into(),
        columns: vec![
            Column::new("id", ColumnType::VarChar { chars: 16, charset: Charset::Latin1 }, false),
            Column::new("v", ColumnType::BigInt { unsigned: false }, false),
            Column::new("pad", ColumnType::VarChar { chars: pad, charset: Charset::Latin1 }, true),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: vec![Index::new("k_v", vec![1], false)],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

#[derive(Debug, Clone)]
enum Pattern {
    Random,
    Ascending,
    Descending,
}

fn ops() -> impl Strategy<Value = (Pattern, Vec<(u32, u8, i64)>)> {
    let pat =
        prop_oneof![Just(Pattern::Random), Just(Pattern::Ascending), Just(Pattern::Descending)];
    (pat, prop::collection::vec((0u32..5000, any::<u8>(), -50i64..50), 1..250))
}

fn run(page: PageSize, pattern: Pattern, ops: Vec<(u32, u8, i64)>) -> Result<(), TestCaseError> {
    let t = table(page);
    let mut sim = SimTable::new(&t, SimSettings { page_size: page, ..SimSettings::default() })
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut model: BTreeMap<Vec<u8>, Vec<Value>> = BTreeMap::new();
    let pad_max = page.bytes() / 8;
    for (i, (k, len, v)) in ops.into_iter().enumerate() {
        let k = match pattern {
            Pattern::Random => k,
            Pattern::Ascending => i as u32 * 3 + k % 3,
            Pattern::Descending => 1_000_000 - i as u32 * 3 - k % 3,
        };
        let id = format!("{k:07}").into_bytes();
        let pad_len = (len as u32 * pad_max / 255) as usize;
        let pad = if len % 17 == 0 { Value::Null } else { Value::Bytes(vec![b'p'; pad_len]) };
        let row = vec![Value::Bytes(id.clone()), Value::Int(v), pad];
        let res = sim.insert(&row);
        match model.entry(id) {
            std::collections::btree_map::Entry::Occupied(_) => {
                prop_assert!(matches!(res, Err(SimError::DuplicateKey { .. })), "{res:?}")
            }
            std::collections::btree_map::Entry::Vacant(v) => {
                prop_assert!(res.is_ok(), "{res:?}");
                v.insert(row);
            }
        }
        if let Err(v) = sim.check() {
            return Err(TestCaseError::fail(format!("after insert {i}: {v}")));
        }
    }
    prop_assert_eq!(sim.len(), model.len() as u64);
    let want: Vec<Vec<u8>> = model.values().map(|r| sim.encode(0, r)).collect();
    prop_assert_eq!(sim.leaf_keys(0), want);
    let mut want2: Vec<Vec<u8>> = model.values().map(|r| sim.encode(1, r)).collect();
    want2.sort();
    prop_assert_eq!(sim.leaf_keys(1), want2);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn key_set_matches_model_4k((p, o) in ops()) { run(PageSize::K4, p, o)?; }
    #[test]
    fn key_set_matches_model_8k((p, o) in ops()) { run(PageSize::K8, p, o)?; }
    #[test]
    fn key_set_matches_model_16k((p, o) in ops()) { run(PageSize::K16, p, o)?; }
    #[test]
    fn key_set_matches_model_32k((p, o) in ops()) { run(PageSize::K32, p, o)?; }
    #[test]
    fn key_set_matches_model_64k((p, o) in ops()) { run(PageSize::K64, p, o)?; }
}

/// One churn operation: insert (id, pad length, v) or delete an id (taken modulo the ids
/// inserted so far, so most deletes hit).
#[derive(Debug, Clone)]
enum ChurnOp {
    Insert(u32, u8, i64),
    Delete(u32),
}

fn churn_ops() -> impl Strategy<Value = (u8, Vec<ChurnOp>)> {
    let op = prop_oneof![
        3 => (0u32..3000, any::<u8>(), -20i64..20).prop_map(|(k, l, v)| ChurnOp::Insert(k, l, v)),
        2 => any::<u32>().prop_map(ChurnOp::Delete),
    ];
    (0u8..100, prop::collection::vec(op, 1..400))
}

fn run_churn(
    page: PageSize,
    merge_pct: u8,
    ops: Vec<ChurnOp>,
    pool: Option<u64>,
) -> Result<(), TestCaseError> {
    run_churn_flavour(page, merge_pct, ops, pool, Flavour::MariaDb1011)
}

fn run_churn_flavour(
    page: PageSize,
    merge_pct: u8,
    ops: Vec<ChurnOp>,
    pool: Option<u64>,
    flavour: Flavour,
) -> Result<(), TestCaseError> {
    let t = table(page);
    let settings = SimSettings {
        flavour,
        page_size: page,
        buffer_pool_bytes: pool,
        change_buffering: pool.map(|_| true),
        pool: PoolSettings {
            checkpoint_every_ops: Some(50),
            old_blocks_ops: 3,
            ..Default::default()
        },
        ..SimSettings::default()
    };
    let mut sim = SimTable::new(&t, settings).map_err(|e| TestCaseError::fail(e.to_string()))?;
    sim.set_merge_threshold("k_v", 1 + merge_pct % 50).unwrap();
    let mut model: BTreeMap<Vec<u8>, Vec<Value>> = BTreeMap::new();
    let pad_max = page.bytes() / 8;
    for (i, op) in ops.into_iter().enumerate() {
        match op {
            ChurnOp::Insert(k, len, v) => {
                let id = format!("{k:07}").into_bytes();
                let pad_len = (len as u32 * pad_max / 255) as usize;
                let pad =
                    if len % 17 == 0 { Value::Null } else { Value::Bytes(vec![b'p'; pad_len]) };
                let row = vec![Value::Bytes(id.clone()), Value::Int(v), pad];
                let res = sim.insert(&row);
                match model.entry(id) {
                    std::collections::btree_map::Entry::Occupied(_) => {
                        prop_assert!(matches!(res, Err(SimError::DuplicateKey { .. })), "{res:?}")
                    }
                    std::collections::btree_map::Entry::Vacant(v) => {
                        prop_assert!(res.is_ok(), "{res:?}");
                        v.insert(row);
                    }
                }
            }
            ChurnOp::Delete(x) => {
                let id = match model.keys().nth(x as usize % (model.len() + 1)) {
                    Some(k) => k.clone(),
                    None => b"nosuchid".to_vec(),
                };
                let found = sim.delete(&[Value::Bytes(id.clone())]).unwrap();
                prop_assert_eq!(found, model.remove(&id).is_some());
            }
        }
        if let Err(v) = sim.check() {
            return Err(TestCaseError::fail(format!("after op {i}: {v}")));
        }
    }
    prop_assert_eq!(sim.len(), model.len() as u64);
    let want: Vec<Vec<u8>> = model.values().map(|r| sim.encode(0, r)).collect();
    prop_assert_eq!(sim.leaf_keys(0), want);
    let mut want2: Vec<Vec<u8>> = model.values().map(|r| sim.encode(1, r)).collect();
    want2.sort();
    prop_assert_eq!(sim.leaf_keys(1), want2);
    // Deleting everything leaves single-page trees.
    for id in model.keys() {
        prop_assert!(sim.delete(&[Value::Bytes(id.clone())]).unwrap());
    }
    sim.check().map_err(|v| TestCaseError::fail(v.to_string()))?;
    let s = sim.stats();
    for ix in &s.indexes {
        prop_assert_eq!(ix.height, 1, "{:?}", ix);
        prop_assert_eq!(ix.records, 0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn churn_matches_model_4k((m, o) in churn_ops()) { run_churn(PageSize::K4, m, o, None)?; }
    #[test]
    fn churn_matches_model_8k((m, o) in churn_ops()) { run_churn(PageSize::K8, m, o, None)?; }
    #[test]
    fn churn_matches_model_16k((m, o) in churn_ops()) { run_churn(PageSize::K16, m, o, None)?; }
    #[test]
    fn churn_matches_model_32k((m, o) in churn_ops()) { run_churn(PageSize::K32, m, o, None)?; }
    #[test]
    fn churn_matches_model_64k((m, o) in churn_ops()) { run_churn(PageSize::K64, m, o, None)?; }
    #[test]
    fn churn_matches_model_mysql_8k((m, o) in churn_ops()) {
        run_churn_flavour(PageSize::K8, m, o, None, Flavour::Mysql80)?;
    }
    #[test]
    fn churn_with_small_pool_and_change_buffer_4k((m, o) in churn_ops()) {
        run_churn(PageSize::K4, m, o, Some(12 * 4096))?;
    }
    #[test]
    fn churn_with_small_pool_and_change_buffer_16k((m, o) in churn_ops()) {
        run_churn(PageSize::K16, m, o, Some(10 * 16384))?;
    }
}

#[test]
fn varchar_key_widening_keeps_order() {
    let t = super::e1_table(varchar(36), false);
    let mut sim = SimTable::new(&t, SimSettings::default()).unwrap();
    let mut model = std::collections::BTreeSet::new();
    let mut rng = super::Rng(9);
    for i in 0..3000u64 {
        let len = (1 + (rng.next_u64() % 36) as usize).min(1 + i as usize / 50);
        let id: Vec<u8> = (0..len).map(|_| b'a' + (rng.next_u64() % 26) as u8).collect();
        if model.insert(id.clone()) {
            sim.insert(&super::e1_row(&id, false)).unwrap();
        }
    }
    sim.check().unwrap();
    let want: Vec<Vec<u8>> =
        model.iter().map(|id| sim.encode(0, &super::e1_row(id, false))).collect();
    assert_eq!(sim.leaf_keys(0), want);
}

/// Ids of hex digits and dashes with now and then another byte (on a page whose entries are
/// text words, a key outside the hex alphabet ties instead of ordering on later bytes): every
/// index holds the model's keys in order and the checker passes after each insert.
fn mixed_text_ids() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let byte = prop_oneof![
        12 => prop::sample::select(b"0123456789abcdef-".to_vec()),
        1 => prop::sample::select(b",./:@AFG`gz~".to_vec()),
    ];
    prop::collection::vec(prop::collection::vec(byte, 1..=16), 1..400)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn mixed_text_keys_match_model_4k(ids in mixed_text_ids()) {
        let t = table(PageSize::K4);
        let settings = SimSettings { page_size: PageSize::K4, ..SimSettings::default() };
        let mut sim = SimTable::new(&t, settings).unwrap();
        let mut model = BTreeMap::new();
        for (i, id) in ids.into_iter().enumerate() {
            let row = vec![Value::Bytes(id.clone()), Value::Int(i as i64 % 7), Value::Null];
            let res = sim.insert(&row);
            prop_assert_eq!(res.is_ok(), model.insert(id, row).is_none(), "{:?}", res);
            if let Err(v) = sim.check() {
                return Err(TestCaseError::fail(format!("after insert {i}: {v}")));
            }
        }
        let want: Vec<Vec<u8>> = model.values().map(|r| sim.encode(0, r)).collect();
        prop_assert_eq!(sim.leaf_keys(0), want);
        for id in model.keys() {
            prop_assert!(sim.delete(&[Value::Bytes(id.clone())]).unwrap());
        }
        sim.check().map_err(|v| TestCaseError::fail(v.to_string()))?;
    }
}
