//! The scenario file as written: serde types that mirror the TOML one to one. Every struct
//! refuses unknown fields, and every value that can be wrong on its own (a type name, a page
//! size, a percentage) is its own type whose parse error lists the valid choices, so the
//! `toml` crate can point at the exact value.
//!
//! This file holds the scenario, its tables, columns, generators, `[engine]`, `[generator]`
//! and `[[matrix]]`; the phases are in `spec/phase_specs.rs`, the single values in
//! `spec/values.rs`.
//!
//! Not for: checks that need more than one value (an index naming a column, a generator
//! fitting its column: `table.rs`, `ranges.rs`); turning a file into runs is `plan.rs`.

mod phase_specs;
mod values;

pub use self::phase_specs::{BatchSpec, MixedSpec, PhaseSpec};
pub use self::values::{
    AutoincLockMode, ByteSize, FillFactor, MergeThreshold, PageSizeSpec, TypeSpec,
};
use keylab_core::{LoadMethod, Placement, SimModel};
use keylab_keys::{ClockKind, WithinMs};
use keylab_schema::{Charset, RowFormat};
use serde::{de, Deserialize, Deserializer};
use std::num::{NonZeroU32, NonZeroU64};
use toml::Spanned;

/// A whole scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Scenario name (written into the report).
    pub name: Spanned<String>,
    /// One line shown by `keylab scenarios`.
    #[serde(default)]
    pub description: String,
    /// Key variants, `strategy[:encoding]` (parsed in `plan.rs`, so errors point at each).
    pub variants: Spanned<Vec<Spanned<String>>>,
    /// Where the id lives; default `["pk"]`.
    #[serde(default)]
    pub placements: Option<Spanned<Vec<Placement>>>,
    /// Table shapes; runs use the first unless a matrix names another.
    pub tables: Spanned<Vec<TableSpec>>,
    /// Engine settings.
    #[serde(default)]
    pub engine: EngineSpec,
    /// Id generator settings (the seed comes from `--seed`).
    #[serde(default)]
    pub generator: GeneratorSpec,
    /// Matrix groups; each is a product of its dimensions, the runs are their union.
    #[serde(default)]
    pub matrix: Vec<Spanned<MatrixSpec>>,
    /// Phases, in order; the first is a load.
    pub phases: Spanned<Vec<Spanned<PhaseSpec>>>,
}

/// One table shape.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Table name on the engine (runs add a variant suffix).
    pub name: Spanned<String>,
    /// `dynamic` (default) or `compact`.
    #[serde(default)]
    pub row_format: RowFormat,
    /// The column holding generated ids.
    #[serde(default)]
    pub id: IdSpec,
    /// Name of the `BIGINT AUTO_INCREMENT` primary key in `secondary` placement.
    #[serde(default = "default_surrogate")]
    pub surrogate: Spanned<String>,
    /// The other columns, in table order after the id.
    #[serde(default)]
    pub columns: Vec<ColumnSpec>,
    /// Extra secondary indexes.
    #[serde(default)]
    pub indexes: Vec<IndexSpec>,
}

fn default_surrogate() -> Spanned<String> {
    Spanned::new(0..0, "pk".to_string())
}

/// The id column.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdSpec {
    /// Column name (default `id`).
    #[serde(default = "default_id_name")]
    pub name: Spanned<String>,
    /// Column type; default: the variant's (`VARCHAR(n)`, `BINARY(n)` or `BIGINT`).
    #[serde(rename = "type", default)]
    pub ty: Option<Spanned<TypeSpec>>,
    /// Character set of a text id (default `utf8mb4`).
    #[serde(default)]
    pub charset: Option<Spanned<Charset>>,
    /// In `secondary` placement: a `UNIQUE KEY` instead of a plain `KEY`.
    #[serde(default)]
    pub unique: bool,
}

impl Default for IdSpec {
    fn default() -> Self {
        IdSpec { name: default_id_name(), ty: None, charset: None, unique: false }
    }
}

fn default_id_name() -> Spanned<String> {
    Spanned::new(0..0, "id".to_string())
}

/// A payload column.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    /// Column name.
    pub name: Spanned<String>,
    /// SQL type (`varchar(255)`, `bigint`, `datetime`, ...).
    #[serde(rename = "type")]
    pub ty: Spanned<TypeSpec>,
    /// Character set of a string column (default `utf8mb4`).
    #[serde(default)]
    pub charset: Option<Spanned<Charset>>,
    /// Accepts NULL (default true, as in SQL).
    #[serde(default = "yes")]
    pub nullable: bool,
    /// How each row's value is made.
    pub gen: Spanned<GenSpec>,
}

fn yes() -> bool {
    true
}

/// A secondary index.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexSpec {
    /// Index name.
    pub name: Spanned<String>,
    /// Column names, in index order.
    pub columns: Spanned<Vec<Spanned<String>>>,
    /// `UNIQUE KEY` when true.
    #[serde(default)]
    pub unique: bool,
}

/// How a payload column's values are generated.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum GenSpec {
    /// The same string in every row.
    Fixed(String),
    /// Random letters and digits, length uniform in `[min, max]`.
    Ascii([u32; 2]),
    /// The first N characters of a UUID's text (`LEFT(UUID(), N)`): random lowercase hex
    /// digits, with `-` where the 8-4-4-4-12 layout puts one; N is 1..=36.
    UuidPrefix(u32),
    /// The string followed by one random decimal digit (`CONCAT('test', FLOOR(RAND()*10))`).
    PrefixDigit(String),
    /// `start`, `start + 1`, ... by row number (`seq = start`, or a table with `every` and
    /// `cycle`).
    Seq(SeqGen),
    /// A random integer uniform in `[lo, hi]`.
    Int([i64; 2]),
    /// A time that starts at `start_unix_s` and advances `step_s` seconds per row.
    Timestamp(TimestampGen),
    /// SQL NULL (the column must be nullable).
    Null,
}

/// `seq = start`, or `seq = { start, every, cycle }`: value number `k` of row `n` is
/// `(n / every) % cycle` (no `%` without `cycle`), and the value is `start + k`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeqGen {
    /// First value.
    pub start: i64,
    /// Rows that share each value (default 1).
    pub every: NonZeroU64,
    /// Values before the sequence starts again at `start` (default: never).
    pub cycle: Option<NonZeroU64>,
}

impl<'de> Deserialize<'de> for SeqGen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            #[serde(default = "one_i64")]
            start: i64,
            #[serde(default = "one_nz64")]
            every: NonZeroU64,
            #[serde(default)]
            cycle: Option<NonZeroU64>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Start(i64),
            Table(Table),
        }
        match Form::deserialize(d).map_err(|_| {
            de::Error::custom(
                "`seq` is a start value (seq = 1) or a table (seq = { start = 1, every = 360, \
                 cycle = 500 }) with positive every and cycle",
            )
        })? {
            Form::Start(start) => Ok(SeqGen { start, every: one_nz64(), cycle: None }),
            Form::Table(t) => Ok(SeqGen { start: t.start, every: t.every, cycle: t.cycle }),
        }
    }
}

/// `timestamp = { start_unix_s, step_s, every, cycle }`: value number `k` of row `n` is
/// `(n / every) % cycle` (no `%` without `cycle`), and the value is `start_unix_s + k × step_s`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimestampGen {
    /// First value, seconds since the Unix epoch (default 2025-01-01T00:00:00Z).
    #[serde(default = "default_start")]
    pub start_unix_s: i64,
    /// Seconds added per value (default 1).
    #[serde(default = "one_i64")]
    pub step_s: i64,
    /// Rows that share each value (default 1).
    #[serde(default = "one_nz64")]
    pub every: NonZeroU64,
    /// Values before the times start again at `start_unix_s` (default: never).
    #[serde(default)]
    pub cycle: Option<NonZeroU64>,
}

fn one_nz64() -> NonZeroU64 {
    NonZeroU64::MIN
}

/// 2025-01-01T00:00:00Z, the virtual clock's start.
pub const DEFAULT_START_UNIX_S: i64 = 1_735_689_600;

fn default_start() -> i64 {
    DEFAULT_START_UNIX_S
}

fn one_i64() -> i64 {
    1
}

/// Engine settings; anything left out keeps `keylab_core::EngineSettings::default()`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// `innodb_page_size`.
    #[serde(default)]
    pub page_size: Option<PageSizeSpec>,
    /// `innodb_buffer_pool_size`.
    #[serde(default)]
    pub buffer_pool: Option<ByteSize>,
    /// Scale the buffer pool with `--scale` too, so data stays as much larger than the pool.
    #[serde(default)]
    pub scale_buffer_pool: bool,
    /// `innodb_fill_factor`.
    #[serde(default)]
    pub fill_factor: Option<FillFactor>,
    /// `MERGE_THRESHOLD` of every index.
    #[serde(default)]
    pub merge_threshold: Option<MergeThreshold>,
    /// `innodb_change_buffering` all (true) or none (false).
    #[serde(default)]
    pub change_buffering: Option<bool>,
    /// `performance_schema` on a private server (per-table I/O figures need it).
    #[serde(default)]
    pub performance_schema: Option<bool>,
    /// The server the simulator models (`mariadb-10.11`, `mysql-8.0`, `postgres-15`): one
    /// model, not a list (a list is refused, saying so); `--model` overrides it, and a server
    /// engine, being the server itself, ignores it.
    #[serde(default, deserialize_with = "one_model")]
    pub model: Option<SimModel>,
    /// `innodb_autoinc_lock_mode` (0, 1 or 2).
    #[serde(default)]
    pub autoinc_lock_mode: Option<AutoincLockMode>,
    /// PostgreSQL: a checkpoint after every this many rows inserted (scaled with `--scale`,
    /// so a half-way checkpoint stays half-way).
    #[serde(default)]
    pub checkpoint_every_rows: Option<std::num::NonZeroU64>,
    /// Shards (2 to 16): a Spider head over private backends on `--engine mariadb`, N model
    /// tables on the simulator; `--shards` overrides it.
    #[serde(default)]
    pub shards: Option<u32>,
    /// How rows are routed to the shards (`range`, `hash`); `--sharding` overrides it.
    #[serde(default)]
    pub sharding: Option<keylab_core::Sharding>,
    /// Existing MariaDB servers to shard over instead of private backends
    /// (`mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]`, one per shard, in shard order):
    /// keylab creates and marks its own database on each and puts a private Spider head in
    /// front. Sets `shards` to their count.
    #[serde(default)]
    pub backends: Option<Spanned<Vec<Spanned<String>>>>,
    /// On a server, run each of the scenario's runs this many times (fresh table, same rows)
    /// for every timing's spread; `--repeat` overrides it, and the simulator (whose figures
    /// never vary) runs once whatever it says.
    #[serde(default)]
    pub repeat: Option<std::num::NonZeroU32>,
}

/// `[engine] model`: one model token. A list is refused with what to do instead: a scenario
/// runs under one model (`keylab compare --model a,b` runs variants under several).
fn one_model<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<SimModel>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<serde::de::IgnoredAny>),
    }
    match OneOrMany::deserialize(d)? {
        OneOrMany::One(token) => token.parse().map(Some).map_err(serde::de::Error::custom),
        OneOrMany::Many(list) => Err(serde::de::Error::custom(format!(
            "a scenario runs under one model, so `model` takes one of {}, not a list of {}; run the \
             scenario once per model, or use keylab compare --model MODEL,MODEL to run \
             variants under several models in one report",
            SimModel::choices(),
            list.len()
        ))),
    }
}

/// Id generator settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    /// Ids per millisecond of the virtual clock.
    #[serde(default = "one_nz")]
    pub ids_per_ms: NonZeroU32,
    /// Milliseconds the virtual clock advances after each `ids_per_ms` ids (default 1).
    #[serde(default = "one_nz")]
    pub step_ms: NonZeroU32,
    /// `monotonic` or `random` order inside one millisecond.
    #[serde(default)]
    pub within_ms: WithinMs,
    /// `virtual` or `wall`.
    #[serde(default)]
    pub clock: ClockKind,
    /// Values per round trip of the `sequence` and `table` generators (default 50).
    #[serde(default = "fifty_nz")]
    pub block: NonZeroU32,
    /// Node id of snowflake and tsid (0 to 1023).
    #[serde(default = "one_u16")]
    pub node: Spanned<u16>,
}

impl Default for GeneratorSpec {
    fn default() -> Self {
        GeneratorSpec {
            ids_per_ms: one_nz(),
            step_ms: one_nz(),
            within_ms: WithinMs::default(),
            clock: ClockKind::default(),
            node: one_u16(),
            block: fifty_nz(),
        }
    }
}

fn fifty_nz() -> NonZeroU32 {
    NonZeroU32::new(50).expect("nonzero")
}

fn one_nz() -> NonZeroU32 {
    NonZeroU32::MIN
}

fn one_u16() -> Spanned<u16> {
    Spanned::new(0..0, 1)
}

/// One matrix group: every listed dimension is a list, and the group's cells are the
/// product of the lists (the first listed dimension below varies slowest).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixSpec {
    /// Table shapes by name.
    #[serde(default)]
    pub table: Option<Spanned<Vec<Spanned<String>>>>,
    /// Replaces the scenario's `variants` in this group.
    #[serde(default)]
    pub variants: Option<Spanned<Vec<Spanned<String>>>>,
    /// Replaces the scenario's `placements` in this group.
    #[serde(default)]
    pub placements: Option<Spanned<Vec<Placement>>>,
    /// Rows of every load phase.
    #[serde(default)]
    pub rows: Option<Spanned<Vec<NonZeroU64>>>,
    /// Load method of every load phase.
    #[serde(default)]
    pub method: Option<Spanned<Vec<LoadMethod>>>,
    /// Batch size of every load phase.
    #[serde(default)]
    pub batch: Option<Spanned<Vec<BatchSpec>>>,
    /// Writers of every load phase.
    #[serde(default)]
    pub writers: Option<Spanned<Vec<NonZeroU32>>>,
    /// `innodb_page_size`.
    #[serde(default)]
    pub page_size: Option<Spanned<Vec<PageSizeSpec>>>,
    /// `innodb_buffer_pool_size`.
    #[serde(default)]
    pub buffer_pool: Option<Spanned<Vec<ByteSize>>>,
    /// `innodb_fill_factor` (also the default of every rebuild phase).
    #[serde(default)]
    pub fill_factor: Option<Spanned<Vec<FillFactor>>>,
    /// `MERGE_THRESHOLD`.
    #[serde(default)]
    pub merge_threshold: Option<Spanned<Vec<MergeThreshold>>>,
    /// `innodb_change_buffering` on/off.
    #[serde(default)]
    pub change_buffering: Option<Spanned<Vec<bool>>>,
    /// Replaces `[generator] ids_per_ms` in this group.
    #[serde(default)]
    pub ids_per_ms: Option<Spanned<Vec<NonZeroU32>>>,
    /// Replaces `[generator] within_ms` in this group.
    #[serde(default)]
    pub within_ms: Option<Spanned<Vec<WithinMs>>>,
    /// `innodb_autoinc_lock_mode`.
    #[serde(default)]
    pub autoinc_lock_mode: Option<Spanned<Vec<AutoincLockMode>>>,
    /// How rows are routed to the shards (with `[engine] shards`).
    #[serde(default)]
    pub sharding: Option<Spanned<Vec<keylab_core::Sharding>>>,
}
