//! The table's Repeats section, for runs repeated on a server (`--repeat N`): per timed
//! figure, mean ± σ and min … max over the repeats with the first (cold) repeat apart, and a
//! note naming structural figures that were not equal across repeats.
//!
//! Not for: how the repeats were folded (`keylab_core::fold_repeats`), or what a difference
//! means (the reading). The JSON keeps every timed figure's spread; the table shows the load's
//! and each query's median times, and phases' wall times.

use super::build::Builder;
use super::Value;
use crate::text::decimal;
use keylab_core::{RunResult, TimingSpread};

/// The figures the table shows a spread for, with their label and decimals, in order;
/// `None` for a figure the table leaves to the JSON.
fn shown(figure: &str) -> Option<(String, usize)> {
    let fixed = match figure {
        "load.wall_s" => Some(("load wall time (s)", 3)),
        "load.rows_per_s" => Some(("load rows/s", 0)),
        "load.batch_latency_ms.p50" => Some(("batch p50 (ms)", 2)),
        "load.batch_latency_ms.p99" => Some(("batch p99 (ms)", 2)),
        "load.server_statement_ms" => Some(("server statement time (ms)", 1)),
        _ => None,
    };
    if let Some((label, places)) = fixed {
        return Some((label.to_string(), places));
    }
    if let Some(rest) = figure.strip_prefix("queries.") {
        for (suffix, what) in [(".p50_ms", "p50"), (".server_p50_ms", "server p50")] {
            if let Some(name) = rest.strip_suffix(suffix) {
                return Some((format!("query {name} {what} (ms)"), 2));
            }
        }
    }
    let phase = figure.strip_prefix("phases.")?;
    let (slot, last) = phase.rsplit_once('.')?;
    matches!(last, "wall_s" | "wall_ms").then(|| {
        let unit = if last == "wall_s" { "s" } else { "ms" };
        (format!("phase {slot} wall time ({unit})"), 3)
    })
}

/// Adds the Repeats section when some run was repeated; `labels` name the runs in notes.
pub(crate) fn add_repeat_rows(b: &mut Builder<'_>, runs: &[RunResult], labels: &[String]) {
    let counts: Vec<u32> = runs.iter().filter_map(|r| Some(r.repeats.as_ref()?.count)).collect();
    let Some(most) = counts.iter().max() else { return };
    b.section("Repeats");
    b.note(&format!(
        "each run repeated up to {most} times on a fresh table with the same rows: the timed \
         figures above are medians over the repeats, the structural ones the first repeat's; \
         here mean ± σ and min … max over every repeat, the first (cold) one apart"
    ));
    b.row("repeats.count", "repeats", None, |r| {
        r.repeats.as_ref().map_or(Value::Null, |x| Value::Count(x.count.into()))
    });
    let mut figures: Vec<String> = Vec::new();
    for r in runs {
        for t in r.repeats.iter().flat_map(|x| &x.timings) {
            if shown(&t.figure).is_some() && !figures.contains(&t.figure) {
                figures.push(t.figure.clone());
            }
        }
    }
    // The load's figures first, then queries, then phases (the JSON's order is by name).
    figures.sort_by_key(|f| rank(f));
    for figure in figures {
        let (label, places) = shown(&figure).expect("kept above");
        let spread = |r: &RunResult| r.timing_spread(&figure).cloned();
        b.row(&format!("repeats.{figure}.mean_sd"), &format!("{label} mean ± σ"), None, |r| {
            spread(r).map_or(Value::Null, |t| Value::Text(mean_sd(&t, places)))
        });
        b.row(
            &format!("repeats.{figure}.range"),
            &format!("{label} min … max (first)"),
            None,
            |r| spread(r).map_or(Value::Null, |t| Value::Text(range(&t, places))),
        );
    }
    for (r, label) in runs.iter().zip(labels) {
        let Some(differing) = r.repeats.as_ref().map(|x| &x.differing) else { continue };
        if differing.is_empty() {
            continue;
        }
        let mut list: Vec<String> = differing
            .iter()
            .take(MAX_DIFFERING_NAMED)
            .map(|d| {
                let values: Vec<String> = d.values.iter().map(short_value).collect();
                format!("{} {}", d.figure, values.join(" / "))
            })
            .collect();
        if differing.len() > MAX_DIFFERING_NAMED {
            list.push(format!(
                "and {} more (in the JSON's repeats.differing)",
                differing.len() - MAX_DIFFERING_NAMED
            ));
        }
        b.note(&format!(
            "{label}: not equal across repeats (the table shows the first repeat's): {}",
            list.join("; ")
        ));
    }
}

/// Structural figures named per run in the note; the others are counted.
const MAX_DIFFERING_NAMED: usize = 6;

/// Where a shown figure goes: the load's in the order of the Load section, then queries,
/// then phases.
fn rank(figure: &str) -> usize {
    const LOAD: [&str; 5] = [
        "load.wall_s",
        "load.rows_per_s",
        "load.batch_latency_ms.p50",
        "load.batch_latency_ms.p99",
        "load.server_statement_ms",
    ];
    match LOAD.iter().position(|f| *f == figure) {
        Some(i) => i,
        None if figure.starts_with("queries.") => LOAD.len(),
        None => LOAD.len() + 1,
    }
}

/// A structural value for the note: numbers to four decimals at most, text as it is.
fn short_value(v: &serde_json::Value) -> String {
    match v.as_f64() {
        Some(x) if v.is_f64() => {
            let text = format!("{x:.4}");
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        _ => v.to_string(),
    }
}

/// `0.240 ± 0.056` (σ left out with a single value).
fn mean_sd(t: &TimingSpread, places: usize) -> String {
    match t.stddev {
        Some(sd) => format!("{} ± {}", decimal(t.mean, places), decimal(sd, places)),
        None => decimal(t.mean, places),
    }
}

/// `0.170 … 0.281 (0.281)`: the range and the first repeat's value.
fn range(t: &TimingSpread, places: usize) -> String {
    let first = t.first.map_or("—".to_string(), |v| decimal(v, places));
    format!("{} … {} ({first})", decimal(t.min, places), decimal(t.max, places))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_query_and_phase_times_are_shown_and_the_rest_left_to_the_json() {
        assert_eq!(shown("load.wall_s"), Some(("load wall time (s)".into(), 3)));
        assert_eq!(shown("queries.point.p50_ms"), Some(("query point p50 (ms)".into(), 2)));
        assert_eq!(shown("phases.2.churn.wall_s"), Some(("phase 2.churn wall time (s)".into(), 3)));
        assert_eq!(shown("load.first_batch_ms.0"), None);
        assert_eq!(shown("queries.point.p99_ms"), None);
    }

    #[test]
    fn spread_text_reads_like_hyperfine() {
        let t = TimingSpread::of("x", vec![Some(3.0), Some(1.0), Some(2.0)]).unwrap();
        assert_eq!(mean_sd(&t, 2), "2.00 ± 1.00");
        assert_eq!(range(&t, 1), "1.0 … 3.0 (3.0)");
        assert_eq!(short_value(&serde_json::json!(0.99988562)), "0.9999");
        assert_eq!(short_value(&serde_json::json!(1.0)), "1");
        assert_eq!(short_value(&serde_json::json!(8743)), "8743");
    }
}
