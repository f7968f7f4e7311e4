//! `keylab advise`'s flags: the DDL file, the table, the candidates, rows, widths and engine.
//! Only parsing and per-flag checks; the work is in `cmd/advise/`.

use crate::args::{choices, OutputArgs, UrlArg};
use clap::Args;
use keylab_core::{EngineKind, MixSpec, ReadSpec, SimModel};
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
    /// CREATE TABLE, SELECTs on information_schema, COUNT(*) (under 1M estimated rows), a
    /// sample of 10,000 rows for column widths and SELECT @@innodb_buffer_pool_size, in START
    /// TRANSACTION READ ONLY.
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or postgresql://): only SELECTs on
    /// pg_catalog, a count(*) bounded to 1M rows (when pg_class.reltuples is under 1M), a
    /// sample of 10,000 rows and current_setting('shared_buffers'), in BEGIN READ ONLY; no
    /// LOCK statement (a plain SELECT takes only the ACCESS SHARE lock every read takes). Either way it creates, changes and locks
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
    /// The workload to weigh per candidate on the simulator (--engine sim, one table without
    /// partitions), comma-separated: reads
    /// `KIND:COUNT[:DIST]` (as `compare --reads` takes them) and at most one mixed workload
    /// `SHARE:KIND:OPS[:DIST]` (as `compare --mix`: SHARE of the OPS operations insert new
    /// rows, the others read). They run after each candidate's load, under --buffer-pool;
    /// each candidate then has its misses per 1,000 operations, the pool its --hit-target
    /// needs, and the recommendation weighs both.
    ///
    /// Example: --workload 10%:point:100000:latest=5% (90% point reads of the newest 5% of
    /// the rows, 10% inserts)
    #[arg(long, value_name = "SPEC,...", value_delimiter = ',', value_parser = parse_workload)]
    pub workload: Vec<WorkloadItem>,
    /// The buffer pool the simulator's candidates load and run the --workload under
    /// (`innodb_buffer_pool_size`; `shared_buffers` on the postgres-15 model): bytes or
    /// `64M`, `1G`, `16MiB`; on --engine mariadb|mysql|postgres the private server starts
    /// with it [default with --workload: the --url server's own, else 128M, the servers' own
    /// default (innodb_buffer_pool_size and shared_buffers); the report says which; without
    /// --workload: every page cached; a private server gets keylab's 256M].
    #[arg(long, value_name = "SIZE", value_parser = super::values::parse_byte_size)]
    pub buffer_pool: Option<u64>,
    /// With --workload: the pool sizes each candidate is loaded and run again under, to find
    /// the pool its --hit-target needs, comma-separated shares of its table (`1/32`, `25%`)
    /// or sizes (`64M`); the pool needed is interpolated between them, never extrapolated
    /// [default: 1/16,1/4,1/2,1,2, then on InnoDB 2 on top of the 1,536 pages MariaDB's page
    /// cleaner keeps free, which pools under about 2,300 pages cannot hold other pages in].
    #[arg(long, value_name = "SIZE,...", value_delimiter = ',', value_parser = super::work::parse_size)]
    pub pool_sizes: Vec<keylab_core::PoolSize>,
    /// With --workload: the hit ratio, percent, whose pool is reported per candidate
    /// [default: 99].
    #[arg(long, value_name = "PCT", value_parser = super::work::parse_target)]
    pub hit_target: Option<f64>,
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

/// One `--workload` item: reads after the load, or the mixed workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorkloadItem {
    /// Reads, `KIND:COUNT[:DIST]`.
    Reads(ReadSpec),
    /// Inserts and reads interleaved, `SHARE:KIND:OPS[:DIST]`.
    Mix(MixSpec),
}

impl std::fmt::Display for WorkloadItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkloadItem::Reads(r) => r.fmt(f),
            WorkloadItem::Mix(m) => m.fmt(f),
        }
    }
}

/// The default pool sizes of the hit-target curve: shares of each candidate's table, from a
/// sixteenth (where time-ordered keys' recent rows fit) to twice the table (where a random
/// key's reads all hit); five loads more per candidate.
pub const DEFAULT_POOL_SIZES: [f64; 5] = [1.0 / 16.0, 0.25, 0.5, 1.0, 2.0];

impl AdviseArgs {
    /// The `--workload` reads, in order.
    pub fn reads(&self) -> Vec<ReadSpec> {
        let reads = self.workload.iter().filter_map(|w| match w {
            WorkloadItem::Reads(r) => Some(*r),
            WorkloadItem::Mix(_) => None,
        });
        reads.collect()
    }

    /// The `--workload` mixed workload (the first; a second is refused by `check_workload`).
    pub fn mix(&self) -> Option<MixSpec> {
        self.workload.iter().find_map(|w| match w {
            WorkloadItem::Mix(m) => Some(*m),
            WorkloadItem::Reads(_) => None,
        })
    }

    /// The workload as given, comma-separated (empty without one).
    pub fn workload_text(&self) -> String {
        self.workload.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(",")
    }

    /// The target hit ratio, 0..1.
    pub fn hit_ratio_target(&self) -> f64 {
        self.hit_target.unwrap_or(99.0) / 100.0
    }

    /// The pool sizes of the hit-target curve.
    pub fn curve_sizes(&self) -> Vec<keylab_core::PoolSize> {
        if self.pool_sizes.is_empty() {
            let shares = DEFAULT_POOL_SIZES.iter().map(|&s| keylab_core::PoolSize::Share(s));
            shares.chain([keylab_core::PoolSize::ShareBeyondReserve(2.0)]).collect()
        } else {
            self.pool_sizes.clone()
        }
    }
}

/// A mixed workload starts with its insert share (`10%:` or `0.1:`), reads with their kind.
fn parse_workload(s: &str) -> Result<WorkloadItem, String> {
    let head = s.trim().split(':').next().unwrap_or("");
    let numeric = head.strip_suffix('%').unwrap_or(head).trim().parse::<f64>().is_ok();
    if numeric {
        s.parse().map(WorkloadItem::Mix)
    } else {
        s.parse().map(WorkloadItem::Reads).map_err(|e: String| {
            format!("{e}; a mixed workload is SHARE:KIND:OPS[:DIST], e.g. 10%:point:100000")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_item_with_a_share_is_the_mix_and_the_others_are_reads() {
        let mix = parse_workload("10%:point:1000:latest=5%").unwrap();
        assert!(matches!(mix, WorkloadItem::Mix(m) if m.inserts() == 100), "{mix:?}");
        assert_eq!(mix.to_string(), "10%:point:1000:latest=5%");
        let mix = parse_workload("0.25:secondary:8").unwrap();
        assert!(matches!(mix, WorkloadItem::Mix(m) if m.inserts() == 2), "{mix:?}");
        let read = parse_workload("point:1000:zipf=0.99").unwrap();
        assert!(matches!(read, WorkloadItem::Reads(r) if r.count == 1000), "{read:?}");
        let e = parse_workload("150%:point:5").unwrap_err();
        assert!(e.contains("0 <= share < 1"), "{e}");
        let e = parse_workload("scan:5").unwrap_err();
        assert!(e.contains("valid: point") && e.contains("SHARE:KIND:OPS"), "{e}");
    }
}
