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
    /// A full scan counting rows.
    FullScan,
}

/// What a timed query returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryOutcome {
    /// Time of each run, milliseconds.
    pub run_ms: Vec<f64>,
    /// Rows returned per run.
    pub rows: u64,
}

/// An online schema change (E5's second half).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DdlSpec {
    /// `add_column` or `drop_column`.
    pub action: DdlAction,
    /// Column name.
    pub column: String,
    /// `INSTANT`, `INPLACE` or `COPY`.
    pub algorithm: DdlAlgorithm,
    /// `add_column` only: the column the new one goes after (`ADD COLUMN ... AFTER col`;
    /// instant only on MariaDB 10.4+ and MySQL 8.0.29+); `None` appends it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// The change a [`DdlSpec`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DdlAction {
    /// `ADD COLUMN c INT NULL`.
    AddColumn,
    /// `DROP COLUMN c`.
    DropColumn,
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

/// What a DDL statement did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DdlOutcome {
    /// Wall time, milliseconds.
    pub wall_ms: f64,
    /// True when the engine accepted the algorithm (false: it refused, `message` says why).
    pub supported: bool,
    /// The engine's message when it refused.
    pub message: Option<String>,
}
