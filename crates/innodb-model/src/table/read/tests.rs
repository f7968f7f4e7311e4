//! Unit tests of the read path: rows are found through every index, each read requests
//! its descent's pages, and a bounded pool counts misses.

use super::*;
use crate::testkit::e1::e1_table;
use crate::testkit::Rng;
use crate::SimSettings;
use keylab_schema::ColumnType;

fn uuid(rng: &mut Rng) -> Vec<u8> {
    let mut b = vec![0u8; 16];
    for chunk in b.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    b
}

/// A table of `n` random 16-byte ids, in the pk or the secondary placement, and its ids.
fn table(n: usize, secondary: bool, pool: Option<u64>) -> (SimTable, Vec<Vec<u8>>) {
    let t = e1_table(ColumnType::Binary { bytes: 16 }, secondary);
    let settings = SimSettings { buffer_pool_bytes: pool, ..SimSettings::default() };
    let mut sim = SimTable::new(&t, settings).unwrap();
    let mut rng = Rng(7);
    let mut ids = Vec::new();
    for _ in 0..n {
        let id = uuid(&mut rng);
        let data = Value::Bytes(b"data".to_vec());
        let row = if secondary {
            vec![Value::Null, Value::Bytes(id.clone()), data]
        } else {
            vec![Value::Bytes(id.clone()), data]
        };
        sim.insert(&row).unwrap();
        ids.push(id);
    }
    (sim, ids)
}

#[test]
fn point_reads_find_every_row_and_request_one_page_per_level() {
    let (mut sim, ids) = table(20_000, false, None);
    let height = u64::from(sim.trees[0].height(&sim.space));
    assert!(height >= 2);
    let mut stats = ReadStats::new();
    for id in &ids {
        assert!(sim.read_point(&[Value::Bytes(id.clone())], &mut stats).unwrap());
    }
    assert_eq!(stats.rows, ids.len() as u64);
    // One page per level, and the next leaf for a key equal to its node pointer.
    let n = ids.len() as u64;
    assert!(stats.page_requests >= n * height, "{}", stats.page_requests);
    assert!(stats.page_requests < n * height + n / 20, "{}", stats.page_requests);
    // Every leaf was read.
    let leaves = sim.debug_pages(0).iter().filter(|p| p.1 == 0).count() as u64;
    let non_leaf = sim.debug_pages(0).len() as u64 - leaves;
    assert_eq!(stats.working_set_pages()[0], leaves + non_leaf);
    assert!(!sim.read_point(&[Value::Bytes(vec![0; 16])], &mut stats).unwrap());
    assert_eq!(stats.rows, n);
}

#[test]
fn secondary_reads_visit_the_clustered_index_for_each_match() {
    let (mut sim, ids) = table(10_000, true, None);
    let mut stats = ReadStats::new();
    for id in ids.iter().take(500) {
        let rows = sim.read_secondary("k_id", &[Value::Bytes(id.clone())], &mut stats).unwrap();
        assert_eq!(rows, 1);
    }
    assert_eq!(stats.rows, 500);
    let ws = stats.working_set_pages();
    assert!(ws[0] > 0 && ws[1] > 0, "{ws:?}");
    // The estimate's one path (both ends on the same pages), the lookup's, one clustered
    // descent; the restore before the next record is no request (MariaDB 10.11.19: 9
    // requests per lookup at heights 3 and 3).
    let (hs, hc) = (sim.trees[1].height(&sim.space), sim.trees[0].height(&sim.space));
    let per = u64::from(2 * hs + hc);
    assert!(stats.page_requests >= 500 * per, "{} vs {}", stats.page_requests, 500 * per);
    assert!(stats.page_requests < 500 * per + 50, "{} vs {}", stats.page_requests, 500 * per);
    let absent = sim.read_secondary("k_id", &[Value::Bytes(vec![0; 16])], &mut stats).unwrap();
    assert_eq!(absent, 0);
    assert!(sim.read_secondary("nope", &[Value::Null], &mut stats).is_err());
}

#[test]
fn key_ranges_walk_the_leaves_in_key_order() {
    let (mut sim, mut ids) = table(5_000, false, None);
    ids.sort();
    let mut stats = ReadStats::new();
    let got = sim.read_key_range(&[Value::Bytes(ids[100].clone())], 1000, &mut stats).unwrap();
    assert_eq!(got, 1000);
    let near_end = sim.read_key_range(&[Value::Bytes(ids[4990].clone())], 100, &mut stats);
    assert_eq!(near_end.unwrap(), 10);
    // 1,000 16-byte keys with `data` span several leaves: each entered once.
    assert!(stats.working_set_pages()[0] > 2, "{:?}", stats.working_set_pages());
}

#[test]
fn a_bounded_pool_misses_on_random_reads_and_not_on_repeated_ones() {
    let (mut sim, ids) = table(200_000, false, Some(6 << 20));
    let before = sim.pool_counters().unwrap();
    let mut stats = ReadStats::new();
    let mut rng = Rng(3);
    for _ in 0..20_000 {
        let id = &ids[(rng.next_u64() % ids.len() as u64) as usize];
        sim.read_point(&[Value::Bytes(id.clone())], &mut stats).unwrap();
    }
    let after = sim.pool_counters().unwrap();
    let misses = after.pages_read - before.pages_read;
    assert_eq!(after.page_accesses - before.page_accesses, stats.page_requests);
    assert!(misses > 2_000, "{misses}");
    let before = after;
    for _ in 0..1000 {
        sim.read_point(&[Value::Bytes(ids[7].clone())], &mut stats).unwrap();
    }
    assert!(sim.pool_counters().unwrap().pages_read - before.pages_read <= 4);
}

#[test]
fn secondary_keys_give_the_clustered_key_of_their_row() {
    let (sim, _) = table(100, true, None);
    let sec = &sim.trees[1];
    let kw = sec.kw();
    let leftmost = *sec.leftmost_pages(&sim.space).last().unwrap();
    let page = sim.space.page(leftmost);
    let mut pk = Vec::new();
    sec.layout.clustered_key_of(page.key(0, kw), &sim.trees[0].layout, &mut pk);
    assert_eq!(pk.len(), sim.trees[0].kw());
    assert_eq!(&page.key(0, kw)[kw - pk.len()..], &pk[..]);
}

/// MariaDB 10.11.19 per key (auto-inc, 4 KiB pages, 3,000 rows of 200 bytes, every page
/// cached): 2 requests for a key inside a leaf, 3 for the first key of a leaf (the PAGE_CUR_L
/// descent ends on the leaf before) and for the last key of a leaf (the next leaf is got).
#[test]
fn point_reads_at_a_leafs_ends_get_the_next_leaf() {
    use keylab_schema::{Charset, Column, RowFormat, Table};
    let t = Table {
        name: "p".into(),
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }, false),
            Column::new(
                "data",
                ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 },
                true,
            ),
        ],
        primary_key: vec![0],
        auto_increment: true,
        indexes: vec![],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    };
    let s = SimSettings { page_size: crate::PageSize::K4, ..SimSettings::default() };
    let mut sim = SimTable::new(&t, s).unwrap();
    for _ in 0..3000 {
        sim.insert(&[Value::Null, Value::Bytes(vec![b'x'; 200])]).unwrap();
    }
    let firsts: Vec<i64> = sim
        .leaf_page_keys(0)
        .iter()
        .map(|p| (u64::from_be_bytes(p[0][..8].try_into().unwrap()) ^ (1 << 63)) as i64)
        .collect();
    assert_eq!(&firsts[..3], &[1, 9, 25], "the server's leaf boundaries");
    let requests = |sim: &mut SimTable, k: i64| {
        let mut st = ReadStats::new();
        assert!(sim.read_point(&[Value::Int(k)], &mut st).unwrap());
        st.page_requests
    };
    for (k, want) in [(1, 2), (7, 2), (8, 3), (9, 3), (10, 2), (24, 3), (25, 3), (26, 2)] {
        assert_eq!(requests(&mut sim, k), want, "key {k}");
    }
}

#[test]
fn batched_point_reads_give_the_figures_of_single_ones() {
    let (mut a, ids) = table(100_000, false, Some(6 << 20));
    let mut b = a.clone();
    let mut rng = Rng(5);
    let keys: Vec<Vec<Value>> = (0..5_000)
        .map(|_| vec![Value::Bytes(ids[(rng.next_u64() % ids.len() as u64) as usize].clone())])
        .collect();
    let (mut sa, mut sb) = (ReadStats::new(), ReadStats::new());
    for k in &keys {
        a.read_point(k, &mut sa).unwrap();
    }
    for chunk in keys.chunks(300) {
        b.read_points(chunk, &mut sb).unwrap();
    }
    assert_eq!((sa.rows, sa.page_requests), (sb.rows, sb.page_requests));
    assert_eq!(sa.working_set_pages(), sb.working_set_pages());
    assert_eq!(a.pool_counters(), b.pool_counters());
}

#[test]
fn a_range_estimate_walks_at_most_nine_pages_per_level_below_where_its_ends_part() {
    let (mut sim, mut ids) = table(5_000, false, None);
    ids.sort();
    let h = u64::from(sim.trees[0].height(&sim.space));
    let leftmost = *sim.trees[0].leftmost_pages(&sim.space).last().unwrap();
    let leaves = Tree::level_pages(&sim.space, leftmost).count() as u64;
    let mut requests = |id: &Vec<u8>, limit: u32| {
        let mut stats = ReadStats::new();
        sim.read_key_range(&[Value::Bytes(id.clone())], limit, &mut stats).unwrap();
        stats.page_requests
    };
    // From the last key: both ends on the last leaf's path, nothing to walk; one row
    // estimated, not above the LIMIT, so one estimate, then the descent.
    let near = requests(&ids[4_999], 1);
    assert_eq!(near, 2 * h, "one estimate's path and the descent, height {h}");
    // Two rows left, LIMIT 1: the estimate (2 rows) is above the LIMIT and is made again.
    assert_eq!(requests(&ids[4_998], 1), 3 * h, "two estimates' one path and the descent");
    // From the first key: the ends part at the root; the right end's own path below it, and
    // on each lower level the pages strictly between the ends, at most 9 (a leaf level of
    // more pages gets exactly 9).
    let far = requests(&ids[0], 1);
    assert!(h >= 2 && leaves > 11, "height {h}, {leaves} leaves");
    let estimate = (far - h) / 2;
    let walks = estimate - (2 * h - 1);
    assert!((9..=9 * (h - 1)).contains(&walks), "{walks} pages walked, height {h}");
    // A LIMIT above the estimate (at most half the table when inexact): one estimate, the
    // descent, then every other leaf.
    assert_eq!(requests(&ids[0], 10_000), estimate + h + leaves - 1);
}
