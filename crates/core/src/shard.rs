//! Sharding: how rows are spread over N shards (MariaDB Spider's partitioning of a head table
//! over backend servers, or the simulator's N model tables), the range bounds keylab chooses,
//! and the per-shard result extension (`shards` in a run).
//!
//! Range bounds are the quantiles of the key values the seeded run will load, so that each
//! shard owns an equal share of the final key range (shard `k` holds rows with
//! `bounds[k-1] <= key < bounds[k]`, as `PARTITION ... VALUES LESS THAN` does). This module
//! does no I/O and knows no engine.

use crate::result::{Counters, IndexResult, TableSizes};
use keylab_schema::Value;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How the key column is partitioned over the shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sharding {
    /// `PARTITION BY RANGE COLUMNS(key)`, bounds at the quantiles of the loaded keys.
    Range,
    /// `PARTITION BY KEY(key)`: the server's partition hash of the column.
    Hash,
}

impl Sharding {
    /// Every rule, in CLI order.
    pub const ALL: [Sharding; 2] = [Sharding::Range, Sharding::Hash];

    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            Sharding::Range => "range",
            Sharding::Hash => "hash",
        }
    }
}

impl fmt::Display for Sharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for Sharding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Sharding::ALL
            .into_iter()
            .find(|k| k.token() == s)
            .ok_or_else(|| format!("unknown sharding `{s}`; valid: range, hash"))
    }
}

/// The `shards - 1` range bounds that split `keys` into equal parts: after sorting, the key at
/// each `k * len / shards` (shard `k` takes the keys below bound `k`, the last shard the rest).
/// Keys the server assigns itself (`Value::Null`) are replaced by `1..=len`, the values an
/// `AUTO_INCREMENT` counter starting at 1 hands out.
pub fn range_bounds(keys: &[Value], shards: usize) -> Vec<Value> {
    let mut sorted: Vec<Value> = if keys.iter().all(|k| *k == Value::Null) {
        (1..=keys.len() as u64).map(|i| Value::Int(i as i64)).collect()
    } else {
        keys.to_vec()
    };
    sorted.sort_unstable();
    let len = sorted.len();
    (1..shards.max(1))
        .map(|k| sorted.get(k * len / shards).cloned().unwrap_or(Value::Null))
        .collect()
}

/// The shard of `key` under range `bounds` (the number of bounds at or below it).
pub fn range_shard(key: &Value, bounds: &[Value]) -> usize {
    bounds.partition_point(|b| b <= key)
}

/// The whole run's per-shard figures (an extension of the result contract, absent on runs
/// without `--shards`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardsResult {
    /// `range` or `hash`.
    pub sharding: String,
    /// The partitioning clause as the head server was given it (or as the simulator routes).
    pub partitioning: String,
    /// One entry per shard, in partition order.
    pub shards: Vec<ShardResult>,
    /// Inserts each shard received in successive windows of rows loaded (the hotspot curve).
    pub windows: Vec<ShardWindow>,
    /// How the windows were counted.
    pub windows_from: String,
    /// The largest share any shard received in any window, percent.
    pub hottest_share_pct: Option<f64>,
    /// The mean over windows of the share of the window's busiest shard, percent: 100 means
    /// one shard took every insert at a time; 100 / shards means writes spread evenly.
    pub mean_hottest_share_pct: Option<f64>,
}

/// One shard's figures after the load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardResult {
    /// Partition number, from 0.
    pub shard: u32,
    /// The range the shard owns (`< bound`), `null` under hash sharding.
    pub bound: Option<String>,
    /// Rows the shard holds.
    pub rows: Option<u64>,
    /// Counters over the load on this shard.
    pub counters: Counters,
    /// Its table's sizes.
    pub table: TableSizes,
    /// Its table's indexes, PRIMARY first.
    pub indexes: Vec<IndexResult>,
}

/// One window of the load: rows loaded at its end and inserts per shard within it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardWindow {
    /// Rows loaded at the end of the window (all shards).
    pub rows_end: u64,
    /// Inserts each shard received in the window, in shard order.
    pub inserts: Vec<u64>,
}

impl ShardsResult {
    /// Fills the two hottest-share figures from the windows.
    pub fn summarise(&mut self) {
        let shares: Vec<f64> = self
            .windows
            .iter()
            .filter_map(|w| {
                let total: u64 = w.inserts.iter().sum();
                let max = w.inserts.iter().copied().max()?;
                (total > 0).then(|| max as f64 * 100.0 / total as f64)
            })
            .collect();
        self.hottest_share_pct = shares.iter().copied().reduce(f64::max);
        self.mean_hottest_share_pct =
            (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64);
    }
}

/// Sums two optional counts; `None` when either side is unknown.
fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a? + b?)
}

/// The whole table over every shard: counters and sizes summed, each index's pages summed and
/// its fill and records per leaf averaged over the shards' leaf pages (the figures that do not
/// add up, height and histograms, are the largest shard's or summed bucket by bucket).
pub fn total_of(shards: &[ShardResult]) -> (Counters, TableSizes, Vec<IndexResult>) {
    let Some(first) = shards.first() else {
        return Default::default();
    };
    let mut counters = first.counters.clone();
    let mut table = first.table.clone();
    let mut indexes = first.indexes.clone();
    for s in &shards[1..] {
        let c = &s.counters;
        counters.page_splits = add(counters.page_splits, c.page_splits);
        counters.merge_attempts = add(counters.merge_attempts, c.merge_attempts);
        counters.merges = add(counters.merges, c.merges);
        counters.page_reorgs = add(counters.page_reorgs, c.page_reorgs);
        counters.page_discards = add(counters.page_discards, c.page_discards);
        counters.pages_read = add(counters.pages_read, c.pages_read);
        counters.pages_written = add(counters.pages_written, c.pages_written);
        counters.page_requests = add(counters.page_requests, c.page_requests);
        counters.io_write_requests = add(counters.io_write_requests, c.io_write_requests);
        counters.io_write_bytes = add(counters.io_write_bytes, c.io_write_bytes);
        counters.io_read_requests = add(counters.io_read_requests, c.io_read_requests);
        counters.io_read_bytes = add(counters.io_read_bytes, c.io_read_bytes);
        table.data_length = add(table.data_length, s.table.data_length);
        table.index_length = add(table.index_length, s.table.index_length);
        table.data_free = add(table.data_free, s.table.data_free);
        for (total, ix) in indexes.iter_mut().zip(&s.indexes) {
            let weigh = |a: Option<f64>, an: Option<u64>, b: Option<f64>, bn: Option<u64>| {
                let (a, b, an, bn) = (a?, b?, an? as f64, bn? as f64);
                (an + bn > 0.0).then(|| (a * an + b * bn) / (an + bn))
            };
            total.fill_pct = weigh(total.fill_pct, total.leaf_pages, ix.fill_pct, ix.leaf_pages);
            total.records_per_leaf =
                weigh(total.records_per_leaf, total.leaf_pages, ix.records_per_leaf, ix.leaf_pages);
            total.size_pages = add(total.size_pages, ix.size_pages);
            total.leaf_pages = add(total.leaf_pages, ix.leaf_pages);
            total.n_leaf_pages_stat = add(total.n_leaf_pages_stat, ix.n_leaf_pages_stat);
            total.nonleaf_pages = add(total.nonleaf_pages, ix.nonleaf_pages);
            total.height = total.height.max(ix.height);
            total.fill_histogram = match (total.fill_histogram.take(), &ix.fill_histogram) {
                (Some(a), Some(b)) => Some(a.iter().zip(b).map(|(x, y)| x + y).collect()),
                _ => None,
            };
            total.pages_per_level = None;
        }
    }
    (counters, table, indexes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_split_keys_into_equal_shares() {
        let keys: Vec<Value> = (0..300u64).rev().map(Value::UInt).collect();
        let bounds = range_bounds(&keys, 3);
        assert_eq!(bounds, vec![Value::UInt(100), Value::UInt(200)]);
        let mut per = [0; 3];
        for k in &keys {
            per[range_shard(k, &bounds)] += 1;
        }
        assert_eq!(per, [100, 100, 100]);
    }

    #[test]
    fn server_assigned_keys_get_counter_bounds() {
        let bounds = range_bounds(&vec![Value::Null; 9], 3);
        assert_eq!(bounds, vec![Value::Int(4), Value::Int(7)]);
    }

    #[test]
    fn hottest_share_of_an_ordered_key_is_all() {
        let mut r = ShardsResult {
            windows: vec![
                ShardWindow { rows_end: 10, inserts: vec![10, 0] },
                ShardWindow { rows_end: 20, inserts: vec![5, 5] },
            ],
            ..ShardsResult::default()
        };
        r.summarise();
        assert_eq!(r.hottest_share_pct, Some(100.0));
        assert_eq!(r.mean_hottest_share_pct, Some(75.0));
        assert_eq!("hash".parse::<Sharding>(), Ok(Sharding::Hash));
        assert!("x".parse::<Sharding>().unwrap_err().contains("valid: range, hash"));
    }
}
