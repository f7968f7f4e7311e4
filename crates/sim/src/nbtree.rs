//! The nbtree model as a keylab [`Engine`] (`--engine sim --model postgres-15`): rows go into
//! a `keylab_nbtree_model::NbtreeTable` in stream order, so every figure is a prediction of
//! PostgreSQL 15, never a measurement; timings are `null`. Each load statement (or row
//! transaction) commits one transaction; several writers are modelled as one (their
//! interleaving on a server is the server's). Churn commits every thousand operations and
//! ends with a `VACUUM`; rebuilds are `REINDEX` with the index `fillfactor`. A table's own
//! `fillfactor`s ([`FillFactors`], `keylab advise`) set its heap's and each index's.
//! With `--buffer-pool`, the model's shared buffers (`keylab_nbtree_model::buffers`) give page
//! requests, reads (relation extension included, as `pg_statio` counts it) and writes, and
//! the misses-vs-rows curve of each load; a COPY (`load-data`) puts heap pages through the
//! bulk-write ring. Without it every page is cached: those figures are `null` and restarts
//! are not applicable.

use keylab_core::{
    per_1k_rows, BufferPoolResult, Counters, Engine, EngineError, EngineInfo, EngineSettings,
    FillFactors, IndexResult, LoadMethod, LoadOutcome, LoadPlan, LoadVerification, Measurement, Op,
    PoolCurvePoint, PoolCurveSampler, PostgresFigures, Row, SimModel, TableSizes,
};
use keylab_nbtree_model::buffers::BUFFER_BYTES;
use keylab_nbtree_model::{geometry::PAGE_BYTES, ModelError, NbtreeSettings, NbtreeTable};
use keylab_schema::Table;
use std::collections::BTreeMap;

/// Rows between progress reports.
const PROGRESS_EVERY: u64 = 16_384;
/// Churn operations per transaction (`ChurnDelete::ByKey`'s transactions of a thousand).
const CHURN_TRANSACTION_OPS: u64 = 1_000;

/// The embedded nbtree page model of PostgreSQL 15.
pub struct NbtreeEngine {
    settings: NbtreeSettings,
    table: Option<NbtreeTable>,
    notes: Vec<String>,
    fill_factors: FillFactors,
    /// The shared buffers' curve during the last load (with `--buffer-pool` only).
    curve: Option<Vec<PoolCurvePoint>>,
}

impl NbtreeEngine {
    /// A model with these settings.
    pub fn new(settings: NbtreeSettings) -> Self {
        NbtreeEngine {
            settings,
            table: None,
            notes: Vec::new(),
            fill_factors: FillFactors::default(),
            curve: None,
        }
    }

    fn table_mut(&mut self) -> Result<&mut NbtreeTable, EngineError> {
        self.table.as_mut().ok_or_else(|| EngineError::Failed("no table created".into()))
    }

    /// The model's table, for callers that insert row by row (`keylab advise` counts the
    /// leaf of every insert).
    pub fn nbtree_table_mut(&mut self) -> Result<&mut NbtreeTable, EngineError> {
        self.table_mut()
    }
}

/// The nbtree model's settings for a run's `settings`: PostgreSQL's own defaults (index
/// fillfactor 90, table fillfactor 100, 8 KiB blocks; InnoDB's page size and fill factor do
/// not apply), the checkpoint cadence asked for, and `--buffer-pool` as `shared_buffers`.
/// `check_every` turns on the model's invariant checker.
pub fn nbtree_settings(settings: &EngineSettings, check_every: Option<u64>) -> NbtreeSettings {
    NbtreeSettings {
        checkpoint_every_rows: settings.checkpoint_every_rows,
        shared_buffers_bytes: settings.buffer_pool_bytes,
        check_every,
        ..NbtreeSettings::default()
    }
}

fn rejected(e: ModelError) -> EngineError {
    match e {
        ModelError::Unsupported(m) => EngineError::Unsupported(m),
        ModelError::Rejected(m) => EngineError::Rejected(m),
        e @ ModelError::Invariant { .. } => EngineError::Failed(e.to_string()),
    }
}

impl Engine for NbtreeEngine {
    fn info(&self) -> EngineInfo {
        let s = &self.settings;
        let mut settings = BTreeMap::new();
        settings.insert("block_size".into(), PAGE_BYTES.into());
        settings.insert("index_fillfactor".into(), s.index_fillfactor_pct.into());
        let ff = &self.fill_factors;
        settings.insert(
            "table_fillfactor".into(),
            ff.table_pct.unwrap_or(s.heap_fillfactor_pct).into(),
        );
        if let Some(own) = ff.by_index_setting() {
            settings.insert("index_fillfactor_by_index".into(), own);
        }
        settings.insert(
            "checkpoint_every_rows".into(),
            match s.checkpoint_every_rows {
                Some(n) => n.into(),
                None => "none during the run".into(),
            },
        );
        settings.insert("full_page_writes".into(), "on".into());
        settings.insert(
            "deduplicate_items".into(),
            "on (non-unique indexes; unique ones not deduplicated)".into(),
        );
        settings.insert("collation".into(), "C".into());
        settings.insert(
            "shared_buffers".into(),
            match s.shared_buffers_bytes {
                Some(b) => b.into(),
                None => "unbounded (every page cached, no I/O modelled)".into(),
            },
        );
        if s.shared_buffers_bytes.is_some() {
            settings.insert(
                "buffer_writes".into(),
                "backends write dirty pages they evict, checkpoints the rest; the background \
                 writer is not modelled (time-driven)"
                    .into(),
            );
        }
        settings.insert("figures".into(), "simulated".into());
        if !self.notes.is_empty() {
            settings.insert("notes".into(), self.notes.clone().into());
        }
        EngineInfo {
            kind: "sim".into(),
            version: format!(
                "keylab {} nbtree page model of {}",
                env!("CARGO_PKG_VERSION"),
                SimModel::Postgres15.server()
            ),
            model: Some(SimModel::Postgres15.token().into()),
            settings,
        }
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        let ff = &self.fill_factors;
        let settings = NbtreeSettings {
            heap_fillfactor_pct: ff.table_pct.unwrap_or(self.settings.heap_fillfactor_pct),
            ..self.settings
        };
        let mut t = NbtreeTable::new(table, settings).map_err(rejected)?;
        // Secondary indexes follow the primary key's, when the table has one.
        let first_secondary = usize::from(t.has_primary_key());
        if let (Some(p), true) = (ff.primary_key_pct, t.has_primary_key()) {
            t.set_index_fillfactor(0, p).map_err(rejected)?;
        }
        for (name, p) in &ff.index_pct {
            let i = table.indexes.iter().position(|ix| ix.name == *name).ok_or_else(|| {
                EngineError::Rejected(format!(
                    "fillfactor {p} given for index `{name}`, which table `{}` does not have",
                    table.name
                ))
            })?;
            t.set_index_fillfactor(first_secondary + i, *p).map_err(rejected)?;
        }
        self.table = Some(t);
        Ok(())
    }

    fn set_fill_factors(&mut self, fill_factors: &FillFactors) -> Result<(), EngineError> {
        self.fill_factors = fill_factors.clone();
        Ok(())
    }

    fn load(
        &mut self,
        _table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        let t = self.table_mut()?;
        let held = t.live_rows();
        // A transaction per statement; a row batch of 1 is autocommit.
        let per_tx = match plan.method {
            LoadMethod::LoadData => u64::MAX,
            _ => u64::from(plan.batch.max(1)),
        };
        // COPY inserts through a bulk insert state (`CopyFrom`'s `GetBulkInsertState`).
        t.set_bulk_insert(plan.method == LoadMethod::LoadData);
        // The curve counts from this load's start (a table may hold rows already).
        let io = |t: &NbtreeTable| t.buffers().map(|b| b.counters());
        let base = io(t);
        let mut sampler = base.map(|_| PoolCurveSampler::new());
        let mut due = sampler.as_ref().map_or(u64::MAX, PoolCurveSampler::next_due);
        let since = |t: &NbtreeTable| {
            let (now, then) = (io(t).unwrap_or_default(), base.unwrap_or_default());
            (now.reads - then.reads, now.pages_written() - then.pages_written())
        };
        let mut loaded = 0u64;
        for row in rows {
            let inserted = t.insert(&row).map_err(rejected);
            if inserted.is_err() {
                t.set_bulk_insert(false);
            }
            inserted?;
            loaded += 1;
            if loaded % per_tx == 0 {
                t.commit();
            }
            if plan.method == LoadMethod::LoadData && loaded % u64::from(plan.batch.max(1)) == 0 {
                // The next COPY statement gets a bulk insert state of its own.
                t.set_bulk_insert(true);
            }
            if loaded == due {
                if let Some(s) = sampler.as_mut() {
                    let (read, written) = since(t);
                    s.offer(loaded, read, Some(written));
                    due = s.next_due();
                }
            }
            if loaded % PROGRESS_EVERY == 0 {
                on_rows(PROGRESS_EVERY);
            }
        }
        t.commit();
        t.set_bulk_insert(false);
        on_rows(loaded % PROGRESS_EVERY);
        let curve = sampler.map(|s| {
            let (read, written) = since(t);
            s.finish(loaded, read, Some(written))
        });
        let verification = LoadVerification {
            rows_expected: held + loaded,
            rows_found: Some(t.live_rows()),
            checksum_equal: None,
            checked: "rows: the model's live heap tuples; no checksum (the model keeps keys \
                      and tuple sizes, not values)"
                .into(),
        };
        self.curve = curve;
        Ok(LoadOutcome { rows: loaded, verification: Some(verification), ..LoadOutcome::default() })
    }

    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        // Reported as the real engine reports it (`PRIMARY`), so validate pairs the indexes.
        let pkey = format!("{}_pkey", table.name);
        let curve = self.curve.clone();
        let t = self.table_mut()?;
        let s = t.stats();
        let buffer_pool = t.buffers().filter(|b| b.bounded()).map(|b| {
            let c = b.counters();
            let ops = t.row_ops();
            BufferPoolResult {
                pool_bytes: Some(u64::from(b.buffers()) * BUFFER_BYTES),
                page_requests: Some(c.requests),
                pages_read: Some(c.reads),
                // The InnoDB counters' split; PostgreSQL's engines give none.
                index_pages_read: keylab_core::Figure::Null,
                pages_written: Some(c.pages_written()),
                row_ops: Some(ops),
                hit_ratio: keylab_core::hit_ratio(Some(c.requests), Some(c.reads)),
                misses_per_op: keylab_core::misses_per_op(Some(c.reads), Some(ops)),
                evictions: Some(c.evictions),
                reads_per_1k_rows: per_1k_rows(Some(c.reads), Some(ops)),
                writes_per_1k_rows: per_1k_rows(Some(c.pages_written()), Some(ops)),
                curve,
                change_buffer: None,
                // keylab's device model is InnoDB's; no estimate is made for PostgreSQL.
                est_io_s_hdd: None,
                est_io_s_ssd: None,
            }
        });
        let counters_io =
            buffer_pool.as_ref().map(|b| (b.pages_read, b.pages_written, b.page_requests));
        let w = &s.wal;
        let page = u64::from(PAGE_BYTES);
        let indexes: Vec<IndexResult> = s
            .indexes
            .iter()
            .map(|(name, ix)| IndexResult {
                name: if *name == pkey { "PRIMARY".into() } else { name.clone() },
                size_pages: Some(ix.size_pages),
                leaf_pages: Some(ix.leaf_pages),
                nonleaf_pages: Some(ix.internal_pages),
                height: Some(ix.height),
                fill_pct: Some(ix.avg_leaf_density),
                records_per_leaf: Some(ix.entries_per_leaf),
                fill_histogram: Some(ix.fill_histogram.to_vec()),
                pages_per_level: Some(ix.pages_per_level.clone()),
                avg_leaf_density: Some(ix.avg_leaf_density),
                leaf_fragmentation: Some(ix.leaf_fragmentation),
                deleted_pages: Some(ix.deleted_pages),
                recyclable_pages: Some(ix.recyclable_pages),
                ..IndexResult::default()
            })
            .collect();
        let index_pages: u64 = s.indexes.iter().map(|(_, ix)| ix.size_pages).sum();
        Ok(Measurement {
            counters: Counters {
                // Every split is a SPLIT_L or SPLIT_R WAL record on the server.
                page_splits: Some(w.split_left + w.split_right),
                pages_read: counters_io.and_then(|c| c.0),
                pages_written: counters_io.and_then(|c| c.1),
                page_requests: counters_io.and_then(|c| c.2),
                ..Counters::default()
            },
            table: TableSizes {
                data_length: Some(s.heap_pages * page),
                index_length: Some(index_pages * page),
                data_free: None,
            },
            indexes,
            buffer_pool,
            postgres: Some(PostgresFigures {
                wal_bytes: None,
                wal_records: None,
                full_page_images: Some(w.full_page_images),
                full_page_image_bytes: Some(w.full_page_image_bytes),
                split_left: Some(w.split_left),
                split_right: Some(w.split_right),
                new_roots: Some(w.new_roots),
                checkpoints: Some(w.epoch),
                heap_pages: Some(s.heap_pages),
                collation: s.collation.map(str::to_string),
            }),
            shards: None,
        })
    }

    fn drop_table(&mut self, _table: &Table) -> Result<(), EngineError> {
        self.table = None;
        Ok(())
    }

    fn apply(
        &mut self,
        _table: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        let t = self.table_mut()?;
        let mut done = 0u64;
        for op in ops {
            match op {
                Op::Insert(row) => t.insert(&row).map_err(rejected)?,
                // Like a server's DELETE, a key that is not there deletes nothing.
                Op::Delete(pk) => {
                    t.delete(&pk).map_err(rejected)?;
                }
            }
            done += 1;
            if done % CHURN_TRANSACTION_OPS == 0 {
                t.commit();
            }
            if done % PROGRESS_EVERY == 0 {
                on_ops(PROGRESS_EVERY);
            }
        }
        t.commit();
        t.vacuum().map_err(rejected)?;
        on_ops(done % PROGRESS_EVERY);
        Ok(())
    }

    fn rebuild(&mut self, _table: &Table, fill_factor_pct: u8) -> Result<(), EngineError> {
        let note = "rebuild phases: the fill factor becomes each index's fillfactor, then \
                    REINDEX (a sorted build of every index), PostgreSQL's counterpart of \
                    innodb_fill_factor + OPTIMIZE TABLE; the heap keeps its own";
        if !self.notes.iter().any(|n| n == note) {
            self.notes.push(note.into());
        }
        self.table_mut()?.rebuild(fill_factor_pct).map_err(rejected)
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
        self.table_mut()?.restart_buffers().map_err(rejected)
    }

    fn work(
        &mut self,
        table: &Table,
        ops: &mut dyn Iterator<Item = keylab_core::WorkOp>,
        on_ops: &mut dyn FnMut(u64),
    ) -> Result<keylab_core::WorkOutcome, EngineError> {
        crate::nbtree_reads::work(self.table_mut()?, table, ops, on_ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, RowFormat, Value};

    fn table() -> Table {
        Table {
            name: "t".into(),
            columns: vec![Column::new("id", ColumnType::Binary { bytes: 16 }, false)],
            primary_key: vec![0],
            auto_increment: false,
            indexes: Vec::new(),
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn row(i: u64) -> Row {
        let mut b = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes().to_vec();
        b.extend_from_slice(&i.to_be_bytes());
        vec![Value::Bytes(b)]
    }

    #[test]
    fn the_users_fill_factors_are_shown_and_an_unknown_index_is_refused() {
        let t = table();
        let mut e = NbtreeEngine::new(NbtreeSettings::default());
        let plain = e.info().settings;
        assert!(!plain.contains_key("index_fillfactor_by_index"));
        assert_eq!(plain["table_fillfactor"], 100);
        let ff = FillFactors { table_pct: Some(80), primary_key_pct: Some(70), index_pct: vec![] };
        e.set_fill_factors(&ff).unwrap();
        let s = e.info().settings;
        assert_eq!(s["table_fillfactor"], 80);
        assert_eq!(s["index_fillfactor"], 90);
        assert_eq!(s["index_fillfactor_by_index"]["PRIMARY"], 70);
        e.create_table(&t).unwrap();
        let ascending = |i: u64| vec![Value::Bytes((i << 20).to_be_bytes().repeat(2))];
        e.load(&t, &LoadPlan::default(), &mut (0..20_000).map(ascending), &mut |_| {}).unwrap();
        let fill = e.measure(&t).unwrap().indexes[0].fill_pct.unwrap();
        assert!((68.0..=71.0).contains(&fill), "{fill}");
        let unknown =
            FillFactors { index_pct: vec![("nope".into(), 50)], ..FillFactors::default() };
        e.set_fill_factors(&unknown).unwrap();
        let err = e.create_table(&t).unwrap_err();
        assert!(err.to_string().contains("index `nope`"), "{err}");
    }

    #[test]
    fn load_churn_and_rebuild_give_nbtree_figures() {
        let t = table();
        let mut e = NbtreeEngine::new(NbtreeSettings::default());
        e.create_table(&t).unwrap();
        e.load(&t, &LoadPlan::default(), &mut (0..20_000).map(row), &mut |_| {}).unwrap();
        let m = e.measure(&t).unwrap();
        assert_eq!(m.indexes[0].name, "PRIMARY");
        let pg = m.postgres.as_ref().unwrap();
        assert_eq!(m.counters.page_splits, Some(pg.split_left.unwrap() + pg.split_right.unwrap()));
        assert!(m.indexes[0].leaf_fragmentation.unwrap() > 30.0, "{m:?}");
        let mut ops = (0..20_000).map(|i| Op::Delete(row(i)));
        e.apply(&t, &mut ops, &mut |_| {}).unwrap();
        let after = e.measure(&t).unwrap();
        assert!(after.indexes[0].deleted_pages.unwrap() > 0, "{after:?}");
        e.rebuild(&t, 100).unwrap();
        assert!(matches!(e.restart(), Err(EngineError::Unsupported(_))));
    }
}
