//! [`SimTable::stats`]: the figures of [`TableStats`] read from the pages, as ANALYZE TABLE,
//! `TABLES` and `INFORMATION_SCHEMA.INNODB_BUFFER_PAGE` would give them (the types and what
//! each figure means are in `stats.rs`).
//!
//! Pure reads of the trees; nothing here changes state.

use crate::space::Space;
use crate::stats::{IndexStats, PoolStats};
use crate::tree::Tree;
use crate::{Device, SimSettings, SimTable, TableStats};

impl SimTable {
    /// Statistics as after ANALYZE TABLE (`mysql.innodb_index_stats`, `TABLES`), the
    /// counters, and page-level figures per index.
    pub fn stats(&self) -> TableStats {
        table_stats(&self.space, &self.trees, &self.settings)
    }

    /// B-tree pages freed from index `ix` (0 = PRIMARY) since the last restart and not
    /// allocated again: what a buffer pool that keeps freed pages and evicts none (MySQL's)
    /// still holds under the index's id besides its live pages (`Space::freed_unreused`).
    pub fn freed_pages_unreused(&self, ix: usize) -> u64 {
        let t = &self.trees[ix];
        self.space.freed_unreused_of([t.seg_leaf, t.seg_top])
    }
}

fn index_stats(sp: &Space, t: &Tree) -> IndexStats {
    let p_bytes = sp.geo.page_bytes as f64;
    let lefts = t.leftmost_pages(sp);
    let height = lefts.len() as u32;
    let mut pages_per_level = vec![0u64; lefts.len()];
    let (mut leaf_fill_sum, mut all_fill_sum, mut data_size) = (0.0, 0.0, 0u64);
    let mut hist = [0u64; 10];
    for &l in &lefts {
        for p in Tree::level_pages(sp, l) {
            let page = sp.page(p);
            let fill = page.data_bytes as f64 / p_bytes * 100.0;
            pages_per_level[page.level as usize] += 1;
            data_size += page.data_bytes as u64;
            all_fill_sum += fill;
            if page.level == 0 {
                leaf_fill_sum += fill;
                hist[((fill / 10.0) as usize).min(9)] += 1;
            }
        }
    }
    let (leaf_r, _) = sp.fsp.seg_pages(t.seg_leaf);
    let (top_r, _) = sp.fsp.seg_pages(t.seg_top);
    let (_, leaf_used) = sp.fsp.seg_pages(t.seg_leaf);
    let btree_leaves = pages_per_level[0];
    let all_pages: u64 = pages_per_level.iter().sum();
    IndexStats {
        name: t.layout.name.clone(),
        size_pages: leaf_r + top_r,
        leaf_pages: leaf_used.max(1),
        nonleaf_pages: all_pages - btree_leaves,
        pages_per_level,
        height,
        records: t.records,
        fill_pct: leaf_fill_sum / btree_leaves as f64,
        records_per_leaf: t.records as f64 / btree_leaves as f64,
        fill_histogram: hist,
        data_size_bytes: data_size,
        fill_pct_all_pages: all_fill_sum / all_pages as f64,
        blob_pages: t.blob_pages,
    }
}

fn table_stats(sp: &Space, trees: &[Tree], _settings: &SimSettings) -> TableStats {
    let indexes: Vec<IndexStats> = trees.iter().map(|t| index_stats(sp, t)).collect();
    let p = sp.geo.page_bytes as u64;
    let pool = sp.pool.as_ref().map(|pool| {
        let c = pool.counters;
        PoolStats {
            capacity_pages: pool.capacity() as u64,
            counters: c,
            hit_ratio: c.hit_ratio(),
            misses_per_op: if c.ops == 0 { 0.0 } else { c.pages_read as f64 / c.ops as f64 },
            ibuf_pending_pages: pool.ibuf.pending_pages() as u64,
            ibuf_pool_pages: pool.ibuf.pool_pages(pool.capacity()) as u64,
            est_io_s_hdd: Device::Hdd.est_io_s(c.pages_read, c.pages_written, sp.geo.page_bytes),
            est_io_s_ssd: Device::Ssd.est_io_s(c.pages_read, c.pages_written, sp.geo.page_bytes),
        }
    });
    TableStats {
        // The change buffer tree's splits and merges count with the table's, as the
        // server's index counters count every index.
        counters: match &sp.pool {
            Some(pool) => super::ops::plus(sp.counters, pool.ibuf.tree_counters()),
            None => sp.counters,
        },
        data_length_bytes: indexes[0].size_pages * p,
        index_length_bytes: indexes[1..].iter().map(|i| i.size_pages).sum::<u64>() * p,
        data_free_bytes: sp.fsp.available_free_extent_bytes(),
        pool,
        indexes,
    }
}
