//! Property tests: after any insert sequence, at every page size, each index holds exactly
//! the model's keys (a `BTreeMap`) in order, and the invariant checker passes after every
//! insert.

use crate::tests::varchar;
use crate::*;
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table, Value};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// `id VARCHAR(16) latin1 PK, v BIGINT, pad VARCHAR(n) latin1 NULL, KEY(v)`: big, variable
/// records so that few rows make deep trees at every page size.
fn table(page: PageSize) -> Table {
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
        indexes: vec![Index { name: "k_v".into(), columns: vec![1], unique: false }],
        row_format: RowFormat::Dynamic,
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

#[test]
fn varchar_key_widening_keeps_order() {
    let t = crate::tests::e1_table(varchar(36), false);
    let mut sim = SimTable::new(&t, SimSettings::default()).unwrap();
    let mut model = std::collections::BTreeSet::new();
    let mut rng = crate::tests::Rng(9);
    for i in 0..3000u64 {
        let len = (1 + (rng.next_u64() % 36) as usize).min(1 + i as usize / 50);
        let id: Vec<u8> = (0..len).map(|_| b'a' + (rng.next_u64() % 26) as u8).collect();
        if model.insert(id.clone()) {
            sim.insert(&crate::tests::e1_row(&id, false)).unwrap();
        }
    }
    sim.check().unwrap();
    let want: Vec<Vec<u8>> =
        model.iter().map(|id| sim.encode(0, &crate::tests::e1_row(id, false))).collect();
    assert_eq!(sim.leaf_keys(0), want);
}
