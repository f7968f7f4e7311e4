//! A phase's flat figures from the engine's measurements: the table's shape, counter deltas,
//! buffer pool deltas, one point of a series, and a query's percentiles.
//!
//! Not for: running anything on the engine (`execute.rs`, `execute/phase_runs.rs`), or
//! estimating a figure the engine does not give (it stays `null`).

use keylab_core::{BufferPoolResult, ChangeBufferResult, Counters, Measurement, QueryResult};
use serde_json::{Map, Value as Json};

/// The table's shape as flat figures, each key with `suffix` (`_after`, `_before`):
/// sizes, PRIMARY's pages and fill, and the pages of all indexes together.
pub(super) fn shape(f: &mut Map<String, Json>, m: &Measurement, suffix: &str) {
    let primary = m.indexes.first();
    let all: Option<u64> =
        if m.indexes.is_empty() { None } else { m.indexes.iter().map(|i| i.size_pages).sum() };
    let mut put = |k: &str, v: Json| {
        f.insert(format!("{k}{suffix}"), v);
    };
    put("data_length", m.table.data_length.into());
    put("index_length", m.table.index_length.into());
    put("primary_size_pages", primary.and_then(|p| p.size_pages).into());
    put("primary_leaf_pages", primary.and_then(|p| p.leaf_pages).into());
    put("primary_height", primary.and_then(|p| p.height).into());
    put("primary_fill_pct", primary.and_then(|p| p.fill_pct).into());
    put("size_pages_all_indexes", all.into());
}

/// Counter deltas as flat figures (`page_splits`, `merges`, ...; `null` where not given).
pub(super) fn counters(f: &mut Map<String, Json>, d: &Counters) {
    if let Json::Object(o) = to_json(d) {
        f.extend(o);
    }
}

/// One point of a series (a load sample, a churn round): counters and shape, flat.
pub(super) fn point(before: &Measurement, m: &Measurement) -> Map<String, Json> {
    let mut f = Map::new();
    counters(&mut f, &m.counters.since(&before.counters));
    pool_figures(&mut f, before, m);
    shape(&mut f, m, "");
    f
}

/// Buffer pool figures of the interval as flat phase figures (`hit_ratio`, `misses_per_op`,
/// `evictions`, `change_buffer_*`, `est_io_s_*`); nothing when the engine gives none.
/// Before the first measurement every cumulative figure counts from zero.
pub(super) fn pool_figures(f: &mut Map<String, Json>, before: &Measurement, after: &Measurement) {
    let Some(a) = &after.buffer_pool else { return };
    let zero = BufferPoolResult {
        page_requests: Some(0),
        pages_read: Some(0),
        pages_written: Some(0),
        row_ops: Some(0),
        evictions: Some(0),
        change_buffer: Some(ChangeBufferResult {
            buffered: Some(0),
            merged: Some(0),
            refused: Some(0),
            page_io: Some(0),
            ..ChangeBufferResult::default()
        }),
        est_io_s_hdd: Some(0.0),
        est_io_s_ssd: Some(0.0),
        ..BufferPoolResult::default()
    };
    let d = a.since(before.buffer_pool.as_ref().unwrap_or(&zero));
    f.insert("hit_ratio".into(), d.hit_ratio.into());
    f.insert("misses_per_op".into(), d.misses_per_op.into());
    f.insert("evictions".into(), d.evictions.into());
    if let Some(cb) = &d.change_buffer {
        f.insert("change_buffer_buffered".into(), cb.buffered.into());
        f.insert("change_buffer_merged".into(), cb.merged.into());
        f.insert("change_buffer_refused".into(), cb.refused.into());
        // E4's share of page I/O and size against the cap, where the engine gives them.
        for (name, v) in [
            ("change_buffer_io_share_pct", cb.io_share_pct.map(Json::from)),
            ("change_buffer_size_pages", cb.size_pages.map(Json::from)),
            ("change_buffer_max_size_pages", cb.max_size_pages.map(Json::from)),
            ("change_buffer_cap_pages", cb.cap_pages.map(Json::from)),
        ] {
            if let Some(v) = v {
                f.insert(name.into(), v);
            }
        }
    }
    f.insert("est_io_s_hdd".into(), d.est_io_s_hdd.into());
    f.insert("est_io_s_ssd".into(), d.est_io_s_ssd.into());
}

pub(super) fn to_json<T: serde::Serialize>(v: &T) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// A query's figures from what the engine returned: client and server percentiles, the
/// share of the table returned.
pub(super) fn query_result(name: &str, runs: u32, o: keylab_core::QueryOutcome) -> QueryResult {
    let (p50, p99) = percentiles(&o.run_ms);
    let server = o.server_ms.as_deref().map(percentiles);
    QueryResult {
        name: name.to_string(),
        runs,
        p50_ms: p50,
        p99_ms: p99,
        rows: o.rows,
        server_p50_ms: server.and_then(|s| s.0),
        server_p99_ms: server.and_then(|s| s.1),
        server_total_ms: o.server_ms.as_ref().map(|v| v.iter().sum()),
        share: o.table_rows.filter(|&n| n > 0).map(|n| o.rows as f64 / n as f64),
        condition: o.condition,
        plan: o.plan,
        notes: o.notes,
    }
}

/// Median and 99th percentile by nearest rank; `None` without runs.
fn percentiles(ms: &[f64]) -> (Option<f64>, Option<f64>) {
    if ms.is_empty() {
        return (None, None);
    }
    let mut v = ms.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    (Some(rank(0.5)), Some(rank(0.99)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentiles(&[]), (None, None));
        assert_eq!(percentiles(&[3.0]), (Some(3.0), Some(3.0)));
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentiles(&v), (Some(50.0), Some(99.0)));
    }

    #[test]
    fn counter_deltas_keep_nulls() {
        let a = Counters { page_splits: Some(3), pages_read: None, ..Counters::default() };
        let b = Counters {
            page_splits: Some(10),
            pages_read: None,
            merges: Some(2),
            ..Counters::default()
        };
        let d = b.since(&a);
        assert_eq!(d.page_splits, Some(7));
        assert_eq!(d.merges, Some(2));
        assert_eq!(d.pages_read, None);
    }
}
