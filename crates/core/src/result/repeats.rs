//! Repeats of one run (`--repeat N` on a server): the spread of every timed figure, and the
//! structural figures that were not equal across repeats.
//!
//! [`fold_repeats`] turns the runs of one variant (each on a fresh table, the same rows) into
//! one [`RunResult`]: structural figures (pages, splits, fill, counters) are the first
//! repeat's, each timed figure is the median over the repeats (the fastest of the `min…`
//! figures, the slowest of the `max…` ones), and [`Repeats`] keeps every repeat's value with
//! its median, mean ± σ, min … max (as hyperfine reports them) and the first (cold) repeat
//! apart. A figure is timed when a key on its path ends in `_ms` or `_s` (`wall_s`,
//! `rows_per_s`, `batch_latency_ms.p99`, `queries.NAME.p50_ms`, a ddl phase's `…_ms`);
//! sampled series (`series`, `curve`) stay the first repeat's, as they are curves, not
//! figures.
//!
//! Not for: deciding what a difference between two runs means (the reading does that with
//! [`TimingSpread::overlaps`]); the simulator, whose figures are deterministic (one repeat).

use super::RunResult;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The repeats of one run (an extension of the contract; absent after a single run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeats {
    /// How many times the whole run was repeated (fresh table, same rows).
    pub count: u32,
    /// Every timed figure, in the order of the result.
    pub timings: Vec<TimingSpread>,
    /// Structural figures that were not equal across repeats (the result keeps the first
    /// repeat's); empty when every repeat agreed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differing: Vec<DifferingFigure>,
}

/// One timed figure over the repeats. Statistics are over every repeat, the first included;
/// `first` shows the cold one apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingSpread {
    /// Where the figure is in a run (`load.wall_s`, `queries.id_share.p50_ms`,
    /// `phases.3.churn.wall_s`).
    pub figure: String,
    /// The first (cold) repeat's value.
    pub first: Option<f64>,
    /// Median over the repeats.
    pub median: f64,
    /// Mean over the repeats.
    pub mean: f64,
    /// Sample standard deviation (`null` with one value).
    pub stddev: Option<f64>,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Every repeat's value, in run order (`null` where a repeat had none).
    pub values: Vec<Option<f64>>,
}

impl TimingSpread {
    /// Whether the two figures' ranges (min … max) overlap: a difference between them is
    /// then within the spread, not a difference (hyperfine's rule of thumb).
    pub fn overlaps(&self, other: &TimingSpread) -> bool {
        self.min <= other.max && other.min <= self.max
    }

    /// The spread over a list of values, `None` when no repeat gave one.
    pub fn of(figure: &str, values: Vec<Option<f64>>) -> Option<TimingSpread> {
        let mut given: Vec<f64> = values.iter().flatten().copied().collect();
        if given.is_empty() {
            return None;
        }
        given.sort_by(f64::total_cmp);
        let n = given.len();
        let median =
            if n % 2 == 1 { given[n / 2] } else { (given[n / 2 - 1] + given[n / 2]) / 2.0 };
        let mean = given.iter().sum::<f64>() / n as f64;
        let stddev = (n > 1).then(|| {
            (given.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        });
        Some(TimingSpread {
            figure: figure.to_string(),
            first: values[0],
            median,
            mean,
            stddev,
            min: given[0],
            max: given[n - 1],
            values,
        })
    }
}

/// A structural figure that differed across repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DifferingFigure {
    /// Where the figure is in a run.
    pub figure: String,
    /// Every repeat's value, in run order (`null` where a repeat had none).
    pub values: Vec<Value>,
}

impl RunResult {
    /// The spread of timed figure `figure` (`load.rows_per_s`), where the run was repeated.
    pub fn timing_spread(&self, figure: &str) -> Option<&TimingSpread> {
        self.repeats.as_ref()?.timings.iter().find(|t| t.figure == figure)
    }
}

/// One run from its repeats (at least one, in run order); a single run comes back as it was.
pub fn fold_repeats(mut repeats: Vec<RunResult>) -> RunResult {
    if repeats.len() <= 1 {
        return repeats.pop().expect("at least one repeat");
    }
    let values: Vec<Value> =
        repeats.iter().map(|r| serde_json::to_value(r).expect("a run serialises")).collect();
    let mut folded = values[0].clone();
    let mut found = Found::default();
    walk(&values, &values[0], "", &mut Vec::new(), false, &mut found);
    for (pointer, spread, pick) in &found.timed {
        if let Some(slot) = folded.pointer_mut(pointer) {
            let v = match pick {
                Pick::Min => spread.min,
                Pick::Max => spread.max,
                Pick::Median => spread.median,
            };
            *slot = serde_json::json!(v);
        }
    }
    let mut run: RunResult = serde_json::from_value(folded).expect("the folded run deserialises");
    run.repeats = Some(Repeats {
        count: repeats.len() as u32,
        timings: found.timed.into_iter().map(|(_, s, _)| s).collect(),
        differing: found.differing,
    });
    run
}

/// Which repeat value a folded timed figure takes.
#[derive(Debug, Clone, Copy)]
enum Pick {
    Min,
    Max,
    Median,
}

#[derive(Default)]
struct Found {
    /// JSON pointer, spread, pick.
    timed: Vec<(String, TimingSpread, Pick)>,
    differing: Vec<DifferingFigure>,
}

/// Whether an object key names a time or a rate (`wall_s`, `rows_per_s`, `p50_ms`).
fn is_timed_key(key: &str) -> bool {
    key.ends_with("_ms") || key.ends_with("_s")
}

/// Visits every leaf of the first repeat (`at`, at JSON pointer `pointer`, readable label
/// `label`), comparing it with the other repeats' value at the same place.
fn walk(
    all: &[Value],
    at: &Value,
    pointer: &str,
    label: &mut Vec<String>,
    timed: bool,
    found: &mut Found,
) {
    match at {
        Value::Object(map) => {
            for (key, child) in map {
                // The repeats block of an input run, and sampled curves, are not figures.
                if matches!(key.as_str(), "repeats" | "series" | "curve") {
                    continue;
                }
                label.push(key.clone());
                let pointer = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                walk(all, child, &pointer, label, timed || is_timed_key(key), found);
                label.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                // Queries by name, phases by position and kind.
                let name = match child.get("name").and_then(Value::as_str) {
                    Some(name) => name.to_string(),
                    None => match child.get("kind").and_then(Value::as_str) {
                        Some(kind) => format!("{i}.{kind}"),
                        None => i.to_string(),
                    },
                };
                label.push(name);
                walk(all, child, &format!("{pointer}/{i}"), label, timed, found);
                label.pop();
            }
        }
        leaf => {
            let figure = label.join(".");
            let others: Vec<Value> =
                all.iter().map(|v| v.pointer(pointer).cloned().unwrap_or(Value::Null)).collect();
            if timed && (leaf.is_number() || leaf.is_null()) {
                let values = others.iter().map(Value::as_f64).collect();
                if let Some(spread) = TimingSpread::of(&figure, values) {
                    let last = label.last().map(String::as_str).unwrap_or("");
                    let pick = if last.starts_with("min") {
                        Pick::Min
                    } else if last.starts_with("max") {
                        Pick::Max
                    } else {
                        Pick::Median
                    };
                    found.timed.push((pointer.to_string(), spread, pick));
                }
            } else if others.iter().any(|v| v != leaf) {
                found.differing.push(DifferingFigure { figure, values: others });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(wall_s: f64, splits: u64, p50: f64) -> RunResult {
        serde_json::from_value(serde_json::json!({
            "variant": "ulid:text", "strategy": "ulid", "encoding": "text", "placement": "pk",
            "rows": 100, "load": {"method": "multi", "batch": 10, "writers": 1,
                "wall_s": wall_s, "rows_per_s": 100.0 / wall_s,
                "batch_latency_ms": {"p50": wall_s, "p99": wall_s * 2.0, "max": wall_s * 3.0}},
            "counters": {"page_splits": splits}, "table": {}, "indexes": [],
            "queries": [{"name": "point", "runs": 5, "p50_ms": p50, "p99_ms": p50,
                         "min_ms": p50 / 2.0, "max_ms": p50 * 2.0, "rows": 1}]
        }))
        .unwrap()
    }

    #[test]
    fn one_repeat_is_the_run_itself() {
        let r = run(1.0, 3, 0.5);
        assert_eq!(fold_repeats(vec![r.clone()]), r);
    }

    #[test]
    fn timed_figures_take_the_median_and_structure_the_first_repeat() {
        let folded = fold_repeats(vec![run(3.0, 7, 1.0), run(1.0, 7, 2.0), run(2.0, 7, 4.0)]);
        assert_eq!(folded.load.wall_s, Some(2.0));
        assert_eq!(folded.load.batch_latency_ms.unwrap().max, 9.0);
        let q = &folded.queries[0];
        assert_eq!((q.p50_ms, q.min_ms, q.max_ms), (Some(2.0), Some(0.5), Some(8.0)));
        let repeats = folded.repeats.as_ref().unwrap();
        assert_eq!(repeats.count, 3);
        assert!(repeats.differing.is_empty());
        let wall = folded.timing_spread("load.wall_s").unwrap();
        assert_eq!((wall.first, wall.min, wall.max, wall.mean), (Some(3.0), 1.0, 3.0, 2.0));
        assert_eq!(wall.stddev, Some(1.0));
        assert!(folded.timing_spread("queries.point.p50_ms").is_some());
        assert!(folded.timing_spread("rows").is_none());
    }

    #[test]
    fn structural_differences_are_named_and_the_first_kept() {
        let folded = fold_repeats(vec![run(1.0, 7, 1.0), run(1.0, 8, 1.0)]);
        assert_eq!(folded.counters.page_splits, Some(7));
        let differing = &folded.repeats.unwrap().differing;
        assert_eq!(differing.len(), 1);
        assert_eq!(differing[0].figure, "counters.page_splits");
        assert_eq!(differing[0].values, vec![serde_json::json!(7), serde_json::json!(8)]);
    }

    #[test]
    fn overlapping_ranges_are_within_the_spread() {
        let a = TimingSpread::of("x", vec![Some(1.0), Some(3.0)]).unwrap();
        let b = TimingSpread::of("x", vec![Some(2.5), Some(4.0)]).unwrap();
        let c = TimingSpread::of("x", vec![Some(5.0), None]).unwrap();
        assert!(a.overlaps(&b) && !a.overlaps(&c));
        assert_eq!((c.median, c.stddev, c.first), (5.0, None, Some(5.0)));
    }
}
