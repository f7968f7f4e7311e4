//! The command line, as clap parses it. Only parsing and per-flag validation live here (bad
//! values exit 2 with the valid choices; the parsers of single values are in `values`);
//! building engines and workloads is in `cmd/`.

use clap::{Args, Parser, Subcommand};
use keylab_core::{EngineKind, LoadMethod, Placement, Sharding};
use keylab_innodb_model::PageSize;
use keylab_keys::{ClockKind, Variant, WithinMs};
use keylab_pg_server::TextCollation;
use keylab_report::Format;
use keylab_server_common::MAX_WRITERS;
use std::path::PathBuf;

pub mod advise;
mod engine;
mod install;
mod repeat;
mod values;
mod work;

pub use engine::EngineArgs;
pub use install::{CompletionShell, CompletionsArgs};
pub use repeat::{repeats, repeats_from_scenario};
pub(crate) use values::choices;
pub use values::{parse_byte_size, UrlArg};
use values::{parse_database, parse_jobs, parse_scale, parse_server_engine};
pub use work::WorkArgs;

/// keylab: how to key a table and how to load it, with evidence.
///
/// Runs the same seeded workload on an embedded, byte-accurate InnoDB page simulator (the
/// default: no server needed) or on a real MariaDB/MySQL server, and reports page splits,
/// pages, fill, bytes, height and load speed per key variant.
#[derive(Debug, Parser)]
#[command(name = "keylab", version, about, long_about, max_term_width = 100)]
#[command(after_help = "Exit codes: 0 success, 1 run failed, 2 bad usage or bad scenario.")]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// keylab's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare key variants side by side (the main job).
    Compare(CompareArgs),
    /// Run a scenario file or a built-in scenario.
    Run(RunArgs),
    /// List the built-in scenarios, or print one as TOML.
    Scenarios(ScenariosArgs),
    /// Print generated ids, one per line.
    Keys(KeysArgs),
    /// Measure how far the simulator agrees with a real server.
    ///
    /// Loads only: the page structure of its matrix, and the buffer pool's page reads and
    /// writes under a 16 MiB pool. Reads are not part of it (there is no --reads here): a
    /// read's misses depend on a pool sized to each table and on a warm-up, which the fixed
    /// matrix has no place for. The live tests compare reads instead (MariaDB:
    /// crates/mariadb/tests/reads.rs and ranges.rs; PostgreSQL: tests/cli/postgres/reads.rs
    /// and ranges.rs), and `compare --reads` gives each engine's figures for your own table.
    Validate(ValidateArgs),
    /// Report the structure of a real InnoDB tablespace file (.ibd).
    Inspect(InspectArgs),
    /// Re-render a saved JSON result in another format.
    Report(ReportArgs),
    /// Advise how to key your own table: read its CREATE TABLE and compare candidate keys.
    ///
    /// Reads your table's definition (CREATE TABLE with its indexes, as SHOW CREATE TABLE or
    /// pg_dump --schema-only prints it) and loads the same rows under your current key and
    /// each candidate key, every secondary index kept as yours, then reports bytes and pages
    /// per index, fill, splits, the insert working set and the buffer pool it needs, and a
    /// recommendation. From a file, no server of yours is contacted; with --url, your server
    /// is only read (MariaDB/MySQL: SHOW CREATE TABLE, information_schema, COUNT(*), a
    /// 10,000-row sample; PostgreSQL: SELECTs on pg_catalog, a bounded count(*), a 10,000-row
    /// sample, in BEGIN READ ONLY). Nothing is created, changed or locked anywhere but in
    /// keylab's own private server (--engine mariadb or postgres starts a throwaway instance
    /// and removes it). A PostgreSQL table runs on the nbtree model of PostgreSQL 15 where
    /// that model covers its indexes.
    Advise(advise::AdviseArgs),
    /// Print a shell completion script (bash, zsh or fish) on standard output.
    ///
    /// bash: `keylab completions bash > ~/.local/share/bash-completion/completions/keylab`;
    /// zsh: into a directory of your `fpath` as `_keylab`; fish:
    /// `keylab completions fish > ~/.config/fish/completions/keylab.fish`.
    Completions(CompletionsArgs),
    /// Print keylab's man page (roff) on standard output: `keylab man > keylab.1`.
    Man,
}

/// How ids are generated (shared by `compare`, `run` and `keys`).
#[derive(Debug, Clone, Args)]
pub struct GenArgs {
    /// Seed of every random part: same seed, same ids.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Ids per millisecond of the virtual clock.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub ids_per_ms: u32,
    /// Milliseconds the virtual clock advances after each --ids-per-ms ids (a larger step
    /// stretches a run over more time: UUIDv1's time_low wraps every ~429.5 s).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub step_ms: u32,
    /// Values per round trip of the `sequence` and `table` generators (an ORM's allocation
    /// size); several writers' blocks interleave.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub block: u32,
    /// Order of time-ordered ids inside one millisecond.
    #[arg(long, default_value = "monotonic", value_parser = choices::<WithinMs>(&["monotonic", "random"]))]
    pub within_ms: WithinMs,
    /// Clock of time-based ids: a virtual clock (reproducible) or the wall clock.
    #[arg(long, default_value = "virtual", value_parser = choices::<ClockKind>(&["virtual", "wall"]))]
    pub clock: ClockKind,
}

/// Where to write results besides standard output.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Output format on standard output.
    ///
    /// The table format fits the terminal: COLUMNS when it is set (piped or not), else the
    /// terminal's width; with neither (a file, a pipe), tables are as wide as their figures.
    #[arg(long, default_value = "table", value_parser = choices::<Format>(&Format::ALL.map(|f| f.token())))]
    pub format: Format,
    /// Show every engine setting in the report header, not only those that differ from the
    /// engine's defaults.
    #[arg(long)]
    pub verbose: bool,
    /// Also write the JSON result to this file.
    ///
    /// Every --export-* FILE: a regular file (or a new one) is rewritten after each finished
    /// run through a temporary file renamed over it, following a symbolic link to its target
    /// and keeping an existing file's permissions; a FIFO or character device (/dev/null,
    /// /dev/stdout, any path under /dev or /proc) is written through once, at the end;
    /// a directory, block device or socket is refused (exit 2).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Also write CSV to this file (as --export-json).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Also write Markdown to this file (as --export-json).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Also write a self-contained HTML report to this file (as --export-json).
    #[arg(long, value_name = "FILE")]
    pub export_html: Option<PathBuf>,
}

/// `keylab compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Key variants to compare (`strategy[:encoding]`, comma-separated).
    #[arg(
        long,
        value_name = "V1,V2,...",
        value_delimiter = ',',
        default_value = "auto-inc,uuid4:text,uuid7:text,ulid:text"
    )]
    pub keys: Vec<Variant>,
    /// Replay ids from this file (one per line, as `keylab keys` prints them) instead of
    /// generating them; needs exactly one variant in --keys.
    #[arg(long, value_name = "FILE")]
    pub keys_file: Option<PathBuf>,
    /// Rows per variant [default: 1000000; with --keys-file, every id of the file up to that].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub rows: Option<u64>,
    /// Where the id lives: the clustered primary key, or a secondary index.
    #[arg(long, default_value = "pk", value_parser = choices::<Placement>(&["pk", "secondary"]))]
    pub placement: Placement,
    /// Bytes of the `data` payload column per row (E1 stores the 4-byte string `data`); at
    /// most 16383, the longest utf8mb4 VARCHAR.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=MAX_PAYLOAD_BYTES as i64))]
    pub payload_bytes: u32,
    /// InnoDB page size.
    #[arg(long, default_value = "16k", value_parser = choices::<PageSize>(&["4k", "8k", "16k", "32k", "64k"]))]
    pub page_size: PageSize,
    /// Load method.
    #[arg(long, default_value = "multi", value_parser = choices::<LoadMethod>(&LoadMethod::ALL.map(|m| m.token())))]
    pub method: LoadMethod,
    /// Rows per statement (multi, prepared, load-data) or per transaction (row; 1 = autocommit);
    /// `MIN..MAX` (multi, prepared): statements of varying shape, seeded.
    #[arg(long, default_value = "1000", value_name = "N|MIN..MAX", value_parser = keylab_core::parse_batch)]
    pub batch: (u32, Option<u32>),
    /// Parallel writer connections.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_WRITERS as i64))]
    pub writers: u32,
    /// Simulator runs at once, each on its own thread with its own table (at most this many
    /// simulated tables in memory; only results are kept after a run) [default: the number of
    /// cores]. Output and figures are the same for every value. A server engine runs one job
    /// at a time whatever this says (one server).
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Run each variant this many times on a server, each time on a fresh table with the
    /// same rows, and report every timing's median, mean ± σ and min … max with the first
    /// (cold) run apart [default: 3 on a server, the fewest that give a median and a spread;
    /// 1 on the simulator, whose figures are the same on every run].
    #[arg(long, value_name = "N", env = "KEYLAB_REPEAT", value_parser = clap::value_parser!(u32).range(1..=repeat::MAX_REPEATS as i64))]
    pub repeat: Option<u32>,
    /// Simulator: check every invariant of the tree every N inserts (slow; for debugging).
    #[arg(long, value_name = "N")]
    pub check_every: Option<u64>,
    /// Turn on performance_schema on a private server: the table's own I/O counters
    /// (io_write_requests... as E1 reads them) and server-side statement times. A --url
    /// server is read as it is; on the simulator this is noted as not applicable.
    #[arg(long)]
    pub perf_schema: bool,
    /// Bound the buffer pool (`innodb_buffer_pool_size`): bytes or `64M`, `1G`, `16MiB`,
    /// `512K`. The simulator then models page reads and writes; a private server starts with
    /// it and reports the size it really uses (rounded to its chunk size). At least MariaDB's
    /// smallest pool (6 MiB at 16k pages) when a run is InnoDB, else PostgreSQL's smallest
    /// shared_buffers (128K) [default: the simulator caches every page; a private server
    /// gets 256M].
    #[arg(long, value_name = "SIZE", value_parser = parse_byte_size)]
    pub buffer_pool: Option<u64>,
    #[command(flatten)]
    pub work: WorkArgs,
    #[command(flatten)]
    pub gen: GenArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `keylab run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// A scenario file (TOML) or the name of a built-in scenario.
    pub scenario: String,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Multiply every row count of the scenario (more than 0, at most 10000).
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    pub scale: f64,
    /// Seed of every random part.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Bound the buffer pool of every run (`innodb_buffer_pool_size`; `shared_buffers` on
    /// postgres): bytes or `64M`, `1G`, `16MiB`, `512K`, as on `compare`. It replaces the
    /// scenario's `[engine] buffer_pool` and is not scaled by --scale [default: the
    /// scenario's].
    #[arg(long, value_name = "SIZE", value_parser = parse_byte_size)]
    pub buffer_pool: Option<u64>,
    /// Simulator runs at once, each on its own thread with its own table (at most this many
    /// simulated tables in memory; only results are kept after a run) [default: the number of
    /// cores]. Output and figures are the same for every value. A server engine runs one job
    /// at a time whatever this says (one server).
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Run each run of the scenario this many times on a server, each time on a fresh table with the
    /// same rows, and report every timing's median, mean ± σ and min … max with the first
    /// (cold) run apart [default: 3 on a server, the fewest that give a median and a spread;
    /// 1 on the simulator, whose figures are the same on every run].
    #[arg(long, value_name = "N", env = "KEYLAB_REPEAT", value_parser = clap::value_parser!(u32).range(1..=repeat::MAX_REPEATS as i64))]
    pub repeat: Option<u32>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `keylab scenarios`.
#[derive(Debug, Clone, Args)]
pub struct ScenariosArgs {
    /// `show NAME` prints one built-in as TOML.
    #[command(subcommand)]
    pub action: Option<ScenariosAction>,
}

/// `keylab scenarios show`.
#[derive(Debug, Clone, Subcommand)]
pub enum ScenariosAction {
    /// Print a built-in scenario as TOML.
    Show {
        /// Built-in scenario name.
        name: String,
    },
}

/// `keylab keys`.
#[derive(Debug, Clone, Args)]
pub struct KeysArgs {
    /// Key variant: `strategy[:encoding]`, e.g. uuid7:text, ulid:bin, snowflake, sequence
    /// (strategies: auto-inc, seq, uuid1, uuid4, uuid6, uuid7, ulid, snowflake, tsid, ksuid,
    /// md5, sequence, table).
    pub variant: Variant,
    /// How many ids.
    #[arg(long, default_value_t = 10)]
    pub count: u64,
    #[command(flatten)]
    pub gen: GenArgs,
}

/// `keylab validate`.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// The server engine to validate against; the simulator models that server's version
    /// (mariadb-10.11 for MariaDB, mysql-8.0 for MySQL; the closest model, said so, otherwise).
    #[arg(long, default_value = "mariadb", value_parser = parse_server_engine)]
    pub engine: EngineKind,
    /// A server to use instead of a private instance (without a PASSWORD in the URL, the
    /// password is taken from $KEYLAB_PASSWORD if set).
    #[arg(long, value_name = "URL")]
    pub url: Option<UrlArg>,
    /// Database keylab creates and works in, on a --url server or a private instance
    /// [default: the URL's database, else keylab] (the schema, on postgres).
    #[arg(long, value_name = "NAME", value_parser = parse_database)]
    pub database: Option<String>,
    /// Simulator runs at once on the simulator side, each on its own thread with its own
    /// table [default: the number of cores]. The server side runs one run at a time (one
    /// server). Figures are the same for every value.
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Collation of text ids on --engine postgres: default or C.
    #[arg(long, value_name = "COLLATION", default_value = "default", value_parser = choices::<TextCollation>(&["default", "C"]))]
    pub collation: TextCollation,
    /// Output: a table, or JSON with every compared figure.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub format: String,
    /// Leave out the buffer pool check (two 600,000-row loads on each engine under a 16 MiB
    /// pool: page reads and writes of a random and an ordered key).
    #[arg(long)]
    pub skip_pool: bool,
    /// Validate sharded runs instead (2 to 16 shards; --engine mariadb): the simulator's N
    /// model tables against a Spider head over N private backends, on auto-inc, seq,
    /// uuid4:bin and uuid7:bin keys (100,000 rows each). Prints, per shard, rows, PRIMARY leaf
    /// pages, splits and size on both sides, and, per window of rows sent, each shard's share
    /// of inserts; exits 1 when a shard's rows differ, its leaf pages are more than 0.5% off,
    /// or any window's counts differ (routing is deterministic). No buffer pool check.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=16))]
    pub shards: Option<u32>,
    /// With --shards: range or hash only [default: both].
    #[arg(long, value_name = "RULE", value_parser = choices::<Sharding>(&Sharding::ALL.map(|k| k.token())))]
    pub sharding: Option<Sharding>,
}

/// `keylab inspect`.
#[derive(Debug, Clone, Args)]
pub struct InspectArgs {
    /// An InnoDB tablespace file (copy it after `FLUSH TABLES t FOR EXPORT`).
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `keylab report`.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// A JSON result written by `--export-json` or `--format json`.
    pub result: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--rows` when not given: `compare` without `--keys-file`, and `advise` when no `--url`
/// table gives its row count.
pub const DEFAULT_ROWS: u64 = 1_000_000;

/// The longest `data` value: a utf8mb4 `VARCHAR` holds at most 16383 characters (65535
/// bytes at 4 bytes each), and the column is declared as long as the payload.
pub const MAX_PAYLOAD_BYTES: u32 = 16_383;

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn debug_of_the_arguments_never_shows_the_password() {
        let cli = Cli::try_parse_from([
            "keylab",
            "compare",
            "--engine",
            "mariadb",
            "--url",
            "mysql://app:hunter2@db.example:3307/bench",
        ])
        .expect("parses");
        let shown = format!("{cli:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("mysql://app:***@db.example:3307/bench"), "{shown}");
        let Command::Compare(args) = cli.command else { panic!("compare") };
        let url = args.engine.url.expect("--url");
        assert_eq!(url.expose(), "mysql://app:hunter2@db.example:3307/bench");
        assert_eq!(url.to_string(), "mysql://app:***@db.example:3307/bench");
        // Malformed URLs are masked too (they are parsed, and rejected, later).
        for (raw, shown) in [
            ("mysql://u:p@ss@h", "mysql://u:***@h"),
            ("mysql://u:hunter2", "mysql://***"),
            ("u:hunter2@h", "u:***@h"),
            ("mysql://app@h", "mysql://app@h"),
        ] {
            assert_eq!(raw.parse::<UrlArg>().unwrap().to_string(), shown);
        }
        let validate = Cli::try_parse_from(["keylab", "validate", "--url", "mysql://a:hunter2@h"])
            .expect("parses");
        assert!(!format!("{validate:?}").contains("hunter2"));
    }

    #[test]
    fn a_bad_database_name_is_refused_naming_the_flag() {
        let err = Cli::try_parse_from(["keylab", "compare", "--database", "no-dashes"])
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2);
        let msg = err.to_string();
        assert!(msg.contains("--database") && msg.contains("letters, digits"), "{msg}");
    }

    #[test]
    fn buffer_pool_sizes_parse_with_binary_suffixes() {
        for (text, bytes) in [
            ("67108864", 64u64 << 20),
            ("64M", 64 << 20),
            ("64m", 64 << 20),
            ("16MiB", 16 << 20),
            ("1G", 1 << 30),
            ("512K", 512 << 10),
            ("2gb", 2 << 30),
        ] {
            assert_eq!(parse_byte_size(text), Ok(bytes), "{text}");
        }
        for bad in ["", "M", "64X", "-1M", "0", "1.5G", "99999999999999T"] {
            assert!(parse_byte_size(bad).is_err(), "{bad}");
        }
        let err = Cli::try_parse_from(["keylab", "compare", "--buffer-pool", "lots"])
            .expect_err("refused");
        assert_eq!(err.exit_code(), 2);
        let msg = err.to_string();
        assert!(msg.contains("--buffer-pool") && msg.contains("64M, 1G"), "{msg}");
    }
}
