//! Reads: the engine-neutral vocabulary of a read workload (issue 28). A [`ReadSpec`] says
//! what to read (`point:100000:latest=5%`), a [`ReadPicker`] turns it into row positions
//! with a seeded generator, the runner turns positions into concrete [`ReadOp`]s (the keys of
//! the rows at those positions, in insertion order), and every engine runs the same
//! [`WorkOp`]s through [`Engine::work`](crate::Engine::work), reporting a [`WorkOutcome`].
//!
//! Positions count rows in the order they were inserted (0 = the oldest), so "the latest 5%"
//! means the same rows on every engine and for every key. This module picks positions only;
//! it keeps no keys and knows no engine.

use crate::workload::Row;
use keylab_schema::Value;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::Distribution;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

mod curve;
mod source;
mod work;
pub use curve::{cache_for_target, curve_point, fill_curve, parse_pool_size, PoolBounds, PoolSize};
pub use source::ReadSource;
pub use work::{mixed_ops, mixed_phase, parse_mix_reads, reads_phase, MixSpec, WorkPlan};

/// Which rows the reads pick, by insertion position.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReadDistribution {
    /// Every row equally likely.
    Uniform,
    /// Uniform over the latest `pct` percent of rows inserted (the "recent rows" read).
    Latest {
        /// Share of the rows, percent, in (0, 100].
        pct: f64,
    },
    /// Zipf(`s`) over popularity ranks; rank 1 is the most read. Ranks map to positions by a
    /// fixed scramble (`rank * P mod n`, P a prime above any row count), so the hot rows are
    /// spread over the table's age, as YCSB's scrambled Zipfian spreads them: popularity
    /// independent of age. (Reads skewed towards recent rows are [`ReadDistribution::Latest`].)
    Zipf {
        /// Exponent, > 0 (0.99 is YCSB's default).
        s: f64,
    },
}

impl fmt::Display for ReadDistribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadDistribution::Uniform => f.write_str("uniform"),
            ReadDistribution::Latest { pct } => write!(f, "latest={pct}%"),
            ReadDistribution::Zipf { s } => write!(f, "zipf={s}"),
        }
    }
}

impl FromStr for ReadDistribution {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let valid = "valid: uniform, latest=PCT% (0 < PCT <= 100), zipf=S (S > 0)";
        let t = s.trim();
        if t == "uniform" {
            return Ok(ReadDistribution::Uniform);
        }
        if let Some(p) = t.strip_prefix("latest=") {
            let p = p.strip_suffix('%').unwrap_or(p);
            return match p.parse::<f64>() {
                Ok(pct) if pct > 0.0 && pct <= 100.0 => Ok(ReadDistribution::Latest { pct }),
                _ => Err(format!("read distribution `{s}` is not valid; {valid}")),
            };
        }
        if let Some(x) = t.strip_prefix("zipf=") {
            return match x.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => Ok(ReadDistribution::Zipf { s }),
                _ => Err(format!("read distribution `{s}` is not valid; {valid}")),
            };
        }
        Err(format!("unknown read distribution `{s}`; {valid}"))
    }
}

/// What one read does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReadKind {
    /// `SELECT * ... WHERE pk = ?`: one row by primary key.
    Point,
    /// One row through a secondary index (the table's first secondary index whose first
    /// column is not a date or time, else its first), then the row itself: the
    /// clustered-index visit on InnoDB, the heap visit on PostgreSQL.
    Secondary,
    /// `rows` rows in primary-key order from the picked row's key on.
    KeyRange {
        /// Rows per range.
        rows: u32,
    },
    /// `rows` rows by a time column through its index: the rows whose time lies between the
    /// picked row's and that of the row inserted `rows - 1` later.
    TimeRange {
        /// Rows per range.
        rows: u32,
    },
}

impl ReadKind {
    /// The token of the kind (`point`, `secondary`, `range=100`, `time-range=100`).
    pub fn token(&self) -> String {
        match self {
            ReadKind::Point => "point".into(),
            ReadKind::Secondary => "secondary".into(),
            ReadKind::KeyRange { rows } => format!("range={rows}"),
            ReadKind::TimeRange { rows } => format!("time-range={rows}"),
        }
    }
}

impl FromStr for ReadKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let valid = "valid: point, secondary, range=ROWS, time-range=ROWS";
        let rows = |x: &str| {
            x.replace('_', "")
                .parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("read kind `{s}`: ROWS must be a positive row count"))
        };
        match s.trim() {
            "point" => Ok(ReadKind::Point),
            "secondary" => Ok(ReadKind::Secondary),
            t => match t.split_once('=') {
                Some(("range", r)) => Ok(ReadKind::KeyRange { rows: rows(r)? }),
                Some(("time-range", r)) => Ok(ReadKind::TimeRange { rows: rows(r)? }),
                _ => Err(format!("unknown read kind `{s}`; {valid}")),
            },
        }
    }
}

/// One kind of read, how many, and which rows: `KIND:COUNT[:DISTRIBUTION]` on the command
/// line (`point:100000`, `secondary:50000:latest=5%`, `range=100:1000:zipf=0.99`). The
/// distribution defaults to uniform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReadSpec {
    /// What each read does.
    pub kind: ReadKind,
    /// Reads to run.
    pub count: u64,
    /// Which rows they pick.
    pub distribution: ReadDistribution,
}

impl fmt::Display for ReadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.kind.token(), self.count, self.distribution)
    }
}

impl FromStr for ReadSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let shape = "a read is KIND:COUNT[:DISTRIBUTION], e.g. point:100000:latest=5%";
        let mut parts = s.trim().splitn(3, ':');
        let kind = parts.next().filter(|k| !k.is_empty()).ok_or_else(|| shape.to_string())?;
        let kind: ReadKind = kind.parse()?;
        let count = parts.next().ok_or_else(|| format!("read `{s}` has no count; {shape}"))?;
        let count = count
            .replace('_', "")
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("read `{s}`: COUNT `{count}` is not a positive number"))?;
        let distribution = match parts.next() {
            Some(d) => d.parse()?,
            None => ReadDistribution::Uniform,
        };
        Ok(ReadSpec { kind, count, distribution })
    }
}

/// A prime above any row count keylab handles (2^61 - 1): `rank * P mod n` is then a
/// bijection of `0..n` for every `n`, the Zipf scramble.
const SCRAMBLE_PRIME: u128 = (1 << 61) - 1;

/// ChaCha stream of read picks (apart from ids, payload columns and churn's deletes).
const READS_STREAM: u64 = 901;

/// Picks row positions (0 = the first row inserted) for reads, seeded: the same seed, spec
/// and row counts give the same positions on every engine.
#[derive(Debug, Clone)]
pub struct ReadPicker {
    distribution: ReadDistribution,
    rng: ChaCha8Rng,
    /// The Zipf sampler and the row count it was made for.
    zipf: Option<(u64, rand_distr::Zipf<f64>)>,
}

impl ReadPicker {
    /// A picker for `distribution`, seeded from the run's `seed`.
    pub fn new(distribution: ReadDistribution, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(READS_STREAM);
        ReadPicker { distribution, rng, zipf: None }
    }

    /// The position of the next read among `rows` rows (`rows` > 0; it may grow between
    /// calls, as inserts interleave with reads).
    pub fn pick(&mut self, rows: u64) -> u64 {
        assert!(rows > 0, "no rows to read");
        match self.distribution {
            ReadDistribution::Uniform => self.rng.random_range(0..rows),
            ReadDistribution::Latest { pct } => {
                let window = ((rows as f64 * pct / 100.0).ceil() as u64).clamp(1, rows);
                rows - window + self.rng.random_range(0..window)
            }
            ReadDistribution::Zipf { s } => {
                let zipf = match &self.zipf {
                    Some((n, z)) if *n == rows => z,
                    _ => {
                        let z = rand_distr::Zipf::new(rows as f64, s).expect("s > 0, rows > 0");
                        &self.zipf.insert((rows, z)).1
                    }
                };
                // Ranks are 1..=rows, as floats.
                let rank = (zipf.sample(&mut self.rng) as u64).clamp(1, rows) - 1;
                ((u128::from(rank) * SCRAMBLE_PRIME) % u128::from(rows)) as u64
            }
        }
    }
}

/// One read, with the values it reads by (chosen by the runner from the rows it loaded).
#[derive(Debug, Clone, PartialEq)]
pub enum ReadOp {
    /// The row with this primary key (key column order).
    Point {
        /// Primary-key values.
        key: Vec<Value>,
    },
    /// The rows whose `index` columns equal `key`, then each row by its primary key.
    Secondary {
        /// Secondary index name (as in [`Table::indexes`](keylab_schema::Table)).
        index: String,
        /// Values of the index's columns, in index order.
        key: Vec<Value>,
    },
    /// `rows` rows in primary-key order from `from` on (`pk >= from ORDER BY pk LIMIT rows`).
    KeyRange {
        /// Primary key to start at.
        from: Vec<Value>,
        /// Rows to read.
        rows: u32,
    },
    /// The rows whose first column of `index` lies in `[from, to]`, through that index,
    /// then each row by its primary key.
    TimeRange {
        /// Secondary index on the time column.
        index: String,
        /// Lowest time, inclusive.
        from: Value,
        /// Highest time, inclusive.
        to: Value,
    },
}

/// One operation of a reads or mixed phase.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkOp {
    /// A read.
    Read(ReadOp),
    /// An insert of a new row (table column order), autocommitted.
    Insert(Row),
}

/// What [`Engine::work`](crate::Engine::work) reports over one call. Page figures are those
/// of the call alone (differences of the engine's counters), `None` where the engine cannot
/// give them (a simulator without a bounded pool reads nothing from storage: `pages_read` is
/// then `Some(0)` only if the engine models a cache, else `None`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkOutcome {
    /// Reads run.
    pub reads: u64,
    /// Rows inserted.
    pub inserts: u64,
    /// Rows the reads returned.
    pub rows_returned: u64,
    /// Logical page requests (hits and misses): on a model the pages each operation
    /// touched; on InnoDB `Innodb_buffer_pool_read_requests`; on PostgreSQL
    /// `blks_hit + blks_read` of the table's relations.
    pub page_requests: Option<u64>,
    /// Pages read from storage (misses): `Innodb_buffer_pool_reads`; PostgreSQL
    /// `blks_read`.
    pub pages_read: Option<u64>,
    /// Pages written during the call.
    pub pages_written: Option<u64>,
    /// Distinct pages each index (and `heap`, on PostgreSQL) had touched during the call:
    /// its working set; `None` where the engine cannot tell.
    pub working_set_pages: Option<BTreeMap<String, u64>>,
    /// Server-side time of every statement, summed, ms; `None` on a model or where not
    /// readable.
    pub server_ms: Option<f64>,
    /// Client wall time of the call, s; `None` on a model.
    pub wall_s: Option<f64>,
    /// Why a figure above is missing, in words.
    pub notes: Vec<String>,
}

impl WorkOutcome {
    /// Misses per 1,000 operations (reads and inserts), where both are known.
    pub fn misses_per_1k_ops(&self) -> Option<f64> {
        let ops = self.reads + self.inserts;
        self.pages_read.filter(|_| ops > 0).map(|r| r as f64 * 1000.0 / ops as f64)
    }

    /// Page requests per operation, where known.
    pub fn pages_per_op(&self) -> Option<f64> {
        let ops = self.reads + self.inserts;
        self.page_requests.filter(|_| ops > 0).map(|r| r as f64 / ops as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        let s: ReadSpec = "point:100_000:latest=5%".parse().unwrap();
        assert_eq!(s.kind, ReadKind::Point);
        assert_eq!(s.count, 100_000);
        assert_eq!(s.distribution, ReadDistribution::Latest { pct: 5.0 });
        assert_eq!(s.to_string(), "point:100000:latest=5%");
        let r: ReadSpec = "range=100:10".parse().unwrap();
        assert_eq!(r.kind, ReadKind::KeyRange { rows: 100 });
        assert_eq!(r.distribution, ReadDistribution::Uniform);
        let z: ReadSpec = "secondary:7:zipf=0.99".parse().unwrap();
        assert_eq!(z.distribution, ReadDistribution::Zipf { s: 0.99 });
        assert_eq!(z.to_string().parse::<ReadSpec>().unwrap(), z);
        for bad in ["", "point", "point:0", "scan:5", "range=0:5", "point:5:latest=0%", "point:5:z"]
        {
            assert!(bad.parse::<ReadSpec>().is_err(), "{bad}");
        }
        let e = "point:5:zipf".parse::<ReadSpec>().unwrap_err();
        assert!(e.contains("valid: uniform, latest=PCT%"), "{e}");
    }

    #[test]
    fn picks_are_seeded_and_in_their_window() {
        let n = 10_000;
        for d in [
            ReadDistribution::Uniform,
            ReadDistribution::Latest { pct: 5.0 },
            ReadDistribution::Zipf { s: 0.99 },
        ] {
            let a: Vec<u64> = {
                let mut p = ReadPicker::new(d, 7);
                (0..2000).map(|_| p.pick(n)).collect()
            };
            let mut p = ReadPicker::new(d, 7);
            assert_eq!(a, (0..2000).map(|_| p.pick(n)).collect::<Vec<_>>(), "{d} seeded");
            assert!(a.iter().all(|&x| x < n));
            if let ReadDistribution::Latest { .. } = d {
                assert!(a.iter().all(|&x| x >= n - 500), "latest 5% of 10,000");
            }
        }
    }

    #[test]
    fn zipf_reads_a_few_rows_often_and_spreads_them_over_ages() {
        let n = 100_000u64;
        let mut p = ReadPicker::new(ReadDistribution::Zipf { s: 0.99 }, 1);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..100_000 {
            *counts.entry(p.pick(n)).or_insert(0u32) += 1;
        }
        let mut c: Vec<(u64, u32)> = counts.into_iter().collect();
        c.sort_by_key(|&(_, k)| std::cmp::Reverse(k));
        let top: u32 = c.iter().take(100).map(|x| x.1).sum();
        assert!(top > 30_000, "the 100 hottest rows take {top} of 100,000 reads");
        // The ten hottest are not all among the newest or oldest tenth.
        let ages: Vec<u64> = c.iter().take(10).map(|x| x.0 * 10 / n).collect();
        assert!(ages.iter().collect::<std::collections::BTreeSet<_>>().len() > 3, "{ages:?}");
    }
}
