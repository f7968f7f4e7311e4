//! Extent descriptors (`XDES`): pages per extent, the descriptor array's layout, and which
//! pages a descriptor page marks in use (freed pages keep stale headers, so only these count).
//!
//! Not for the pages' contents (`index_pages`, the scan in `ibd.rs`).

use super::{be32, XDES_ARR_OFFSET, XDES_BITMAP, XDES_FREE, XDES_NOT_INITED, XDES_STATE};

/// Pages per extent (`FSP_EXTENT_SIZE`): 1 MiB extents up to 16 KiB pages, 64 pages above.
pub(crate) fn extent_pages(page_size: u32) -> u64 {
    if page_size <= 16384 {
        (1 << 20) / u64::from(page_size.max(1))
    } else {
        64
    }
}

/// Allocation of the pages one descriptor page covers.
pub(super) struct Descriptors {
    pub(super) first_page: u64,
    /// One flag per page: in use.
    pub(super) used: Vec<bool>,
}

/// Descriptors per descriptor page and bytes per descriptor (`xdes_arr_size`, `XDES_SIZE`).
pub(super) fn xdes_layout(page_size: u32) -> (u64, usize) {
    let ext = extent_pages(page_size);
    (u64::from(page_size) / ext, XDES_BITMAP + (ext as usize * 2).div_ceil(8))
}

/// Reads a descriptor page's XDES array (`xdes_get_bit` with `XDES_FREE_BIT`).
pub(super) fn read_descriptors(page: &[u8], first_page: u64, page_size: u32) -> Descriptors {
    let ext = extent_pages(page_size);
    let (n_entries, entry_size) = xdes_layout(page_size);
    let mut used = vec![false; (n_entries * ext) as usize];
    for e in 0..n_entries as usize {
        let base = XDES_ARR_OFFSET + e * entry_size;
        let Some(state) = be32(page, base + XDES_STATE) else { break };
        if state == XDES_NOT_INITED || state == XDES_FREE {
            continue;
        }
        for p in 0..ext as usize {
            let bit = p * 2;
            let Some(&byte) = page.get(base + XDES_BITMAP + bit / 8) else { break };
            let free = byte >> (bit % 8) & 1 == 1;
            used[e * ext as usize + p] = !free;
        }
    }
    Descriptors { first_page, used }
}
