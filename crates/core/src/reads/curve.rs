//! Misses per read against cache size: the pool sizes a curve is run at ([`PoolSize`]: a
//! share of the table or a size in bytes), one [`ReadCurvePoint`] per size from the reads
//! phase of a run at that size, and the cache a target hit ratio needs, interpolated
//! linearly between the two points of the curve around the target ([`fill_curve`]). Nothing
//! is extrapolated: a target no point reaches is said to need more than the largest pool.
//!
//! Not for: running the reads (`reads/work.rs`; the command runs one table per size).

use crate::result::{Figure, PhaseResult, ReadCurvePoint, ReadsPhase};
use std::str::FromStr;

/// What a server does with any pool, for turning shares of a table into pool sizes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolBounds {
    /// The smallest pool the server starts with.
    pub floor_bytes: u64,
    /// The part of a pool the server keeps free rather than holding pages in it (MariaDB:
    /// the `innodb_lru_scan_depth` pages its page cleaner keeps free, which bound the LRU in
    /// pools under about 2,300 pages; PostgreSQL: none). A
    /// [`PoolSize::ShareBeyondReserve`] comes on top of it.
    pub reserved_bytes: u64,
}

/// One pool size of a curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PoolSize {
    /// A share of the table's bytes (`1/32`, `25%`), in (0, 4].
    Share(f64),
    /// Bytes.
    Bytes(u64),
    /// A share of the table on top of what the server keeps free of any pool
    /// ([`PoolBounds::reserved_bytes`]): the default curves end with one, so that on InnoDB
    /// their largest pool holds the table whatever the page cleaner keeps free.
    ShareBeyondReserve(f64),
}

impl PoolSize {
    /// Bytes for a table of `table_bytes` on a server of `bounds`, at least the smallest pool
    /// it starts with.
    pub fn bytes(self, table_bytes: u64, bounds: PoolBounds) -> u64 {
        match self {
            PoolSize::Share(s) => ((table_bytes as f64 * s) as u64).max(bounds.floor_bytes),
            PoolSize::Bytes(b) => b.max(bounds.floor_bytes),
            PoolSize::ShareBeyondReserve(s) => {
                ((table_bytes as f64 * s) as u64 + bounds.reserved_bytes).max(bounds.floor_bytes)
            }
        }
    }

    /// The default curve: 1/32, 1/16, 1/8, 1/4, 1/2, 1x and 2x the table, then 2x the table
    /// on top of what the server keeps free (a pool holds less than its size in pages).
    pub fn default_curve() -> Vec<PoolSize> {
        let shares = [32.0, 16.0, 8.0, 4.0, 2.0, 1.0, 0.5].iter().map(|d| PoolSize::Share(1.0 / d));
        shares.chain([PoolSize::ShareBeyondReserve(2.0)]).collect()
    }
}

/// `1/32`, `25%` (shares of the table) or a size in bytes, `64M` (parsed by `bytes`).
pub fn parse_pool_size(
    s: &str,
    bytes: impl Fn(&str) -> Result<u64, String>,
) -> Result<PoolSize, String> {
    let valid = "valid: a share of the table as 1/N or PCT% (at most 4x), or a size (64M, 1G)";
    let t = s.trim();
    let share = if let Some((a, b)) = t.split_once('/') {
        match (f64::from_str(a), f64::from_str(b)) {
            (Ok(a), Ok(b)) if b > 0.0 => Some(a / b),
            _ => return Err(format!("pool size `{s}` is not a share; {valid}")),
        }
    } else if let Some(p) = t.strip_suffix('%') {
        Some(p.parse::<f64>().map_err(|_| format!("pool size `{s}`; {valid}"))? / 100.0)
    } else {
        None
    };
    match share {
        Some(x) if x > 0.0 && x <= 4.0 => Ok(PoolSize::Share(x)),
        Some(_) => Err(format!("pool size `{s}` is out of range; {valid}")),
        None => bytes(t).map(PoolSize::Bytes).map_err(|e| format!("{e}; {valid}")),
    }
}

/// The curve point of a run's reads phase at `pool_bytes`, for a table of `table_bytes`.
pub fn curve_point(reads: &PhaseResult, pool_bytes: u64, table_bytes: u64) -> ReadCurvePoint {
    let specs = match reads {
        PhaseResult::Reads(r) => r.specs.get().cloned().unwrap_or_default(),
        _ => Vec::new(),
    };
    ReadCurvePoint {
        pool_bytes: Figure::Value(pool_bytes),
        pool_pct_of_table: Figure::of(
            (table_bytes > 0).then(|| pool_bytes as f64 * 100.0 / table_bytes as f64),
        ),
        misses_per_1000_reads: Figure::Value(
            specs.iter().map(|f| f.misses_per_1000_reads.value()).collect(),
        ),
        page_requests_per_read: Figure::Value(
            specs.iter().map(|f| f.page_requests_per_read.value()).collect(),
        ),
    }
}

/// Hit ratio of spec `i` at a point: 1 − misses per request.
fn hit_ratio(p: &ReadCurvePoint, i: usize) -> Option<f64> {
    let misses = p.misses_per_1000_reads.get()?.get(i).copied().flatten()?;
    let requests = p.page_requests_per_read.get()?.get(i).copied().flatten()?;
    (requests > 0.0).then(|| 1.0 - misses / 1000.0 / requests)
}

/// Puts `points` (any order) into `phase` as its curve, sorted by pool size, and gives each
/// spec the cache its `target` hit ratio (0..1) needs: interpolated between the two pool
/// sizes whose hit ratios bracket the target, the smallest pool tried when it already meets
/// it, and `null` with "more than the largest pool tried" when none does.
pub fn fill_curve(phase: &mut ReadsPhase, mut points: Vec<ReadCurvePoint>, target: f64) {
    points.sort_by_key(|p| p.pool_bytes.value().unwrap_or(0));
    points.dedup_by_key(|p| p.pool_bytes.value());
    phase.hit_target = Figure::Value(target);
    if let Some(specs) = match &mut phase.specs {
        Figure::Value(s) => Some(s),
        _ => None,
    } {
        for (i, spec) in specs.iter_mut().enumerate() {
            if !spec.applicable() {
                continue;
            }
            let curve: Vec<(u64, f64)> = points
                .iter()
                .filter_map(|p| Some((p.pool_bytes.value()?, hit_ratio(p, i)?)))
                .collect();
            let (bytes, how) = cache_for(&curve, target);
            spec.cache_for_hit_target_bytes = Figure::of(bytes);
            spec.cache_for_hit_target = Figure::Value(how.to_string());
        }
    }
    phase.pool_curve = Figure::Value(points);
}

/// The pool `target` (a hit ratio, 0..1) needs on `curve` (pool bytes, hit ratio; ascending
/// by pool), and how it was found: interpolated linearly between the two sizes around the
/// target, the smallest size when it already meets it, `None` (never extrapolated) when no
/// size does.
pub fn cache_for_target(curve: &[(u64, f64)], target: f64) -> (Option<u64>, &'static str) {
    cache_for(curve, target)
}

/// See [`cache_for_target`].
fn cache_for(curve: &[(u64, f64)], target: f64) -> (Option<u64>, &'static str) {
    match curve.iter().position(|&(_, h)| h >= target) {
        None if curve.is_empty() => (None, "no curve: the engine gave no misses"),
        None => (None, "more than the largest pool tried"),
        Some(0) => (Some(curve[0].0), "the smallest pool tried already meets it"),
        Some(k) => {
            let ((b0, h0), (b1, h1)) = (curve[k - 1], curve[k]);
            let t = if h1 > h0 { (target - h0) / (h1 - h0) } else { 1.0 };
            (Some(b0 + ((b1 - b0) as f64 * t).round() as u64), "interpolated from the curve")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_shares_or_bytes() {
        let bytes = |s: &str| s.parse::<u64>().map_err(|e| e.to_string());
        assert_eq!(parse_pool_size("1/4", bytes).unwrap(), PoolSize::Share(0.25));
        assert_eq!(parse_pool_size("50%", bytes).unwrap(), PoolSize::Share(0.5));
        assert_eq!(parse_pool_size("1048576", bytes).unwrap(), PoolSize::Bytes(1 << 20));
        for bad in ["0/4", "1/0", "500%", "x"] {
            assert!(parse_pool_size(bad, bytes).unwrap_err().contains("valid:"), "{bad}");
        }
        let six = PoolBounds { floor_bytes: 6 << 20, reserved_bytes: 0 };
        assert_eq!(PoolSize::Share(0.25).bytes(400 << 20, six), 100 << 20);
        assert_eq!(PoolSize::Share(0.01).bytes(100 << 20, six), 6 << 20, "the floor");
        let kept = PoolBounds { reserved_bytes: 24 << 20, ..six };
        assert_eq!(PoolSize::Share(0.25).bytes(400 << 20, kept), 100 << 20);
        assert_eq!(PoolSize::ShareBeyondReserve(0.25).bytes(400 << 20, kept), 124 << 20);
        assert_eq!(PoolSize::Bytes(64 << 20).bytes(400 << 20, kept), 64 << 20, "as given");
    }

    #[test]
    fn the_cache_for_a_target_is_interpolated_never_extrapolated() {
        let curve = [(10, 0.5), (20, 0.9), (40, 1.0)];
        assert_eq!(cache_for(&curve, 0.99), (Some(38), "interpolated from the curve"));
        assert_eq!(cache_for(&curve, 0.4).0, Some(10));
        assert_eq!(cache_for(&curve[..2], 0.99), (None, "more than the largest pool tried"));
    }
}
