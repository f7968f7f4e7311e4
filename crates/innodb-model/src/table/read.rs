//! Reads on the model (issue 28): what a `SELECT` touches in MariaDB 10.11's B-trees, page by
//! page, through the buffer pool model (docs/model-rules.md §15). A point read descends the
//! clustered index; a secondary read descends the secondary index, then the clustered index
//! for every match; a key range descends once and walks the leaves; a time range walks the
//! time column's index and looks every row up in the clustered index. Every page a read gets
//! is a page request (`Innodb_buffer_pool_read_requests`), a miss where the pool lacks it.
//!
//! Not modelled: the adaptive hash index (off by default in 10.11:
//! `innodb_adaptive_hash_index=OFF`), linear read-ahead (it needs 56 of an extent's 64 pages
//! accessed in page order, which random point reads never do; ranges of a few leaves do not
//! reach an extent's border often enough to matter here), MVCC versions (every record is
//! committed and purged), locks, and the undo pages a consistent read would follow.

use crate::page::PageNo;
use crate::space::Space;
use crate::tree::Tree;
use crate::{SimError, SimTable};
use estimate::RangeEnd;
use keylab_schema::Value;

mod estimate;

/// Pages the range estimate reads on one level before it extrapolates
/// (`N_PAGES_READ_LIMIT` in `btr_estimate_n_rows_in_range_on_level`).
const ESTIMATE_PAGES_PER_LEVEL: u32 = 10;

/// What a run of reads did: page requests, rows found, and the distinct pages each index
/// had requested (its working set). One `ReadStats` spans as many reads as the caller likes.
#[derive(Debug, Clone, Default)]
pub struct ReadStats {
    /// Pages requested (hits and misses), every index.
    pub page_requests: u64,
    /// Rows the reads returned.
    pub rows: u64,
    /// Per index (PRIMARY first), one bit per page number: requested during the run.
    touched: Vec<Vec<u64>>,
    /// Per index, the bits set in `touched`.
    distinct: Vec<u64>,
}

impl ReadStats {
    /// Empty figures.
    pub fn new() -> ReadStats {
        ReadStats::default()
    }

    /// Notes page `p` of index `ix` in the working set, without a request (the pages an
    /// insert changed are counted by the buffer pool model).
    pub fn note_page(&mut self, ix: usize, p: u32) {
        if self.touched.len() <= ix {
            self.touched.resize_with(ix + 1, Vec::new);
            self.distinct.resize(ix + 1, 0);
        }
        let bits = &mut self.touched[ix];
        let (word, bit) = (p as usize / 64, p % 64);
        if bits.len() <= word {
            bits.resize(word + 1, 0);
        }
        if bits[word] >> bit & 1 == 0 {
            bits[word] |= 1 << bit;
            self.distinct[ix] += 1;
        }
    }

    /// Distinct pages each index (PRIMARY first) had requested or changed; indexes never
    /// touched count 0 (the list may be shorter than the index list).
    pub fn working_set_pages(&self) -> &[u64] {
        &self.distinct
    }

    #[inline]
    fn request(&mut self, sp: &mut Space, ix: usize, p: PageNo) {
        sp.touch_read(p);
        self.page_requests += 1;
        self.note_page(ix, p.0);
    }
}

/// Where a B-tree cursor stands: a leaf and a record position on it (`len` = after its last
/// record, the supremum).
#[derive(Debug, Clone, Copy)]
struct Cursor {
    page: PageNo,
    pos: usize,
}

impl Tree {
    /// A read's descent from the root to the leaf (`btr_cur_t::search_leaf`), each page a
    /// request. `ge`: PAGE_CUR_GE at the leaf, the cursor on the first record ≥ `key`, and
    /// PAGE_CUR_L on the levels above (so a key equal to a node pointer leads to the left
    /// child, whose end the cursor then stands at); else PAGE_CUR_LE at every level, the
    /// cursor on the last record ≤ `key` (its position + 1).
    fn read_descend(
        &self,
        sp: &mut Space,
        stats: &mut ReadStats,
        ix: usize,
        key: &[u8],
        ge: bool,
    ) -> Cursor {
        let kw = self.kw();
        let mut p = self.root;
        loop {
            stats.request(sp, ix, p);
            let page = sp.page(p);
            let (le, eq) = page.search(key, kw);
            let below = if ge { le - usize::from(eq) } else { le };
            if page.level == 0 {
                return Cursor { page: p, pos: below };
            }
            p = PageNo(page.children[below.saturating_sub(1)]);
        }
    }

    /// A cursor past its page's last record moves to the first record of the next leaf
    /// (`btr_pcur_move_to_next_page`, a request); false at the last leaf.
    fn step_over_supremum(
        &self,
        sp: &mut Space,
        stats: &mut ReadStats,
        ix: usize,
        c: &mut Cursor,
    ) -> bool {
        while c.pos >= sp.page(c.page).len() {
            let Some(next) = sp.page(c.page).next else { return false };
            stats.request(sp, ix, next);
            *c = Cursor { page: next, pos: 0 };
        }
        true
    }

    /// The key under the cursor (after [`Tree::step_over_supremum`]).
    fn key_at<'a>(&self, sp: &'a Space, c: Cursor) -> &'a [u8] {
        sp.page(c.page).key(c.pos, self.kw())
    }

    /// Height of the tree (levels, the leaf level included).
    #[cfg(test)]
    fn height(&self, sp: &Space) -> u16 {
        sp.page(self.root).level + 1
    }
}

/// Rows `row_search_mvcc` returns one per call before it fills its fetch cache
/// (`MYSQL_FETCH_CACHE_THRESHOLD`), unless the search is an exact match (ROW_SEL_EXACT),
/// which caches from the first row.
const FETCH_THRESHOLD: u64 = 4;
/// Rows one caching call reads: the row it returns, then `MYSQL_FETCH_CACHE_SIZE` (8) queued
/// (the first row goes straight to the caller's buffer, not the queue).
const FETCH_BATCH: u64 = 1 + 8;

/// Whether the scan's `r`-th row (1-based) is the first of a `row_search_mvcc` call: every
/// row without the fetch cache (`cache` false: the row has a BLOB-family column,
/// `templ_contains_blob`), else one row per call for the first [`FETCH_THRESHOLD`] rows
/// (none for an `exact` match), then [`FETCH_BATCH`] rows per call. Each call after the
/// first restores the stored cursor (`btr_pcur_restore_position`, an optimistic get:
/// `buf_page_optimistic_get`, which may make the page young but counts no request).
fn starts_call(r: u64, cache: bool, exact: bool) -> bool {
    let single = if exact { 0 } else { FETCH_THRESHOLD };
    !cache || r <= single + 1 || (r - single - 1) % FETCH_BATCH == 0
}

/// Rows a scan for `rows` rows reads, whole calls: a `LIMIT` ends where the SQL layer
/// stops asking, but the call that returned the last row had already read its batch
/// (measured on 10.11.19: a 100-row key range enters the next leaf when one starts within
/// the three rows after the 100th; the calls start at rows 1, 2, 3, 4, 5, 14, ..., 95).
fn rows_read_by_calls(rows: u64, cache: bool) -> u64 {
    if !cache || rows <= FETCH_THRESHOLD {
        rows
    } else {
        FETCH_THRESHOLD + (rows - FETCH_THRESHOLD).div_ceil(FETCH_BATCH) * FETCH_BATCH
    }
}

impl SimTable {
    /// Index number (0 = PRIMARY) of the index named `name`.
    fn index_no(&self, name: &str) -> Result<usize, SimError> {
        self.trees.iter().position(|t| t.layout.name == name).ok_or_else(|| {
            SimError::BadSetting(format!("no index named `{name}` in table {}", self.table.name))
        })
    }

    /// Index names, PRIMARY first (the order of [`ReadStats::working_set_pages`]).
    pub fn index_names(&self) -> Vec<String> {
        self.trees.iter().map(|t| t.layout.name.clone()).collect()
    }

    /// Pages one descent of every index requests (the sum of their heights): what an
    /// insert's searches get, splits aside.
    pub fn descent_pages(&self) -> u64 {
        self.trees.iter().map(|t| u64::from(self.space.page(t.root).level) + 1).sum()
    }

    /// A row with `values` in `cols` (the rest NULL), for encoding a search key.
    fn search_row(&self, cols: &[usize], values: &[Value]) -> Result<Vec<Value>, SimError> {
        if cols.len() != values.len() {
            return Err(SimError::BadRow {
                table: self.table.name.clone(),
                reason: format!("{} values for {} key columns", values.len(), cols.len()),
            });
        }
        let mut row = vec![Value::Null; self.table.columns.len()];
        for (&c, v) in cols.iter().zip(values) {
            row[c] = v.clone();
        }
        Ok(row)
    }

    /// Whether `row_search_mvcc` may queue rows in its fetch cache for `SELECT *`: not when
    /// the row has a BLOB-family column (`templ_contains_blob`, set by `build_template_field`
    /// for `DATA_BLOB` and `DATA_GEOMETRY` columns).
    fn fetch_cache(&self) -> bool {
        !self.table.columns.iter().any(|c| c.ty.is_blob())
    }

    /// The pool's clock moves by one operation per read (as per insert).
    fn read_done(&mut self) {
        if let Some(pool) = &mut self.space.pool {
            pool.tick();
        }
    }

    /// `SELECT * FROM t WHERE pk = ?`: a unique search (`row_search_mvcc` with
    /// `unique_search`), one descent of PRIMARY with PAGE_CUR_GE; a cursor left after the
    /// last record of its leaf (the key equals a node pointer) moves to the next leaf. Returns
    /// whether the row exists.
    pub fn read_point(&mut self, pk: &[Value], stats: &mut ReadStats) -> Result<bool, SimError> {
        let key = self.pk_search_key(pk)?;
        let ahead = self.fetch_cache();
        let found = self.clustered_lookup(&key, Some(ahead), stats);
        self.keys = key;
        stats.rows += u64::from(found);
        self.read_done();
        Ok(found)
    }

    /// [`SimTable::read_point`] of every key of `pks` in order (the same pages, figures and
    /// rows), while prefetching the memory of the reads a few keys ahead as
    /// [`SimTable::insert_batch`] does for inserts (`prefetch.rs`): each key's leaf is found
    /// by a read-only descent `prefetch::AHEAD` reads early and its page struct and
    /// LRU node are loaded, then its record lines. Returns the rows found.
    pub fn read_points(
        &mut self,
        pks: &[Vec<Value>],
        stats: &mut ReadStats,
    ) -> Result<u64, SimError> {
        use crate::prefetch::AHEAD;
        let kw = self.trees[0].kw();
        let mut keys = Vec::with_capacity(pks.len() * kw);
        for pk in pks {
            let k = self.pk_search_key(pk)?;
            keys.extend_from_slice(&k);
            self.keys = k;
        }
        let key_of = |i: usize| &keys[i * kw..(i + 1) * kw];
        let ahead = self.fetch_cache();
        let mut leaves = [None; AHEAD];
        let mut found = 0u64;
        for i in 0..pks.len() {
            if i + AHEAD < pks.len() {
                let leaf = self.trees[0].prefetch_leaf(&self.space, key_of(i + AHEAD));
                if let (Some((p, _)), Some(pool)) = (leaf, &self.space.pool) {
                    pool.prefetch_node(p.0);
                }
                leaves[(i + AHEAD) % AHEAD] = leaf.map(|(p, _)| p);
            }
            if i + AHEAD / 2 < pks.len() {
                if let Some(p) = leaves[(i + AHEAD / 2) % AHEAD] {
                    self.trees[0].prefetch_leaf_lines(&self.space, p, key_of(i + AHEAD / 2));
                }
            }
            let hit = self.clustered_lookup(key_of(i), Some(ahead), stats);
            found += u64::from(hit);
            self.read_done();
        }
        stats.rows += found;
        Ok(found)
    }

    /// PRIMARY's encoded key for `pk`, in the table's reused key buffer (give it back to
    /// `self.keys`); the row it is encoded from is the reused delete row, so a read
    /// allocates nothing once the buffers have grown.
    fn pk_search_key(&mut self, pk: &[Value]) -> Result<Vec<u8>, SimError> {
        let row = self.take_key_row(pk)?;
        let mut key = std::mem::take(&mut self.keys);
        key.clear();
        self.trees[0].layout.encode_key(&row, &mut key);
        self.del_row = row;
        Ok(key)
    }

    /// One clustered-index lookup by an encoded primary key. `query`: a query's own search
    /// (PAGE_CUR_GE), with whether its row may go to the fetch cache
    /// ([`SimTable::fetch_cache`]); `None`: the row a secondary record points to
    /// (`row_sel_get_clust_rec_for_mysql` opens PRIMARY with PAGE_CUR_LE).
    fn clustered_lookup(&mut self, key: &[u8], query: Option<bool>, stats: &mut ReadStats) -> bool {
        let tree = &self.trees[0];
        let Some(fetch_cache) = query else {
            let c = tree.read_descend(&mut self.space, stats, 0, key, false);
            return c.pos > 0 && tree.key_at(&self.space, Cursor { pos: c.pos - 1, ..c }) == key;
        };
        let mut c = tree.read_descend(&mut self.space, stats, 0, key, true);
        if !tree.step_over_supremum(&mut self.space, stats, 0, &mut c) {
            return false;
        }
        let found = tree.key_at(&self.space, c) == key;
        // `WHERE pk = ?` is an exact match (ROW_SEL_EXACT): `row_search_mvcc` queues the row
        // in its fetch cache and moves on to the next record (`next_rec`,
        // `btr_pcur_move_to_next_page` past the leaf's end), where the mismatch ends the
        // search; so a row that is its leaf's last record also gets the next leaf. Not when
        // the fetch cache is off (a BLOB-family column): measured on 10.11.19, auto-inc,
        // 4 KiB pages, a leaf's last key took 3 requests with `data VARCHAR(255)` and 2 with
        // `data TEXT`.
        if found && fetch_cache && c.pos + 1 == self.space.page(c.page).len() {
            if let Some(next) = self.space.page(c.page).next {
                stats.request(&mut self.space, 0, next);
            }
        }
        found
    }

    /// The rows whose `index` columns equal `key` (`SELECT * ... WHERE k = ?` through that
    /// index), each looked up in PRIMARY. On a non-unique index the optimizer first
    /// estimates the range (`btr_estimate_n_rows_in_range`: a descent for each end of
    /// `[key, key]`), then the scan reads past the last match to the first record that
    /// differs (to the next leaf when the match ends its page); on a unique one it is a
    /// unique search. Returns the rows found.
    pub fn read_secondary(
        &mut self,
        index: &str,
        key: &[Value],
        stats: &mut ReadStats,
    ) -> Result<u64, SimError> {
        let ix = self.index_no(index)?;
        let ncols = self.table.indexes[ix - 1].columns.len();
        let row = self.search_row(&self.table.indexes[ix - 1].columns.clone(), key)?;
        let mut prefix = Vec::new();
        self.trees[ix].layout.encode_key_prefix(&row, ncols, &mut prefix);
        let unique = self.trees[ix].layout.unique;
        let rows = self.scan_secondary(ix, &prefix, &prefix, !unique, unique, stats);
        self.read_done();
        Ok(rows)
    }

    /// The rows whose first `index` column lies in `[from, to]`, through that index, each
    /// looked up in PRIMARY (`... WHERE t BETWEEN ? AND ?`, after the range estimate's two
    /// descents). Returns the rows found.
    pub fn read_time_range(
        &mut self,
        index: &str,
        from: &Value,
        to: &Value,
        stats: &mut ReadStats,
    ) -> Result<u64, SimError> {
        let ix = self.index_no(index)?;
        let col = self.table.indexes[ix - 1].columns[0];
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        let layout = &self.trees[ix].layout;
        layout.encode_key_prefix(&self.search_row(&[col], std::slice::from_ref(from))?, 1, &mut lo);
        layout.encode_key_prefix(&self.search_row(&[col], std::slice::from_ref(to))?, 1, &mut hi);
        let rows = self.scan_secondary(ix, &lo, &hi, true, false, stats);
        self.read_done();
        Ok(rows)
    }

    /// Scans index `ix` from the first record whose key prefix is ≥ `lo` while its prefix is
    /// ≤ `hi`, looking each row up in PRIMARY. `estimate`: the optimizer's two range
    /// descents first; `unique`: stop at the first match.
    fn scan_secondary(
        &mut self,
        ix: usize,
        lo: &[u8],
        hi: &[u8],
        estimate: bool,
        unique: bool,
        stats: &mut ReadStats,
    ) -> u64 {
        let cache = self.fetch_cache();
        let kw = self.trees[ix].kw();
        let n = lo.len();
        let mut low_key = lo.to_vec();
        low_key.resize(kw, 0);
        if estimate {
            let mut high_key = hi.to_vec();
            high_key.resize(kw, 0xff);
            let end = RangeEnd::AtMost(&high_key);
            let rows = self.rows;
            self.trees[ix].estimate_range(&mut self.space, stats, ix, &low_key, end, rows);
        }
        let mut c = self.trees[ix].read_descend(&mut self.space, stats, ix, &low_key, true);
        let mut rows = 0u64;
        let mut pk = Vec::with_capacity(self.trees[0].kw());
        loop {
            if !self.trees[ix].step_over_supremum(&mut self.space, stats, ix, &mut c) {
                break;
            }
            let k = self.trees[ix].key_at(&self.space, c);
            if k[..n] > *hi {
                break;
            }
            pk.clear();
            self.trees[ix].layout.clustered_key_of(k, &self.trees[0].layout, &mut pk);
            if self.clustered_lookup(&pk, None, stats) {
                rows += 1;
            }
            if unique {
                break;
            }
            // The next row_search_mvcc call restores the cursor on its page (`starts_call`:
            // equal ends are an exact match, HA_READ_KEY_EXACT): no request, but it may make
            // the page young.
            if starts_call(rows + 1, cache, lo == hi) {
                self.space.touch_restore(c.page);
            }
            c.pos += 1;
        }
        stats.rows += rows;
        rows
    }

    /// `SELECT * FROM t WHERE pk >= ? ORDER BY pk LIMIT rows`: the range estimate (to
    /// `from`, and to the end of the index), again when `rows` is below the rows it
    /// estimates, one PAGE_CUR_GE descent, then the records of whole fetch calls along the
    /// leaves (`rows` and the rest of the last call's batch), a request for every leaf
    /// entered and an optimistic restore (no request) per call. Returns the rows returned.
    pub fn read_key_range(
        &mut self,
        from: &[Value],
        rows: u32,
        stats: &mut ReadStats,
    ) -> Result<u64, SimError> {
        let key = self.pk_search_key(from)?;
        let (cache, table_rows) = (self.fetch_cache(), self.rows);
        let tree = &self.trees[0];
        let sp = &mut self.space;
        let est = tree.estimate_range(sp, stats, 0, &key, RangeEnd::Open, table_rows);
        // The optimizer estimates the range again under a LIMIT below the rows it expects
        // (`make_join_select`'s recheck, "attaching_conditions_to_tables" in the optimizer
        // trace: measured on 10.11.19, two range analyses at LIMIT 7000 of an estimated 7571
        // rows, one at LIMIT 8000; at LIMIT 100, one when 50 rows are left to the end).
        if est > u64::from(rows) {
            tree.estimate_range(sp, stats, 0, &key, RangeEnd::Open, table_rows);
        }
        let mut c = tree.read_descend(sp, stats, 0, &key, true);
        // The cursor passes the rows of whole fetch calls; the first `rows` are returned.
        let passed = rows_read_by_calls(u64::from(rows), cache);
        let mut got = 0u64;
        while got < passed && tree.step_over_supremum(sp, stats, 0, &mut c) {
            got += 1;
            if got < passed && starts_call(got + 1, cache, false) {
                sp.touch_restore(c.page);
            }
            c.pos += 1;
        }
        let got = got.min(u64::from(rows));
        self.keys = key;
        stats.rows += got;
        self.read_done();
        Ok(got)
    }
}

#[cfg(test)]
mod tests;
