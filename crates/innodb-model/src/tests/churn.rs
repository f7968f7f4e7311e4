//! Unit tests of deletes, merges, rebuilds, the buffer pool and the change buffer.

use super::{e1_row, e1_table, ulid_like, uuid_like, varchar, Rng};
use crate::*;
use keylab_schema::Value;

fn load(ids: &[Vec<u8>], secondary: bool, s: SimSettings) -> SimTable {
    let mut sim = SimTable::new(&e1_table(varchar(36), secondary), s).unwrap();
    for id in ids {
        sim.insert(&e1_row(id, secondary)).unwrap();
    }
    sim
}

#[test]
fn deleting_everything_merges_discards_and_shrinks_the_tree() {
    let mut rng = Rng(5);
    let ids: Vec<Vec<u8>> = (0..20_000).map(|_| uuid_like(&mut rng)).collect();
    let mut sim = load(&ids, false, SimSettings::default());
    let before = sim.stats();
    assert_eq!(before.indexes[0].height, 2);
    let mut order = ids.clone();
    // A seeded shuffle.
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    for (n, id) in order.iter().enumerate() {
        assert!(sim.delete(&[Value::Bytes(id.clone())]).unwrap());
        if n % 997 == 0 {
            sim.check().unwrap();
        }
        if n == ids.len() / 2 {
            // Freed pages of extents stay reserved by the leaf segment (docs/model-rules.md §7).
            let half = sim.stats();
            // (Its up to 32 fragment pages go back to the space when freed.)
            let (h, b) = (half.indexes[0].size_pages, before.indexes[0].size_pages);
            assert!(h + 32 >= b && h <= b, "{h} {b}");
            assert!(half.indexes[0].leaf_pages < before.indexes[0].leaf_pages);
        }
    }
    assert!(!sim.delete(&[Value::Bytes(order[0].clone())]).unwrap());
    sim.check().unwrap();
    let s = sim.stats();
    let c = s.counters;
    eprintln!("{c:?}");
    assert!(c.merge_attempts > c.merges && c.merges > 0, "{c:?}");
    assert_eq!(s.indexes[0].height, 1);
    assert_eq!(s.indexes[0].records, 0);
    // Empty extents went back to the space: an empty table's size.
    assert_eq!(s.indexes[0].size_pages, 1);
}

#[test]
fn pages_whose_siblings_are_full_are_discarded() {
    // About 2 KB records, 7 to a page when loaded in order: a page losing records cannot merge
    // into its full neighbours and is finally discarded with its last record.
    let t = super::prop::table(PageSize::K16);
    let mut sim = SimTable::new(&t, SimSettings::default()).unwrap();
    let row = |k: u32| {
        vec![
            Value::Bytes(format!("{k:07}").into_bytes()),
            Value::Int(1),
            Value::Bytes(vec![b'p'; 2000]),
        ]
    };
    for k in 0..700 {
        sim.insert(&row(k)).unwrap();
    }
    let c0 = sim.counters();
    let pages = sim.leaf_page_keys(0);
    let middle = &pages[pages.len() / 2];
    assert_eq!(middle.len(), 7);
    for k in middle {
        let id = k[..7].to_vec();
        assert!(sim.delete(&[Value::Bytes(id)]).unwrap());
    }
    sim.check().unwrap();
    let c = sim.counters();
    assert_eq!(c.page_discards, c0.page_discards + 1, "{c:?}");
    assert_eq!(c.merges, c0.merges, "{c:?}");
    assert!(c.merge_attempts > c0.merge_attempts, "{c:?}");
    assert!(sim.set_merge_threshold("PRIMARY", 51).is_err());
    assert!(sim.set_merge_threshold("nope", 10).is_err());
}

#[test]
fn merge_attempt_starts_under_the_threshold() {
    // 51-byte records (26-char ids): a leaf of 161 records holds 8211 bytes; one delete
    // leaves 8160 < 8192 and makes the first merge attempt (docs/model-rules.md §4).
    let mut rng = Rng(3);
    let ids = ulid_like(600, &mut rng);
    let mut sim = SimTable::new(&e1_table(varchar(26), false), SimSettings::default()).unwrap();
    for id in &ids {
        sim.insert(&e1_row(id, false)).unwrap();
    }
    // Leaves: 147 (first, split at the middle of the root's 295), 295, then the rest.
    let leaf_sizes: Vec<usize> = {
        let keys = sim.leaf_keys(0);
        assert_eq!(keys.len(), 600);
        vec![]
    };
    let _ = leaf_sizes;
    let c0 = sim.counters();
    // Delete from the second leaf (295 records, 15045 bytes) down to 161 records: no attempt.
    let second: Vec<&Vec<u8>> = ids[147..442].iter().collect();
    for id in &second[..134] {
        sim.delete(&[Value::Bytes((*id).clone())]).unwrap();
    }
    assert_eq!(sim.counters().merge_attempts, c0.merge_attempts);
    sim.delete(&[Value::Bytes(second[134].clone())]).unwrap();
    assert_eq!(sim.counters().merge_attempts, c0.merge_attempts + 1);
    sim.check().unwrap();
}

#[test]
fn rebuild_fills_pages_to_the_fill_factor() {
    let mut rng = Rng(11);
    let ids: Vec<Vec<u8>> = (0..50_000).map(|_| uuid_like(&mut rng)).collect();
    let mut sim = load(&ids, true, SimSettings::default());
    let random = sim.stats();
    sim.rebuild(100).unwrap();
    sim.check().unwrap();
    let s100 = sim.stats();
    // PRIMARY (61-byte records... here 36-char ids with a BIGINT pk: 59-byte records at most)
    // is filled to 15/16; the secondary index packed full.
    assert!(s100.indexes[0].fill_pct > 85.0 && s100.indexes[0].fill_pct < 94.0, "{s100:?}");
    assert!(s100.indexes[1].fill_pct > 96.0, "{s100:?}");
    assert!(s100.indexes[1].pages_per_level[0] < random.indexes[1].pages_per_level[0]);
    sim.rebuild(75).unwrap();
    sim.check().unwrap();
    let s75 = sim.stats();
    assert!(s75.indexes[0].fill_pct > 70.0 && s75.indexes[0].fill_pct < 76.0, "{s75:?}");
    assert!(s75.indexes[0].pages_per_level[0] > s100.indexes[0].pages_per_level[0]);
    assert_eq!(s75.indexes[0].records, 50_000);
    // Churn after the rebuild still keeps every invariant.
    for id in ids.iter().take(5000) {
        sim.delete(&[Value::Bytes(id.clone())]).unwrap();
    }
    sim.check().unwrap();
}

#[test]
fn sequential_rebuild_matches_sequential_inserts_at_100() {
    // docs/model-rules.md §5: a bulk page holds the same records as the 15/16 rule of sequential inserts.
    let mut rng = Rng(1);
    let ids = ulid_like(100_000, &mut rng);
    let mut sim = SimTable::new(&e1_table(varchar(26), false), SimSettings::default()).unwrap();
    for id in &ids {
        sim.insert(&e1_row(id, false)).unwrap();
    }
    sim.rebuild(100).unwrap();
    sim.check().unwrap();
    let p = &sim.stats().indexes[0];
    // 338 pages of 295 records and one of 290.
    assert_eq!(p.pages_per_level[0], 339, "{p:?}");
}

#[test]
fn pool_misses_grow_when_data_outgrows_the_pool() {
    let mut rng = Rng(21);
    let ids: Vec<Vec<u8>> = (0..60_000).map(|_| uuid_like(&mut rng)).collect();
    let small = SimSettings { buffer_pool_bytes: Some(64 * 16384), ..SimSettings::default() };
    let big = SimSettings { buffer_pool_bytes: Some(100_000 * 16384), ..SimSettings::default() };
    let s_small = load(&ids, true, small).stats();
    let s_big = load(&ids, true, big).stats();
    let (ps, pb) = (s_small.pool.unwrap(), s_big.pool.unwrap());
    eprintln!("{ps:?}\n{pb:?}");
    assert_eq!(pb.counters.pages_read, 0);
    assert!(ps.counters.pages_read > 20_000, "{ps:?}");
    assert!(ps.hit_ratio < pb.hit_ratio);
    assert!(ps.est_io_s_hdd > ps.est_io_s_ssd);
    // The same tree either way: the pool changes no page.
    assert_eq!(s_small.indexes, s_big.indexes);
}

#[test]
fn page_allocations_go_through_the_file_space_pages() {
    let mut rng = Rng(5);
    let ids: Vec<Vec<u8>> = (0..20_000).map(|_| uuid_like(&mut rng)).collect();
    let n = |pages: u32| SimSettings {
        buffer_pool_bytes: Some(pages as u64 * 16384),
        ..SimSettings::default()
    };
    // A pool that holds everything: the FSP header and inode page were made by CREATE TABLE
    // and stay, never read.
    let big = load(&ids, false, n(100_000));
    let pool = big.space.pool.as_ref().unwrap();
    assert!(pool.contains(0) && pool.contains(2));
    assert_eq!(pool.counters.pages_read, 0);
    // After a restart they are out of the pool (no index page has their numbers) until the
    // next split allocates a page: then both are read and changed.
    let mut sim = big;
    sim.restart();
    let leaves = sim.stats().indexes[0].leaf_pages;
    let mut more = ids[..2_000].to_vec();
    for id in &mut more {
        id[0] ^= 0x55;
    }
    for id in &more {
        sim.insert(&e1_row(id, false)).unwrap();
        let pool = sim.space.pool.as_ref().unwrap();
        if sim.stats().indexes[0].leaf_pages == leaves {
            assert!(!pool.contains(0) && !pool.contains(2));
        } else {
            assert!(pool.contains(0) && pool.contains(2));
            return;
        }
    }
    panic!("2,000 inserts split no leaf");
}

#[test]
fn change_buffer_saves_reads_on_a_random_secondary_index() {
    let mut rng = Rng(8);
    let ids: Vec<Vec<u8>> = (0..60_000).map(|_| uuid_like(&mut rng)).collect();
    let s = |cb| SimSettings {
        buffer_pool_bytes: Some(96 * 16384),
        change_buffering: Some(cb),
        ..SimSettings::default()
    };
    let off = load(&ids, true, s(false)).stats().pool.unwrap();
    let on = load(&ids, true, s(true)).stats().pool.unwrap();
    eprintln!("off {off:?}\non  {on:?}");
    assert!(on.counters.ibuf_buffered > 0);
    assert!(on.counters.pages_read < off.counters.pages_read);
    // The default follows the flavour.
    assert!(!SimSettings::default().change_buffering_on());
    let my = SimSettings { flavour: Flavour::Mysql80, ..SimSettings::default() };
    assert!(my.change_buffering_on());
}

/// Pages an index frees stay counted as freed (what MySQL's pool keeps under the index's id)
/// until an allocation takes them again or a restart empties the pool.
#[test]
fn freed_pages_are_counted_until_reused_or_a_restart() {
    let mut rng = Rng(11);
    let ids: Vec<Vec<u8>> = (0..8_000).map(|_| uuid_like(&mut rng)).collect();
    let mut sim = load(&ids, false, SimSettings::default());
    assert_eq!(sim.freed_pages_unreused(0), 0);
    let leaves = sim.stats().indexes[0].pages_per_level[0];
    for id in &ids[..6_000] {
        assert!(sim.delete(&[Value::Bytes(id.clone())]).unwrap());
    }
    let freed = sim.freed_pages_unreused(0);
    let left = sim.stats().indexes[0].pages_per_level[0];
    // Every leaf gone from the tree is a freed page (the root level keeps its page).
    assert_eq!(freed, leaves - left, "{freed} freed, {leaves} -> {left} leaves");
    // New rows split pages, which take freed pages of the segment first.
    let more: Vec<Vec<u8>> = (0..6_000).map(|_| uuid_like(&mut rng)).collect();
    for id in &more {
        sim.insert(&e1_row(id, false)).unwrap();
    }
    assert!(sim.freed_pages_unreused(0) < freed, "{}", sim.freed_pages_unreused(0));
    sim.restart();
    assert_eq!(sim.freed_pages_unreused(0), 0);
}
