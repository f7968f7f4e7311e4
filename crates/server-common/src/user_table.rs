//! What `keylab advise --url ... --table SCHEMA.TABLE` reads of a user's table, whatever the
//! server: its definition, its row count (counted exactly below [`EXACT_COUNT_BELOW`]) and the
//! average stored width of each variable-length column over a bounded sample
//! ([`SAMPLE_ROWS`]), and the server's buffer pool size (for `advise --workload`).
//!
//! This module only describes what was read; each engine reads it, read-only, from its own
//! catalog (`keylab-mariadb`: `SHOW CREATE TABLE` and information_schema;
//! `keylab-pg-server`: pg_catalog).

/// Rows of the width sample.
pub const SAMPLE_ROWS: u32 = 10_000;

/// Below this estimate the rows are counted exactly.
pub const EXACT_COUNT_BELOW: u64 = 1_000_000;

/// What was read.
#[derive(Debug, Clone, PartialEq)]
pub struct UserTable {
    /// The table's `CREATE TABLE`: `SHOW CREATE TABLE`'s text (MariaDB/MySQL), or the one
    /// rebuilt from the catalog (PostgreSQL).
    pub create_sql: String,
    /// Rows: counted, or the statistics' estimate.
    pub rows: u64,
    /// True when `rows` was counted.
    pub rows_counted: bool,
    /// Average stored bytes per variable-length column over the sample (`None`: all NULL).
    pub avg_widths: Vec<(String, Option<f64>)>,
    /// Rows in the sample.
    pub sampled_rows: u64,
    /// The server's buffer pool, bytes (`innodb_buffer_pool_size`; PostgreSQL's
    /// `shared_buffers`); `None` when it could not be read.
    pub pool_bytes: Option<u64>,
}
