//! The result model: the JSON contract of `design.md`. Every report format is rendered from
//! these types. A figure an engine cannot give is `None` (JSON `null`), never a guess.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of this result format, written as `schema_version` (an extension of the contract;
/// bump on any incompatible change).
pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// A whole keylab run: one engine, one or more variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// keylab's version.
    pub keylab: String,
    /// Version of this format.
    #[serde(default = "schema_version")]
    pub schema_version: u32,
    /// Scenario name (`compare` for `keylab compare`).
    pub scenario: String,
    /// Generator seed.
    pub seed: u64,
    /// The engine the runs were made on.
    pub engine: EngineInfo,
    /// One entry per variant, in run order.
    pub runs: Vec<RunResult>,
}

fn schema_version() -> u32 {
    REPORT_SCHEMA_VERSION
}

/// The engine of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// `sim`, `mariadb`, `mysql` or `postgres`.
    pub kind: String,
    /// The server's version, or the simulator's model (e.g. `InnoDB model of MariaDB 10.11`).
    pub version: String,
    /// Settings in effect (page size, fill factor, buffer pool...).
    pub settings: BTreeMap<String, serde_json::Value>,
}

/// One variant's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// `strategy:encoding`.
    pub variant: String,
    /// Key strategy token.
    pub strategy: String,
    /// Encoding token.
    pub encoding: String,
    /// `pk` or `secondary`.
    pub placement: String,
    /// Rows loaded.
    pub rows: u64,
    /// The load.
    pub load: LoadResult,
    /// Counters named like `INNODB_METRICS`.
    pub counters: Counters,
    /// Table sizes as `INFORMATION_SCHEMA.TABLES` reports them.
    pub table: TableSizes,
    /// Per index, PRIMARY first.
    pub indexes: Vec<IndexResult>,
    /// Per-phase results (churn, rebuild, queries, ddl).
    #[serde(default)]
    pub phases: Vec<PhaseResult>,
    /// Timed queries.
    #[serde(default)]
    pub queries: Vec<QueryResult>,
}

/// How the rows were loaded, and how long it took where the engine measures time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    /// Load method token.
    pub method: String,
    /// Rows per statement or transaction.
    pub batch: u32,
    /// Parallel connections.
    pub writers: u32,
    /// Measured wall time, seconds (`null` on the simulator).
    pub wall_s: Option<f64>,
    /// Measured rows per second (`null` on the simulator).
    pub rows_per_s: Option<f64>,
    /// Measured per-batch latency (`null` on the simulator).
    pub batch_latency_ms: Option<LatencyMs>,
    /// Measured latency of each writer's first batch, ms (an extension of the contract;
    /// absent where not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_batch_ms: Option<Vec<f64>>,
}

/// Latency percentiles in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyMs {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

/// Counters over a run, named after `INNODB_METRICS` (`index_page_splits` → `page_splits`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Page splits as the engine's `index_page_splits` counts them.
    pub page_splits: Option<u64>,
    /// `index_page_merge_attempts`.
    pub merge_attempts: Option<u64>,
    /// `index_page_merge_successful`.
    pub merges: Option<u64>,
    /// `index_page_reorg_attempts`.
    pub page_reorgs: Option<u64>,
    /// `index_page_discards`.
    pub page_discards: Option<u64>,
    /// Pages read from storage.
    pub pages_read: Option<u64>,
    /// Pages written to storage.
    pub pages_written: Option<u64>,
}

/// Table sizes in bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableSizes {
    /// `DATA_LENGTH`: the clustered index's `size` × page size.
    pub data_length: Option<u64>,
    /// `INDEX_LENGTH`: the secondary indexes' `size` × page size.
    pub index_length: Option<u64>,
    /// `DATA_FREE`.
    pub data_free: Option<u64>,
}

/// One index's shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexResult {
    /// Index name (`PRIMARY` for the clustered index).
    pub name: String,
    /// `mysql.innodb_index_stats` `size`: pages allocated to the index.
    pub size_pages: Option<u64>,
    /// Leaf pages in use (`btr_get_size(BTR_N_LEAF_PAGES)`: B-tree leaves and BLOB pages).
    /// This is the true count; `mysql.innodb_index_stats` can say otherwise, see
    /// `n_leaf_pages_stat`.
    pub leaf_pages: Option<u64>,
    /// `n_leaf_pages` exactly as `mysql.innodb_index_stats` stores it after `ANALYZE TABLE`
    /// (an extension of the contract). It differs from `leaf_pages` when the statistics take
    /// their full-scan path, which stores 1 (see `dict_stats_analyze_index`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_leaf_pages_stat: Option<u64>,
    /// Pages above the leaf level.
    pub nonleaf_pages: Option<u64>,
    /// Levels, leaf included.
    pub height: Option<u32>,
    /// Mean over leaf pages of used bytes / page size × 100 (`DATA_SIZE`).
    pub fill_pct: Option<f64>,
    /// Mean records per leaf page.
    pub records_per_leaf: Option<f64>,
    /// Leaf pages by fill, ten buckets of ten points (`[0,10)`, … `[90,100]`).
    pub fill_histogram: Option<Vec<u64>>,
    /// Pages per level, leaf first (an extension of the contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_per_level: Option<Vec<u64>>,
}

/// One phase's figures (churn, rebuild, queries, ddl), free-form per kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// Phase kind.
    pub kind: String,
    /// Phase figures.
    #[serde(flatten)]
    pub figures: BTreeMap<String, serde_json::Value>,
}

/// One timed query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    /// Query name (`pk_range`, `point`, ...).
    pub name: String,
    /// Timed runs.
    pub runs: u32,
    /// Median time, ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile, ms.
    pub p99_ms: Option<f64>,
    /// Rows returned per run.
    pub rows: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_figures_serialise_as_null() {
        let c = Counters { page_splits: Some(3), ..Counters::default() };
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"{"page_splits":3,"merge_attempts":null,"merges":null,"page_reorgs":null,"page_discards":null,"pages_read":null,"pages_written":null}"#
        );
    }
}
