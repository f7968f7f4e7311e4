//! Where a full nbtree page splits: PostgreSQL 15's `_bt_findsplitloc` (nbtsplitloc.c),
//! described in our own words. Every gap between the items of the page with the new item
//! in place is a candidate; each is costed in free space left on both halves, sorted by how
//! far it is from the wanted balance, and the best few are judged by how well the left
//! half's new high key can be suffix-truncated. It does not move items; the tree does.

use crate::geometry::{
    maxalign, KeyLayout, BT_USABLE_BYTES, INDEX_TUPLE_HEADER_BYTES, LINE_POINTER_BYTES,
    PIVOT_TID_BYTES,
};

/// `BTREE_NONLEAF_FILLFACTOR`: internal pages that are rightmost split to 70 % left.
pub const NONLEAF_FILLFACTOR: u8 = 70;
/// `BTREE_SINGLEVAL_FILLFACTOR`: a page of one value splits to 96 % left.
pub const SINGLEVAL_FILLFACTOR: u8 = 96;
/// `LEAF_SPLIT_DISTANCE`: the split interval's tolerance on leaves, a share of the old items' bytes.
const LEAF_SPLIT_DISTANCE: f64 = 0.050;
/// `INTERNAL_SPLIT_DISTANCE`: the same on internal pages.
const INTERNAL_SPLIT_DISTANCE: f64 = 0.075;

/// The page being split, with the new item counted in place. Items are tuples: a posting
/// list is one item.
pub struct SplitInput<'a> {
    /// The index's key layout (what `_bt_keep_natts_fast` compares column by column).
    pub layout: KeyLayout,
    /// Value part (with length bytes) of each item of the merged page, in key order.
    pub values: Vec<&'a [u8]>,
    /// Bytes of each merged item, tuple plus line pointer.
    pub sizes: Vec<u32>,
    /// Bytes of each item's posting list (0 for a plain tuple), which suffix truncation
    /// drops when the item becomes a high key (empty on internal pages).
    pub posting_list_bytes: Vec<u32>,
    /// Position of the new item in the merged page.
    pub new_pos: usize,
    /// A leaf page.
    pub leaf: bool,
    /// No right sibling on its level.
    pub rightmost: bool,
    /// Tuple bytes of the page's high key (none on the rightmost page).
    pub high_key_bytes: Option<u32>,
    /// Value part of the high key, for the single-value test.
    pub high_key_value: Option<&'a [u8]>,
    /// The index's leaf fillfactor (`fillfactor` reloption, default 90).
    pub leaf_fillfactor: u8,
    /// Heap TID of the new item (leaves).
    pub new_tid: u64,
    /// Heap TID of the plain tuple just left of the new item (`None` when it is a posting
    /// list, whose `t_tid` holds no heap TID, or when there is none).
    pub prev_tid: Option<u64>,
}

/// One candidate: the first `left` merged items go to the left page.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    left: usize,
    left_free: i32,
    right_free: i32,
    delta: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    Default,
    ManyDuplicates,
    SingleValue,
}

/// `_bt_adjacenthtid`: the higher heap TID was very likely inserted just after the lower
/// one (same heap block, or the first line pointer of the next block).
fn adjacent_tids(low: u64, high: u64) -> bool {
    let (lb, hb) = (low >> 16, high >> 16);
    lb == hb || (lb + 1 == hb && high & 0xFFFF == 1)
}

/// What `_bt_afternewitemoff` decides for a non-rightmost leaf.
enum AfterNewItem {
    /// Not a localized ascending insert: a 50:50 split.
    No,
    /// Apply the leaf fillfactor as on a rightmost page.
    FillFactor,
    /// Split just after the new item.
    JustAfter,
}

/// `_bt_afternewitemoff`: on a composite index whose page holds equisized small tuples,
/// a new item that shares its leading column with the item on its left (and, unless it is
/// last, follows it in the heap) suggests ascending inserts within a group, so the split
/// goes just after it (or at the leaf fillfactor when that is further left).
fn after_new_item(inp: &SplitInput<'_>, min_first_right: u32) -> AfterNewItem {
    let nkeyatts = inp.layout.ncols;
    let new_size = inp.sizes[inp.new_pos];
    let old_n = inp.sizes.len() - 1;
    let old_total: u32 = inp.sizes.iter().sum::<u32>() - new_size;
    if nkeyatts == 1 || inp.new_pos == 0 {
        return AfterNewItem::No;
    }
    if new_size != min_first_right || new_size * old_n as u32 != old_total {
        return AfterNewItem::No;
    }
    // No wider than two int8 columns.
    if new_size > maxalign(INDEX_TUPLE_HEADER_BYTES + 16) + LINE_POINTER_BYTES {
        return AfterNewItem::No;
    }
    let new_value = inp.values[inp.new_pos];
    let prev = inp.values[inp.new_pos - 1];
    let shares_prefix = |k: usize| k > 1 && k <= nkeyatts;
    if inp.new_pos == old_n {
        // Right of every item: ascending in itself, no heap adjacency test.
        return if shares_prefix(inp.layout.keep_natts(prev, new_value)) {
            AfterNewItem::FillFactor
        } else {
            AfterNewItem::No
        };
    }
    if !inp.prev_tid.is_some_and(|t| adjacent_tids(t, inp.new_tid)) {
        return AfterNewItem::No;
    }
    if !shares_prefix(inp.layout.keep_natts(prev, new_value)) {
        return AfterNewItem::No;
    }
    // Offsets as the server numbers them: the high key is 1, data from 2.
    let interp = (inp.new_pos + 2) as f64 / (old_n + 2) as f64;
    if interp > f64::from(inp.leaf_fillfactor) / 100.0 {
        AfterNewItem::FillFactor
    } else {
        AfterNewItem::JustAfter
    }
}

/// The chosen split: how many merged items go to the left page.
pub fn find_split(inp: &SplitInput<'_>) -> usize {
    let n = inp.sizes.len();
    let usable = BT_USABLE_BYTES as i32;
    let left_space = usable;
    // The right page inherits the old high key.
    let right_space = usable - inp.high_key_bytes.map_or(0, |b| (b + LINE_POINTER_BYTES) as i32);
    let total: i32 = inp.sizes.iter().map(|&s| s as i32).sum();
    let mut cands = Vec::with_capacity(n);
    let mut to_left = 0i32;
    let mut min_first_right = i32::MAX;
    // Candidates in page order, as `_bt_recsplitloc` records them; the one that would put
    // every item (new included) on the left does not exist.
    for left in 0..n {
        let first_right = inp.sizes[left] as i32;
        let mut left_free = left_space - to_left;
        let mut right_free = right_space - (total - to_left);
        // The left page's new high key is charged as the first right tuple, plus a heap
        // TID on leaves (the worst case of suffix truncation), less the posting list of a
        // first right tuple over 64 bytes (`_bt_recsplitloc`; never the new item's).
        left_free -= first_right;
        if inp.leaf {
            let posting = inp.posting_list_bytes.get(left).copied().unwrap_or(0);
            let drop = if left != inp.new_pos && first_right > 64 { posting as i32 } else { 0 };
            left_free -= PIVOT_TID_BYTES as i32 - drop;
        }
        if !inp.leaf {
            // The first item of an internal right page keeps only its header.
            right_free += first_right - (INDEX_TUPLE_HEADER_BYTES + LINE_POINTER_BYTES) as i32;
        }
        if left_free >= 0 && right_free >= 0 {
            min_first_right = min_first_right.min(first_right);
            cands.push(Candidate { left, left_free, right_free, delta: 0 });
        }
        to_left += first_right;
    }
    assert!(!cands.is_empty(), "a page with at least two items always has a legal split");

    let nkeyatts = inp.layout.ncols;
    let keep_natts = |a: &[u8], b: &[u8]| inp.layout.keep_natts(a, b) as i32;
    let (mut mult, mut use_mult) = if !inp.leaf {
        (f64::from(NONLEAF_FILLFACTOR) / 100.0, inp.rightmost)
    } else if inp.rightmost {
        (f64::from(inp.leaf_fillfactor) / 100.0, true)
    } else {
        match after_new_item(inp, min_first_right as u32) {
            AfterNewItem::No => (0.5, false),
            AfterNewItem::FillFactor => (f64::from(inp.leaf_fillfactor) / 100.0, true),
            AfterNewItem::JustAfter => {
                // The legal split that leaves the new item last on the left.
                if cands.iter().any(|c| c.left == inp.new_pos + 1) {
                    return inp.new_pos + 1;
                }
                (0.5, false)
            }
        }
    };
    let (page_first, page_last) = (cands[0], cands[cands.len() - 1]);
    sort_by_delta(&mut cands, mult, use_mult);
    let old_total = total - inp.sizes[inp.new_pos] as i32;
    let mut interval = default_interval(&cands, old_total, inp.leaf);

    let last_left = |c: &Candidate| inp.values[c.left - 1];
    let first_right = |c: &Candidate| inp.values[c.left];
    let (strategy, perfect) = if !inp.leaf {
        (Strategy::Default, min_first_right)
    } else {
        // `_bt_strategy`: can the initial interval avoid a heap TID in the high key?
        let (lo, hi) = interval_edges(&cands[..interval.min(cands.len())]);
        let n = nkeyatts as i32;
        let p = keep_natts(last_left(&lo), first_right(&hi));
        if p <= n {
            (Strategy::Default, p)
        } else if keep_natts(last_left(&page_first), first_right(&page_last)) <= n {
            // Either side of the group of duplicates around the delta-best split.
            (Strategy::ManyDuplicates, n)
        } else if inp.rightmost {
            (Strategy::SingleValue, n + 1)
        } else {
            let h = inp.high_key_value.map_or(n + 1, |h| keep_natts(h, inp.values[inp.new_pos]));
            (if h <= n { Strategy::SingleValue } else { Strategy::Default }, h)
        }
    };
    match strategy {
        Strategy::Default => {}
        Strategy::ManyDuplicates => interval = cands.len(),
        Strategy::SingleValue => {
            mult = f64::from(SINGLEVAL_FILLFACTOR) / 100.0;
            use_mult = true;
            sort_by_delta(&mut cands, mult, use_mult);
            interval = 1;
        }
    }
    // `_bt_bestsplitloc`: the lowest penalty in the interval, the first perfect one at once.
    let penalty = |c: &Candidate| {
        if inp.leaf {
            keep_natts(last_left(c), first_right(c))
        } else {
            inp.sizes[c.left] as i32
        }
    };
    let mut best = (i32::MAX, 0usize);
    for (i, c) in cands.iter().enumerate().take(interval.min(cands.len())) {
        let p = penalty(c);
        if p <= perfect {
            best = (p, i);
            break;
        }
        if p < best.0 {
            best = (p, i);
        }
    }
    let mut chosen = cands[best.1];
    // A many-duplicates split just left of the new item on a non-rightmost page falls back
    // to the delta-best split, so that decreasing inserts right of a run do not keep
    // splitting the same page.
    if strategy == Strategy::ManyDuplicates && !inp.rightmost && chosen.left == inp.new_pos {
        chosen = cands[0];
    }
    chosen.left
}

/// `_bt_defaultinterval`: the candidates (sorted by delta) whose free space on each side
/// stays within a tolerance of the best one's, the tolerance being 5 % of the old items'
/// bytes on leaves and 7.5 % on internal pages; the first one outside ends the interval.
fn default_interval(cands: &[Candidate], old_total: i32, leaf: bool) -> usize {
    let distance = if leaf { LEAF_SPLIT_DISTANCE } else { INTERNAL_SPLIT_DISTANCE };
    let tolerance = (f64::from(old_total) * distance) as i32;
    let best = cands[0];
    let (lo_l, lo_r) = (best.left_free - tolerance, best.right_free - tolerance);
    let (hi_l, hi_r) = (best.left_free + tolerance, best.right_free + tolerance);
    cands
        .iter()
        .skip(1)
        .position(|c| {
            c.left_free < lo_l || c.right_free < lo_r || c.left_free > hi_l || c.right_free > hi_r
        })
        .map_or(cands.len(), |i| i + 1)
}

/// `_bt_deltasortsplits`: distance from the wanted balance, truncated to whole bytes as the
/// server's int16 delta is, then a sort on it (stable here; the server's qsort may order
/// equal deltas differently).
fn sort_by_delta(cands: &mut [Candidate], mult: f64, use_mult: bool) {
    for c in cands.iter_mut() {
        let d = if use_mult {
            (mult * f64::from(c.left_free) - (1.0 - mult) * f64::from(c.right_free)) as i32
        } else {
            c.left_free - c.right_free
        };
        c.delta = d.abs();
    }
    cands.sort_by_key(|c| c.delta);
}

/// `_bt_interval_edges`: the interval's leftmost and rightmost candidates by position,
/// taking the most distant (by delta) on each side of the delta-best one.
fn interval_edges(interval: &[Candidate]) -> (Candidate, Candidate) {
    let best = interval[0];
    let (mut lo, mut hi) = (None, None);
    for c in interval.iter().rev() {
        if c.left < best.left {
            lo.get_or_insert(*c);
        } else if c.left > best.left {
            hi.get_or_insert(*c);
        } else {
            lo.get_or_insert(*c);
            hi.get_or_insert(*c);
        }
        if lo.is_some() && hi.is_some() {
            break;
        }
    }
    (lo.unwrap_or(best), hi.unwrap_or(best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::KeyType;
    use keylab_schema::Value;

    fn values(n: usize) -> Vec<Vec<u8>> {
        (0..n as u32).map(|i| i.to_be_bytes().to_vec()).collect()
    }

    fn input(v: &[Vec<u8>], new_pos: usize, rightmost: bool) -> SplitInput<'_> {
        SplitInput {
            layout: KeyLayout::new(KeyType::Varlena { max_bytes: 2 }),
            new_tid: 1,
            prev_tid: None,
            posting_list_bytes: Vec::new(),
            values: v.iter().map(Vec::as_slice).collect(),
            sizes: vec![28; v.len()],
            new_pos,
            leaf: true,
            rightmost,
            high_key_bytes: (!rightmost).then_some(24),
            high_key_value: None,
            leaf_fillfactor: 90,
        }
    }

    #[test]
    fn rightmost_leaf_keeps_fillfactor_on_the_left() {
        let v = values(292);
        let left = find_split(&input(&v, 291, true));
        let used = left as u32 * 28 + 24 + 4;
        let pct = used as f64 * 100.0 / f64::from(BT_USABLE_BYTES);
        assert!((89.0..=91.0).contains(&pct), "{left} items, {pct:.1} %");
    }

    #[test]
    fn other_leaves_split_in_half() {
        let v = values(291);
        let left = find_split(&input(&v, 100, false));
        assert!((144..=146).contains(&left), "{left}");
    }

    #[test]
    fn ascending_inserts_inside_a_group_split_just_after_the_new_item() {
        // (a int8, b int8) tuples of 24 bytes; the new item (a = 1, b = 100) lands at 100,
        // just right of (1, 99) inserted a moment before (same heap block).
        let layout = KeyLayout::composite(&[KeyType::BigInt, KeyType::BigInt]).unwrap();
        let mut keys = Vec::new();
        for i in 0..291u64 {
            let (a, b) = if i <= 100 { (1, i) } else { (2, i) };
            let mut k = Vec::new();
            layout
                .encode_values(&[Value::UInt(a), Value::UInt(b)], (7 << 16) | (i + 1), &mut k)
                .unwrap();
            keys.push(k);
        }
        let values: Vec<&[u8]> = keys.iter().map(|k| layout.value(k)).collect();
        let mut inp = SplitInput {
            layout,
            values,
            sizes: vec![28; 291],
            posting_list_bytes: Vec::new(),
            new_pos: 100,
            leaf: true,
            rightmost: false,
            high_key_bytes: Some(16),
            high_key_value: None,
            leaf_fillfactor: 90,
            new_tid: (7 << 16) | 101,
            prev_tid: Some((7 << 16) | 100),
        };
        assert_eq!(find_split(&inp), 101, "the new item is the last on the left");
        // Not adjacent in the heap: a plain 50:50 split by free space.
        inp.prev_tid = Some(3 << 16);
        let left = find_split(&inp);
        assert!((140..=150).contains(&left), "{left}");
    }

    #[test]
    fn one_value_pages_split_at_96_percent() {
        let v = vec![vec![7u8; 4]; 292];
        let left = find_split(&input(&v, 291, true));
        let pct = (left as u32 * 28) as f64 * 100.0 / f64::from(BT_USABLE_BYTES);
        assert!(pct > 94.0, "{pct}");
    }
}
