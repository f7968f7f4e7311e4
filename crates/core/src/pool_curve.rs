//! The buffer pool's curve during a load: cumulative page reads (and writes) sampled at row
//! intervals, turned into misses per 1,000 inserts against rows loaded. Every engine samples
//! with [`PoolCurveSampler`], so the simulator's and a server's curves share their x values.
//!
//! It keeps between [`MAX_POINTS`]` / 2` and [`MAX_POINTS`] points whatever the load's length
//! (unknown in advance, rows are a stream): when full, the interval doubles and every other
//! point goes. It reads no counters itself; the engine hands them in.

use serde::{Deserialize, Serialize};

/// Most points a curve keeps (after the last halving it holds 50 to 100).
pub const MAX_POINTS: usize = 100;
/// The first sampling interval, in rows.
const FIRST_STEP_ROWS: u64 = 1_000;

/// One point of the curve: the figures of the interval that ends at `rows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolCurvePoint {
    /// Rows loaded so far (in this load).
    pub rows: u64,
    /// Pages read from storage (misses) since the load began.
    pub pages_read: u64,
    /// Pages written since the load began (absent where the engine gives none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_written: Option<u64>,
    /// Misses per 1,000 rows inserted over the interval since the previous point.
    pub reads_per_1k_rows: f64,
    /// Pages written per 1,000 rows over the same interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_per_1k_rows: Option<f64>,
}

/// Collects cumulative counters at row intervals during one load.
#[derive(Debug, Clone)]
pub struct PoolCurveSampler {
    step_rows: u64,
    /// (rows, pages read, pages written), cumulative since the load began.
    samples: Vec<(u64, u64, Option<u64>)>,
}

impl Default for PoolCurveSampler {
    fn default() -> Self {
        PoolCurveSampler { step_rows: FIRST_STEP_ROWS, samples: Vec::new() }
    }
}

impl PoolCurveSampler {
    /// A sampler with no points.
    pub fn new() -> Self {
        Self::default()
    }

    /// The row count at which the next sample is due (a multiple of the interval).
    pub fn next_due(&self) -> u64 {
        self.samples.last().map_or(0, |s| s.0) / self.step_rows * self.step_rows + self.step_rows
    }

    /// Records the counters at `rows` when a sample is due there (`rows >= next_due()`);
    /// returns whether it was taken. Counts are cumulative since the load began.
    pub fn offer(&mut self, rows: u64, pages_read: u64, pages_written: Option<u64>) -> bool {
        if rows < self.next_due() {
            return false;
        }
        self.samples.push((rows, pages_read, pages_written));
        if self.samples.len() > MAX_POINTS {
            // Every second point stays: on the new grid (or, for samples taken late, the
            // first past each of its points).
            self.step_rows *= 2;
            let mut n = 0;
            self.samples.retain(|_| {
                n += 1;
                n % 2 == 0
            });
        }
        true
    }

    /// The curve, with a last point at `rows` (the load's end) when it is not sampled yet.
    pub fn finish(
        mut self,
        rows: u64,
        pages_read: u64,
        pages_written: Option<u64>,
    ) -> Vec<PoolCurvePoint> {
        if self.samples.last().is_none_or(|s| s.0 < rows) {
            self.samples.push((rows, pages_read, pages_written));
        }
        let mut prev = (0u64, 0u64, Some(0u64));
        let mut out = Vec::with_capacity(self.samples.len());
        for s in self.samples {
            let dr = (s.0 - prev.0).max(1) as f64 / 1000.0;
            out.push(PoolCurvePoint {
                rows: s.0,
                pages_read: s.1,
                pages_written: s.2,
                reads_per_1k_rows: s.1.saturating_sub(prev.1) as f64 / dr,
                writes_per_1k_rows: s.2.zip(prev.2).map(|(a, b)| a.saturating_sub(b) as f64 / dr),
            });
            prev = s;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_50_to_100_points_of_any_load() {
        for rows in [5_000u64, 100_000, 1_000_000, 10_000_000] {
            let mut s = PoolCurveSampler::new();
            for r in 1..=rows {
                if r >= s.next_due() {
                    assert!(s.offer(r, r / 10, Some(r / 20)));
                }
            }
            let curve = s.finish(rows, rows / 10, Some(rows / 20));
            assert!(curve.len() <= MAX_POINTS + 1, "{rows}: {}", curve.len());
            if rows >= 50_000 {
                assert!(curve.len() >= MAX_POINTS / 2, "{rows}: {}", curve.len());
            }
            assert_eq!(curve.last().unwrap().rows, rows);
            assert!(curve.windows(2).all(|w| w[0].rows < w[1].rows));
            // One read per ten rows, everywhere: 100 per 1,000 rows on every interval.
            for p in &curve[1..curve.len() - 1] {
                assert!((p.reads_per_1k_rows - 100.0).abs() < 0.5, "{p:?}");
                assert!((p.writes_per_1k_rows.unwrap() - 50.0).abs() < 0.5, "{p:?}");
            }
        }
    }

    #[test]
    fn samples_arriving_late_still_land_on_the_grid() {
        // A server reports rows per statement of 700: samples at the first count past each
        // due point.
        let mut s = PoolCurveSampler::new();
        let mut taken = Vec::new();
        for r in (700..=7_000).step_by(700) {
            if s.offer(r, 0, None) {
                taken.push(r);
            }
        }
        assert_eq!(taken, vec![1400, 2100, 3500, 4200, 5600, 6300, 7000]);
        let curve = s.finish(7_000, 0, None);
        assert_eq!(curve.last().unwrap().rows, 7_000);
        assert_eq!(curve[0].writes_per_1k_rows, None);
    }
}
