//! Engine-neutral operations of the phases after a load: churn (inserts and deletes),
//! rebuilds, timed queries and online DDL. Engines that cannot run one say so with
//! [`EngineError::Unsupported`](crate::EngineError::Unsupported) and the reason, and the
//! phase is reported as not applicable — never faked.

use crate::workload::Row;
use keylab_schema::Value;
use serde::{Deserialize, Serialize};

/// One row-level operation of a churn phase.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Insert a row (table column order).
    Insert(Row),
    /// Delete the row with this primary key (key column order).
    Delete(Vec<Value>),
}

/// A timed query over the loaded table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuerySpec {
    /// Point lookups of existing primary keys, `count` per run.
    Point {
        /// Lookups per run.
        count: u32,
    },
    /// A primary-key range of `rows` rows starting at an existing key.
    PkRange {
        /// Rows in the range.
        rows: u32,
    },
    /// A covering range over the id column through the secondary index (E1's
    /// `WHERE id LIKE 'prefix%'`), or through the clustered index in pk placement.
    IdPrefix {
        /// The prefix (`01J`).
        prefix: String,
    },
    /// The same covering range with the prefix chosen by the engine from the table's own
    /// ids: the prefix of the lowest id whose match count is nearest to `share` of the rows
    /// (E1's `'01J%'` matched every row of the author's ULID tables; for random ids a prefix
    /// selects about 1/16 per hex digit, so the share actually selected is reported).
    IdShare {
        /// Wanted share of the table's rows, in (0, 1].
        share: f64,
    },
    /// A full scan counting rows.
    FullScan,
}

/// What a timed query returned.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryOutcome {
    /// Client wall time of each run (send, execute, read every row), milliseconds.
    pub run_ms: Vec<f64>,
    /// Server-side statement time of each run (performance_schema `TIMER_WAIT`, summed over
    /// the run's statements), milliseconds; `None` where the engine cannot read it.
    pub server_ms: Option<Vec<f64>>,
    /// Rows returned per run.
    pub rows: u64,
    /// Rows in the table when the query ran, where the engine counted them.
    pub table_rows: Option<u64>,
    /// What an [`QuerySpec::IdShare`] query selected by (`LIKE '01JGFJ%'`, or
    /// `BETWEEN lo AND hi`; binary ids in hex).
    pub condition: Option<String>,
    /// The server's plan for the query (`EXPLAIN`), where the engine has one.
    pub plan: Option<QueryPlan>,
    /// Why a figure above is missing, in words (e.g. performance_schema is off).
    pub notes: Vec<String>,
}

/// The plan a server chose for a query: `EXPLAIN`'s first row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryPlan {
    /// Access type (`range`, `index`, `ALL`, `ref`, `const`...).
    pub access_type: Option<String>,
    /// The index used (`PRIMARY`, `k_id`...), `None` when none.
    pub key: Option<String>,
    /// The optimizer's estimate of rows examined.
    pub rows: Option<u64>,
    /// Bytes of the key the range uses (MariaDB/MySQL `key_len`; a `LIKE 'p%'` over a
    /// prefix of a utf8mb4 VARCHAR(26) uses all 106); `None` where the server has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_len: Option<String>,
    /// `Extra` (`Using where; Using index`: a covering range), or PostgreSQL's filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
}

/// An online schema change (E5's second half).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DdlSpec {
    /// `add_column`, `drop_column`, `add_fulltext_index` or `change_primary_key`.
    pub action: DdlAction,
    /// Column name (the column added, dropped, indexed or appended to the primary key).
    pub column: String,
    /// `INSTANT`, `INPLACE` or `COPY`.
    pub algorithm: DdlAlgorithm,
    /// `add_column` only: the column the new one goes after (`ADD COLUMN ... AFTER col`;
    /// instant only on MariaDB 10.4+ and MySQL 8.0.29+); `None` appends it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// `LOCK=` of the statement; `None` leaves it to the server (the least restrictive lock
    /// the algorithm supports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<DdlLock>,
    /// `add_column` only: the new column's type (always nullable); `None` adds `INT NULL`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column_type: Option<keylab_schema::ColumnType>,
}

/// `LOCK=` of an `ALTER TABLE`: what concurrent statements may do while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DdlLock {
    /// `LOCK=NONE`: reads and writes go on.
    None,
    /// `LOCK=SHARED`: reads go on, writes wait.
    Shared,
    /// `LOCK=EXCLUSIVE`: reads and writes wait.
    Exclusive,
}

impl DdlLock {
    /// The SQL keyword.
    pub fn sql(self) -> &'static str {
        match self {
            DdlLock::None => "NONE",
            DdlLock::Shared => "SHARED",
            DdlLock::Exclusive => "EXCLUSIVE",
        }
    }
}

/// The change a [`DdlSpec`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DdlAction {
    /// `ADD COLUMN c INT NULL` (or the step's `column_type`, nullable).
    AddColumn,
    /// `DROP COLUMN c`.
    DropColumn,
    /// `ADD FULLTEXT INDEX ft_c (c)` on character column `c` (E5's rebuild case: the first
    /// FULLTEXT index adds a hidden column, and no later column change is instant).
    AddFulltextIndex,
    /// `DROP PRIMARY KEY, ADD PRIMARY KEY (pk..., c)`: the primary key with column `c`
    /// appended (a NOT NULL column), so a new clustered index: a rebuild.
    ChangePrimaryKey,
}

/// `ALGORITHM=` of an `ALTER TABLE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DdlAlgorithm {
    /// `ALGORITHM=INSTANT`.
    Instant,
    /// `ALGORITHM=INPLACE`.
    Inplace,
    /// `ALGORITHM=COPY`.
    Copy,
}

/// What a DDL statement did. A figure the engine cannot give is `None` (the simulator gives
/// what the server's rules allow, never a time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DdlOutcome {
    /// Wall time, milliseconds (`None` on the simulator).
    pub wall_ms: Option<f64>,
    /// True when the engine accepted the algorithm (false: it refused, `message` says why).
    pub supported: bool,
    /// The server's error number when it refused (1845, 1846).
    pub error_code: Option<u16>,
    /// The algorithm the server used (`instant`, `inplace`, `copy`), when known: MariaDB may
    /// run a statement with a better algorithm than the one asked for.
    pub algorithm_used: Option<String>,
    /// The lock the statement held against writers (`none`, `shared`, `exclusive`), when
    /// known (from the rules; a server does not report it: its writers' stall shows it).
    pub lock_used: Option<String>,
    /// The engine's message: why it refused, or what it did.
    pub message: Option<String>,
    /// Concurrent writers during the statement, when the phase ran some.
    pub writers: Option<DdlWriters>,
}

impl DdlOutcome {
    /// A refusal with the server's error number and words.
    pub fn refused(wall_ms: Option<f64>, code: u16, message: String) -> DdlOutcome {
        DdlOutcome {
            wall_ms,
            supported: false,
            error_code: Some(code),
            algorithm_used: None,
            lock_used: None,
            message: Some(message),
            writers: None,
        }
    }
}

/// What concurrent writers saw while a DDL statement ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DdlWriters {
    /// Writers (connections inserting one row per autocommitted statement).
    pub writers: u32,
    /// Whether the statement holds writers back for its whole run (the rules' answer; `None`
    /// on a server, whose `longest_stall_ms` against `wall_ms` shows it).
    pub blocks_writers: Option<bool>,
    /// The longest time one writer waited between two of its inserts, over the statement's
    /// run (`None` on the simulator).
    pub longest_stall_ms: Option<f64>,
    /// Rows the writers inserted between the statement's start and end (`None` on the
    /// simulator).
    pub rows_inserted_during: Option<u64>,
    /// Rows the writers inserted in all (before, during and after the statement).
    pub rows_inserted: Option<u64>,
}
