//! Reads through the model: the pages an index scan requests (PostgreSQL 15.20 gave the
//! same requests per read in `tests/cli/postgres/reads.rs`: height + 1 for a point read).

use super::*;
use crate::buffers::Rel;

fn loaded(rows: u64) -> NbtreeTable {
    let t = table(ColumnType::Binary { bytes: 16 }, false);
    let mut m = NbtreeTable::new(&t, NbtreeSettings::default()).unwrap();
    for i in 0..rows {
        m.insert(&[uuid(i)]).unwrap();
    }
    m
}

#[test]
fn a_point_read_requests_each_level_once_and_its_heap_page() {
    let mut m = loaded(60_000);
    m.count_pages();
    let height = u64::from(m.stats().indexes[0].1.height);
    for i in (0..60_000).step_by(7) {
        assert_eq!(m.read_equal(0, &[uuid(i)]).unwrap(), 1, "row {i}");
    }
    let reads = 60_000u64.div_ceil(7);
    let b = m.buffers().unwrap();
    // The metapage once (the backend's first search), then the levels and the heap page.
    assert_eq!(b.of(Rel::index(0)).requests, reads * height + 1);
    assert_eq!(b.of(Rel::HEAP).requests, reads);
    assert!(!b.bounded());
    assert_eq!(m.read_equal(0, &[uuid(1 << 40)]).unwrap(), 0);
}

#[test]
fn a_key_range_walks_right_and_visits_heap_pages_in_index_order() {
    let mut m = loaded(20_000);
    m.count_pages();
    m.buffers_mut().unwrap().start_working_set();
    let got = m.read_range(0, &[Value::Bytes(vec![0; 16])], None, 5_000).unwrap();
    assert_eq!(got, 5_000);
    let ws = m.buffers_mut().unwrap().take_working_set();
    let pages = |r: Rel| ws.iter().find(|(x, _)| *x == r).map_or(0, |&(_, n)| n);
    let leaves = m.stats().indexes[0].1.leaf_pages;
    // A quarter of the keys: about a quarter of the leaves, and random keys spread the rows
    // over nearly every heap page.
    let touched = pages(Rel::index(0));
    assert!(touched > leaves / 6 && touched < leaves / 2, "{touched} of {leaves}");
    assert!(pages(Rel::HEAP) as f64 > 0.9 * m.stats().heap_pages as f64);
    // Heap requests are per change of block, in index order: about one per row.
    assert!(m.buffers().unwrap().of(Rel::HEAP).requests > 4_900);
}
