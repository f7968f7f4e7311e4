//! One index's pages in a tablespace: the [`IndexPages`] figures and how an INDEX page's
//! header adds to them (level, records, used and garbage bytes; `page_get_data_size`).
//!
//! Not for deciding which pages are allocated or of which type (the scan in `ibd.rs`).

use super::{
    be16, be64, FIL_PAGE_DATA, MAX_LEVEL, PAGE_GARBAGE, PAGE_HEAP_TOP, PAGE_INDEX_ID, PAGE_LEVEL,
    PAGE_NEW_SUPREMUM_END, PAGE_N_HEAP, PAGE_N_RECS, PAGE_OLD_SUPREMUM_END,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// One index's pages in a tablespace.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IndexPages {
    /// `PAGE_INDEX_ID`.
    pub index_id: u64,
    /// The index's name from the file's dictionary (MySQL 8.0+); `null` when the file has none.
    pub name: Option<String>,
    /// Allocated index pages per level, leaf first.
    pub pages_per_level: Vec<u64>,
    /// Levels, leaf included.
    pub height: u32,
    /// Leaf pages.
    pub leaf_pages: u64,
    /// Pages above the leaf level.
    pub nonleaf_pages: u64,
    /// User records on leaf pages.
    pub leaf_records: u64,
    /// Used bytes on leaf pages (`PAGE_HEAP_TOP − supremum end − PAGE_GARBAGE`).
    pub leaf_data_bytes: u64,
    /// Bytes of deleted records still on leaf pages (`PAGE_GARBAGE`).
    pub leaf_garbage_bytes: u64,
    /// Mean over leaf pages of used bytes / page size × 100.
    pub fill_pct: Option<f64>,
    /// Mean user records per leaf page.
    pub records_per_leaf: Option<f64>,
    /// Leaf pages by fill: ten buckets of ten points, the last one `[90, 100]`.
    pub fill_histogram: Vec<u64>,
    /// Sum of per-leaf fill fractions (internal, for the mean).
    #[serde(skip)]
    fill_sum: f64,
}

/// Adds one index page to its index's figures; false when its header is implausible.
pub(super) fn add_index_page(
    page: &[u8],
    page_size: u32,
    by_index: &mut BTreeMap<u64, IndexPages>,
) -> bool {
    let h = FIL_PAGE_DATA;
    let (Some(heap_top), Some(n_heap), Some(garbage), Some(n_recs), Some(level), Some(id)) = (
        be16(page, h + PAGE_HEAP_TOP),
        be16(page, h + PAGE_N_HEAP),
        be16(page, h + PAGE_GARBAGE),
        be16(page, h + PAGE_N_RECS),
        be16(page, h + PAGE_LEVEL),
        be64(page, h + PAGE_INDEX_ID),
    ) else {
        return false;
    };
    let level = usize::from(level);
    // `page_get_data_size`: heap top minus the supremum end minus garbage.
    let supremum_end =
        if n_heap & 0x8000 != 0 { PAGE_NEW_SUPREMUM_END } else { PAGE_OLD_SUPREMUM_END };
    let data = u64::from(heap_top).checked_sub(supremum_end + u64::from(garbage));
    let (Some(data), true) = (data, level <= MAX_LEVEL && u32::from(heap_top) <= page_size) else {
        return false;
    };
    let ix = by_index.entry(id).or_insert_with(|| IndexPages {
        index_id: id,
        fill_histogram: vec![0; 10],
        ..Default::default()
    });
    if ix.pages_per_level.len() <= level {
        ix.pages_per_level.resize(level + 1, 0);
    }
    ix.pages_per_level[level] += 1;
    if level == 0 {
        let fill = data as f64 / f64::from(page_size);
        ix.leaf_pages += 1;
        ix.leaf_records += u64::from(n_recs);
        ix.leaf_data_bytes += data;
        ix.leaf_garbage_bytes += u64::from(garbage);
        ix.fill_sum += fill;
        let bucket = ((fill * 10.0) as usize).min(9);
        ix.fill_histogram[bucket] += 1;
    } else {
        ix.nonleaf_pages += 1;
    }
    true
}

pub(super) fn finish_index(mut ix: IndexPages) -> IndexPages {
    ix.height = ix.pages_per_level.len() as u32;
    if ix.leaf_pages > 0 {
        ix.fill_pct = Some(ix.fill_sum / ix.leaf_pages as f64 * 100.0);
        ix.records_per_leaf = Some(ix.leaf_records as f64 / ix.leaf_pages as f64);
    }
    ix
}
