//! The engine flags every running command shares (`--engine`, `--model`, `--interleave`,
//! `--page-cleaner`, `--url`, `--database`, `--shards`, `--sharding`, `--collation`), and
//! the checks on a `--model` list.
//!
//! Not for building an engine from them (`cmd/`), nor for the parsers of single values
//! (`values`).

use super::values::{choices, parse_database, UrlArg};
use clap::Args;
use keylab_core::{EngineKind, Sharding, SimModel};
use keylab_pg_server::TextCollation;

/// Which MariaDB 10.11 release's page cleaner the simulator follows (`--page-cleaner`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum PageCleaner {
    /// 10.11.0 to 10.11.6.
    #[value(name = "10.11.0")]
    Before10_11_7,
    /// 10.11.9 and later.
    #[default]
    #[value(name = "10.11.9")]
    Since10_11_9,
}

impl PageCleaner {
    /// The buffer pool model's rules.
    pub fn rules(self) -> keylab_innodb_model::PageCleanerRules {
        match self {
            PageCleaner::Before10_11_7 => keylab_innodb_model::PageCleanerRules::Before10_11_7,
            PageCleaner::Since10_11_9 => keylab_innodb_model::PageCleanerRules::Since10_11_9,
        }
    }
}

/// How the simulator mixes parallel writers' running statements (`--interleave`): the
/// flag's values for [`keylab_sim::Interleave`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Interleave {
    /// The next row comes from any running statement, picked at random (seeded).
    #[default]
    Rows,
    /// A statement that inserted its first row inserts all of them before another does;
    /// statements that start together take their `AUTO_INCREMENT` blocks at their start.
    Statements,
    /// One statement at a time, taking its `AUTO_INCREMENT` values as it inserts them.
    Serial,
}

impl Interleave {
    /// The model's mix.
    pub fn mix(self) -> keylab_sim::Interleave {
        match self {
            Interleave::Rows => keylab_sim::Interleave::Rows,
            Interleave::Statements => keylab_sim::Interleave::Statements,
            Interleave::Serial => keylab_sim::Interleave::Serial,
        }
    }
}

/// Which engine runs the experiment.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Engine: the embedded simulator, or a real server (a private instance unless --url).
    #[arg(long, default_value = "sim", value_parser = choices::<EngineKind>(&EngineKind::ALL.map(|k| k.token())))]
    pub engine: EngineKind,
    /// Which server's rules the simulator follows (--engine sim only) [default:
    /// mariadb-10.11, or a scenario's `[engine] model`]. On compare, a comma list
    /// (`mariadb-10.11,postgres-15`) runs every variant under each model, on the same ids,
    /// into one report.
    #[arg(long, value_name = "MODEL[,MODEL...]", value_delimiter = ',', value_parser = choices::<SimModel>(&SimModel::ALL.map(|m| m.token())))]
    pub model: Vec<SimModel>,
    /// How the simulator mixes the rows of parallel writers' running statements (--engine
    /// sim, writers > 1): rows (the next row from any running statement: the finest mix,
    /// the lowest fill), statements (each statement's rows together, AUTO_INCREMENT blocks
    /// taken when statements start, so out of order) or serial (one statement at a time:
    /// the highest fill). A server's leaf fill lies between rows and serial.
    #[arg(long, value_enum, default_value = "rows")]
    pub interleave: Interleave,
    /// Which MariaDB 10.11 release's page cleaner the simulator's buffer pool follows
    /// (--engine sim with --buffer-pool): 10.11.9 (and later, as the 10.11.19 the live tests
    /// run: a written page stays for the next batch, under 80 MiB a batch passes the whole
    /// LRU, dirty neighbours are written with a page, and page descriptors take 1 % of the
    /// pool; the figures checked against the server) or 10.11.0 (to 10.11.6: a completed LRU
    /// write frees its page and a batch stops at 256 pages). docs/model-rules.md §9.
    #[arg(long, value_enum, default_value = "10.11.9")]
    pub page_cleaner: PageCleaner,
    /// A server to use instead of a private instance:
    /// mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (or mariadb://), or
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE for --engine postgres. Without a
    /// PASSWORD in the URL, the password is taken from $KEYLAB_PASSWORD if set (not visible in
    /// ps), else $PGPASSWORD for postgres.
    #[allow(rustdoc::broken_intra_doc_links)] // --help text: [:PASSWORD] is no link
    #[arg(long, value_name = "URL")]
    pub url: Option<UrlArg>,
    /// Database keylab creates and works in, on a --url server or a private instance
    /// [default: the URL's database, else keylab]. On --engine postgres: the schema keylab
    /// creates and works in, inside the URL's database [default: keylab].
    #[arg(long, value_name = "NAME", value_parser = parse_database)]
    pub database: Option<String>,
    /// Shards (2 to 16): with --engine mariadb, N private backend servers behind a private
    /// head whose table uses MariaDB's Spider engine, partitioned by the key column (a
    /// scenario's `[engine] backends` names existing servers instead).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=16))]
    pub shards: Option<u32>,
    /// How --shards routes rows: range (bounds at the quantiles of the keys loaded, an equal
    /// share each) or hash (PARTITION BY KEY) [default: range].
    #[arg(long, value_name = "RULE", value_parser = choices::<Sharding>(&Sharding::ALL.map(|k| k.token())))]
    pub sharding: Option<Sharding>,
    /// Collation of text ids on --engine postgres: the database's default, or C (byte
    /// order). Ids that need byte order (KSUID text) always get C.
    #[arg(long, value_name = "COLLATION", default_value = "default", value_parser = choices::<TextCollation>(&["default", "C"]))]
    pub collation: TextCollation,
    /// A scenario's `[engine] backends`: existing servers to shard over (not a flag).
    #[arg(skip)]
    pub backends: Vec<UrlArg>,
}

impl EngineArgs {
    /// The one model `--model` names, `None` without the flag. Commands that run one model
    /// call [`EngineArgs::one_model_only`] first; compare runs each model of a list through
    /// [`EngineArgs::with_model`].
    pub fn model(&self) -> Option<SimModel> {
        self.model.first().copied()
    }

    /// These arguments with `--model` set to `model` alone.
    pub fn with_model(&self, model: SimModel) -> EngineArgs {
        EngineArgs { model: vec![model], ..self.clone() }
    }

    /// The models `--model` lists, refused (exit 2) when one is listed twice.
    pub fn models(&self) -> Result<&[SimModel], crate::UsageError> {
        for (i, m) in self.model.iter().enumerate() {
            if self.model[..i].contains(m) {
                return Err(crate::UsageError(format!(
                    "--model {}: {m} is listed twice; name each model once (valid: {})",
                    self.model_list(),
                    SimModel::choices()
                )));
            }
        }
        Ok(&self.model)
    }

    /// Refuses (exit 2) a `--model` list of more than one model on `command`, which runs one.
    pub fn one_model_only(&self, command: &str) -> Result<(), crate::UsageError> {
        if self.model.len() > 1 {
            return Err(crate::UsageError(format!(
                "--model {}: keylab {command} runs under one model; give one of them, or use \
                 keylab compare, which runs every variant under each model of a list",
                self.model_list()
            )));
        }
        Ok(())
    }

    /// `--model` as given, comma-separated.
    pub fn model_list(&self) -> String {
        self.model.iter().map(|m| m.token()).collect::<Vec<_>>().join(",")
    }
}
