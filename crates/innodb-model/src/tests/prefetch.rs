//! `SimTable::insert_batch` (the prefetching insert) against `SimTable::insert` row by row:
//! the same trees, counters and statistics, and the same error at the same row.

use super::{e1_table, uuid_like, varchar, Rng};
use crate::*;
use keylab_schema::{ColumnType, Index, Value};

/// Everything the simulator reports about `sim`, as text.
fn state(sim: &SimTable) -> String {
    let mut s = format!("{:?}\n{:?}\n{:?}\n", sim.stats(), sim.counters(), sim.pool_counters());
    for ix in 0..sim.trees.len() {
        s += &format!("{:?}\n{:?}\n", sim.debug_pages(ix), sim.leaf_keys(ix));
    }
    sim.check().expect("invariants");
    s
}

/// Loads `rows` both ways, in batches of `batch`, and compares.
fn same_both_ways(table: &keylab_schema::Table, settings: SimSettings, rows: &[Vec<Value>]) {
    let mut one = SimTable::new(table, settings).unwrap();
    let mut errors_one = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if let Err(e) = one.insert(r) {
            errors_one.push((i, e.to_string()));
        }
    }
    let mut batched = SimTable::new(table, settings).unwrap();
    let mut errors_batched = Vec::new();
    for (b, chunk) in rows.chunks(333).enumerate() {
        let mut from = 0;
        // After an error, the batch goes on from the row after the failing one.
        while let Err((i, e)) = batched.insert_batch(&chunk[from..]) {
            errors_batched.push((b * 333 + from + i, e.to_string()));
            from += i + 1;
        }
    }
    assert_eq!(errors_one, errors_batched);
    assert_eq!(state(&one), state(&batched));
}

fn random_rows(n: usize, seed: u64, mut id: impl FnMut(&mut Rng) -> Vec<u8>) -> Vec<Vec<Value>> {
    let mut rng = Rng(seed);
    (0..n).map(|_| vec![Value::Bytes(id(&mut rng)), Value::Bytes(b"data".to_vec())]).collect()
}

#[test]
fn batch_of_random_binary_keys_with_duplicates_matches_row_by_row() {
    let mut table = e1_table(ColumnType::Binary { bytes: 16 }, false);
    table.columns[0].name = "id".into();
    let mut rows = random_rows(20_000, 3, |r| {
        let mut b = r.next_u64().to_be_bytes().to_vec();
        b.extend_from_slice(&r.next_u64().to_be_bytes());
        b
    });
    // Duplicates (refused by PRIMARY) and a row of the wrong width (refused by validation).
    for i in (500..rows.len()).step_by(1_777) {
        rows[i] = rows[i - 400].clone();
    }
    rows[9_000] = vec![Value::Bytes(vec![1; 16])];
    same_both_ways(&table, SimSettings::default(), &rows);
}

#[test]
fn batch_of_widening_varchar_keys_matches_row_by_row() {
    // Ids of growing length: the key slots widen (every stored key re-encoded) mid-batch.
    let table = e1_table(varchar(36), false);
    let mut n = 0usize;
    let rows = random_rows(12_000, 5, |r| {
        n += 1;
        let id = uuid_like(r);
        id[..(1 + n / 400).min(36)].to_vec()
    });
    same_both_ways(&table, SimSettings::default(), &rows);
}

#[test]
fn batch_with_a_secondary_index_a_pool_or_auto_increment_matches_row_by_row() {
    let mut table = e1_table(varchar(36), false);
    table.indexes.push(Index::new("k_data", vec![1], false));
    let rows = random_rows(8_000, 9, |r| {
        let mut id = uuid_like(r);
        id.truncate(8 + (r.next_u64() % 29) as usize);
        id
    });
    let d = SimSettings::default();
    same_both_ways(&table, d, &rows);
    let pool = SimSettings { buffer_pool_bytes: Some(64 * 16_384), ..d };
    same_both_ways(&table, pool, &rows);
    let auto = e1_table(varchar(36), true);
    let rows: Vec<Vec<Value>> =
        rows.iter().map(|r| vec![Value::Null, r[0].clone(), r[1].clone()]).collect();
    same_both_ways(&auto, d, &rows);
}

#[test]
fn batch_of_ascending_keys_with_duplicates_matches_row_by_row() {
    // Ascending keys stop the lookahead after the batch's first rows (`PROBE_ROWS`); the
    // rest of the batch, duplicates included, goes row by row.
    let table = e1_table(ColumnType::Binary { bytes: 16 }, false);
    let mut i = 0u64;
    let mut rows = random_rows(5_000, 11, |r| {
        i += 1;
        let mut b = (0x0190_0000_0000_0000u64 + i).to_be_bytes().to_vec();
        b.extend_from_slice(&r.next_u64().to_be_bytes());
        b
    });
    for k in [200, 201, 1_000, 4_321] {
        rows[k] = rows[k - 1].clone();
    }
    same_both_ways(&table, SimSettings::default(), &rows);
}

/// A table like advise's `orders`: random and rising secondary indexes, one UNIQUE, one on a
/// VARCHAR whose values grow longer (its key slots widen mid-batch).
fn orders_like(auto_increment: bool) -> keylab_schema::Table {
    use keylab_schema::{Charset, Column, RowFormat, Table};
    let text = |chars| ColumnType::VarChar { chars, charset: Charset::Ascii };
    let id = if auto_increment {
        ColumnType::BigInt { unsigned: false }
    } else {
        ColumnType::Binary { bytes: 16 }
    };
    Table {
        name: "orders".into(),
        columns: vec![
            Column::new("id", id, false),
            Column::new("email", text(40), false),
            Column::new("n", ColumnType::Int, false),
            Column::new("s", text(30), false),
            Column::new("at", ColumnType::DateTime, false),
        ],
        primary_key: vec![0],
        auto_increment,
        indexes: vec![
            Index::new("uk_email", vec![1], true),
            Index::new("ix_n_at", vec![2, 4], false),
            Index::new("ix_s", vec![3], false),
            Index::new("ix_at", vec![4], false),
        ],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

fn orders_rows(n: usize, auto_increment: bool) -> Vec<Vec<Value>> {
    let mut r = Rng(21);
    let mut rows: Vec<Vec<Value>> = (0..n)
        .map(|i| {
            let id = if auto_increment {
                // Given ids, now and then none (the table assigns it).
                if i % 97 == 5 {
                    Value::Null
                } else {
                    Value::Int(i as i64 * 3 + 1)
                }
            } else {
                let mut b = r.next_u64().to_be_bytes().to_vec();
                b.extend_from_slice(&r.next_u64().to_be_bytes());
                Value::Bytes(b)
            };
            let email = format!("{:016x}{:08x}", r.next_u64(), r.next_u64() as u32);
            let s_len = 2 + (i / 700).min(26) + (r.next_u64() % 3) as usize;
            let s: String = uuid_like(&mut r).iter().take(s_len).map(|&b| b as char).collect();
            vec![
                id,
                Value::Bytes(email.into_bytes()),
                Value::Int((r.next_u64() % 500) as i64),
                Value::Bytes(s.into_bytes()),
                Value::Time(1_700_000_000 + i as i64),
            ]
        })
        .collect();
    // Duplicate emails (refused by the UNIQUE index).
    for i in (300..rows.len()).step_by(1_301) {
        rows[i][1] = rows[i - 250][1].clone();
    }
    rows
}

#[test]
fn batch_over_every_index_of_an_orders_table_matches_row_by_row() {
    let d = SimSettings::default();
    for auto in [false, true] {
        let (table, rows) = (orders_like(auto), orders_rows(15_000, auto));
        same_both_ways(&table, d, &rows);
        // The leaves `insert_batch_each` hands on are those of each row's insert.
        let mut one = SimTable::new(&table, d).unwrap();
        let mut want = Vec::new();
        for r in &rows {
            if one.insert(r).is_ok() {
                want.extend_from_slice(one.last_insert_leaves());
            }
        }
        let mut batched = SimTable::new(&table, d).unwrap();
        let mut got = Vec::new();
        for chunk in rows.chunks(512) {
            let mut from = 0;
            while let Err((i, _)) =
                batched.insert_batch_each(&chunk[from..], &mut |l| got.extend_from_slice(l))
            {
                from += i + 1;
            }
        }
        assert_eq!(want, got, "auto_increment {auto}");
    }
}

#[test]
fn batch_hands_every_looked_ahead_key_to_the_insert() {
    let (table, rows) = (orders_like(false), orders_rows(5_000, false));
    let mut batched = SimTable::new(&table, SimSettings::default()).unwrap();
    crate::table::KEYS_ENCODED_BY_INSERT.with(|n| n.set(0));
    for chunk in rows.chunks(512) {
        let mut from = 0;
        while let Err((i, _)) = batched.insert_batch(&chunk[from..]) {
            from += i + 1;
        }
    }
    let encoded = crate::table::KEYS_ENCODED_BY_INSERT.with(|n| n.get());
    // The rising `ix_at` leaves the lookahead after a batch's first rows, so its insert
    // encodes its key (one per row), as it does a key whose slots widened since its
    // lookahead; the other four indexes' keys come from the lookahead (re-encoding them
    // would be five per row).
    let rows_n = rows.len() as u64;
    assert!(encoded > rows_n / 2 && encoded < rows_n * 5 / 4, "{encoded} keys encoded");
}
