//! Unit tests of the buffer pool model (`pool/mod.rs`): the LRU, making pages young, restarts,
//! and the page cleaner's LRU batch.

use super::*;

#[test]
fn lru_evicts_the_tail_and_writes_dirty_pages() {
    let mut p = Pool::new(
        600,
        16384,
        // The LRU alone: no page cleaner keeping pages free.
        PoolSettings { checkpoint_every_ops: None, lru_scan_depth: 0, ..PoolSettings::default() },
        false,
    );
    for i in 0..600 {
        p.access(i, i % 2 == 0);
    }
    assert_eq!(p.counters.pages_read, 600);
    assert_eq!(p.len(), 600);
    // Old sublist ≈ 37 % ± 20.
    assert!((p.old_len as i64 - 222).abs() <= 20, "{}", p.old_len);
    p.access(1000, false);
    assert_eq!(p.counters.evictions, 1);
    // Page 0 went to the head first (before the old sublist existed) but the list grew
    // behind it; the tail is the earliest page inserted after it... whichever: one write
    // or none, and the pool stays at capacity.
    assert_eq!(p.len(), 600);
    p.flush_all();
    assert!(p.counters.pages_written >= 300);
}

#[test]
fn a_restart_writes_dirty_pages_and_starts_cold() {
    let s = PoolSettings { checkpoint_every_ops: None, ..PoolSettings::default() };
    let mut p = Pool::new(100, 16384, s, false);
    for i in 0..50 {
        p.access(i, i < 10);
    }
    p.restart();
    assert_eq!((p.len(), p.counters.pages_written, p.counters.pages_read), (0, 10, 50));
    // Every page is read again, once.
    for i in 0..50 {
        assert!(p.access(i, false));
        assert!(!p.access(i, false));
    }
    assert_eq!(p.counters.pages_read, 100);
}

#[test]
fn scan_does_not_flush_hot_pages() {
    let s =
        PoolSettings { checkpoint_every_ops: None, lru_scan_depth: 0, ..PoolSettings::default() };
    let mut p = Pool::new(1000, 16384, s, false);
    // Start evictions, then a hot set read, touched again after the promotion delay.
    for i in 0..2000 {
        p.access(100_000 + i, false);
    }
    for i in 0..300 {
        p.access(i, false);
    }
    for _ in 0..2000 {
        p.tick();
    }
    for i in 0..300 {
        p.access(i, false);
    }
    assert!(p.counters.made_young >= 250, "{:?}", p.counters);
    for round in 0..3u32 {
        // A long scan: every page touched once, in one operation.
        for i in 0..5000u32 {
            p.access(10_000 + round * 5000 + i, false);
        }
        p.tick();
    }
    let hot_cached = (0..300).filter(|&i| p.contains(i)).count();
    assert!(hot_cached > 250, "{hot_cached}");
}

#[test]
fn the_page_cleaner_keeps_scan_depth_pages_free() {
    // The 10.11.0 rules (the 10.11.9 ones: below).
    let s = PoolSettings {
        checkpoint_every_ops: None,
        page_cleaner: PageCleanerRules::Before10_11_7,
        ..PoolSettings::default()
    };
    // 16 MiB of 16k pages: fewer than 1.5 x 1,536, so a batch runs as soon as the LRU
    // passes 256 pages. Clean pages are freed from the tail down to 256.
    let mut p = Pool::new(1024, 16384, s, false);
    for i in 0..5000 {
        p.access(i, false);
        p.tick();
        assert!(p.len() <= LRU_MIN_LEN, "{}", p.len());
    }
    assert_eq!(p.len(), LRU_MIN_LEN);
    assert_eq!(p.counters.pages_written, 0);
    // 32 MiB: a batch runs when fewer than 768 pages are free and frees 1,536, so the LRU
    // saws between 2,048 - 1,536 and 2,048 - 768 pages.
    let mut p = Pool::new(2048, 16384, s, false);
    let mut sizes = Vec::new();
    for i in 0..10_000 {
        p.access(i, false);
        p.tick();
        sizes.push(p.len());
    }
    assert_eq!(sizes[5_000..].iter().max(), Some(&(2048 - 768)));
    assert_eq!(sizes[5_000..].iter().min(), Some(&(2048 - 1536)));
}

#[test]
fn an_lru_batch_writes_dirty_pages_past_256_and_frees_them_when_written() {
    // The 10.11.0 rules (the 10.11.9 ones: below).
    let s = PoolSettings {
        checkpoint_every_ops: None,
        page_cleaner: PageCleanerRules::Before10_11_7,
        ..PoolSettings::default()
    };
    let mut p = Pool::new(1024, 16384, s, false);
    // Every page dirty: written pages stay counted until their writes complete, so the
    // batch writes the whole LRU and frees it; the LRU saws between 1 and 256 pages.
    let mut sizes = Vec::new();
    for i in 0..5000 {
        p.access(i, true);
        p.tick();
        sizes.push(p.len());
    }
    assert_eq!(sizes[1_000..].iter().max(), Some(&LRU_MIN_LEN));
    assert_eq!(sizes[1_000..].iter().min(), Some(&1));
    assert_eq!(p.counters.pages_written + p.len() as u64, 5000);
    // A clean page in a dirty tail: the batch writes the dirty pages behind it, frees it,
    // and stops there (256 left, written pages counted), then frees the written ones.
    let mut p = Pool::new(1024, 16384, s, false);
    for i in 0..256 {
        p.access(i, i != 100);
        p.tick();
    }
    p.access(256, false);
    assert!(!p.contains(100));
    assert_eq!(p.counters.pages_written, 100);
    assert_eq!(p.len(), 256 - 101 + 1);
    // The running operation's pages are buffer-fixed: never freed by its own batch.
    let mut p = Pool::new(1024, 16384, s, false);
    for i in 0..300 {
        p.access(i, true);
    }
    assert!((0..300).all(|i| p.contains(i)));
}

/// A 16 MiB pool (1,024 pages) under `rules`, with no checkpoint, after 257 pages were read
/// and dirtied one operation each: the first LRU batch has run once the LRU passed 256.
fn pool_past_the_first_batch(rules: PageCleanerRules) -> Pool {
    let s =
        PoolSettings { checkpoint_every_ops: None, page_cleaner: rules, ..PoolSettings::default() };
    let mut p = Pool::new(1024, 16384, s, false);
    for i in 0..=256 {
        p.access(i, true);
        p.tick();
    }
    p
}

#[test]
fn since_10_11_9_a_written_page_stays_for_the_next_batch_which_goes_down_to_5_pct() {
    assert_eq!(lru_batch_min_len(1024), 50);
    assert_eq!(lru_batch_min_len(2048), 101);
    assert_eq!(lru_batch_min_len(8192), 256);
    // 16 MiB, every page dirty: the batch that runs when the LRU passes 256 pages writes
    // all of them and frees none; they stay in the LRU, clean.
    let mut p = pool_past_the_first_batch(PageCleanerRules::Since10_11_9);
    assert_eq!(p.counters.pages_written, 256);
    assert_eq!(p.counters.evictions, 0);
    assert_eq!(p.len(), 257);
    // The next batch frees them from the tail until 50 pages are left (the page being read
    // counted in), and leaves the dirty page behind them.
    p.access(257, true);
    assert_eq!(p.len(), 50);
    assert_eq!(p.counters.evictions, 208);
    assert!(!p.contains(207) && p.contains(208) && p.contains(256));
    assert_eq!(p.counters.pages_written, 256);
    // The same load under the 10.11.0 rules: the first batch frees what it writes.
    let p = pool_past_the_first_batch(PageCleanerRules::Before10_11_7);
    assert_eq!((p.counters.pages_written, p.counters.evictions, p.len()), (256, 256, 1));
}

#[test]
fn since_10_11_9_a_page_dirtied_again_after_its_write_is_written_again_not_read() {
    let mut p = pool_past_the_first_batch(PageCleanerRules::Since10_11_9);
    // Page 0 was written by the batch and is still cached: a hit, dirtied again, so the
    // next batch writes it again instead of freeing it (it is not read again).
    assert!(!p.access(0, true));
    p.tick();
    p.access(257, true);
    assert!(p.contains(0));
    assert_eq!(p.counters.pages_written, 257);
    assert_eq!(p.counters.pages_read, 258);
}

#[test]
fn a_page_allocation_changes_the_inode_page_and_the_fsp_header() {
    let s = PoolSettings { checkpoint_every_ops: None, ..PoolSettings::default() };
    let mut p = Pool::new(100, 16384, s, false);
    // CREATE TABLE made both in memory: no read, both dirty.
    p.create_file_space_pages();
    p.file_space_change(0);
    assert_eq!((p.counters.pages_read, p.len()), (0, 2));
    p.restart();
    // After a restart they are read on the next allocation, and changed.
    p.file_space_change(0);
    assert_eq!((p.counters.pages_read, p.len()), (2, 2));
    // A page past the first descriptor period: its descriptor page is read too.
    p.file_space_change(16384);
    assert_eq!((p.counters.pages_read, p.len()), (3, 3));
    // None of them is an index page; an index page's miss is.
    assert_eq!(p.counters.index_pages_read, 0);
    p.access(7, false);
    p.access(SYS_PAGE_BASE + 6, false);
    assert_eq!((p.counters.pages_read, p.counters.index_pages_read), (5, 1));
    let written = p.counters.pages_written;
    p.flush_all();
    assert_eq!(p.counters.pages_written - written, 3);
}

#[test]
fn since_10_11_9_the_pool_keeps_its_page_descriptors_in_its_own_pages() {
    let since = PageCleanerRules::Since10_11_9;
    // Innodb_buffer_pool_pages_total of MariaDB 10.11.19.
    assert_eq!(pool_pages(16 << 20, 16384, since), 1014);
    assert_eq!(pool_pages(32 << 20, 16384, since), 2028);
    assert_eq!(pool_pages(32 << 20, 4096, since), 7884);
    assert_eq!(pool_pages(32 << 20, 16384, PageCleanerRules::Before10_11_7), 2048);
    assert_eq!((flush_area(2028), flush_area(1014), flush_area(100)), (64, 32, 4));
}

/// A 2,048-page pool under 10.11.9 rules, no checkpoint: pages 0..600 read clean, 600..1280
/// read and dirtied, then one more read runs the first LRU batch (the LRU, 1,280 pages, is
/// past `BUF_LRU_OLD_MIN_LEN`).
fn batch_with_neighbours(flush_neighbors: bool) -> Pool {
    let s = PoolSettings {
        checkpoint_every_ops: None,
        page_cleaner: PageCleanerRules::Since10_11_9,
        flush_neighbors,
        ..PoolSettings::default()
    };
    let mut p = Pool::new(2048, 16384, s, false);
    for i in 0..1280 {
        p.access(i, i >= 600);
        p.tick();
    }
    assert_eq!(p.counters.pages_written, 0);
    p.access(5000, false);
    p
}

#[test]
fn since_10_11_9_an_lru_batch_writes_the_dirty_neighbours_and_frees_those_it_reaches() {
    // Without neighbour flushing the batch frees the clean pages and writes every dirty one,
    // which stays: it cannot reach its free target.
    let p = batch_with_neighbours(false);
    assert_eq!(p.counters.evictions, 600);
    assert_eq!(p.counters.pages_written, 680);
    assert_eq!(p.len(), 681);
    // With it, once half the free target is free, a dirty page's run of dirty neighbours in
    // its 64-page area is written with it; the scan frees those it reaches, clean, and stops
    // at the free target (1,536 free: 512 pages with the one being read).
    let p = batch_with_neighbours(true);
    assert_eq!(p.len(), 512);
    assert_eq!(p.counters.evictions, 600 + 169);
    assert!(p.counters.pages_written > 169, "{}", p.counters.pages_written);
}
