//! The HTML report's charts of phase lists and matrix dimensions, picked from the report:
//! - growth: pages allocated (all indexes) and page splits against rows loaded, one line per
//!   run, from load phases' `samples` (one chart per placement when runs differ in it);
//! - load against writers and against batch size: rows/s and batch latency p99, one line per
//!   run group, from the runs' `load` (only when the engine timed the loads);
//! - churn: pages before and after churn (and after the rebuild that follows it) per run,
//!   splits and merges during churn, and per-round splits, merges and PRIMARY leaf pages from
//!   churn phases' `per_round`.
//!
//! Each function returns the charts it can draw; a chart without data is left out, never
//! drawn empty. Drawing is `chart.rs` (the parent module); the table-row charts are in `html.rs`.

use crate::chart::{grouped_bar_chart, line_chart, Line, Scale};
use crate::labels::cell;
use crate::text::{decimal, group_thousands};
use keylab_core::{
    ChurnPhase, Figure, PhaseKind, PhaseResult, PhaseStatus, RebuildPhase, Report, RunResult,
    SeriesPoint, ShapeFigures,
};

fn count(v: f64) -> String {
    group_thousands(v.round().max(0.0) as u64)
}

/// A figure of a series point, as a number.
type PointFigure = fn(&SeriesPoint) -> Option<f64>;

fn number(f: &Figure<u64>) -> Option<f64> {
    f.value().map(|v| v as f64)
}

/// A list-valued figure of a phase (empty where absent or `null`).
fn list(points: &Figure<Vec<SeriesPoint>>) -> &[SeriesPoint] {
    points.get().map_or(&[], Vec::as_slice)
}

/// One line per run from a list of points: `(x, y)` of each item, items without either
/// skipped; lines with fewer than two points are left out.
fn lines(runs: &[(&str, &[SeriesPoint])], x: PointFigure, y: PointFigure) -> Vec<Line> {
    runs.iter()
        .map(|(name, items)| Line {
            name: name.to_string(),
            points: items.iter().filter_map(|i| Some((x(i)?, y(i)?))).collect(),
        })
        .filter(|l| l.points.len() >= 2)
        .collect()
}

/// Pages and splits against rows loaded, from every load phase with samples.
pub(crate) fn growth(report: &Report, labels: &[String]) -> Vec<String> {
    let mut charts = Vec::new();
    let positions = phase_positions(report, PhaseKind::Load);
    for (nth, pos) in positions.iter().enumerate() {
        let mut placements: Vec<&str> = Vec::new();
        for r in &report.runs {
            if !placements.contains(&r.placement.as_str()) {
                placements.push(&r.placement);
            }
        }
        let which =
            if positions.len() > 1 { format!(" (load {})", nth + 1) } else { String::new() };
        for placement in &placements {
            let sampled: Vec<(&str, &[SeriesPoint])> = report
                .runs
                .iter()
                .zip(labels)
                .filter(|(r, _)| r.placement == *placement)
                .filter_map(|(r, l)| {
                    let Some(PhaseResult::Load(p)) = r.phases.get(*pos) else { return None };
                    Some((l.as_str(), list(&p.samples)))
                })
                .filter(|(_, s)| !s.is_empty())
                .collect();
            let whose = if placements.len() > 1 {
                format!(", id as {}", placement_words(placement))
            } else {
                String::new()
            };
            let rows: PointFigure = |p| number(&p.rows);
            let pages: PointFigure = |p| number(&p.shape.size_pages_all_indexes);
            let splits: PointFigure = |p| number(&p.counters.page_splits);
            for (figure, from_origin, title, y) in [
                (pages, false, "Growth: pages allocated (all indexes)", "pages"),
                (splits, true, "Growth: page splits", "splits"),
            ] {
                let mut ls = lines(&sampled, rows, figure);
                if ls.is_empty() {
                    continue;
                }
                // Samples start after the first chunk; the origin starts the curve at 0 rows.
                if from_origin {
                    ls.iter_mut().for_each(|l| l.points.insert(0, (0.0, 0.0)));
                }
                let title = format!("{title} vs rows loaded{whose}{which}");
                charts.push(line_chart(
                    &title,
                    ("rows loaded", y),
                    &ls,
                    Scale::Linear,
                    &count,
                    &count,
                ));
            }
        }
    }
    charts
}

fn placement_words(placement: &str) -> String {
    match placement {
        "pk" => "primary key".to_string(),
        "secondary" => "secondary key".to_string(),
        other => other.to_string(),
    }
}

/// Positions (0-based) where some run has a phase of `kind`, in order.
fn phase_positions(report: &Report, kind: PhaseKind) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for r in &report.runs {
        for (i, p) in r.phases.iter().enumerate() {
            if p.kind() == kind && !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out
}

/// A load dimension charts can be drawn against.
#[derive(Clone, Copy)]
enum Dim {
    Writers,
    Batch,
}

impl Dim {
    fn cell_name(self) -> &'static str {
        match self {
            Dim::Writers => "writers",
            Dim::Batch => "batch",
        }
    }
    fn of(self, r: &RunResult) -> f64 {
        f64::from(match self {
            Dim::Writers => r.load.writers,
            Dim::Batch => r.load.batch,
        })
    }
}

/// Rows/s and batch latency p99 against writers and against batch size.
pub(crate) fn load_dimensions(report: &Report) -> Vec<String> {
    let mut charts = Vec::new();
    for (dim, axis, scale) in [
        (Dim::Writers, "writers", Scale::Linear),
        (Dim::Batch, "batch size (rows, log scale)", Scale::Log),
    ] {
        let timed: Vec<&RunResult> =
            report.runs.iter().filter(|r| r.load.rows_per_s.is_some()).collect();
        // Runs of a matrix group that varies this dimension; without cells, every timed run.
        let in_cell = |r: &RunResult| cell(r).iter().any(|(d, _)| d == dim.cell_name());
        let candidates: Vec<&RunResult> = if timed.iter().any(|r| in_cell(r)) {
            timed.into_iter().filter(|r| in_cell(r)).collect()
        } else {
            timed
        };
        let groups = group_by_rest(&candidates, dim);
        let by = |y: &dyn Fn(&RunResult) -> Option<f64>| -> Vec<Line> {
            groups
                .iter()
                .map(|(name, runs)| {
                    let mut points: Vec<(f64, f64)> =
                        runs.iter().filter_map(|r| Some((dim.of(r), y(r)?))).collect();
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Line { name: name.clone(), points }
                })
                .filter(|l| {
                    let mut xs: Vec<f64> = l.points.iter().map(|p| p.0).collect();
                    xs.dedup();
                    xs.len() >= 2
                })
                .collect()
        };
        let rate = by(&|r| r.load.rows_per_s);
        if !rate.is_empty() {
            let title =
                format!("Load throughput vs {}", dim.cell_name().replace("batch", "batch size"));
            charts.push(line_chart(&title, (axis, "rows/s"), &rate, scale, &count, &count));
        }
        let p99 = by(&|r| r.load.batch_latency_ms.map(|l| l.p99));
        if !p99.is_empty() {
            let title =
                format!("Batch latency p99 vs {}", dim.cell_name().replace("batch", "batch size"));
            let ms = |v: f64| decimal(v, if v < 10.0 { 1 } else { 0 });
            charts.push(line_chart(&title, (axis, "ms"), &p99, scale, &count, &ms));
        }
    }
    charts
}

/// Runs grouped by everything but `dim`: variant, placement, the other load fields and the
/// other cell coordinates. Names show only the parts that differ between groups.
fn group_by_rest(runs: &[&RunResult], dim: Dim) -> Vec<(String, Vec<RunResult>)> {
    let parts = |r: &RunResult| -> Vec<String> {
        let mut p = vec![r.placement.clone(), r.load.method.clone()];
        match dim {
            Dim::Writers => p.push(format!("batch {}", r.load.batch)),
            Dim::Batch => p.push(format!("{} writers", r.load.writers)),
        }
        p.extend(
            cell(r)
                .into_iter()
                .filter(|(d, _)| !matches!(d.as_str(), "writers" | "batch" | "method"))
                .map(|(d, v)| format!("{} {v}", d.replace('_', " "))),
        );
        p
    };
    let all: Vec<Vec<String>> = runs.iter().map(|r| parts(r)).collect();
    let varies = |i: usize| all.iter().any(|p| p.get(i) != all[0].get(i));
    let mut groups: Vec<(String, Vec<RunResult>)> = Vec::new();
    for (r, p) in runs.iter().zip(&all) {
        let shown: Vec<&str> =
            p.iter().enumerate().filter(|(i, _)| varies(*i)).map(|(_, s)| s.as_str()).collect();
        let name = if shown.is_empty() {
            r.variant.clone()
        } else {
            format!("{} ({})", r.variant, shown.join(", "))
        };
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, g)) => g.push((*r).clone()),
            None => groups.push((name, vec![(*r).clone()])),
        }
    }
    groups
}

/// Churn charts: pages and splits around each churn phase, and the per-round lines.
pub(crate) fn churn(report: &Report, labels: &[String]) -> Vec<String> {
    let mut charts = Vec::new();
    let positions = phase_positions(report, PhaseKind::Churn);
    for (nth, &pos) in positions.iter().enumerate() {
        let which =
            if positions.len() > 1 { format!(" (churn {})", nth + 1) } else { String::new() };
        let churned: Vec<(&str, &RunResult, &ChurnPhase)> = report
            .runs
            .iter()
            .zip(labels)
            .filter_map(|(r, l)| {
                let Some(PhaseResult::Churn(p)) = r.phases.get(pos) else { return None };
                (p.status.value() == Some(PhaseStatus::Ok)).then_some((l.as_str(), r, p))
            })
            .collect();
        if churned.is_empty() {
            continue;
        }
        // The rebuild right after the churn, if the scenario has one (E5's final OPTIMIZE).
        fn rebuild_after(r: &RunResult, pos: usize) -> Option<&RebuildPhase> {
            match r.phases.get(pos + 1) {
                Some(PhaseResult::Rebuild(p)) if p.status.value() == Some(PhaseStatus::Ok) => {
                    Some(p)
                }
                _ => None,
            }
        }
        let leaf_pages: fn(&ShapeFigures) -> Option<f64> = |s| number(&s.primary_leaf_pages);
        let all_pages: fn(&ShapeFigures) -> Option<f64> = |s| number(&s.size_pages_all_indexes);
        for (figure, title) in [
            (leaf_pages, "PRIMARY leaf pages around churn"),
            (all_pages, "Pages (all indexes) around churn"),
        ] {
            let with_rebuild = churned.iter().any(|(_, r, _)| rebuild_after(r, pos).is_some());
            let mut series = vec!["before churn", "after churn"];
            if with_rebuild {
                series.push("after rebuild");
            }
            let groups: Vec<(String, Vec<Option<f64>>)> = churned
                .iter()
                .map(|(l, r, p)| {
                    let mut v = vec![figure(&p.before), figure(&p.after)];
                    if with_rebuild {
                        v.push(rebuild_after(r, pos).and_then(|q| figure(&q.after)));
                    }
                    (l.to_string(), v)
                })
                .collect();
            if groups.iter().any(|(_, v)| v.iter().any(Option::is_some)) {
                charts.push(grouped_bar_chart(
                    &format!("{title}{which}"),
                    &series,
                    &groups,
                    &count,
                ));
            }
        }
        let groups: Vec<(String, Vec<Option<f64>>)> = churned
            .iter()
            .map(|(l, _, p)| {
                (
                    l.to_string(),
                    vec![
                        number(&p.counters.page_splits),
                        number(&p.counters.merge_attempts),
                        number(&p.counters.merges),
                    ],
                )
            })
            .collect();
        if groups.iter().any(|(_, v)| v.iter().any(Option::is_some)) {
            charts.push(grouped_bar_chart(
                &format!("Churn: splits and merges{which}"),
                &["page splits", "merge attempts", "merges"],
                &groups,
                &count,
            ));
        }
        let rounds: Vec<(&str, &[SeriesPoint])> =
            churned.iter().map(|(l, _, p)| (*l, list(&p.per_round))).collect();
        let every = churned
            .iter()
            .filter_map(|(_, _, p)| number(&p.measure_every))
            .reduce(|a, b| if a == b { a } else { f64::NAN })
            .filter(|e| e.is_finite() && *e > 1.0);
        let per =
            every.map_or("per measurement".to_string(), |e| format!("per {} rounds", count(e)));
        let round: PointFigure = |p| number(&p.round);
        let splits: PointFigure = |p| number(&p.counters.page_splits);
        let merges: PointFigure = |p| number(&p.counters.merges);
        let leaves: PointFigure = |p| number(&p.shape.primary_leaf_pages);
        for (figure, title, y) in [
            (splits, format!("Churn: page splits {per}"), "splits"),
            (merges, format!("Churn: merges {per}"), "merges"),
            (leaves, "Churn: PRIMARY leaf pages by round".to_string(), "pages"),
        ] {
            let ls = lines(&rounds, round, figure);
            if !ls.is_empty() {
                charts.push(line_chart(
                    &format!("{title}{which}"),
                    ("round", y),
                    &ls,
                    Scale::Linear,
                    &count,
                    &count,
                ));
            }
        }
    }
    charts
}
