//! The figures several phase kinds share: [`Figure`] (absent, `null` or a value), the counter
//! deltas ([`CounterFigures`]), the buffer pool deltas ([`PoolFigures`]), the table's shape
//! ([`ShapeFigures`], written with `_before`/`_after` after each name in a phase) and one
//! point of a series ([`SeriesPoint`]: a load sample, a churn round); and how figure maps
//! whose keys are built from data (`cell_{dimension}`, `{statement}_ms`) and shapes with a
//! suffix are written flat among a phase's figures.
//!
//! Not for: the phases themselves (`result/phases.rs`), or computing any figure (the scenario
//! runner fills them from the engine's measurements).

use super::phases::figures;
use crate::Counters;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// One figure of a phase as the JSON has it: absent (not written: an older result, another
/// engine), `null` (the engine cannot give it) or a value.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Figure<T> {
    /// Not in the JSON.
    #[default]
    Absent,
    /// `null`: the engine cannot give it.
    Null,
    /// A value.
    Value(T),
}

impl<T> Figure<T> {
    /// `None` written as `null`.
    pub fn of(v: Option<T>) -> Self {
        v.map_or(Figure::Null, Figure::Value)
    }

    /// `None` left out.
    pub fn present(v: Option<T>) -> Self {
        v.map_or(Figure::Absent, Figure::Value)
    }

    /// Whether the JSON leaves it out.
    pub fn is_absent(&self) -> bool {
        matches!(self, Figure::Absent)
    }

    /// The value, if any.
    pub fn get(&self) -> Option<&T> {
        match self {
            Figure::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: Copy> Figure<T> {
    /// The value, if any.
    pub fn value(&self) -> Option<T> {
        self.get().copied()
    }
}

impl<T: Serialize> Serialize for Figure<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Figure::Value(v) => v.serialize(s),
            Figure::Absent | Figure::Null => s.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Figure<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(d).map(Figure::of)
    }
}

figures! {
    /// Counter deltas over a phase, named like [`Counters`].
    pub struct CounterFigures {
        /// See [`Counters::page_splits`].
        pub page_splits: u64,
        /// See [`Counters::merge_attempts`].
        pub merge_attempts: u64,
        /// See [`Counters::merges`].
        pub merges: u64,
        /// See [`Counters::page_reorgs`].
        pub page_reorgs: u64,
        /// See [`Counters::page_discards`].
        pub page_discards: u64,
        /// See [`Counters::pages_read`].
        pub pages_read: u64,
        /// See [`Counters::pages_written`].
        pub pages_written: u64,
        /// See [`Counters::page_requests`].
        pub page_requests: u64,
        /// See [`Counters::io_write_requests`].
        pub io_write_requests: u64,
        /// See [`Counters::io_write_bytes`].
        pub io_write_bytes: u64,
        /// See [`Counters::io_read_requests`].
        pub io_read_requests: u64,
        /// See [`Counters::io_read_bytes`].
        pub io_read_bytes: u64,
    }
}

impl From<&Counters> for CounterFigures {
    /// The counters as [`Counters`] writes them: the contract's seven always (`null` where not
    /// given), the extensions only where given.
    fn from(c: &Counters) -> Self {
        CounterFigures {
            page_splits: Figure::of(c.page_splits),
            merge_attempts: Figure::of(c.merge_attempts),
            merges: Figure::of(c.merges),
            page_reorgs: Figure::of(c.page_reorgs),
            page_discards: Figure::of(c.page_discards),
            pages_read: Figure::of(c.pages_read),
            pages_written: Figure::of(c.pages_written),
            page_requests: Figure::present(c.page_requests),
            io_write_requests: Figure::present(c.io_write_requests),
            io_write_bytes: Figure::present(c.io_write_bytes),
            io_read_requests: Figure::present(c.io_read_requests),
            io_read_bytes: Figure::present(c.io_read_bytes),
        }
    }
}

figures! {
    /// Buffer pool deltas over a phase (all absent where the engine gives none).
    pub struct PoolFigures {
        /// Hits / page requests.
        pub hit_ratio: f64,
        /// Pages read per row operation.
        pub misses_per_op: f64,
        /// Pages evicted.
        pub evictions: u64,
        /// Changes buffered.
        pub change_buffer_buffered: u64,
        /// Buffered changes merged.
        pub change_buffer_merged: u64,
        /// Changes not buffered.
        pub change_buffer_refused: u64,
        /// The change buffer's share of page I/O, percent.
        pub change_buffer_io_share_pct: f64,
        /// The change buffer's size, pages.
        pub change_buffer_size_pages: u64,
        /// Its largest size, pages.
        pub change_buffer_max_size_pages: u64,
        /// Its cap, pages.
        pub change_buffer_cap_pages: u64,
        /// Estimated I/O seconds on the HDD device model (never measured).
        pub est_io_s_hdd: f64,
        /// Estimated I/O seconds on the SSD device model (never measured).
        pub est_io_s_ssd: f64,
    }
}

figures! {
    /// The table's shape at one moment: sizes, PRIMARY's pages and fill, all indexes' pages.
    pub struct ShapeFigures {
        /// `DATA_LENGTH`.
        pub data_length: u64,
        /// `INDEX_LENGTH`.
        pub index_length: u64,
        /// PRIMARY's pages allocated.
        pub primary_size_pages: u64,
        /// PRIMARY's leaf pages.
        pub primary_leaf_pages: u64,
        /// PRIMARY's non-leaf pages (with the leaf pages, the pages holding its records, which
        /// a count of its pages in the buffer pool after a full scan gives).
        pub primary_nonleaf_pages: u64,
        /// PRIMARY's freed pages still in the buffer pool under its index id
        /// (`indexes[].freed_pages_in_pool`): with the leaf and non-leaf pages, what a count of
        /// its pages in `INNODB_BUFFER_PAGE` after a full scan gives.
        pub primary_freed_pages_in_pool: u64,
        /// PRIMARY's levels.
        pub primary_height: u64,
        /// PRIMARY's mean leaf fill, percent.
        pub primary_fill_pct: f64,
        /// Pages allocated to all indexes.
        pub size_pages_all_indexes: u64,
    }
}

figures! {
    /// One point of a series: a load sample (`rows`, `wall_s`) or a churn round (`round`,
    /// `live_rows`), with the deltas since the point before and the shape at the point.
    pub struct SeriesPoint {
        /// Rows loaded so far (a load sample).
        pub rows: u64,
        /// Wall time of this chunk, seconds (a load sample).
        pub wall_s: f64,
        /// The round (a churn point).
        pub round: u64,
        /// Rows in the table (a churn point).
        pub live_rows: u64,
        ;
        /// Counter deltas since the point before.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas since the point before.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape at the point.
        #[serde(flatten)]
        pub shape: ShapeFigures,
    }
}

fn suffixed<S: Serializer>(shape: &ShapeFigures, suffix: &str, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::Error;
    let Json::Object(m) = serde_json::to_value(shape).map_err(S::Error::custom)? else {
        return Err(S::Error::custom("a shape is an object"));
    };
    s.collect_map(m.into_iter().map(|(k, v)| (format!("{k}{suffix}"), v)))
}

fn unsuffixed<'de, D: Deserializer<'de>>(d: D, suffix: &str) -> Result<ShapeFigures, D::Error> {
    use serde::de::Error;
    let all: BTreeMap<String, Json> = BTreeMap::deserialize(d)?;
    let mine: serde_json::Map<String, Json> = all
        .into_iter()
        .filter_map(|(k, v)| Some((k.strip_suffix(suffix)?.to_string(), v)))
        .collect();
    ShapeFigures::deserialize(Json::Object(mine)).map_err(D::Error::custom)
}

/// [`ShapeFigures`] as `…_before` figures.
pub(super) mod shape_before {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(v: &ShapeFigures, s: S) -> Result<S::Ok, S::Error> {
        suffixed(v, "_before", s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ShapeFigures, D::Error> {
        unsuffixed(d, "_before")
    }
}

/// [`ShapeFigures`] as `…_after` figures.
pub(super) mod shape_after {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(v: &ShapeFigures, s: S) -> Result<S::Ok, S::Error> {
        suffixed(v, "_after", s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ShapeFigures, D::Error> {
        unsuffixed(d, "_after")
    }
}

/// Keys of a figure map with a fixed affix (`cell_` before, `_ms` after), and the (de)serialisers
/// of such a map as flat figures.
fn affixed<S: Serializer, V: Serialize>(
    map: &BTreeMap<String, V>,
    name: impl Fn(&str) -> String,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(map.iter().map(|(k, v)| (name(k), v)))
}

fn unaffixed<'de, D: Deserializer<'de>, V: serde::de::DeserializeOwned>(
    d: D,
    strip: impl Fn(&str) -> Option<&str>,
) -> Result<BTreeMap<String, V>, D::Error> {
    let all: BTreeMap<String, Json> = BTreeMap::deserialize(d)?;
    all.into_iter()
        .filter_map(|(k, v)| Some((strip(&k)?.to_string(), v)))
        .map(|(k, v)| serde_json::from_value(v).map(|v| (k, v)).map_err(serde::de::Error::custom))
        .collect()
}

/// A settings phase's cell as `cell_{dimension}` figures.
pub(super) mod cell_keys {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(
        m: &BTreeMap<String, String>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        affixed(m, |k| format!("cell_{k}"), s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, String>, D::Error> {
        unaffixed(d, |k| k.strip_prefix("cell_"))
    }
}

/// A ddl phase's statement times as `{statement}_ms` figures.
pub(super) mod statement_ms {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(
        m: &BTreeMap<String, Option<f64>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        affixed(m, |k| format!("{k}_ms"), s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Option<f64>>, D::Error> {
        unaffixed(d, |k| k.strip_suffix("_ms").filter(|s| !s.ends_with("_writers_stall")))
    }
}

/// A ddl phase's writers' stalls as `{statement}_writers_stall_ms` figures.
pub(super) mod writers_stall_ms {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(
        m: &BTreeMap<String, Option<f64>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        affixed(m, |k| format!("{k}_writers_stall_ms"), s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Option<f64>>, D::Error> {
        unaffixed(d, |k| k.strip_suffix("_writers_stall_ms"))
    }
}
