//! Property tests of `insert_found` (a row's leaves found for every index first, then the
//! inserts): on a table without a buffer pool it gives, insert by insert, the same result and
//! the same pages, records and counters as inserting into one index after the other.

use crate::*;
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table, Value};
use proptest::prelude::*;

/// An `orders`-like table: a VARCHAR primary key, a UNIQUE nullable VARCHAR, a composite
/// key, an ascending time key and a short random text key; wide enough that a few hundred
/// rows split leaves at 4K.
fn table() -> Table {
    let vc = |chars| ColumnType::VarChar { chars, charset: Charset::Latin1 };
    Table {
        name: "o".into(),
        columns: vec![
            Column::new("id", vc(40), false),
            Column::new("customer", ColumnType::Int, false),
            Column::new("status", vc(20), false),
            Column::new("email", vc(120), true),
            Column::new("at", ColumnType::DateTime, false),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: vec![
            Index::new("uk_email", vec![3], true),
            Index::new("ix_cust_at", vec![1, 4], false),
            Index::new("ix_status", vec![2], false),
            Index::new("ix_at", vec![4], false),
        ],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

/// Per row: id, whether ids ascend, customer, status, email (0 = NULL), email length.
type Op = (u32, bool, u16, u8, u16, u8);

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        (0u32..3000, any::<bool>(), 0u16..40, 0u8..6, 0u16..800, 1u8..100),
        1..400,
    )
}

fn row(i: usize, (id, ascending, customer, status, email, email_len): Op) -> Vec<Value> {
    let id = if ascending { 1_000_000 + i as u32 } else { id };
    let email = match email {
        0 => Value::Null,
        e => Value::Bytes(format!("{e:05}{}", "x".repeat(email_len as usize)).into_bytes()),
    };
    vec![
        Value::Bytes(format!("{id:08}{}", "k".repeat(id as usize % 29)).into_bytes()),
        Value::Int(customer.into()),
        Value::Bytes(format!("s{status}").into_bytes()),
        email,
        Value::Time(1_700_000_000 + i as i64),
    ]
}

fn run(page: PageSize, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let t = table();
    let settings = SimSettings { page_size: page, ..SimSettings::default() };
    let mut two_pass =
        SimTable::new(&t, settings).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut one_by_one = two_pass.clone();
    one_by_one.one_index_at_a_time = true;
    for (i, op) in ops.into_iter().enumerate() {
        let r = row(i, op);
        let a = two_pass.insert(&r).map_err(|e| e.to_string());
        let b = one_by_one.insert(&r).map_err(|e| e.to_string());
        prop_assert_eq!(&a, &b, "row {}", i);
        prop_assert_eq!(two_pass.last_insert_leaves(), one_by_one.last_insert_leaves());
    }
    if let Err(v) = two_pass.check() {
        return Err(TestCaseError::fail(v.to_string()));
    }
    for ix in 0..5 {
        prop_assert_eq!(two_pass.debug_pages(ix), one_by_one.debug_pages(ix), "index {}", ix);
        prop_assert_eq!(two_pass.leaf_page_keys(ix), one_by_one.leaf_page_keys(ix));
    }
    prop_assert_eq!(two_pass.counters(), one_by_one.counters());
    prop_assert_eq!(two_pass.debug_fsp(), one_by_one.debug_fsp());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn two_pass_matches_one_index_at_a_time_4k(o in ops()) { run(PageSize::K4, o)?; }
    #[test]
    fn two_pass_matches_one_index_at_a_time_16k(o in ops()) { run(PageSize::K16, o)?; }
}
