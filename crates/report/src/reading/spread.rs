//! Whether a difference between two repeated runs' timings is one: the reading calls it a
//! difference only when the runs' ranges (min … max over the repeats) do not overlap, and
//! says "within the spread" otherwise (hyperfine's rule of thumb, as the query comparison
//! does with each query's runs).
//!
//! Not for: runs without repeats (a single run has no spread: nothing is said), or the
//! simulator (no timings).

use crate::text::decimal;
use keylab_core::RunResult;

/// The sentence saying that `figure` of runs `a` and `b` (labelled) differs by less than
/// their spread, when both were repeated and their ranges overlap; `None` otherwise.
pub(super) fn within_spread(
    figure: &str,
    what: &str,
    places: usize,
    (a, a_label): (&RunResult, &str),
    (b, b_label): (&RunResult, &str),
) -> Option<String> {
    let (x, y) = (a.timing_spread(figure)?, b.timing_spread(figure)?);
    x.overlaps(y).then(|| {
        format!(
            "Over {} and {} repeats their {what} overlap ({} … {} on {a_label}, {} … {} on \
             {b_label}): within the spread, not a difference.",
            x.values.len(),
            y.values.len(),
            decimal(x.min, places),
            decimal(x.max, places),
            decimal(y.min, places),
            decimal(y.max, places)
        )
    })
}

/// The sentence saying that `figure` of runs `a` and `b` differs by more than their spread
/// (their ranges apart), when both were repeated; `None` otherwise.
pub(super) fn beyond_spread(
    figure: &str,
    what: &str,
    places: usize,
    a: &RunResult,
    b: &RunResult,
) -> Option<String> {
    let (x, y) = (a.timing_spread(figure)?, b.timing_spread(figure)?);
    (!x.overlaps(y)).then(|| {
        format!(
            "Their {what} do not overlap over {} and {} repeats ({} … {} vs {} … {}): a \
             difference beyond the spread.",
            x.values.len(),
            y.values.len(),
            decimal(x.min, places),
            decimal(x.max, places),
            decimal(y.min, places),
            decimal(y.max, places)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::{timings::throughput, Labeled};
    use keylab_core::{fold_repeats, RunResult};

    fn run(variant: &str, walls: &[f64]) -> RunResult {
        let one = |wall: f64| -> RunResult {
            serde_json::from_value(serde_json::json!({
                "variant": variant, "strategy": variant, "encoding": "", "placement": "pk",
                "rows": 1000, "load": {"method": "multi", "batch": 100, "writers": 1,
                    "wall_s": wall, "rows_per_s": 1000.0 / wall, "batch_latency_ms": null},
                "counters": {}, "table": {}, "indexes": []
            }))
            .unwrap()
        };
        fold_repeats(walls.iter().map(|w| one(*w)).collect())
    }

    fn lines(a: &RunResult, b: &RunResult) -> Vec<String> {
        throughput(&[
            Labeled { run: a, label: "a", in_order_fill: "" },
            Labeled { run: b, label: "b", in_order_fill: "" },
        ])
    }

    #[test]
    fn a_rate_gap_inside_the_spread_is_not_a_difference() {
        // Medians 1,000 and 800 rows/s (+25%), but b's fastest repeat beats a's slowest.
        let (a, b) = (run("a", &[1.0, 2.0, 0.9]), run("b", &[1.25, 1.1, 3.0]));
        let text = lines(&a, &b).join(" ");
        assert!(text.contains("a loaded fastest"), "{text}");
        assert!(text.contains("within the spread, not a difference"), "{text}");
    }

    #[test]
    fn a_rate_gap_beyond_the_spread_is_said_so() {
        let (a, b) = (run("a", &[1.0, 1.1, 0.9]), run("b", &[2.0, 2.1, 1.9]));
        let text = lines(&a, &b).join(" ");
        assert!(text.contains("a difference beyond the spread"), "{text}");
        assert!(!text.contains("within the spread"), "{text}");
    }
}
