//! How `advise --workload` weighs the reads: each candidate's workload figures (misses per
//! 1,000 operations at the pool it ran under; the pool its hit target needs, interpolated
//! on the curve of pool sizes tried and never extrapolated) put into its `advice` phase, and
//! the rule the recommendation applies to them ([`read_local`]), written out in words with
//! the figures it compared ([`Weighed::sentence`]).
//!
//! The rule mirrors the insert rule of `figures.rs` (working set within twice the
//! smallest): a candidate's reads stay local when the pool its hit target needs is within
//! twice the smallest any candidate needs. No figure in it is fitted to a result.
//!
//! Not for: running anything (`workload.rs`, `pool_curve.rs`).

use super::workload::WorkloadCost;
use keylab_core::{cache_for_target, AdvicePhase, Figure, RunResult, WorkloadCurvePoint};

/// Misses per 1,000 operations below which two candidates count as alike when no pool size
/// meets the hit target for any of them: one page read per 1,000 operations.
const MISS_SLACK_PER_1000_OPS: f64 = 1.0;

/// One candidate's workload: its cost at the pool it ran under, and at each pool tried.
#[derive(Debug, Clone, Default)]
pub struct WorkloadFigures {
    /// At the run's own pool.
    pub at_pool: Option<WorkloadCost>,
    /// Pool bytes and the cost there, smallest pool first.
    pub curve: Vec<(u64, WorkloadCost)>,
    /// The reads phase's misses per read spec at each pool (empty without reads).
    pub reads_curve: Vec<keylab_core::ReadCurvePoint>,
    /// The candidate's table (data and every index), bytes.
    pub table_bytes: Option<u64>,
}

impl WorkloadFigures {
    /// The pool `target` needs, and how it was found.
    pub fn cache(&self, target: f64) -> (Option<u64>, String) {
        let points: Vec<(u64, f64)> =
            self.curve.iter().filter_map(|(p, c)| Some((*p, c.hit_ratio()?))).collect();
        match cache_for_target(&points, target) {
            (None, _) if !points.is_empty() => {
                let largest = points.last().map_or(0, |p| p.0);
                (None, format!("more than the largest pool tried ({})", mib(largest)))
            }
            (b, how) => (b, how.to_string()),
        }
    }
}

/// The figures the rule compares for one candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReadNeed {
    /// The pool its hit target needs; `None` when no pool tried meets it.
    pub cache_bytes: Option<u64>,
    /// Its misses per 1,000 operations at the run's pool.
    pub misses_per_1000_ops: Option<f64>,
}

/// Which candidates' reads stay local (index 0, the current key, is never a minimum): the
/// pool their hit target needs is at most twice the smallest any candidate needs (one that
/// no pool tried satisfies is not local); when no candidate meets the target at any pool
/// tried, their misses per 1,000 operations are at most twice the fewest (plus one). No
/// figure at all: every candidate is local (the insert rule alone decides).
pub fn read_local(needs: &[ReadNeed]) -> Vec<bool> {
    let others = needs.iter().skip(1);
    let min_cache = others.clone().filter_map(|n| n.cache_bytes).min();
    let min_misses = others.filter_map(|n| n.misses_per_1000_ops).min_by(f64::total_cmp);
    needs
        .iter()
        .map(|n| match (min_cache, min_misses) {
            (Some(m), _) => n.cache_bytes.is_some_and(|c| c <= m.saturating_mul(2)),
            (None, Some(m)) => {
                n.misses_per_1000_ops.is_none_or(|x| x <= 2.0 * m + MISS_SLACK_PER_1000_OPS)
            }
            (None, None) => true,
        })
        .collect()
}

/// The workload every candidate ran, and what each cost.
pub struct Weighed {
    /// `--workload` as given.
    pub workload: String,
    /// The pool the runs loaded and ran the workload under.
    pub pool_bytes: u64,
    /// Where that pool size came from (`--buffer-pool`, the default...).
    pub pool_from: String,
    /// The hit ratio the cache is reported for, 0..1.
    pub target: f64,
    /// Per run, in run order.
    pub figures: Vec<WorkloadFigures>,
}

impl Weighed {
    /// What the rule compares, per run.
    pub fn needs(&self) -> Vec<ReadNeed> {
        let needs = self.figures.iter().map(|f| ReadNeed {
            cache_bytes: f.cache(self.target).0,
            misses_per_1000_ops: f.at_pool.and_then(|c| c.misses_per_1000_ops()),
        });
        needs.collect()
    }

    /// Puts run `i`'s workload figures into its advice phase.
    pub fn fill(&self, i: usize, a: &mut AdvicePhase) {
        let Some(f) = self.figures.get(i) else { return };
        a.workload = Figure::Value(self.workload.clone());
        a.buffer_pool_bytes = Figure::Value(self.pool_bytes);
        a.workload_misses_per_1000_ops =
            Figure::of(f.at_pool.and_then(|c| c.misses_per_1000_ops()).map(round2));
        a.workload_page_requests_per_op =
            Figure::of(f.at_pool.and_then(|c| c.page_requests_per_op()).map(round2));
        a.workload_hit_ratio = Figure::of(f.at_pool.and_then(|c| c.hit_ratio()).map(round4));
        a.hit_target = Figure::Value(self.target);
        let (bytes, how) = f.cache(self.target);
        a.cache_for_hit_target_bytes = Figure::of(bytes);
        a.cache_for_hit_target = Figure::Value(how);
        let point = |(pool, c): &(u64, WorkloadCost)| WorkloadCurvePoint {
            pool_bytes: Figure::Value(*pool),
            pool_pct_of_table: Figure::of(
                f.table_bytes.filter(|&t| t > 0).map(|t| round1(*pool as f64 * 100.0 / t as f64)),
            ),
            misses_per_1000_ops: Figure::of(c.misses_per_1000_ops().map(round2)),
            hit_ratio: Figure::of(c.hit_ratio().map(round4)),
        };
        a.workload_curve = Figure::Value(f.curve.iter().map(point).collect());
    }

    /// The recommendation's words on the workload: what ran, the rule, and the figures it
    /// compared for every candidate (`best` an index into `runs`).
    pub fn sentence(&self, runs: &[RunResult], best: usize) -> String {
        let pct = self.target * 100.0;
        let cache = |i: usize| match self.figures.get(i).map(|f| f.cache(self.target)) {
            Some((Some(b), how)) if how.starts_with("the smallest") => {
                format!("at most {}", mib(b))
            }
            Some((Some(b), _)) => mib(b),
            Some((None, how)) if how.starts_with("more than") => {
                format!("above {}", how.rsplit('(').next().unwrap_or("").trim_end_matches(')'))
            }
            _ => "n/a".into(),
        };
        let misses = |i: usize| {
            let m = self.figures.get(i).and_then(|f| f.at_pool?.misses_per_1000_ops());
            m.map_or("n/a".into(), |m| format!("{m:.1}"))
        };
        let mut s = format!(
            ". Workload {} at a {} pool ({}): {} misses {} pages per 1,000 operations (the \
             current key: {}) and needs {} for a {pct}% hit ratio (the current key: {})",
            self.workload,
            mib(self.pool_bytes),
            self.pool_from,
            runs[best].variant,
            misses(best),
            misses(0),
            cache(best),
            cache(0),
        );
        s.push_str(&format!(
            ". Rule: of the candidates whose inserts stay local (insert working set at most \
             twice the smallest) and whose workload needs at most twice the smallest pool for \
             {pct}% hits (one no pool tried satisfies is out; with none satisfied, misses at \
             most twice the fewest plus one per 1,000), the smallest in total bytes; pool \
             needed: "
        ));
        let all: Vec<String> = (1..runs.len())
            .map(|i| format!("{} {} ({} misses)", runs[i].variant, cache(i), misses(i)))
            .collect();
        s.push_str(&all.join(", "));
        s
    }
}

/// Bytes in MiB, or KiB below one MiB (a small table's pools).
fn mib(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(cache: Option<u64>, misses: f64) -> ReadNeed {
        ReadNeed { cache_bytes: cache, misses_per_1000_ops: Some(misses) }
    }

    #[test]
    fn reads_stay_local_within_twice_the_smallest_pool() {
        // The current key (index 0) needs the least but is no minimum.
        let needs =
            [need(Some(1), 0.0), need(Some(10), 5.0), need(Some(20), 9.0), need(Some(21), 1.0)];
        assert_eq!(read_local(&needs), [true, true, true, false]);
        // A candidate no pool tried satisfies is out while another is satisfied.
        let needs = [need(None, 90.0), need(Some(8), 2.0), need(None, 3.0)];
        assert_eq!(read_local(&needs), [false, true, false]);
    }

    #[test]
    fn with_no_pool_meeting_the_target_misses_decide() {
        let needs = [need(None, 90.0), need(None, 10.0), need(None, 21.0), need(None, 22.0)];
        assert_eq!(read_local(&needs), [false, true, true, false]);
        // Nothing missed: one miss per 1,000 operations of slack.
        let needs = [need(None, 0.0), need(None, 0.0), need(None, 0.9)];
        assert_eq!(read_local(&needs), [true, true, true]);
        // No figure: the insert rule alone decides.
        assert_eq!(read_local(&[ReadNeed::default(); 3]), [true; 3]);
    }

    #[test]
    fn the_pool_needed_is_interpolated_and_never_extrapolated() {
        let cost = |req: f64, read: u64| WorkloadCost {
            ops: 1000,
            page_requests: Some(req),
            pages_read: Some(read),
        };
        // Hit ratios 0.9, 0.98, 1.0 at 1, 2, 4 MiB: 99% lies halfway from 2 to 4 MiB.
        let f = WorkloadFigures {
            at_pool: None,
            curve: vec![
                (1 << 20, cost(1000.0, 100)),
                (2 << 20, cost(1000.0, 20)),
                (4 << 20, cost(1000.0, 0)),
            ],
            reads_curve: Vec::new(),
            table_bytes: Some(4 << 20),
        };
        assert_eq!(f.cache(0.99), (Some(3 << 20), "interpolated from the curve".into()));
        let short = WorkloadFigures { curve: f.curve[..2].to_vec(), ..f.clone() };
        assert_eq!(short.cache(0.99), (None, "more than the largest pool tried (2.0 MiB)".into()));
        assert_eq!(f.cache(0.5).0, Some(1 << 20));
    }
}
