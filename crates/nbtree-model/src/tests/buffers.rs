//! The table through the buffer model: the request counts PostgreSQL 15.20 gave for the
//! same inserts (a scratch server, `pg_statio_user_tables` after 300 INSERTs of 1,000 rows
//! into `(id bigint identity primary key, data varchar)` with shared_buffers = 16MB: heap
//! 1,624 read / 303,239 hit for 1,622 pages, index 825 read for 825 pages), here at a
//! smaller scale with the same rules.

use super::*;
use crate::buffers::Rel;

#[test]
fn an_ascending_load_reads_each_new_page_once_and_hits_three_times_per_full_heap_page() {
    let t = table(ColumnType::BigInt { unsigned: false }, false);
    let settings = NbtreeSettings { shared_buffers_bytes: Some(16 << 20), ..Default::default() };
    let mut m = NbtreeTable::new(&t, settings).unwrap();
    let rows = 100_000u64;
    for i in 0..rows {
        m.insert(&[Value::Int(i as i64)]).unwrap();
    }
    let s = m.stats();
    let b = m.buffers().unwrap();
    let (heap, map, index) = (b.of(Rel::HEAP), b.of(Rel::HEAP_FSM), b.of(Rel::index(0)));
    // Every page is new once (`P_NEW` counts as a read); the map's leaf and root once each.
    assert_eq!(heap.reads, s.heap_pages);
    assert_eq!(map.reads, 2);
    assert_eq!(index.reads, s.indexes[0].1.size_pages);
    // A row on the target page is one hit; a full page costs the target, the map's leaf
    // and its root before the new page.
    let full_pages = s.heap_pages - 1;
    let hits = (rows - s.heap_pages) + full_pages + 2 * full_pages - map.reads;
    assert_eq!((heap.requests - heap.reads) + (map.requests - map.reads), hits);
    assert_eq!(b.counters().pages_written(), 0);
}

#[test]
fn a_small_cache_misses_random_keys_more_than_ordered_ones() {
    let run = |key: fn(u64) -> Value| {
        let t = table(ColumnType::Binary { bytes: 16 }, false);
        let settings =
            NbtreeSettings { shared_buffers_bytes: Some(64 * 8192), ..Default::default() };
        let mut m = NbtreeTable::new(&t, settings).unwrap();
        for i in 0..50_000 {
            m.insert(&[key(i)]).unwrap();
        }
        let c = m.buffers().unwrap().counters();
        let pages = m.stats().heap_pages + m.stats().indexes[0].1.size_pages;
        (c.reads, pages, c.pages_written())
    };
    let ordered = |i: u64| Value::Bytes([i.to_be_bytes(), [0; 8]].concat());
    let (o_reads, o_pages, o_written) = run(ordered);
    let (r_reads, _, r_written) = run(uuid);
    // Ordered keys: only the new pages, plus the map's two.
    assert_eq!(o_reads, o_pages + 2);
    assert!(r_reads > 10 * o_reads, "{r_reads} vs {o_reads}");
    assert!(r_written > o_written && o_written > 0);
}

#[test]
fn a_checkpoint_writes_the_dirty_buffers_and_a_restart_empties_them() {
    let t = table(ColumnType::BigInt { unsigned: false }, false);
    let settings = NbtreeSettings {
        shared_buffers_bytes: Some(16 << 20),
        checkpoint_every_rows: Some(10_000),
        ..Default::default()
    };
    let mut m = NbtreeTable::new(&t, settings).unwrap();
    for i in 0..20_000 {
        m.insert(&[Value::Int(i)]).unwrap();
    }
    let written = m.buffers().unwrap().counters().written_at_checkpoint;
    assert!(written > 0);
    m.restart_buffers().unwrap();
    m.insert(&[Value::Int(20_000)]).unwrap();
    // The metapage, the root and the leaf, and the heap's last page, read again.
    assert!(m.buffers().unwrap().counters().reads >= 4);
    let plain = NbtreeTable::new(&t, NbtreeSettings::default()).unwrap().restart_buffers();
    assert!(plain.is_err());
}
