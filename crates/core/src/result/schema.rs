//! The `schema` section of a report: `keylab advise FILE.sql` without `--table`, every table
//! of the file in one summary (an extension of the contract, absent from every other report).
//!
//! Each advised table gives its current key, the best candidate (the rule of the one-table
//! recommendation), bytes and pages of every index now and with that candidate, and what the
//! candidate adds to the child tables whose foreign keys refer to it; tables are ranked by
//! bytes saved including children. A table that could not be advised is one line with its
//! reason. A figure that cannot be given is `null`.

use serde::{Deserialize, Serialize};

/// Every table of a schema file, advised on in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemaSummary {
    /// The file as the user named it.
    pub file: String,
    /// `mysql` or `postgres`: the dialect it was read in.
    pub dialect: String,
    /// Rows loaded into each table under each candidate.
    pub rows_per_table: u64,
    /// The candidate keys tried on every table (besides its current key).
    pub candidates: Vec<String>,
    /// How the child bytes are counted, in words.
    pub child_bytes_method: String,
    /// Advised tables, most bytes saved (children included) first.
    pub tables: Vec<SchemaTable>,
    /// Tables that could not be advised, in file order.
    pub refused: Vec<RefusedTable>,
}

/// One advised table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemaTable {
    /// The table's name.
    pub table: String,
    /// Its primary-key columns and their SQL types (`id BIGINT`).
    pub current_key: String,
    /// The best candidate's token, `null` when none ran.
    pub best: Option<String>,
    /// The best candidate's key type (`BINARY(16)`).
    pub best_key_type: Option<String>,
    /// Bytes of every index (data and indexes) under the current key.
    pub bytes_now: Option<u64>,
    /// The same under the best candidate.
    pub bytes_best: Option<u64>,
    /// Pages of every index under the current key.
    pub pages_now: Option<u64>,
    /// The same under the best candidate.
    pub pages_best: Option<u64>,
    /// `bytes_now - bytes_best` (negative: the candidate is bigger).
    pub bytes_saved: Option<i64>,
    /// Bytes the best candidate adds to the child tables (negative: removes), summed over
    /// `children`; 0 without children.
    pub child_bytes_added: Option<i64>,
    /// `bytes_saved - child_bytes_added`: the ranking's figure.
    pub bytes_saved_with_children: Option<i64>,
    /// Each referencing foreign key of a child table.
    pub children: Vec<ChildChange>,
    /// Why a figure is missing (a failed candidate), else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a parent's best candidate does to one referencing foreign key of a child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChildChange {
    /// The child table.
    pub table: String,
    /// Its referencing columns.
    pub columns: Vec<String>,
    /// Rows of the child (as loaded).
    pub rows: u64,
    /// Stored bytes of the referencing columns: change per record (new key minus current).
    pub width_change_bytes: i64,
    /// The child's records holding the columns: its row (clustered record or heap tuple),
    /// then every index that holds them, by name.
    pub records: Vec<String>,
    /// Bytes each of `records` changes by (InnoDB: `width_change_bytes`; PostgreSQL: the
    /// MAXALIGNed tuple with the new type minus with the old).
    pub record_change_bytes: Vec<i64>,
    /// `rows ×` the sum of `record_change_bytes`; `null` for a multi-column foreign key.
    pub bytes_added: Option<i64>,
}

/// A table of the file that could not be advised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusedTable {
    /// The table's name (empty when the file could not be read as far as a name).
    pub table: String,
    /// `FILE:LINE:COLUMN`.
    pub at: String,
    /// Why.
    pub reason: String,
}
