//! Deduplication of non-unique nbtree leaves into posting lists (PostgreSQL 15's
//! `deduplicate_items = on`, the default), in our own words: the pass a full leaf gets before
//! it splits (`_bt_dedup_pass`, nbtdedup.c), the posting list split an insert inside a
//! posting list's TID range causes (`_bt_swap_posting`), and the grouping of sorted builds
//! (`_bt_load`'s `_bt_sort_dedup_finish_pending`, nbtsort.c).
//!
//! How the model stores a posting list: every heap TID stays its own sort key on the page
//! (so searches, VACUUM and the BTreeMap comparison see entries), and the tuple boundaries are
//! in the page's item sizes (`Page::size`): the first entry of a tuple carries the whole
//! tuple's bytes, the other entries of a posting list carry 0 (no tuple, no line pointer of
//! their own).
//!
//! Not modelled: unique indexes' deduplication of version duplicates and bottom-up deletion
//! (`_bt_bottomupdel_pass`; keylab's unique keys have no live duplicates), LP_DEAD items.

use crate::geometry::PIVOT_TID_BYTES;
use crate::geometry::{maxalign, KeyLayout, BT_USABLE_BYTES, LINE_POINTER_BYTES, PAGE_BYTES};
use crate::page::{Page, NONE};
use crate::split::SINGLEVAL_FILLFACTOR;

/// `sizeof(ItemPointerData)`: one heap TID in a posting list.
pub const HEAP_TID_BYTES: u32 = 6;
/// `BTMaxItemSize` of an 8 KiB page: a third of the page after the header, three line
/// pointers and the special space, MAXALIGNed down.
pub const BT_MAX_ITEM_BYTES: u32 =
    ((PAGE_BYTES - maxalign_const(24 + 3 * LINE_POINTER_BYTES) - 16) / 3) & !7;
/// `_bt_dedup_pass`'s cap on a posting list tuple: half of `BTMaxItemSize` (a sixth of a page).
pub const MAX_POSTING_BYTES: u32 = BT_MAX_ITEM_BYTES / 2;
/// `_bt_load`'s cap in sorted builds: a tenth of the page, MAXALIGNed down, less a line pointer.
pub const BUILD_MAX_POSTING_BYTES: u32 = ((PAGE_BYTES * 10 / 100) & !7) - LINE_POINTER_BYTES;

const fn maxalign_const(n: u32) -> u32 {
    (n + 7) & !7
}

/// `_bt_form_posting`: bytes of a tuple holding `tids` heap TIDs whose plain (one-TID)
/// tuple is `plain` bytes; the posting list starts MAXALIGNed, 6 bytes a TID.
pub fn posting_bytes(plain: u32, tids: usize) -> u32 {
    if tids > 1 {
        maxalign(plain + HEAP_TID_BYTES * tids as u32)
    } else {
        plain
    }
}

/// The tuples of a leaf as `[start, end)` entry ranges (a plain tuple is one entry), from
/// the entries' sizes in key order.
pub fn tuple_ranges(sizes: impl IntoIterator<Item = u16>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, z) in sizes.into_iter().enumerate() {
        if z > 0 || i == 0 {
            out.push((i, i + 1));
        } else if let Some(last) = out.last_mut() {
            last.1 = i + 1;
        }
    }
    out
}

/// Bytes the page's tuples and line pointers take, the high key included.
pub fn used_bytes(page: &Page) -> u32 {
    page.item_bytes() + page.high.as_ref().map_or(0, |h| u32::from(h.1) + LINE_POINTER_BYTES)
}

/// One posting list being gathered (`BTDedupState`'s pending list).
struct Pending {
    start: usize,
    end: usize,
    tuples: usize,
    plain: u32,
}

/// `_bt_dedup_pass` on a full non-unique leaf before `new_key` goes in: equal neighbours
/// merge into posting lists of at most [`MAX_POSTING_BYTES`]; when the page and the new
/// item are all one value ("single value" strategy) the sixth capped posting list is made
/// smaller and what follows is left alone for the coming split. True when the page changed.
pub fn dedup_pass(page: &mut Page, layout: &KeyLayout, new_key: &[u8]) -> bool {
    if page.level > 0 || page.is_empty() {
        return false;
    }
    let s = layout.stride();
    let n = page.len();
    let value = |i: usize| layout.value(page.key(s, i));
    let new_value = layout.value(new_key);
    // `_bt_do_singleval`: the first and last items equal the new one.
    let mut single_value = value(0) == new_value && value(n - 1) == new_value;
    let new_item_bytes = layout.leaf_bytes(new_key) + LINE_POINTER_BYTES;
    let mut max_posting = MAX_POSTING_BYTES;
    let mut deduplicate = true;
    let mut capped = 0usize;
    let mut merges: Vec<(usize, usize, u16)> = Vec::new();
    let ranges = tuple_ranges((0..page.len()).map(|i| page.size(i)));
    let mut pending: Option<Pending> = None;
    for &(start, end) in &ranges {
        if let Some(p) = pending.as_mut() {
            if deduplicate && value(p.start) == value(start) {
                let tids = (p.end - p.start) + (end - start);
                if maxalign(p.plain + HEAP_TID_BYTES * tids as u32) <= max_posting {
                    p.end = end;
                    p.tuples += 1;
                    continue;
                }
                // Counted as a capped posting list once it holds more than 50 TIDs.
                if p.end - p.start > 50 {
                    capped += 1;
                }
            }
            finish(p, &mut merges);
            if single_value {
                if capped == 5 {
                    // `_bt_singleval_fillfactor`: leave the split's left half 96 % full.
                    let left_free = BT_USABLE_BYTES - new_item_bytes - PIVOT_TID_BYTES;
                    let reduction = (f64::from(left_free) * f64::from(100 - SINGLEVAL_FILLFACTOR)
                        / 100.0) as u32;
                    max_posting = max_posting.saturating_sub(reduction);
                } else if capped == 6 {
                    deduplicate = false;
                    single_value = false;
                }
            }
        }
        let plain = layout.leaf_bytes(page.key(s, start));
        pending = Some(Pending { start, end, tuples: 1, plain });
    }
    if let Some(p) = pending.as_ref() {
        finish(p, &mut merges);
    }
    if merges.is_empty() {
        return false;
    }
    for (start, end, size) in merges {
        page.set_size(start, size);
        (start + 1..end).for_each(|i| page.set_size(i, 0));
    }
    true
}

/// `_bt_dedup_finish_pending`: a pending list of several tuples becomes one posting list.
fn finish(p: &Pending, merges: &mut Vec<(usize, usize, u16)>) {
    if p.tuples > 1 {
        merges.push((p.start, p.end, posting_bytes(p.plain, p.end - p.start) as u16));
    }
}

/// `_bt_swap_posting`: a new entry whose heap TID falls inside a posting list's TID range
/// (`pos` is inside the list) takes its place in the list, and the list's highest TID comes
/// out as a plain tuple to insert instead, just right of the list. Returns that tuple's sort
/// key and position, or `None` when `pos` is not inside a posting list.
pub fn posting_split(
    page: &mut Page,
    layout: &KeyLayout,
    pos: usize,
    key: &[u8],
) -> Option<(Vec<u8>, usize)> {
    if page.level > 0 || pos == 0 || pos >= page.len() || page.size(pos) != 0 {
        return None;
    }
    let s = layout.stride();
    let end = (pos..page.len()).find(|&i| page.size(i) > 0).unwrap_or(page.len());
    // The list's last entry comes out and the new one goes in at `pos` (the entries between
    // move one right); the list keeps its TID count and bytes.
    let (last, _, _) = page.remove_item(s, end - 1);
    page.insert_item(s, pos, key, 0, NONE);
    Some((last, end))
}

/// `_bt_load` with deduplication: sorted entries of a non-unique index grouped into the
/// tuples a sorted build writes, as (entries, tuple bytes); equal neighbours merge while
/// the posting list stays within [`BUILD_MAX_POSTING_BYTES`].
pub fn build_groups(layout: &KeyLayout, keys: &[&[u8]]) -> Vec<(usize, usize, u16)> {
    let mut out: Vec<(usize, usize, u16)> = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        let plain = layout.leaf_bytes(keys[i]);
        let v = layout.value(keys[i]);
        let mut j = i + 1;
        while j < keys.len()
            && layout.value(keys[j]) == v
            && maxalign(plain + HEAP_TID_BYTES * (j + 1 - i) as u32) <= BUILD_MAX_POSTING_BYTES
        {
            j += 1;
        }
        out.push((i, j, posting_bytes(plain, j - i) as u16));
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_follow_the_servers_macros() {
        assert_eq!(BT_MAX_ITEM_BYTES, 2712);
        assert_eq!(MAX_POSTING_BYTES, 1356);
        assert_eq!(BUILD_MAX_POSTING_BYTES, 812);
        // An int8 tuple is 16 bytes; 3 TIDs: MAXALIGN(16 + 18) = 40.
        assert_eq!(posting_bytes(16, 3), 40);
        assert_eq!(posting_bytes(16, 1), 16);
    }

    fn page_of(layout: &KeyLayout, tids: &[u64], value: i64) -> Page {
        let mut p = Page::new(0, NONE, NONE, 0);
        let mut k = Vec::new();
        for &t in tids {
            layout.encode(&keylab_schema::Value::Int(value), t, &mut k).unwrap();
            p.push_item(layout.stride(), &k, layout.leaf_bytes(&k) as u16, NONE);
        }
        p
    }

    #[test]
    fn a_dedup_pass_merges_equal_neighbours_up_to_the_cap() {
        let layout = KeyLayout::new(crate::geometry::KeyType::BigInt);
        let tids: Vec<u64> = (1..=400).collect();
        let mut page = page_of(&layout, &tids, 5);
        let mut new_key = Vec::new();
        layout.encode(&keylab_schema::Value::Int(6), 9999, &mut new_key).unwrap();
        assert!(dedup_pass(&mut page, &layout, &new_key));
        let ranges = tuple_ranges((0..page.len()).map(|i| page.size(i)));
        // MAXALIGN(16 + 6n) <= 1356: 16 + 6n <= 1352, n <= 222.
        assert_eq!(ranges[0], (0, 222));
        assert_eq!(page.size(0) as u32, posting_bytes(16, 222));
        assert_eq!(ranges.len(), 2);
        assert_eq!(page.used, used_bytes(&page));
    }

    #[test]
    fn a_tid_inside_a_posting_list_swaps_out_the_highest() {
        let layout = KeyLayout::new(crate::geometry::KeyType::BigInt);
        let mut page = page_of(&layout, &[10, 20, 30], 5);
        page.set_size(0, posting_bytes(16, 3) as u16);
        page.set_size(1, 0);
        page.set_size(2, 0);
        let mut k = Vec::new();
        layout.encode(&keylab_schema::Value::Int(5), 15, &mut k).unwrap();
        let (out, at) = posting_split(&mut page, &layout, 1, &k).expect("inside the list");
        assert_eq!((layout.tid(&out), at), (30, 3));
        let tids: Vec<u64> = page.keys_in_order(layout.stride()).map(|c| layout.tid(c)).collect();
        assert_eq!(tids, vec![10, 15, 20]);
        assert!(posting_split(&mut page, &layout, 0, &k).is_none(), "before the list");
    }

    #[test]
    fn tuple_ranges_group_posting_members() {
        assert_eq!(tuple_ranges([16, 40, 0, 0, 16]), vec![(0, 1), (1, 4), (4, 5)]);
    }
}
