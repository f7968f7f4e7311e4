//! `keylab advise`'s flags: the DDL file, the table, the candidates, rows, widths and engine.
//! Only parsing and per-flag checks; the work is in `cmd/advise/`.

use crate::args::{choices, OutputArgs, UrlArg};
use clap::Args;
use keylab_core::{EngineKind, SimModel};
use keylab_keys::Variant;
use std::path::PathBuf;

/// The candidates advised on besides the table's current key.
pub const DEFAULT_CANDIDATES: &str = "auto-inc,uuid4:bin,uuid7:bin,ulid:bin,snowflake";

/// The candidates of a whole-schema summary when --keys is not given: the default without
/// uuid4:bin (see --keys).
pub const SUMMARY_CANDIDATES: &str = "auto-inc,uuid7:bin,ulid:bin,snowflake";

/// Candidates from a comma-separated list of known-good tokens.
pub fn candidates_of(list: &str) -> Vec<Variant> {
    list.split(',').map(|t| t.parse().expect("a valid built-in candidate")).collect()
}

/// `keylab advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// The DDL file (MySQL/MariaDB or PostgreSQL dialect). PostgreSQL's fillfactors (of the
    /// table and of each index) are applied on the nbtree model and on --engine postgres, and
    /// noted as not applied on InnoDB; what keylab does not model is refused or noted at
    /// FILE:LINE:COLUMN.
    #[arg(value_name = "FILE.sql", required_unless_present = "url", conflicts_with = "url")]
    pub file: Option<PathBuf>,
    /// Read the table from your server instead of a file, read-only.
    /// mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (or mariadb://): keylab runs only SHOW
    /// CREATE TABLE, SELECTs on information_schema, COUNT(*) (under 1M estimated rows) and a
    /// sample of 10,000 rows for column widths, in START TRANSACTION READ ONLY.
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or postgresql://): only SELECTs on
    /// pg_catalog, a count(*) bounded to 1M rows (when pg_class.reltuples is under 1M) and a
    /// sample of 10,000 rows, in BEGIN READ ONLY; no LOCK statement (a plain SELECT takes only
    /// the ACCESS SHARE lock every read takes). Either way it creates, changes and locks
    /// nothing there, and the candidates never run on it. Without a PASSWORD in the URL,
    /// $KEYLAB_PASSWORD is used if set (for postgres://, else $PGPASSWORD); the password is
    /// never printed.
    #[allow(rustdoc::broken_intra_doc_links)] // --help text: [:PASSWORD] is no link
    #[arg(long, value_name = "URL", requires = "table")]
    pub url: Option<UrlArg>,
    /// The DDL file's dialect [default: detected from the file's code (not its comments or
    /// strings): the side with more marks, MySQL when there are none; the report says which
    /// and why].
    #[arg(long, value_enum, value_name = "DIALECT", conflicts_with = "url")]
    pub dialect: Option<DdlDialect>,
    /// The table to advise on: needed when the file has several (a schema qualifier is
    /// ignored); with a mysql:// --url, DATABASE.TABLE (or TABLE in the URL's database); with
    /// a postgres:// --url, SCHEMA.TABLE (or TABLE in schema public).
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,
    /// Candidate keys, each replacing the primary-key column's type (the current key is
    /// always advised on too) [default: auto-inc,uuid4:bin,uuid7:bin,ulid:bin,snowflake; for
    /// a whole schema the same without uuid4:bin, which the recommendation's rule never
    /// chooses (its inserts touch every leaf) and which costs the most to build].
    #[arg(long, value_delimiter = ',', value_name = "KEYS")]
    pub keys: Option<Vec<Variant>>,
    /// Rows to load per candidate [default: the --url table's rows, else 1,000,000; for a
    /// whole schema (a file of several tables without --table), 100,000 per table].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub rows: Option<u64>,
    /// Average stored width of a variable-length column, in bytes (repeatable):
    /// `--width email=24`. Default: the --url table's sampled average, else half its declared
    /// length, at most 64 bytes.
    #[arg(long, value_name = "COLUMN=BYTES", value_parser = parse_width)]
    pub width: Vec<(String, u32)>,
    /// Seed of every random part: same seed, same rows.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Reads to weigh per candidate on the simulator, after its load: `KIND:COUNT[:DIST]`,
    /// comma-separated, as `compare --reads` takes them; each candidate's report then has a
    /// reads phase (page requests per read, each index's working set).
    ///
    /// Example: --workload point:100000:latest=5%,secondary:10000
    #[arg(long, value_name = "SPEC,...", value_delimiter = ',', value_parser = parse_read)]
    pub workload: Vec<keylab_core::ReadSpec>,
    /// Engine: the simulator (predictions), or a private MariaDB/MySQL/PostgreSQL (measured).
    #[arg(long, default_value = "sim", value_parser = choices::<EngineKind>(&["sim", "mariadb", "mysql", "postgres"]))]
    pub engine: EngineKind,
    /// The server the simulator models (--engine sim only) [default: postgres-15, the nbtree
    /// model, for a PostgreSQL table whose indexes it covers, else mariadb-10.11, with a note
    /// saying why].
    #[arg(long, value_name = "MODEL", value_parser = choices::<SimModel>(&SimModel::ALL.map(|m| m.token())))]
    pub model: Option<SimModel>,
    /// Build every candidate on its own even when two would build the same trees (on the
    /// InnoDB model; for tests proving the shared figures equal the unshared ones).
    #[arg(long, hide = true)]
    pub no_shared_builds: bool,
    /// Simulator runs at once (candidates, and for a whole schema every table's candidates),
    /// each on its own thread with its own table [default: the number of cores]. Figures are
    /// the same for every value; a server engine runs one candidate at a time.
    #[arg(long, value_name = "N", value_parser = super::values::parse_jobs)]
    pub jobs: Option<usize>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--dialect`: the dialect a DDL file is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DdlDialect {
    /// MySQL or MariaDB (`SHOW CREATE TABLE`, mysqldump).
    Mysql,
    /// PostgreSQL (`pg_dump --schema-only`, hand-written).
    Postgres,
}

impl DdlDialect {
    /// The reader's dialect.
    pub fn source(self) -> keylab_ddl::SourceDialect {
        match self {
            DdlDialect::Mysql => keylab_ddl::SourceDialect::Mysql,
            DdlDialect::Postgres => keylab_ddl::SourceDialect::Postgres,
        }
    }
}

fn parse_width(s: &str) -> Result<(String, u32), String> {
    let (col, bytes) =
        s.split_once('=').ok_or_else(|| format!("`{s}`: expected COLUMN=BYTES, e.g. email=24"))?;
    let bytes: u32 = bytes
        .trim()
        .parse()
        .map_err(|_| format!("`{bytes}` is not a byte count; valid: 0..=65535"))?;
    if bytes > 65_535 || col.trim().is_empty() {
        return Err(format!("`{s}`: valid: COLUMN=0..=65535"));
    }
    Ok((col.trim().to_string(), bytes))
}

fn parse_read(s: &str) -> Result<keylab_core::ReadSpec, String> {
    s.parse()
}
