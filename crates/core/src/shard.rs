//! Sharding: how rows are spread over N shards (MariaDB Spider's partitioning of a head table
//! over backend servers, or the simulator's N model tables), the range bounds keylab chooses,
//! and the per-shard result extension (`shards` in a run).
//!
//! Range bounds are the quantiles of the key values the seeded run will load, so that each
//! shard owns an equal share of the final key range (shard `k` holds rows with
//! `bounds[k-1] <= key < bounds[k]`, as `PARTITION ... VALUES LESS THAN` does). This module
//! does no I/O and knows no engine.

use crate::result::{Counters, IndexResult, TableSizes};
use keylab_schema::{Charset, ColumnType, Value};
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

/// Rows per window of the hotspot curve: a `windows`-th of the load, rounded up to whole
/// statements of `batch` rows, so that a window's edge falls between two statements.
pub fn window_rows(total_rows: u64, windows: u64, batch: u32) -> u64 {
    let batch = u64::from(batch.max(1));
    total_rows.div_ceil(windows.max(1)).div_ceil(batch).max(1) * batch
}

/// The hotspot curve from each row's shard, in the order the rows were sent: consecutive
/// windows of `window` rows (the last one shorter), each counting the rows every one of the
/// `shards` received. The simulator feeds it its routing; the Spider engine the backend each
/// row was found on after the load. Windows are defined by rows sent, so both cut alike.
pub fn windows_of(
    placements: impl IntoIterator<Item = usize>,
    window: u64,
    shards: usize,
) -> Vec<ShardWindow> {
    let window = window.max(1);
    let mut out: Vec<ShardWindow> = Vec::new();
    let mut sent = 0u64;
    for shard in placements {
        if sent % window == 0 {
            out.push(ShardWindow { rows_end: sent, inserts: vec![0; shards] });
        }
        sent += 1;
        let w = out.last_mut().expect("a window was opened");
        w.rows_end = sent;
        w.inserts[shard] += 1;
    }
    out
}

/// The shard of `key` under range `bounds` (the number of bounds at or below it).
pub fn range_shard(key: &Value, bounds: &[Value]) -> usize {
    bounds.partition_point(|b| b <= key)
}

/// The bytes MariaDB stores for `key` in a column of type `ty` (the record image its partition
/// hash reads): integers little-endian at their width, `BINARY(n)` right-padded with zero
/// bytes. `None` for types whose hash follows a collation (text), which keylab does not model.
fn stored_image(key: &Value, ty: &ColumnType) -> Option<Vec<u8>> {
    let int = |v: &Value| match *v {
        Value::Int(n) => Some(n),
        Value::UInt(n) => Some(n as i64),
        _ => None,
    };
    match ty {
        ColumnType::Int => Some((int(key)? as i32).to_le_bytes().to_vec()),
        ColumnType::BigInt { .. } => Some(int(key)?.to_le_bytes().to_vec()),
        ColumnType::Binary { bytes: len } => match key {
            Value::Bytes(b) => {
                let mut v = b.clone();
                v.resize(*len as usize, 0);
                Some(v)
            }
            _ => None,
        },
        _ => None,
    }
}

/// `latin1_swedish_ci` weight of each byte, read from MariaDB 10.11 with `WEIGHT_STRING(..
/// COLLATE latin1_swedish_ci)` for every byte: integer fields hash under this collation
/// (`my_charset_numeric` is latin1).
const LATIN1_WEIGHTS: [u8; 256] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
    0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F,
    0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F,
    0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F,
    0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x5B, 0x5C, 0x5D, 0x5E, 0x5F,
    0x60, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F,
    0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F,
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x8E, 0x8F,
    0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F,
    0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF,
    0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF,
    0x41, 0x41, 0x41, 0x41, 0x5C, 0x5B, 0x5C, 0x43, 0x45, 0x45, 0x45, 0x45, 0x49, 0x49, 0x49, 0x49,
    0x44, 0x4E, 0x4F, 0x4F, 0x4F, 0x4F, 0x5D, 0xD7, 0xD8, 0x55, 0x55, 0x55, 0x59, 0x59, 0xDE, 0xDF,
    0x41, 0x41, 0x41, 0x41, 0x5C, 0x5B, 0x5C, 0x43, 0x45, 0x45, 0x45, 0x45, 0x49, 0x49, 0x49, 0x49,
    0x44, 0x4E, 0x4F, 0x4F, 0x4F, 0x4F, 0x5D, 0xF7, 0xD8, 0x55, 0x55, 0x55, 0x59, 0x59, 0xDE, 0xFF,
];

/// The partition `PARTITION BY KEY(col) PARTITIONS shards` gives `key`, for integer and
/// `BINARY` columns (`None` for others). It mirrors MariaDB 10.11's
/// `ha_partition::calculate_key_hash_value` and `get_part_id_key`: two accumulators start at
/// 1 and 4; `Field::hash` feeds the field's stored bytes through its collation's `hash_sort`
/// (`BINARY`: `my_hash_sort_bin`, every byte as is; integers: `my_hash_sort_simple` under
/// latin1, each byte's weight, trailing bytes weighing as a space dropped); the first
/// accumulator, cut to 32 bits, modulo the partitions is the partition. Checked against
/// placements read from the server (tests below) and against Spider's in the live tests.
pub fn key_shard(key: &Value, ty: &ColumnType, shards: usize) -> Option<usize> {
    if let Some(input) = text_hash_input(key, ty) {
        return Some(key_hash(input?) as usize % shards.max(1));
    }
    let mut bytes = stored_image(key, ty)?;
    if !matches!(ty, ColumnType::Binary { .. }) {
        let space = LATIN1_WEIGHTS[usize::from(b' ')];
        while bytes.last().is_some_and(|&b| LATIN1_WEIGHTS[usize::from(b)] == space) {
            bytes.pop();
        }
        bytes.iter_mut().for_each(|b| *b = LATIN1_WEIGHTS[usize::from(*b)]);
    }
    Some(key_hash(bytes) as usize % shards.max(1))
}

/// The KEY partition hash of the bytes a collation's `hash_sort` feeds in, cut to 32 bits.
fn key_hash(bytes: impl IntoIterator<Item = u8>) -> u32 {
    let (mut nr1, mut nr2): (u64, u64) = (1, 4);
    for b in bytes {
        nr1 ^= ((nr1 & 63).wrapping_add(nr2)).wrapping_mul(u64::from(b)).wrapping_add(nr1 << 8);
        nr2 = nr2.wrapping_add(3);
    }
    nr1 as u32
}

/// For a `CHAR`/`VARCHAR` key, the bytes its collation's `hash_sort` feeds the partition
/// hash: `Some(None)` for a text key keylab does not model (another character set, or a
/// character beyond ASCII), `None` for a key that is not text. Trailing spaces never count
/// (PAD SPACE collations). `utf8mb4_bin` hashes the bytes as stored (`my_hash_sort_mb_bin`);
/// `utf8mb4_general_ci` (utf8mb4's default, keylab's text ids) hashes each character's sort
/// weight, its upper case for ASCII, as two bytes, low then high (`my_hash_sort_utf8mb4`,
/// `MY_HASH_ADD_16`). Both checked against placements read from MariaDB 10.11 (tests below).
#[allow(clippy::option_option)]
fn text_hash_input(key: &Value, ty: &ColumnType) -> Option<Option<Vec<u8>>> {
    let (ColumnType::Char { charset, .. } | ColumnType::VarChar { charset, .. }) = ty else {
        return None;
    };
    let Value::Bytes(b) = key else { return Some(None) };
    let end = b.iter().rposition(|&c| c != b' ').map_or(0, |i| i + 1);
    let text = &b[..end];
    Some(match charset {
        Charset::Utf8mb4Bin => Some(text.to_vec()),
        Charset::Utf8mb4 if text.is_ascii() => {
            Some(text.iter().flat_map(|c| [c.to_ascii_uppercase(), 0]).collect())
        }
        _ => None,
    })
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
    /// True when the shards are the partitions of one partitioned table (`keylab advise`),
    /// each `bound` then its name and bound; absent for sharded runs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partitions: bool,
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

impl ShardsResult {
    /// A sharded run's measurement, as every sharded engine reports it: the hotspot summary
    /// filled in, the whole table's figures summed over the shards ([`total_of`]), and no
    /// pool figures (a pool is per server; a sum over shards means nothing of its own).
    pub fn into_measurement(mut self) -> crate::engine::Measurement {
        self.summarise();
        let (counters, table, indexes) = total_of(&self.shards);
        crate::engine::Measurement {
            counters,
            table,
            indexes,
            buffer_pool: None,
            postgres: None,
            shards: Some(self),
        }
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
            total.freed_pages_in_pool = add(total.freed_pages_in_pool, ix.freed_pages_in_pool);
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

    /// Placements MariaDB 10.11 gave in `PARTITION BY KEY(id)` tables (InnoDB, no Spider).
    #[test]
    fn key_hash_places_as_the_server_did() {
        let big = ColumnType::BigInt { unsigned: false };
        let parts = [
            vec![-1, 4, 5, 10, 11, 16, 17, 22, 23, 28, 29, 34, 35, 40],
            vec![1, 6, 7, 12, 13, 18, 19, 24, 25, 30, 31, 36, 37, 8224, 2314885530818453536],
            vec![2, 3, 8, 9, 14, 15, 20, 21, 26, 27, 32, 33, 38, 39, 2105376, 9007199254740993],
        ];
        for (p, ids) in parts.iter().enumerate() {
            for &id in ids {
                assert_eq!(key_shard(&Value::Int(id), &big, 3), Some(p), "bigint {id}");
            }
        }
        let int = ColumnType::Int;
        let parts = [
            vec![1, 5, 9, 13, 17],
            vec![4, 8, 12, 16, 20, 538976288],
            vec![3, 7, 11, 15, 19],
            vec![-5, 2, 6, 10, 14, 18],
        ];
        for (p, ids) in parts.iter().enumerate() {
            for &id in ids {
                assert_eq!(key_shard(&Value::Int(id), &int, 4), Some(p), "int {id}");
            }
        }
        let text = ColumnType::Text { charset: keylab_schema::Charset::Utf8mb4 };
        assert_eq!(key_shard(&Value::Bytes(b"a".to_vec()), &text, 3), None);
    }

    /// Placements MariaDB 10.11.19 gave in `PARTITION BY KEY(id)` tables whose key is
    /// `CHAR(36) CHARACTER SET utf8mb4` (utf8mb4_general_ci) on 3 partitions and
    /// `CHAR(36) ... COLLATE utf8mb4_bin` on 4 (InnoDB, no Spider; read with `PARTITION (pN)`).
    #[test]
    fn text_key_hash_places_as_the_server_did() {
        let general = ColumnType::Char { chars: 36, charset: Charset::Utf8mb4 };
        let varchar = ColumnType::VarChar { chars: 64, charset: Charset::Utf8mb4 };
        let parts: [&[&str]; 3] = [
            &[
                "-",
                "01",
                "0123456789abcdef",
                "0N4KPKYMBYYB3G1PS1TQR0W2BC",
                "b",
                "hello",
                "0d464138-a623-3255-3fc1-ea36f17fd374",
                "yHsQt7irZNz2ZdJ6IYWLybIzMq8",
                "z",
            ],
            &[
                "5f2dd97f-1cfb-10f6-2827-688de6a16a3b",
                "9e30691c-2386-42ea-126a-1e48cc11d357",
                "d76d4330-f144-6bea-b0c1-1fdecb91ce37",
                "zLX9XACrNxsUIi5kgkQAdnxbXgx",
            ],
            &[
                "0",
                "5bc8fbbc-bde5-c099-4164-d8399f767c45",
                "KYA35S2FPGXT932ZND88T6AVQ9",
                "Z9",
                "a",
                "ab",
                "abc",
                "QQqafYNT9AcOaUzCz8c5Mqvg0O6",
                "W8800DDAAJMCDBCRK1QTA9G4NK",
            ],
        ];
        for (p, ids) in parts.iter().enumerate() {
            for id in *ids {
                let v = Value::Bytes(id.as_bytes().to_vec());
                assert_eq!(key_shard(&v, &general, 3), Some(p), "general_ci {id}");
                assert_eq!(key_shard(&v, &varchar, 3), Some(p), "varchar {id}");
            }
        }
        // Case and trailing spaces do not count under general_ci.
        let upper = Value::Bytes(b"HELLO  ".to_vec());
        assert_eq!(key_shard(&upper, &general, 3), Some(0));
        let bin = ColumnType::Char { chars: 36, charset: Charset::Utf8mb4Bin };
        let parts: [&[&str]; 4] = [
            &[
                "-",
                "0123456789abcdef",
                "617959ce-3f1f-65a8-de52-71007814e8a2",
                "a",
                "KawdY9KeuvaORREVIUjOOzswAcc",
            ],
            &["0", "01", "0N4KPKYMBYYB3G1PS1TQR0W2BC", "Z9", "zLX9XACrNxsUIi5kgkQAdnxbXgx"],
            &["5f2dd97f-1cfb-10f6-2827-688de6a16a3b", "QJdZnteHk1CAbSdfBEmhBej2UEA", "ab", "hello"],
            &[
                "5bc8fbbc-bde5-c099-4164-d8399f767c45",
                "7FXPPGX6QJ2V5DNQ9NH5KMKB59",
                "b",
                "z",
                "yHsQt7irZNz2ZdJ6IYWLybIzMq8",
            ],
        ];
        for (p, ids) in parts.iter().enumerate() {
            for id in *ids {
                let v = Value::Bytes(id.as_bytes().to_vec());
                assert_eq!(key_shard(&v, &bin, 4), Some(p), "utf8mb4_bin {id}");
            }
        }
        let latin1 = ColumnType::Char { chars: 36, charset: Charset::Latin1 };
        assert_eq!(key_shard(&Value::Bytes(b"a".to_vec()), &latin1, 3), None, "not modelled");
        assert_eq!(key_shard(&Value::Bytes("é".as_bytes().to_vec()), &general, 3), None);
    }

    #[test]
    fn windows_count_rows_sent_per_shard() {
        let w = windows_of([0, 0, 1, 2, 2, 2, 1], 3, 3);
        assert_eq!(
            w,
            vec![
                ShardWindow { rows_end: 3, inserts: vec![2, 1, 0] },
                ShardWindow { rows_end: 6, inserts: vec![0, 0, 3] },
                ShardWindow { rows_end: 7, inserts: vec![0, 1, 0] },
            ]
        );
        assert!(windows_of([], 3, 3).is_empty());
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
