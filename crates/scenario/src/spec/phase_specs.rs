//! The `[[phases]]` of a scenario file as written: one serde type per phase kind (load,
//! churn, rebuild, restart, queries, ddl, reads, mixed, timed) with its defaults, and the load's batch (`1000` or
//! `"500..1500"`).
//!
//! Not for: checks across a phase's fields or against the cell (`plan/phase_plans.rs`), or
//! `--scale` (applied when planning).

use super::one_nz;
use super::values::{FillFactor, IntOrString, TypeSpec};
use keylab_core::{ChurnDelete, ChurnInsert, DdlAction, DdlAlgorithm, DdlLock, LoadMethod};
use serde::{de, Deserialize, Deserializer};
use std::fmt;
use std::num::{NonZeroU32, NonZeroU64};
use toml::Spanned;

/// A phase, written `[[phases]]` then `load = { ... }` (or `[phases.load]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PhaseSpec {
    /// Load rows.
    Load(LoadSpec),
    /// Rounds of inserting new rows and deleting random ones.
    Churn(ChurnSpec),
    /// `OPTIMIZE TABLE` under a fill factor.
    Rebuild(RebuildSpec),
    /// A server restart on the same data (a cold buffer pool): `restart = {}`.
    Restart(RestartSpec),
    /// Timed queries.
    Queries(QueriesSpec),
    /// Online schema changes.
    Ddl(DdlPhaseSpec),
    /// Reads of the rows loaded so far: `reads = ["point:100000:latest=5%", ...]`, each
    /// `KIND:COUNT[:DISTRIBUTION]` (parsed when planning, so errors point at each string).
    Reads(Spanned<Vec<Spanned<String>>>),
    /// Inserts and reads interleaved: `mixed = { ops, insert_share, reads }`.
    Mixed(MixedSpec),
    /// Inserts for a fixed time from client threads, throughput per interval:
    /// `timed = { seconds, threads, interval_s, max_rows }` (a server only).
    Timed(TimedSpec),
}

/// `timed = { seconds = 10, threads = 64, interval_s = 1, max_rows = 1_000_000 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedSpec {
    /// How long the threads insert, seconds (not scaled by `--scale`).
    pub seconds: Spanned<f64>,
    /// Client threads, one connection each (default 1).
    #[serde(default = "one_nz")]
    pub threads: NonZeroU32,
    /// The throughput series' interval, seconds (default 1).
    #[serde(default)]
    pub interval_s: Option<Spanned<f64>>,
    /// At most this many rows (scaled by `--scale`): the phase ends early if they run out.
    pub max_rows: NonZeroU64,
}

/// `mixed = { ops = 1_000_000, insert_share = 0.1, reads = "point:latest=5%" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixedSpec {
    /// Operations in all (scaled by `--scale`).
    pub ops: NonZeroU64,
    /// Share of the operations that insert a new row, in [0, 1).
    pub insert_share: Spanned<f64>,
    /// The reads, `KIND[:DISTRIBUTION]` (`point:latest=5%`).
    pub reads: Spanned<String>,
}

/// `load = { rows, method, batch, writers, sample_every }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    /// Rows to load.
    pub rows: NonZeroU64,
    /// Statement shape (default `multi`).
    #[serde(default = "default_method")]
    pub method: LoadMethod,
    /// Rows per statement (default 1000), or `"500..1500"`: statements of varying shape.
    #[serde(default = "default_batch")]
    pub batch: BatchSpec,
    /// Parallel writers (default 1).
    #[serde(default = "one_nz")]
    pub writers: NonZeroU32,
    /// Measure the index shape every this many rows (growth curves).
    #[serde(default)]
    pub sample_every: Option<NonZeroU64>,
}

fn default_method() -> LoadMethod {
    LoadMethod::Multi
}

fn default_batch() -> BatchSpec {
    BatchSpec { min: 1000, max: None }
}

/// Rows per statement: `1000`, or `"500..1500"` for statements of varying shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSpec {
    /// The smallest statement (every statement when `max` is `None`).
    pub min: u32,
    /// The largest statement when statements vary.
    pub max: Option<u32>,
}

impl std::fmt::Display for BatchSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(m) => write!(f, "{}..{m}", self.min),
            None => write!(f, "{}", self.min),
        }
    }
}

impl<'de> Deserialize<'de> for BatchSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = match IntOrString::deserialize(d)? {
            IntOrString::Int(n) => n.to_string(),
            IntOrString::String(s) => s,
        };
        let (min, max) = keylab_core::parse_batch(&text).map_err(de::Error::custom)?;
        Ok(BatchSpec { min, max })
    }
}

/// `churn = { rounds, inserts, deletes, measure_every }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChurnSpec {
    /// Rounds.
    pub rounds: NonZeroU32,
    /// New rows inserted per round.
    pub inserts: u64,
    /// Random existing rows deleted per round (after the round's inserts).
    pub deletes: u64,
    /// Measure every this many rounds (default 1; the last round is always measured).
    #[serde(default = "one_nz")]
    pub measure_every: NonZeroU32,
    /// `multi` (default): multi-row INSERTs; `row`: one autocommitted INSERT per row.
    #[serde(default)]
    pub insert_method: ChurnInsert,
    /// Connections the `row` inserts come from at once (default 1, which keeps keylab's
    /// order; more make the server's order its own).
    #[serde(default = "one_nz")]
    pub writers: NonZeroU32,
    /// `by_key` (default): deletes by primary key in transactions of a thousand operations;
    /// `one_transaction`: a round's deletes in one transaction, as one `DELETE ... ORDER BY
    /// RAND() LIMIT n` makes them. Either way keylab picks the rows with its seed.
    #[serde(default)]
    pub delete_method: ChurnDelete,
}

/// `rebuild = { fill_factor }`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebuildSpec {
    /// `innodb_fill_factor` of the rebuild; default the run's engine setting.
    #[serde(default)]
    pub fill_factor: Option<FillFactor>,
}

/// `restart = {}`: nothing to set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestartSpec {}

/// `queries = { runs, point, pk_range, id_prefix, id_share, full_scan }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueriesSpec {
    /// Timed runs of each query (default 10).
    #[serde(default = "default_runs")]
    pub runs: NonZeroU32,
    /// Point lookups of existing primary keys per run.
    #[serde(default)]
    pub point: Option<NonZeroU32>,
    /// A primary-key range of this many rows.
    #[serde(default)]
    pub pk_range: Option<NonZeroU64>,
    /// A covering `id LIKE 'prefix%'` range.
    #[serde(default)]
    pub id_prefix: Option<String>,
    /// The same range with the prefix chosen per variant from the table's own ids so that
    /// it selects this share of the rows, in (0, 1] (E1: `1.0`, what `'01J%'` selected).
    #[serde(default)]
    pub id_share: Option<toml::Spanned<f64>>,
    /// A full scan counting rows.
    #[serde(default)]
    pub full_scan: bool,
}

fn default_runs() -> NonZeroU32 {
    NonZeroU32::new(10).expect("nonzero")
}

/// `ddl = { steps = [ { action, column, algorithm, lock }, ... ], concurrent_writers }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DdlPhaseSpec {
    /// Statements, in order.
    pub steps: Spanned<Vec<DdlStepSpec>>,
    /// Connections inserting rows (one per autocommitted statement) while each statement
    /// runs (default 0: none).
    #[serde(default)]
    pub concurrent_writers: Option<Spanned<u32>>,
}

/// One `ALTER TABLE`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DdlStepSpec {
    /// `add_column` or `drop_column`.
    pub action: DdlAction,
    /// Column name.
    pub column: String,
    /// `instant`, `inplace` or `copy`.
    pub algorithm: DdlAlgorithm,
    /// `add_column` only: put the new column after this one (`ADD COLUMN ... AFTER col`).
    #[serde(default)]
    pub after: Option<String>,
    /// `none`, `shared` or `exclusive` (`LOCK=`); absent: no `LOCK=` clause.
    #[serde(default)]
    pub lock: Option<DdlLock>,
    /// `add_column` only: the new column's type, as a table column's (`datetime`,
    /// `varchar(64)`); the column is nullable. Absent: `int`.
    #[serde(default, rename = "type")]
    pub ty: Option<Spanned<TypeSpec>>,
}
