//! The scenario file as written: serde types that mirror the TOML one to one. Every struct
//! refuses unknown fields, and every value that can be wrong on its own (a type name, a page
//! size, a percentage) is its own type whose parse error lists the valid choices, so the
//! `toml` crate can point at the exact value.
//!
//! Checks that need more than one value (an index naming a column, a generator fitting its
//! column) are in `check.rs`; turning a file into runs is `plan.rs`.

use keylab_core::{
    ChurnDelete, ChurnInsert, DdlAction, DdlAlgorithm, DdlLock, LoadMethod, Placement, SimModel,
};
use keylab_keys::{ClockKind, WithinMs};
use keylab_schema::{Charset, RowFormat};
use serde::{de, Deserialize, Deserializer};
use std::fmt;
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

/// `queries = { runs, point, pk_range, id_prefix | id_share, full_scan }`.
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
}

/// A column type as written: `int`, `bigint`, `bigint unsigned`, `char(n)`, `varchar(n)`,
/// `binary(n)`, `text`, `timestamp`, `datetime`, `date`, `decimal(p,s)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeSpec {
    /// `INT`.
    Int,
    /// `BIGINT [UNSIGNED]`.
    BigInt {
        /// Unsigned.
        unsigned: bool,
    },
    /// `CHAR(n)`.
    Char(u32),
    /// `VARCHAR(n)`.
    VarChar(u32),
    /// `BINARY(n)`.
    Binary(u32),
    /// `TEXT`.
    Text,
    /// `TIMESTAMP`.
    Timestamp,
    /// `DATETIME`.
    DateTime,
    /// `DATE`.
    Date,
    /// `DECIMAL(p,s)`.
    Decimal(u32, u32),
}

/// The valid type spellings, for error messages.
pub const TYPE_CHOICES: &str = "int, bigint, bigint unsigned, char(n), varchar(n), binary(n), \
                                text, timestamp, datetime, date, decimal(p,s)";

impl TypeSpec {
    /// Parses a type name (case-insensitive).
    pub fn parse(s: &str) -> Result<TypeSpec, String> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad = || format!("unknown column type `{s}`; valid: {TYPE_CHOICES}");
        let simple = match t.as_str() {
            "int" | "integer" => Some(TypeSpec::Int),
            "bigint" => Some(TypeSpec::BigInt { unsigned: false }),
            "bigint unsigned" => Some(TypeSpec::BigInt { unsigned: true }),
            "text" => Some(TypeSpec::Text),
            "timestamp" => Some(TypeSpec::Timestamp),
            "datetime" => Some(TypeSpec::DateTime),
            "date" => Some(TypeSpec::Date),
            _ => None,
        };
        if let Some(ty) = simple {
            return Ok(ty);
        }
        let (head, rest) = t.split_once('(').ok_or_else(bad)?;
        let args = rest.strip_suffix(')').ok_or_else(bad)?;
        let nums: Vec<u32> = args
            .split(',')
            .map(|a| a.trim().parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let one = |max: u32, what: &str| match nums.as_slice() {
            [n] if (1..=max).contains(n) => Ok(*n),
            _ => Err(format!("{what} length in `{s}` must be one number from 1 to {max}")),
        };
        match head.trim() {
            "char" => one(255, "char").map(TypeSpec::Char),
            "varchar" => one(65_535, "varchar").map(TypeSpec::VarChar),
            "binary" => one(255, "binary").map(TypeSpec::Binary),
            "decimal" => match nums.as_slice() {
                [p, s] if (1..=65).contains(p) && s <= p && *s <= 30 => {
                    Ok(TypeSpec::Decimal(*p, *s))
                }
                _ => Err(format!(
                    "`{s}`: decimal(p,s) needs precision 1 to 65 and scale 0 to 30, at most p"
                )),
            },
            _ => Err(bad()),
        }
    }

    /// True for character types (they take a `charset`).
    pub fn is_string(self) -> bool {
        matches!(self, TypeSpec::Char(_) | TypeSpec::VarChar(_) | TypeSpec::Text)
    }

    /// True for time types.
    pub fn is_time(self) -> bool {
        matches!(self, TypeSpec::Timestamp | TypeSpec::DateTime | TypeSpec::Date)
    }
}

impl<'de> Deserialize<'de> for TypeSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        TypeSpec::parse(&s).map_err(de::Error::custom)
    }
}

/// `innodb_page_size` in bytes, written `"4k"` ... `"64k"` or as bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSizeSpec(pub u32);

const PAGE_SIZES: [u32; 5] = [4096, 8192, 16_384, 32_768, 65_536];

impl PageSizeSpec {
    /// `16k` style label.
    pub fn label(self) -> String {
        format!("{}k", self.0 / 1024)
    }
}

impl<'de> Deserialize<'de> for PageSizeSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = match IntOrString::deserialize(d)? {
            IntOrString::Int(n) => u64::try_from(n).ok(),
            IntOrString::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "4k" => Some(4096),
                "8k" => Some(8192),
                "16k" => Some(16_384),
                "32k" => Some(32_768),
                "64k" => Some(65_536),
                other => other.parse().ok(),
            },
        };
        match bytes.and_then(|b| u32::try_from(b).ok()).filter(|b| PAGE_SIZES.contains(b)) {
            Some(b) => Ok(PageSizeSpec(b)),
            None => Err(de::Error::custom("not an InnoDB page size; valid: 4k, 8k, 16k, 32k, 64k")),
        }
    }
}

/// A size in bytes, written as an integer or with a `K`, `M` or `G` suffix (powers of 1024).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// `128M` style label.
    pub fn label(self) -> String {
        const UNITS: [(u64, &str); 3] = [(1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
        for (unit, suffix) in UNITS {
            if self.0 >= unit && self.0 % unit == 0 {
                return format!("{}{suffix}", self.0 / unit);
            }
        }
        self.0.to_string()
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bad = || de::Error::custom("not a size; write bytes (134217728) or 128M, 1G, 512K");
        match IntOrString::deserialize(d)? {
            IntOrString::Int(n) => u64::try_from(n).map(ByteSize).map_err(|_| bad()),
            IntOrString::String(s) => {
                let t = s.trim().to_ascii_uppercase();
                let (num, mult) = match t.char_indices().last() {
                    Some((i, 'K')) => (&t[..i], 1u64 << 10),
                    Some((i, 'M')) => (&t[..i], 1 << 20),
                    Some((i, 'G')) => (&t[..i], 1 << 30),
                    _ => (t.as_str(), 1),
                };
                let n: u64 = num.trim().parse().map_err(|_| bad())?;
                n.checked_mul(mult).map(ByteSize).ok_or_else(bad)
            }
        }
    }
}

/// `innodb_fill_factor`, 10 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillFactor(pub u8);

impl<'de> Deserialize<'de> for FillFactor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        match u8::try_from(n) {
            Ok(v) if (10..=100).contains(&v) => Ok(FillFactor(v)),
            _ => {
                Err(de::Error::custom(format!("fill factor {n} is out of range; valid: 10 to 100")))
            }
        }
    }
}

/// `MERGE_THRESHOLD`, 1 to 50.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeThreshold(pub u8);

impl<'de> Deserialize<'de> for MergeThreshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        match u8::try_from(n) {
            Ok(v) if (1..=50).contains(&v) => Ok(MergeThreshold(v)),
            _ => Err(de::Error::custom(format!(
                "merge threshold {n} is out of range; valid: 1 to 50"
            ))),
        }
    }
}

/// `innodb_autoinc_lock_mode`: 0 (traditional), 1 (consecutive) or 2 (interleaved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoincLockMode(pub u8);

impl<'de> Deserialize<'de> for AutoincLockMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        match u8::try_from(n) {
            Ok(v) if v <= 2 => Ok(AutoincLockMode(v)),
            _ => Err(de::Error::custom(format!(
                "autoinc_lock_mode {n} is not valid; valid: 0 (traditional), 1 (consecutive), \
                 2 (interleaved)"
            ))),
        }
    }
}

/// An integer or a string, for values that accept both.
enum IntOrString {
    Int(i64),
    String(String),
}

impl<'de> Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = IntOrString;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IntOrString, E> {
                Ok(IntOrString::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IntOrString, E> {
                i64::try_from(v).map(IntOrString::Int).map_err(|_| E::custom("number too large"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::String(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}
