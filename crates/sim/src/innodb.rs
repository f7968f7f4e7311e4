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
//!
//! The figures a measurement or a load sample reports are built in `innodb/figures.rs`; the
//! model's settings from a run's in `innodb/settings.rs`.

use keylab_core::{
    DdlOutcome, DdlSpec, Engine, EngineError, EngineInfo, LoadOutcome, LoadPlan, LoadVerification,
    Measurement, Op, PoolCurvePoint, PoolCurveSampler, Row,
};
use keylab_innodb_model::{Flavour, PageCleanerRules, SimSettings, SimTable};
use keylab_schema::{RowFormat, Table};
use std::collections::BTreeMap;

mod figures;
mod settings;

use settings::sim_model;
pub use settings::{flavour, sim_settings, PageSizeError};

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
