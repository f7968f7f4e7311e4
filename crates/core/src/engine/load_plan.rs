//! How a load sends rows to an engine: the load method, rows per statement (fixed or a
//! seeded range), writers, how churn sends its inserts and deletes, and the auto-increment
//! values a bulk statement reserves. Plain data and pure functions.
//!
//! Not for running a load (each engine's `load`) nor for what a server can run
//! (`check_plan` of the server crates).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How rows are sent to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadMethod {
    /// One INSERT per row, `batch` rows per transaction (a batch of 1 is autocommit).
    Row,
    /// Multi-row INSERTs of `batch` rows.
    Multi,
    /// A server-side prepared multi-row INSERT of exactly `batch` rows, one remainder; each
    /// connection keeps its last [`PREPARED_CACHE_STATEMENTS`] statements prepared (a
    /// client's statement cache), so a fixed shape is prepared once.
    Prepared,
    /// The same without a statement cache: every batch is prepared, executed and closed.
    PreparedUncached,
    /// `LOAD DATA LOCAL INFILE` (or `COPY` on PostgreSQL), streamed.
    LoadData,
}

impl LoadMethod {
    /// Every method, in CLI order.
    pub const ALL: [LoadMethod; 5] = [
        LoadMethod::Row,
        LoadMethod::Multi,
        LoadMethod::Prepared,
        LoadMethod::PreparedUncached,
        LoadMethod::LoadData,
    ];

    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            LoadMethod::Row => "row",
            LoadMethod::Multi => "multi",
            LoadMethod::Prepared => "prepared",
            LoadMethod::PreparedUncached => "prepared-uncached",
            LoadMethod::LoadData => "load-data",
        }
    }
}

impl fmt::Display for LoadMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for LoadMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        LoadMethod::ALL.into_iter().find(|m| m.token() == s).ok_or_else(|| {
            format!(
                "unknown load method `{s}`; valid: row, multi, prepared, prepared-uncached, \
                 load-data"
            )
        })
    }
}

/// How churn sends its inserts to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChurnInsert {
    /// Consecutive inserts as multi-row INSERTs inside the churn's transactions.
    #[default]
    Multi,
    /// One autocommitted single-row INSERT per row, spread over the writers' connections.
    Row,
}

/// How churn sends its deletes (the rows to delete are always chosen by keylab).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChurnDelete {
    /// One `DELETE ... WHERE pk = ?` per row, committed with the other operations in
    /// transactions of a thousand.
    #[default]
    ByKey,
    /// One `DELETE ... WHERE pk = ?` per row, every delete of the call in one transaction,
    /// as one `DELETE ... ORDER BY RAND() LIMIT n` statement makes them.
    OneTransaction,
}

/// How a churn call's operations reach a server. The simulator applies the operations in
/// the order given whatever the style; a server with several writers applies the inserts
/// in an order of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChurnStyle {
    /// Statement shape of the inserts.
    pub insert: ChurnInsert,
    /// Connections the inserts are spread over (`Row` only; 1 keeps keylab's order).
    pub writers: u32,
    /// Transactions of the deletes.
    pub delete: ChurnDelete,
}

impl Default for ChurnStyle {
    fn default() -> Self {
        ChurnStyle { insert: ChurnInsert::Multi, writers: 1, delete: ChurnDelete::ByKey }
    }
}

/// How a load phase sends its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadPlan {
    /// Statement shape.
    pub method: LoadMethod,
    /// Rows per statement (multi, prepared, load-data) or per transaction (row; 1 = autocommit).
    pub batch: u32,
    /// Parallel connections.
    pub writers: u32,
    /// `Some(max)`: statements vary in shape, each of `batch` to `max` rows (seeded, the same
    /// sizes on every engine; `multi` and `prepared` only). `None`: every statement has
    /// `batch` rows, the last the remainder.
    #[serde(default)]
    pub batch_max: Option<u32>,
}

/// Statements a writer may have queued beyond the one it runs: the calling thread sends
/// statement `n` to writer [`LoadPlan::writer_of`]`(n)` and waits while that writer's queue
/// is full. The simulator's model of parallel writers uses the same depth.
pub const WRITER_QUEUE_STATEMENTS: usize = 2;

/// `AUTO_INCREMENT` values an InnoDB server (`innodb_autoinc_lock_mode` 1 or 2) takes from
/// the table's counter for one bulk statement (`LOAD DATA`, whose row count it does not know
/// in advance) inserting `rows` rows: it reserves blocks of 1, 2, 4, ... values (at most
/// 65,535 each), a new block when the last is used up, and the unused values of the last
/// block are lost, so the next statement starts after them. Mirrors
/// `handler::update_auto_increment` (the doubling `nb_desired_values`, capped at
/// `AUTO_INC_DEFAULT_NB_MAX`, counted per statement) and `ha_innobase::get_auto_increment`
/// (the counter moves to the end of each reserved block).
pub fn bulk_autoinc_reserved(rows: u64) -> u64 {
    const BLOCK_MAX: u64 = (1 << 16) - 1;
    let (mut reserved, mut block) = (0u64, 1u64);
    while reserved < rows {
        reserved += block;
        block = (block * 2).min(BLOCK_MAX);
    }
    reserved
}

/// Parses a batch as written: `1000` (every statement that size) or `500..1500` (statements
/// of varying shape, `min..max` rows); returns `(min, max)`.
pub fn parse_batch(text: &str) -> Result<(u32, Option<u32>), String> {
    let bad = || {
        format!(
            "batch `{text}` is not valid; valid: a row count (1000) or a range of rows per \
             statement, smallest first (500..1500)"
        )
    };
    let count = |s: &str| s.trim().replace('_', "").parse::<u32>().ok().filter(|&n| n > 0);
    match text.split_once("..") {
        None => count(text).map(|n| (n, None)).ok_or_else(bad),
        Some((lo, hi)) => match (count(lo), count(hi)) {
            (Some(lo), Some(hi)) if hi > lo => Ok((lo, Some(hi))),
            _ => Err(bad()),
        },
    }
}

/// Prepared statements a connection keeps under [`LoadMethod::Prepared`], least recently
/// used dropped first: Connector/J's default `prepStmtCacheSize`, the client of E2.
pub const PREPARED_CACHE_STATEMENTS: usize = 25;

/// Seed of the varying statement sizes of [`LoadPlan::batch_max`].
const SHAPE_SEED: u64 = 0x6b65_796c_6162_5348;

impl LoadPlan {
    /// Whether statements vary in shape.
    pub fn varies(&self) -> bool {
        self.batch_max.is_some_and(|m| m > self.batch)
    }

    /// Rows of each statement in turn (the stream's last statement takes what is left).
    pub fn statement_rows(&self) -> impl Iterator<Item = usize> {
        use rand::{Rng, SeedableRng};
        let (lo, hi) = (self.batch.max(1) as usize, self.batch_max.unwrap_or(0) as usize);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SHAPE_SEED);
        std::iter::repeat_with(move || if hi > lo { rng.random_range(lo..=hi) } else { lo })
    }

    /// The batch as written: `1000`, or `500..1500` when statements vary.
    pub fn batch_text(&self) -> String {
        match self.batch_max {
            Some(m) if m > self.batch => format!("{}..{m}", self.batch),
            _ => self.batch.to_string(),
        }
    }

    /// The writer that sends statement `n` (0-based, in row-stream order) of a load:
    /// round-robin, so that every engine gives each writer the same rows.
    pub fn writer_of(&self, statement: u64) -> usize {
        (statement % u64::from(self.writers.max(1))) as usize
    }
}

impl Default for LoadPlan {
    fn default() -> Self {
        LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_statements_reserve_doubling_blocks() {
        // 1 + 2 + ... + 512 = 1023 values for 1000 rows: 23 lost per statement.
        assert_eq!(bulk_autoinc_reserved(1000), 1023);
        assert_eq!(bulk_autoinc_reserved(1), 1);
        assert_eq!(bulk_autoinc_reserved(3), 3);
        assert_eq!(bulk_autoinc_reserved(4), 7);
        assert_eq!(bulk_autoinc_reserved(0), 0);
        // Blocks stop growing at 65,535: 1 + ... + 32768 = 65535, then 65535 each.
        assert_eq!(bulk_autoinc_reserved(65_535), 65_535);
        assert_eq!(bulk_autoinc_reserved(65_536), 131_070);
        assert_eq!(bulk_autoinc_reserved(200_000), 262_140);
    }

    #[test]
    fn batches_parse_as_a_count_or_a_range() {
        assert_eq!(parse_batch("1000"), Ok((1000, None)));
        assert_eq!(parse_batch("500..1_500"), Ok((500, Some(1500))));
        for bad in ["0", "1500..500", "10..10", "a..b", "..5", ""] {
            let e = parse_batch(bad).unwrap_err();
            assert!(e.contains("valid: a row count (1000) or a range"), "{bad}: {e}");
        }
    }

    #[test]
    fn varying_shapes_are_seeded_and_in_range() {
        let plan = LoadPlan { batch: 500, batch_max: Some(1500), ..LoadPlan::default() };
        assert!(plan.varies());
        assert_eq!(plan.batch_text(), "500..1500");
        let a: Vec<usize> = plan.statement_rows().take(1000).collect();
        assert_eq!(a, plan.statement_rows().take(1000).collect::<Vec<_>>(), "seeded");
        assert!(a.iter().all(|n| (500..=1500).contains(n)));
        assert!(a.iter().collect::<std::collections::BTreeSet<_>>().len() > 500, "they vary");
        let fixed = LoadPlan::default();
        assert!(fixed.statement_rows().take(10).all(|n| n == 1000));
        assert_eq!(fixed.batch_text(), "1000");
    }
}
