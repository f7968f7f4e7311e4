use super::*;

fn read(b: &mut SharedBuffers, block: u32) -> bool {
    b.request(Rel::HEAP, block, Access::Read, Strategy::Normal)
}

#[test]
fn the_free_list_serves_first_then_the_sweep_takes_the_first_unused_buffer() {
    let mut b = SharedBuffers::new(16 * BUFFER_BYTES);
    for block in 0..16 {
        assert!(!read(&mut b, block));
    }
    // Block 3 is used again (usage 2): the sweep passes every buffer once (all at 1 → 0,
    // block 3 at 2 → 1), then takes buffer 0.
    assert!(read(&mut b, 3));
    assert!(!read(&mut b, 100));
    assert!(!b.holds(Rel::HEAP, 0));
    assert!(b.holds(Rel::HEAP, 3));
    let c = b.counters();
    assert_eq!((c.requests, c.reads, c.evictions), (18, 17, 1));
}

#[test]
fn a_page_used_often_outlives_pages_used_once() {
    let mut b = SharedBuffers::new(64 * BUFFER_BYTES);
    for block in 0..10_000 {
        read(&mut b, block);
        // Index-like page 1_000_000 is requested with every heap page.
        b.request(Rel::index(0), 7, Access::Write, Strategy::Normal);
    }
    assert_eq!(b.of(Rel::index(0)).reads, 1);
    assert_eq!(b.of(Rel::HEAP).reads, 10_000);
}

#[test]
fn extensions_count_as_reads_and_dirty_victims_are_written() {
    let mut b = SharedBuffers::new(16 * BUFFER_BYTES);
    for block in 0..40 {
        assert!(!b.request(Rel::HEAP, block, Access::Extend, Strategy::Normal));
    }
    let c = b.counters();
    assert_eq!((c.reads, c.extensions, c.written_at_eviction), (40, 40, 24));
    b.checkpoint();
    assert_eq!(b.counters().written_at_checkpoint, 16);
    assert_eq!(b.counters().pages_written(), 40);
}

#[test]
fn a_ring_keeps_a_bulk_scan_to_an_eighth_of_the_buffers() {
    let mut b = SharedBuffers::new(1024 * BUFFER_BYTES);
    for block in 0..900 {
        b.request(Rel::index(0), block, Access::Read, Strategy::Normal);
    }
    for block in 0..10_000 {
        b.request(Rel::HEAP, block, Access::Read, Strategy::BulkRead);
    }
    // The ring's 32 buffers, reused over and over.
    assert_eq!(b.resident(Rel::HEAP), 32);
    assert_eq!(b.resident(Rel::index(0)), 900);
    let mut small = SharedBuffers::new(128 * BUFFER_BYTES);
    for block in 0..1000 {
        small.request(Rel::HEAP, block, Access::Extend, Strategy::BulkWrite);
    }
    // The 16 MB ring is capped at an eighth of 128 buffers.
    assert_eq!(small.resident(Rel::HEAP), 16);
    for block in 0..100 {
        small.request(Rel::index(0), block, Access::Write, Strategy::Normal);
    }
    assert_eq!(small.of(Rel::index(0)).reads, 100);
}

#[test]
fn relations_number_heap_indexes_and_their_maps() {
    assert_eq!(Rel::index(0), Rel(2));
    assert_eq!(Rel::index(3).index_number(), Some(3));
    assert_eq!(Rel(3).index_number(), Some(0));
    assert_eq!(Rel::HEAP_FSM.index_number(), None);
}
