//! A phase's figure groups from the engine's measurements: the table's shape, counter deltas,
//! buffer pool deltas, one point of a series, and a query's percentiles.
//!
//! Not for: running anything on the engine (`execute.rs`, `execute/phase_runs.rs`), or
//! estimating a figure the engine does not give (it stays `null`).

use keylab_core::{
    BufferPoolResult, ChangeBufferResult, CounterFigures, Figure, Measurement, PoolFigures,
    QueryResult, SeriesPoint, ShapeFigures,
};

/// The table's shape: sizes, PRIMARY's pages and fill, and the pages of all indexes together.
pub(super) fn shape(m: &Measurement) -> ShapeFigures {
    let primary = m.indexes.first();
    let all: Option<u64> =
        if m.indexes.is_empty() { None } else { m.indexes.iter().map(|i| i.size_pages).sum() };
    ShapeFigures {
        data_length: Figure::of(m.table.data_length),
        index_length: Figure::of(m.table.index_length),
        primary_size_pages: Figure::of(primary.and_then(|p| p.size_pages)),
        primary_leaf_pages: Figure::of(primary.and_then(|p| p.leaf_pages)),
        primary_nonleaf_pages: Figure::of(primary.and_then(|p| p.nonleaf_pages)),
        primary_freed_pages_in_pool: Figure::present(primary.and_then(|p| p.freed_pages_in_pool)),
        primary_height: Figure::of(primary.and_then(|p| p.height).map(u64::from)),
        primary_fill_pct: Figure::of(primary.and_then(|p| p.fill_pct)),
        size_pages_all_indexes: Figure::of(all),
    }
}

/// Counter deltas between two measurements (`null` where not given).
pub(super) fn counters(before: &Measurement, after: &Measurement) -> CounterFigures {
    CounterFigures::from(&after.counters.since(&before.counters))
}

/// One point of a series (a load sample, a churn round): deltas and the shape at the point.
pub(super) fn point(before: &Measurement, m: &Measurement) -> SeriesPoint {
    SeriesPoint {
        counters: counters(before, m),
        pool: pool_figures(before, m),
        shape: shape(m),
        ..SeriesPoint::default()
    }
}

/// Buffer pool figures of the interval (`hit_ratio`, `misses_per_op`, `evictions`,
/// `change_buffer_*`, `est_io_s_*`); all absent when the engine gives none.
/// Before the first measurement every cumulative figure counts from zero.
pub(super) fn pool_figures(before: &Measurement, after: &Measurement) -> PoolFigures {
    let Some(a) = &after.buffer_pool else { return PoolFigures::default() };
    let zero = BufferPoolResult {
        page_requests: Some(0),
        pages_read: Some(0),
        index_pages_read: Figure::Value(0),
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
    let mut f = PoolFigures {
        hit_ratio: Figure::of(d.hit_ratio),
        misses_per_op: Figure::of(d.misses_per_op),
        evictions: Figure::of(d.evictions),
        est_io_s_hdd: Figure::of(d.est_io_s_hdd),
        est_io_s_ssd: Figure::of(d.est_io_s_ssd),
        ..PoolFigures::default()
    };
    if let Some(cb) = &d.change_buffer {
        f.change_buffer_buffered = Figure::of(cb.buffered);
        f.change_buffer_merged = Figure::of(cb.merged);
        f.change_buffer_refused = Figure::of(cb.refused);
        // E4's share of page I/O and size against the cap, where the engine gives them.
        f.change_buffer_io_share_pct = Figure::present(cb.io_share_pct);
        f.change_buffer_size_pages = Figure::present(cb.size_pages);
        f.change_buffer_max_size_pages = Figure::present(cb.max_size_pages);
        f.change_buffer_cap_pages = Figure::present(cb.cap_pages);
    }
    f
}

/// A query's figures from what the engine returned: client and server percentiles, the
/// share of the table returned.
pub(super) fn query_result(name: &str, runs: u32, o: keylab_core::QueryOutcome) -> QueryResult {
    let warm_runs = warm(&o.run_ms);
    let (p50, p99) = percentiles(warm_runs);
    let server = o.server_ms.as_deref().map(|ms| percentiles(warm(ms)));
    let fold = |pick: fn(f64, f64) -> f64| warm_runs.iter().copied().reduce(pick);
    QueryResult {
        name: name.to_string(),
        runs,
        cold_ms: o.run_ms.first().copied(),
        p50_ms: p50,
        p99_ms: p99,
        min_ms: fold(f64::min),
        max_ms: fold(f64::max),
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

/// The runs after the first (a cold run: pages come from disk, the plan is new), or the
/// only one.
fn warm(ms: &[f64]) -> &[f64] {
    if ms.len() > 1 {
        &ms[1..]
    } else {
        ms
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
    use keylab_core::Counters;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentiles(&[]), (None, None));
        assert_eq!(percentiles(&[3.0]), (Some(3.0), Some(3.0)));
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentiles(&v), (Some(50.0), Some(99.0)));
    }

    #[test]
    fn the_cold_run_is_apart_from_the_warm_figures() {
        let o =
            keylab_core::QueryOutcome { run_ms: vec![90.0, 3.0, 1.0, 2.0], ..Default::default() };
        let q = query_result("point", 4, o);
        assert_eq!(q.cold_ms, Some(90.0));
        assert_eq!((q.p50_ms, q.min_ms, q.max_ms), (Some(2.0), Some(1.0), Some(3.0)));
        let one = keylab_core::QueryOutcome { run_ms: vec![5.0], ..Default::default() };
        let q = query_result("point", 1, one);
        assert_eq!((q.cold_ms, q.p50_ms, q.max_ms), (Some(5.0), Some(5.0), Some(5.0)));
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
