//! Reads: an index scan (`SELECT * ... WHERE` an indexed column equals a value or lies in a
//! range, or `pk >= v ORDER BY pk LIMIT n`) as PostgreSQL 15 runs it, page by page, for the
//! buffer model: the descent from the root (`_bt_first` → `_bt_search`), the matching items
//! of the leaf, the right sibling only while the scan needs more (`_bt_readpage` checks the
//! high key against the upper bound; `_bt_steppage`), and the heap page of each entry in
//! index order, a new request only when the block changes (`heapam_index_fetch_tuple` keeps
//! the buffer it holds, `ReleaseAndReadBuffer`).
//!
//! It does not plan: every read is an index scan (the planner's choice for a one-row lookup
//! and for `ORDER BY pk LIMIT n`; a bitmap scan, which PostgreSQL may prefer for a wide time
//! range, visits each heap page once in block order instead). It reads no visibility map
//! (no index-only scans: reads are `SELECT *`) and sets no hint bits (the first read of a row
//! after its load dirties its heap page on the server: writes during reads are not modelled).

use crate::buffers::{Access, Rel, Strategy};
use crate::page::NONE;
use crate::trace::METAPAGE;
use crate::tree::Tree;
use crate::{ModelError, NbtreeTable};
use keylab_schema::Value;

/// The bounds of one scan.
#[derive(Debug, Clone, Copy)]
pub struct ScanBounds<'a> {
    /// Lowest value (sort key with heap TID 1, below every real entry of that value),
    /// inclusive.
    pub from: &'a [u8],
    /// Highest value (sort key; only its value part counts), inclusive; `None`: open.
    pub to: Option<&'a [u8]>,
    /// Most entries to return (`LIMIT`).
    pub limit: u64,
}

impl Tree {
    /// The entries in `bounds`, in index order: `visit(tid)` for each; the pages requested
    /// go to the trace.
    pub(crate) fn scan(&mut self, bounds: ScanBounds<'_>, mut visit: impl FnMut(u64)) -> u64 {
        if self.root == NONE {
            // `_bt_getroot` finds no root in the metapage.
            self.trace.touch(METAPAGE, Access::Read);
            return 0;
        }
        let (s, w) = (self.stride(), self.layout.width);
        let mut path = std::mem::take(&mut self.path);
        let leaf = self.descend(bounds.from, &mut path);
        self.trace.descend(self.root, path.iter().map(|&(b, _)| b), leaf, Access::Read);
        self.path = path;
        let past = |k: &[u8]| bounds.to.is_some_and(|to| k[..=w] > to[..=w]);
        let (mut block, mut found) = (leaf, 0u64);
        let mut i = self.leaf_pos(&self.pages[leaf as usize], bounds.from);
        loop {
            let p = &self.pages[block as usize];
            while i < p.len() {
                let k = p.key(s, i);
                if past(k) || found == bounds.limit {
                    return found;
                }
                visit(self.layout.tid(k));
                found += 1;
                i += 1;
            }
            // The page is used up: the right sibling only if the high key is within bounds.
            let ends = p.high.as_ref().is_some_and(|h| past(&h.0));
            if p.next == NONE || ends || found == bounds.limit {
                return found;
            }
            block = p.next;
            self.trace.touch(block, Access::Read);
            i = 0;
        }
    }
}

impl NbtreeTable {
    /// The model's number of the index called `name` (`<table>_pkey` for the primary key's),
    /// as a [`Rel::index`] takes it.
    pub fn index_number(&self, name: &str) -> Option<usize> {
        self.indexes.iter().position(|ix| ix.name == name)
    }

    /// `SELECT *` through index `index` (its number): the rows whose key columns lie from
    /// `from` (all the index's columns, or a prefix: the rest are then unbounded) up to `to`
    /// (`None`: no upper bound), at most `limit`. Returns the live rows read; every page goes
    /// through the buffer model, when there is one.
    pub fn read_range(
        &mut self,
        index: usize,
        from: &[Value],
        to: Option<&[Value]>,
        limit: u64,
    ) -> Result<u64, ModelError> {
        let ix = self.indexes.get(index).ok_or_else(|| {
            ModelError::Unsupported(format!(
                "no index {index}; the table has {}",
                self.indexes.len()
            ))
        })?;
        let layout = ix.tree.layout;
        // The table's scratch keys: no allocation per read.
        let (mut lo, mut hi) = (std::mem::take(&mut self.key), std::mem::take(&mut self.key_high));
        encode_bound(&layout, from, false, &mut lo)?;
        match to {
            // An equality: the upper bound is the same value.
            Some(to) if std::ptr::eq(to, from) => hi.clone_from(&lo),
            Some(to) => encode_bound(&layout, to, true, &mut hi)?,
            None => {}
        }
        let bounds = ScanBounds { from: &lo, to: to.map(|_| &hi[..]), limit };
        let (heap, dead) = (&mut self.heap, &self.dead);
        let mut last_block = NONE;
        let mut live = 0u64;
        self.indexes[index].tree.scan(bounds, |tid| {
            let block = (tid >> 16) as u32;
            if block != last_block && heap.tracing {
                heap.touches.push((Rel::HEAP, block, Access::Read, Strategy::Normal));
            }
            last_block = block;
            live += u64::from(dead.is_empty() || !dead.contains(&tid));
        });
        (self.key, self.key_high) = (lo, hi);
        self.feed_buffers();
        Ok(live)
    }

    /// `SELECT *` of the rows whose index `index` columns equal `key`.
    pub fn read_equal(&mut self, index: usize, key: &[Value]) -> Result<u64, ModelError> {
        self.read_range(index, key, Some(key), u64::MAX)
    }
}

/// A scan bound: the key columns given (with heap TID 1), or a prefix of them with the rest
/// at their lowest (`high` false) or highest (`high` true) sort key.
fn encode_bound(
    layout: &crate::geometry::KeyLayout,
    values: &[Value],
    high: bool,
    out: &mut Vec<u8>,
) -> Result<(), ModelError> {
    let n = layout.types().len();
    if values.len() == n {
        // Heap TID 1 sorts after a pivot whose TID was truncated away (0) and before every
        // real entry: a search without a heap TID goes right of an equal truncated pivot
        // (`_bt_compare`), so it lands on the leaf that holds the value.
        return layout.encode_values(values, 1, out).map_err(ModelError::Unsupported);
    }
    if values.is_empty() || values.len() > n {
        return Err(ModelError::Unsupported(format!(
            "{} values for an index of {n} columns",
            values.len()
        )));
    }
    // A prefix: encode it over the first columns, then fill the value part's rest.
    let first = crate::geometry::KeyLayout::composite(&layout.types()[..values.len()])
        .map_err(ModelError::Unsupported)?;
    first.encode_values(values, 0, out).map_err(ModelError::Unsupported)?;
    out.truncate(out.len() - 8);
    let fill = if high { 0xff } else { 0x00 };
    out.resize(layout.width + 1, fill);
    out.extend_from_slice(&0u64.to_be_bytes());
    Ok(())
}
