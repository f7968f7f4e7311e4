//! The simulator as a keylab [`Engine`]: rows go into a `SimTable` in stream order; figures
//! come from its model of InnoDB, so every one of them is a prediction, never a measurement.
//! Load method, batch and writers do not change what the model builds (one ordered stream);
//! timings are left `null` because the simulator's speed predicts nothing about a server's.

use keylab_core::{
    Counters, Engine, EngineError, EngineInfo, IndexResult, LoadOutcome, LoadPlan, Measurement,
    Row, TableSizes,
};
use keylab_schema::Table;
use keylab_sim::{Flavour, SimSettings, SimTable};
use std::collections::BTreeMap;

/// Rows between progress reports.
const PROGRESS_EVERY: u64 = 16_384;

/// The embedded InnoDB page simulator.
pub struct SimEngine {
    settings: SimSettings,
    table: Option<SimTable>,
}

impl SimEngine {
    /// A simulator with these settings.
    pub fn new(settings: SimSettings) -> Self {
        SimEngine { settings, table: None }
    }

    fn table(&self) -> Result<&SimTable, EngineError> {
        self.table.as_ref().ok_or_else(|| EngineError::Failed("no table created".into()))
    }
}

impl Engine for SimEngine {
    fn info(&self) -> EngineInfo {
        let model = match self.settings.flavour {
            Flavour::MariaDb1011 => "MariaDB 10.11",
            Flavour::Mysql80 => "MySQL 8.0",
        };
        let mut settings = BTreeMap::new();
        settings.insert("innodb_page_size".into(), self.settings.page_size.bytes().into());
        settings.insert("innodb_fill_factor".into(), self.settings.fill_factor_pct.into());
        settings.insert("merge_threshold_pct".into(), self.settings.merge_threshold_pct.into());
        settings.insert("row_format".into(), "DYNAMIC".into());
        settings.insert("figures".into(), "simulated".into());
        EngineInfo {
            kind: "sim".into(),
            version: format!("keylab {} InnoDB page model of {model}", env!("CARGO_PKG_VERSION")),
            settings,
        }
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        let sim = SimTable::new(table, self.settings)
            .map_err(|e| EngineError::Rejected(e.to_string()))?;
        self.table = Some(sim);
        Ok(())
    }

    fn load(
        &mut self,
        _table: &Table,
        _plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        let sim =
            self.table.as_mut().ok_or_else(|| EngineError::Failed("no table created".into()))?;
        let mut loaded = 0u64;
        for row in rows {
            sim.insert(&row).map_err(|e| EngineError::Rejected(e.to_string()))?;
            loaded += 1;
            if loaded % PROGRESS_EVERY == 0 {
                on_rows(PROGRESS_EVERY);
            }
        }
        on_rows(loaded % PROGRESS_EVERY);
        Ok(LoadOutcome { rows: loaded, ..LoadOutcome::default() })
    }

    fn measure(&mut self, _table: &Table) -> Result<Measurement, EngineError> {
        let stats = self.table()?.stats();
        let c = &stats.counters;
        Ok(Measurement {
            counters: Counters {
                page_splits: Some(c.page_splits),
                // The insert path never merges or discards: these zeros are the model's.
                merge_attempts: Some(0),
                merges: Some(0),
                page_reorgs: Some(c.page_reorgs),
                page_discards: Some(0),
                // No buffer pool is modelled yet.
                pages_read: None,
                pages_written: None,
            },
            table: TableSizes {
                data_length: Some(stats.data_length_bytes),
                index_length: Some(stats.index_length_bytes),
                data_free: None,
            },
            indexes: stats
                .indexes
                .iter()
                .map(|ix| IndexResult {
                    name: ix.name.clone(),
                    size_pages: Some(ix.size_pages),
                    leaf_pages: Some(ix.leaf_pages),
                    nonleaf_pages: Some(ix.nonleaf_pages),
                    height: Some(ix.height),
                    fill_pct: Some(ix.fill_pct),
                    records_per_leaf: Some(ix.records_per_leaf),
                    fill_histogram: Some(ix.fill_histogram.to_vec()),
                    pages_per_level: Some(ix.pages_per_level.clone()),
                })
                .collect(),
        })
    }

    fn drop_table(&mut self, _table: &Table) -> Result<(), EngineError> {
        self.table = None;
        Ok(())
    }
}
