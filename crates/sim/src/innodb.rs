//! The simulator as a keylab [`Engine`]: rows go into a `SimTable` in stream order; figures
//! come from its model of InnoDB, so every one of them is a prediction, never a measurement.
//! One writer inserts the rows in stream order; several interleave their statements' rows as
//! `writers` models it (the load method and batch matter only then); timings are left `null` because the simulator's speed predicts nothing about a server's.
//! Rows reach the model in batches of `INSERT_BATCH_ROWS` (`SimTable::insert_batch`, which
//! prefetches the memory of the rows ahead): the same rows in the same order, so the same
//! figures; with a buffer pool a batch also ends at each sample of the pool's curve.
//! The load check compares the rows sent with the clustered index's record count; there is
//! no checksum (the model keeps keys and record sizes, not values), so it is `null`.
//! Churn applies inserts and purged deletes in order; rebuilds are sorted index builds.
//! Online DDL gives what the modelled server's rules allow (`ddl`), never a time.
//! Page reads and writes come from the buffer pool model and are `null` when no pool size
//! was set (every page cached); so is the whole `buffer_pool` block, whose `est_io_s_*` come
//! from the simulator's device model (estimates, never measurements).

use keylab_core::{
    io_share_pct, per_1k_rows, BufferPoolResult, ChangeBufferResult, Counters, DdlOutcome, DdlSpec,
    Engine, EngineError, EngineInfo, EngineSettings, IndexResult, LoadOutcome, LoadPlan,
    LoadVerification, Measurement, Op, PoolCurvePoint, PoolCurveSampler, Row, SimModel, TableSizes,
};
use keylab_innodb_model::{Flavour, PageCleanerRules, PageSize, SimSettings, SimTable};
use keylab_schema::{RowFormat, Table};
use std::collections::BTreeMap;

/// Rows between progress reports.
const PROGRESS_EVERY: u64 = 16_384;

/// Rows inserted per `SimTable::insert_batch` call without a buffer pool: enough that the
/// batch's first rows, which have no rows before them to prefetch during, are few.
const INSERT_BATCH_ROWS: usize = 1024;

/// The embedded InnoDB page simulator.
pub struct SimEngine {
    settings: SimSettings,
    /// `innodb_autoinc_lock_mode` of the model of parallel writers.
    autoinc_lock_mode: u8,
    /// How parallel writers' running statements mix.
    interleave: crate::writers::Interleave,
    table: Option<SimTable>,
    /// Notes for [`EngineInfo::settings`] (prefix indexes modelled).
    notes: Vec<String>,
    /// The buffer pool's curve during the last load (with a pool only).
    curve: Option<Vec<PoolCurvePoint>>,
    /// What DDL steps did to the table since it was created (row versions, FULLTEXT).
    ddl_state: crate::ddl::DdlState,
}

impl SimEngine {
    /// A simulator with these settings.
    pub fn new(settings: SimSettings) -> Self {
        let autoinc_lock_mode = match settings.flavour {
            Flavour::MariaDb1011 => 1,
            Flavour::Mysql80 => 2,
        };
        SimEngine {
            settings,
            autoinc_lock_mode,
            interleave: Default::default(),
            table: None,
            notes: Vec::new(),
            curve: None,
            ddl_state: Default::default(),
        }
    }

    /// The same, mixing parallel writers' running statements as `mix` says.
    pub fn with_interleave(mut self, mix: crate::writers::Interleave) -> Self {
        self.interleave = mix;
        self
    }

    /// The same, modelling parallel writers under `innodb_autoinc_lock_mode` = `mode`
    /// (`None` keeps the flavour's default: MariaDB 1, MySQL 8.0 2).
    pub fn with_autoinc_lock_mode(mut self, mode: Option<u8>) -> Self {
        if let Some(m) = mode {
            self.autoinc_lock_mode = m;
        }
        self
    }

    /// The table the engine holds, for a caller that inserts itself and watches each insert
    /// (`keylab advise` counts the insert working set from it).
    pub fn sim_table_mut(&mut self) -> Result<&mut SimTable, EngineError> {
        self.table_mut()
    }

    fn table(&self) -> Result<&SimTable, EngineError> {
        self.table.as_ref().ok_or_else(|| EngineError::Failed("no table created".into()))
    }

    fn table_mut(&mut self) -> Result<&mut SimTable, EngineError> {
        self.table.as_mut().ok_or_else(|| EngineError::Failed("no table created".into()))
    }
    /// The outcome of a load of `loaded` rows into a table that held `held`.
    fn loaded(
        &mut self,
        held: u64,
        loaded: u64,
        curve: Option<Vec<PoolCurvePoint>>,
    ) -> LoadOutcome {
        let rows_found = self.table.as_ref().map(SimTable::primary_records);
        // The model stores keys and record sizes, not column values: no checksum to compare.
        let verification = LoadVerification {
            rows_expected: held + loaded,
            rows_found,
            checksum_equal: None,
            checked: "rows: the model's PRIMARY record count; no checksum (the model keeps keys \
                      and record sizes, not values)"
                .into(),
        };
        self.curve = curve;
        LoadOutcome { rows: loaded, verification: Some(verification), ..LoadOutcome::default() }
    }

    /// The table's figures now (a measurement or a load sample).
    fn figures(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        let stats = self.table()?.stats();
        let ibuf_size = self.table()?.ibuf_size();
        let sim = self.table()?;
        let freed: Vec<u64> =
            (0..stats.indexes.len()).map(|i| sim.freed_pages_unreused(i)).collect();
        let c = &stats.counters;
        let pool = stats.pool.as_ref().map(|p| p.counters);
        Ok(Measurement {
            counters: Counters {
                page_splits: Some(c.page_splits),
                merge_attempts: Some(c.merge_attempts),
                merges: Some(c.merges),
                page_reorgs: Some(c.page_reorgs),
                page_discards: Some(c.page_discards),
                pages_read: pool.map(|p| p.pages_read),
                pages_written: pool.map(|p| p.pages_written),
                page_requests: pool.map(|p| p.page_accesses),
                // Per-file reads and writes are a server's performance_schema figures.
                io_write_requests: None,
                io_write_bytes: None,
                io_read_requests: None,
                io_read_bytes: None,
            },
            table: TableSizes {
                data_length: Some(stats.data_length_bytes),
                index_length: Some(stats.index_length_bytes),
                data_free: Some(stats.data_free_bytes),
            },
            indexes: stats
                .indexes
                .iter()
                .enumerate()
                .map(|(i, ix)| IndexResult {
                    name: ix.name.clone(),
                    size_pages: Some(ix.size_pages),
                    leaf_pages: Some(ix.leaf_pages),
                    n_leaf_pages_stat: Some(n_leaf_pages_stat(
                        ix.leaf_pages,
                        ix.height,
                        n_uniq(table, i),
                    )),
                    nonleaf_pages: Some(ix.nonleaf_pages),
                    freed_pages_in_pool: Some(freed[i]),
                    height: Some(ix.height),
                    fill_pct: Some(ix.fill_pct),
                    records_per_leaf: Some(ix.records_per_leaf),
                    fill_histogram: Some(ix.fill_histogram.to_vec()),
                    pages_per_level: Some(ix.pages_per_level.clone()),
                    ..IndexResult::default()
                })
                .collect(),
            buffer_pool: stats.pool.as_ref().map(|p| {
                let c = &p.counters;
                BufferPoolResult {
                    pool_bytes: self.settings.buffer_pool_bytes,
                    page_requests: Some(c.page_accesses),
                    pages_read: Some(c.pages_read),
                    index_pages_read: keylab_core::Figure::Value(c.index_pages_read),
                    pages_written: Some(c.pages_written),
                    row_ops: Some(c.ops),
                    hit_ratio: Some(p.hit_ratio),
                    misses_per_op: Some(p.misses_per_op),
                    evictions: Some(c.evictions),
                    reads_per_1k_rows: per_1k_rows(Some(c.pages_read), Some(c.ops)),
                    writes_per_1k_rows: per_1k_rows(Some(c.pages_written), Some(c.ops)),
                    curve: self.curve.clone(),
                    // The model keeps the bookkeeping with buffering off too (all zero then).
                    // The model's change-buffer pages stay in the pool: their I/O is writes.
                    change_buffer: Some(ChangeBufferResult {
                        buffered: Some(c.ibuf_buffered),
                        merged: Some(c.ibuf_merged),
                        refused: Some(c.ibuf_refused_cap + c.ibuf_refused_free_space),
                        page_io: Some(c.ibuf_pages_written),
                        io_share_pct: io_share_pct(
                            Some(c.ibuf_pages_written),
                            Some(c.pages_read),
                            Some(c.pages_written),
                        ),
                        size_pages: ibuf_size.map(|s| s.pages),
                        max_size_pages: ibuf_size.map(|s| s.max_pages),
                        cap_pages: ibuf_size.map(|s| s.cap_pages),
                    }),
                    est_io_s_hdd: Some(p.est_io_s_hdd),
                    est_io_s_ssd: Some(p.est_io_s_ssd),
                }
            }),
            postgres: None,
            shards: None,
        })
    }
}

impl Engine for SimEngine {
    fn bulk_autoinc_gaps(&self) -> bool {
        // As the server: only the traditional mode (0) moves the counter row by row.
        self.autoinc_lock_mode != 0
    }

    fn info(&self) -> EngineInfo {
        let model = sim_model(self.settings.flavour);
        let mut settings = BTreeMap::new();
        settings.insert("innodb_page_size".into(), self.settings.page_size.bytes().into());
        settings.insert("innodb_fill_factor".into(), self.settings.fill_factor_pct.into());
        settings.insert("merge_threshold_pct".into(), self.settings.merge_threshold_pct.into());
        settings.insert("row_format".into(), "DYNAMIC".into());
        settings.insert(
            "innodb_buffer_pool_size".into(),
            match self.settings.buffer_pool_bytes {
                Some(b) => b.into(),
                None => "unbounded (every page cached, no I/O modelled)".into(),
            },
        );
        settings.insert(
            "innodb_change_buffering".into(),
            if self.settings.change_buffering_on() { "all" } else { "none" }.into(),
        );
        settings.insert("innodb_autoinc_lock_mode".into(), self.autoinc_lock_mode.into());
        settings.insert("writer_interleave".into(), self.interleave.token().into());
        if self.settings.buffer_pool_bytes.is_some() {
            // With a pool only: runs without one model no page cleaner.
            let rules = match self.settings.pool.page_cleaner {
                PageCleanerRules::Since10_11_9 => "MariaDB 10.11.9 rules",
                PageCleanerRules::Before10_11_7 => "MariaDB 10.11.0 rules",
            };
            settings.insert("page_cleaner".into(), rules.into());
        }
        settings.insert("figures".into(), "simulated".into());
        if !self.notes.is_empty() {
            settings.insert("notes".into(), self.notes.clone().into());
        }
        EngineInfo {
            kind: "sim".into(),
            version: format!(
                "keylab {} InnoDB page model of {}",
                env!("CARGO_PKG_VERSION"),
                model.server()
            ),
            model: Some(model.token().into()),
            settings,
        }
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        let sim = SimTable::new(table, self.settings)
            .map_err(|e| EngineError::Rejected(e.to_string()))?;
        self.table = Some(sim);
        self.ddl_state = Default::default();
        let page = self.settings.page_size.bytes();
        for p in keylab_schema::limits::check(table, page).unwrap_or_default() {
            let note = p.note(table);
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        Ok(())
    }

    fn load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        if table.row_format == RowFormat::Compressed {
            return Err(EngineError::Unsupported(
                "ROW_FORMAT=COMPRESSED: the InnoDB model does not model compressed pages (their \
                 zlib streams and modification logs), so it loads no rows into such a table; its \
                 DDL rules still apply"
                    .into(),
            ));
        }
        let (mode, mix) = (self.autoinc_lock_mode, self.interleave);
        let sim = self.table_mut()?;
        let held = sim.len();
        let mut done = 0u64;
        // The curve counts from this load's start (a table may hold rows already).
        let base = sim.pool_counters();
        let mut sampler = base.map(|_| PoolCurveSampler::new());
        let mut due = sampler.as_ref().map_or(u64::MAX, PoolCurveSampler::next_due);
        let since = |sim: &SimTable| {
            let (now, base) = (sim.pool_counters().unwrap_or_default(), base.unwrap_or_default());
            (now.pages_read - base.pages_read, now.pages_written - base.pages_written)
        };
        // Rows go in batches, whose inserts prefetch the memory of the rows ahead
        // (`SimTable::insert_batch`); with a pool a batch also ends where the curve takes its
        // next sample, so every sample sees the counters after exactly its row.
        let mut batch: Vec<Row> = Vec::with_capacity(INSERT_BATCH_ROWS);
        // Inserts the batch when it is full, reaches the curve's next sample, or `last`.
        let mut flush = |batch: &mut Vec<Row>, last: bool| {
            let full = batch.len() == INSERT_BATCH_ROWS || done + batch.len() as u64 == due;
            if !(full || last) {
                return Ok(());
            }
            let result = sim.insert_batch(batch);
            let inserted = result.as_ref().map_or_else(|&(i, _)| i, |()| batch.len()) as u64;
            let before = done;
            done += inserted;
            let reports = done / PROGRESS_EVERY - before / PROGRESS_EVERY;
            if reports > 0 {
                on_rows(reports * PROGRESS_EVERY);
            }
            batch.clear();
            if done == due {
                if let Some(s) = sampler.as_mut() {
                    let (read, written) = since(sim);
                    s.offer(done, read, Some(written));
                    due = s.next_due();
                }
            }
            result.map_err(|(_, e)| EngineError::Rejected(e.to_string()))
        };
        let loaded = crate::writers::interleave(table, plan, mode, mix, rows, |row| {
            batch.push(row);
            flush(&mut batch, false)
        })?;
        flush(&mut batch, true)?;
        on_rows(loaded % PROGRESS_EVERY);
        let curve = sampler.map(|s| {
            let (read, written) = since(sim);
            s.finish(loaded, read, Some(written))
        });
        Ok(self.loaded(held, loaded, curve))
    }

    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        // As the server's measurement (FLUSH TABLES ... FOR EXPORT) merges buffered changes.
        self.table_mut()?.merge_change_buffer();
        self.figures(table)
    }

    /// A load sample, which on a server no longer flushes the table: no merge.
    fn sample(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        self.figures(table)
    }

    fn apply(
        &mut self,
        _table: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        let sim = self.table_mut()?;
        let mut done = 0u64;
        for op in ops {
            match op {
                Op::Insert(row) => {
                    sim.insert(&row).map_err(|e| EngineError::Rejected(e.to_string()))?
                }
                // Like a server's DELETE, a key that is not there deletes nothing.
                Op::Delete(pk) => {
                    sim.delete(&pk).map_err(|e| EngineError::Rejected(e.to_string()))?;
                }
            }
            done += 1;
            if done % PROGRESS_EVERY == 0 {
                on_ops(PROGRESS_EVERY);
            }
        }
        on_ops(done % PROGRESS_EVERY);
        Ok(())
    }

    fn rebuild(&mut self, _table: &Table, fill_factor_pct: u8) -> Result<(), EngineError> {
        self.ddl_state.row_versions = 0;
        self.table_mut()?.rebuild(fill_factor_pct).map_err(|e| EngineError::Rejected(e.to_string()))
    }

    fn timed_inserts(
        &mut self,
        _table: &Table,
        _plan: &keylab_core::TimedPlan,
        _rows: &mut (dyn Iterator<Item = keylab_core::Row> + Send),
    ) -> Result<keylab_core::TimedOutcome, EngineError> {
        Err(crate::no_clock())
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        self.table_mut()?.restart();
        Ok(())
    }

    fn ddl(&mut self, table: &Table, ddl: &DdlSpec) -> Result<DdlOutcome, EngineError> {
        self.table()?;
        Ok(crate::ddl::outcome(self.settings.flavour, table, ddl, 0, &mut self.ddl_state))
    }

    fn ddl_under_writes(
        &mut self,
        table: &Table,
        ddl: &DdlSpec,
        writers: u32,
        _rows: &mut dyn Iterator<Item = Row>,
    ) -> Result<DdlOutcome, EngineError> {
        // The model inserts nothing during the statement: how many rows the writers get in
        // is the server's timing.
        self.table()?;
        Ok(crate::ddl::outcome(self.settings.flavour, table, ddl, writers, &mut self.ddl_state))
    }

    fn work(
        &mut self,
        _table: &Table,
        ops: &mut dyn Iterator<Item = keylab_core::WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<keylab_core::WorkOutcome, EngineError> {
        crate::innodb_work::work(self.table_mut()?, ops, on_ops)
    }

    fn drop_table(&mut self, _table: &Table) -> Result<(), EngineError> {
        self.table = None;
        self.curve = None;
        Ok(())
    }
}

/// The InnoDB model's rules of `model`; `None` for a model of another engine (PostgreSQL's
/// nbtree has its own engine, [`crate::NbtreeEngine`]).
pub fn flavour(model: SimModel) -> Option<Flavour> {
    match model {
        SimModel::Mariadb1011 => Some(Flavour::MariaDb1011),
        SimModel::Mysql80 => Some(Flavour::Mysql80),
        SimModel::Postgres15 => None,
    }
}

/// A page size that is not one of InnoDB's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("page size {bytes} bytes is not an InnoDB page size; valid: 4k, 8k, 16k, 32k, 64k")]
pub struct PageSizeError {
    /// The size asked for.
    pub bytes: u32,
}

/// The simulator's settings for a run's `settings` (the flavour, pool rules and checker are
/// the caller's to set).
pub fn sim_settings(settings: &EngineSettings) -> Result<SimSettings, PageSizeError> {
    let page_size = PageSize::ALL
        .into_iter()
        .find(|p| p.bytes() == settings.page_size_bytes)
        .ok_or(PageSizeError { bytes: settings.page_size_bytes })?;
    Ok(SimSettings {
        page_size,
        fill_factor_pct: settings.fill_factor_pct,
        merge_threshold_pct: settings.merge_threshold_pct,
        buffer_pool_bytes: settings.buffer_pool_bytes,
        change_buffering: settings.change_buffering,
        ..SimSettings::default()
    })
}

/// The model whose rules `flavour` are.
fn sim_model(flavour: Flavour) -> SimModel {
    match flavour {
        Flavour::MariaDb1011 => SimModel::Mariadb1011,
        Flavour::Mysql80 => SimModel::Mysql80,
    }
}

/// `innodb_stats_persistent_sample_pages`, the server default.
const STATS_SAMPLE_PAGES: u64 = 20;

/// `n_leaf_pages` as `ANALYZE TABLE` stores it. `dict_stats_analyze_index` scans the whole
/// leaf level when the tree is a single page or when sampling would read more pages than the
/// level has (sample pages x n_uniq > leaf pages); that path keeps the value the index's
/// statistics were emptied to, 1 (seen on MariaDB 10.11: 15 leaves stored as 1).
fn n_leaf_pages_stat(leaf_pages: u64, height: u32, n_uniq: u64) -> u64 {
    if height <= 1 || STATS_SAMPLE_PAGES * n_uniq > leaf_pages {
        1
    } else {
        leaf_pages
    }
}

/// Fields that make an index's records unique (`dict_index_get_n_unique`): the primary key's
/// columns; a unique index's columns; a non-unique index's columns plus the primary-key
/// columns it lacks. `index` 0 is PRIMARY, then the secondary indexes in table order.
fn n_uniq(table: &Table, index: usize) -> u64 {
    let Some(ix) = index.checked_sub(1).and_then(|i| table.indexes.get(i)) else {
        return table.primary_key.len() as u64;
    };
    if ix.unique {
        return ix.columns.len() as u64;
    }
    let extra = table.primary_key.iter().filter(|c| !ix.columns.contains(c)).count();
    (ix.columns.len() + extra) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Value};

    fn table() -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new(
                    "id",
                    ColumnType::VarChar { chars: 32, charset: Charset::Latin1 },
                    false,
                ),
                Column::new("v", ColumnType::BigInt { unsigned: false }, false),
            ],
            primary_key: vec![0],
            auto_increment: false,
            indexes: vec![Index::new("k_v", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn row(i: u64) -> Row {
        let id = format!("{:032x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        vec![Value::Bytes(id.into_bytes()), Value::Int((i % 977) as i64)]
    }

    #[test]
    fn churn_and_rebuild_fill_the_counters() {
        let t = table();
        let settings =
            SimSettings { buffer_pool_bytes: Some(64 * 16384), ..SimSettings::default() };
        let mut e = SimEngine::new(settings);
        e.create_table(&t).unwrap();
        let mut rows = (0..20_000).map(row);
        e.load(&t, &LoadPlan::default(), &mut rows, &mut |_| {}).unwrap();
        let mut ops = (20_000..30_000)
            .map(|i| Op::Insert(row(i)))
            .chain((0..10_000).map(|i| Op::Delete(vec![row(i).swap_remove(0)])))
            .chain(std::iter::once(Op::Delete(vec![Value::Bytes(b"none".to_vec())])));
        let mut n = 0;
        e.apply(&t, &mut ops, &mut |k| n += k).unwrap();
        assert_eq!(n, 20_001);
        let m = e.measure(&t).unwrap();
        assert!(m.counters.merge_attempts.unwrap() > 0, "{m:?}");
        assert!(m.counters.pages_read.unwrap() > 0, "{m:?}");
        let bp = m.buffer_pool.as_ref().expect("a pool is modelled");
        assert_eq!(bp.pages_read, m.counters.pages_read);
        assert_eq!(bp.page_requests, m.counters.page_requests);
        assert!(bp.hit_ratio.is_some_and(|h| (0.0..=1.0).contains(&h)), "{bp:?}");
        assert!(bp.est_io_s_hdd > bp.est_io_s_ssd, "{bp:?}");
        let cb = bp.change_buffer.as_ref().expect("modelled");
        // 25 % of the pool's pages: 63 in 64 pages' bytes, the page descriptors taking one.
        assert_eq!(cb.cap_pages, Some(63 * 25 / 100), "{cb:?}");
        assert!(cb.max_size_pages >= cb.size_pages, "{cb:?}");
        let all = bp.pages_read.unwrap() + bp.pages_written.unwrap();
        let share = cb.page_io.unwrap() as f64 * 100.0 / all as f64;
        assert_eq!(cb.io_share_pct, Some(share), "{cb:?}");
        assert!(m.table.data_free.is_some());
        e.rebuild(&t, 80).unwrap();
        let after = e.measure(&t).unwrap();
        assert!(after.indexes[0].fill_pct.unwrap() < 82.0, "{after:?}");
        assert!(e.rebuild(&t, 5).is_err());
    }

    #[test]
    fn no_pool_no_buffer_pool_figures() {
        let t = table();
        let mut e = SimEngine::new(SimSettings::default());
        e.create_table(&t).unwrap();
        let mut rows = (0..1_000).map(row);
        e.load(&t, &LoadPlan::default(), &mut rows, &mut |_| {}).unwrap();
        let m = e.measure(&t).unwrap();
        assert_eq!(m.buffer_pool, None);
        assert_eq!(m.counters.page_requests, None);
    }
}
