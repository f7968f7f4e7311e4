//! `keylab validate`'s arithmetic: the simulator's error against a server, per structural
//! metric, from two results of the same planned run. It runs nothing itself.
//!
//! Metrics compared: per structural phase both engines ran (load, churn, rebuild), its
//! counter deltas (splits, merge attempts, merges, reorganisations, discards) and the shape
//! after it (`DATA_LENGTH`, `INDEX_LENGTH`, PRIMARY pages, leaf pages and fill, pages of all
//! indexes); and, when both engines ran the same phases, the table at the end: counters,
//! sizes, and per index (`PRIMARY`, and `secondary` for every other) pages, leaf and
//! non-leaf pages, height, fill and records per leaf. A metric either side leaves `null`, or
//! a phase only one engine could run, is counted as missing, never treated as 0.
//!
//! The buffer pool check (`--pool`) is in `validate/pool.rs`, the sharded check (`--shards`)
//! in `validate/shards.rs`.

pub mod pool;
pub mod shards;

use keylab_core::{CounterFigures, Figure, PhaseResult, PhaseStatus, RunResult, ShapeFigures};
use serde::Serialize;
use std::fmt::Write;

/// The simulator's error on one metric of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricError {
    /// The run's label.
    pub run: String,
    /// Metric name (`page_splits`, `PRIMARY.leaf_pages`, `churn.merges`).
    pub metric: String,
    /// The simulator's figure.
    pub sim: f64,
    /// The server's figure.
    pub server: f64,
    /// `sim - server`.
    pub error: f64,
    /// `|sim - server| / server × 100`; `None` when the server's figure is 0 and the
    /// simulator's is not.
    pub abs_pct_error: Option<f64>,
}

/// One metric over all runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricSummary {
    /// Metric name.
    pub metric: String,
    /// Runs where both sides gave the figure.
    pub runs: usize,
    /// Runs where one side gave `null`.
    pub missing: usize,
    /// Mean of `|sim - server|`.
    pub mean_abs_error: Option<f64>,
    /// Mean of the percentage errors that exist.
    pub mean_abs_pct_error: Option<f64>,
    /// Largest percentage error.
    pub max_abs_pct_error: Option<f64>,
}

/// A whole validation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// Per metric, in first-seen order.
    pub summary: Vec<MetricSummary>,
    /// Every compared figure.
    pub details: Vec<MetricError>,
}

/// Figures of a load, churn or rebuild phase that are compared: its counter deltas and the
/// shape after it, by the names the JSON gives them.
fn phase_figures(c: &CounterFigures, a: &ShapeFigures) -> [(&'static str, Option<f64>); 11] {
    let n = |f: &Figure<u64>| f.value().map(|x| x as f64);
    [
        ("page_splits", n(&c.page_splits)),
        ("merge_attempts", n(&c.merge_attempts)),
        ("merges", n(&c.merges)),
        ("page_reorgs", n(&c.page_reorgs)),
        ("page_discards", n(&c.page_discards)),
        ("data_length_after", n(&a.data_length)),
        ("index_length_after", n(&a.index_length)),
        ("primary_size_pages_after", n(&a.primary_size_pages)),
        ("primary_leaf_pages_after", n(&a.primary_leaf_pages)),
        ("primary_fill_pct_after", a.primary_fill_pct.value()),
        ("size_pages_all_indexes_after", n(&a.size_pages_all_indexes)),
    ]
}

/// `ok` / `not_applicable` of each phase, in order.
fn statuses(run: &RunResult) -> Vec<(String, String)> {
    run.phases
        .iter()
        .map(|p| {
            let status = match p.status() {
                Some(PhaseStatus::NotApplicable) => "not_applicable",
                Some(PhaseStatus::Ok) | None => "ok",
            };
            (p.kind_name().to_string(), status.to_string())
        })
        .collect()
}

/// The named structural figures of a run (`None`: the engine does not give it): each
/// structural phase that ran (`load.page_splits`, `churn.merges`, ...) and, when `final_state`,
/// the table at the end (`page_splits`, `PRIMARY.leaf_pages`, ...). The end state is only
/// comparable when both engines ran the same phases.
pub fn metrics(run: &RunResult, final_state: bool) -> Vec<(String, Option<f64>)> {
    let mut out = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for p in &run.phases {
        let (counters, after) = match p {
            PhaseResult::Load(l) => (&l.counters, &l.after),
            PhaseResult::Churn(c) => (&c.counters, &c.after),
            PhaseResult::Rebuild(r) => (&r.counters, &r.after),
            _ => continue,
        };
        let kind = p.kind_name();
        // `rebuild`, `rebuild2`, ... when a kind repeats.
        let n = seen.iter().filter(|k| *k == kind).count();
        seen.push(kind.to_string());
        let name = if n == 0 { kind.to_string() } else { format!("{kind}{}", n + 1) };
        if p.status() != Some(PhaseStatus::Ok) {
            continue;
        }
        for (fig, v) in phase_figures(counters, after) {
            out.push((format!("{name}.{fig}"), v));
        }
    }
    if !final_state {
        return out;
    }
    let f = |v: Option<u64>| v.map(|x| x as f64);
    let c = &run.counters;
    out.extend([
        ("page_splits".to_string(), f(c.page_splits)),
        ("merge_attempts".to_string(), f(c.merge_attempts)),
        ("merges".to_string(), f(c.merges)),
        ("page_reorgs".to_string(), f(c.page_reorgs)),
        ("page_discards".to_string(), f(c.page_discards)),
        ("data_length".to_string(), f(run.table.data_length)),
        ("index_length".to_string(), f(run.table.index_length)),
        ("data_free".to_string(), f(run.table.data_free)),
    ]);
    for ix in &run.indexes {
        let who = if ix.name == "PRIMARY" { "PRIMARY" } else { "secondary" };
        out.push((format!("{who}.size_pages"), f(ix.size_pages)));
        out.push((format!("{who}.leaf_pages"), f(ix.leaf_pages)));
        out.push((format!("{who}.nonleaf_pages"), f(ix.nonleaf_pages)));
        out.push((format!("{who}.height"), ix.height.map(f64::from)));
        out.push((format!("{who}.fill_pct"), ix.fill_pct));
        out.push((format!("{who}.records_per_leaf"), ix.records_per_leaf));
    }
    out
}

/// Compares the simulator's and the server's results of the same runs (paired by position;
/// `labels[i]` names pair `i`).
pub fn compare(labels: &[String], sim: &[RunResult], server: &[RunResult]) -> Validation {
    let mut details = Vec::new();
    let mut summary: Vec<(MetricSummary, Vec<f64>, Vec<f64>)> = Vec::new();
    for ((label, s), v) in labels.iter().zip(sim).zip(server) {
        let same_phases = statuses(s) == statuses(v);
        let theirs = metrics(v, same_phases);
        let mut names: Vec<(String, Option<f64>)> = metrics(s, same_phases);
        // A phase only one engine ran still counts, as missing.
        for (n, _) in &theirs {
            if !names.iter().any(|(m, _)| m == n) {
                names.push((n.clone(), None));
            }
        }
        for (name, mine) in names {
            let other = theirs.iter().find(|(n, _)| *n == name).and_then(|(_, x)| *x);
            let slot = match summary.iter().position(|(m, _, _)| m.metric == name) {
                Some(i) => i,
                None => {
                    summary.push((
                        MetricSummary {
                            metric: name.clone(),
                            runs: 0,
                            missing: 0,
                            mean_abs_error: None,
                            mean_abs_pct_error: None,
                            max_abs_pct_error: None,
                        },
                        Vec::new(),
                        Vec::new(),
                    ));
                    summary.len() - 1
                }
            };
            let (m, abs, pct) = &mut summary[slot];
            let (Some(a), Some(b)) = (mine, other) else {
                m.missing += 1;
                continue;
            };
            let error = a - b;
            let abs_pct_error = if b != 0.0 {
                Some(error.abs() / b.abs() * 100.0)
            } else if a == 0.0 {
                Some(0.0)
            } else {
                None
            };
            m.runs += 1;
            abs.push(error.abs());
            pct.extend(abs_pct_error);
            details.push(MetricError {
                run: label.clone(),
                metric: name,
                sim: a,
                server: b,
                error,
                abs_pct_error,
            });
        }
    }
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let summary = summary
        .into_iter()
        .map(|(mut m, abs, pct)| {
            m.mean_abs_error = mean(&abs);
            m.mean_abs_pct_error = mean(&pct);
            m.max_abs_pct_error = pct.iter().copied().reduce(f64::max);
            m
        })
        .collect();
    Validation { summary, details }
}

fn num(v: Option<f64>, pct: bool) -> String {
    match v {
        None => "—".to_string(),
        Some(x) if pct => format!("{x:.1}%"),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
        Some(x) => format!("{x:.2}"),
    }
}

/// Left-aligns the first column and right-aligns the others.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let sep = if i == 0 { "" } else { "  " };
            if i == 0 {
                let _ = write!(out, "{c:<w$}");
            } else {
                let _ = write!(out, "{sep}{c:>w$}");
            }
        }
        out.push('\n');
    };
    line(&mut out, &header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    line(&mut out, &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for r in rows {
        line(&mut out, r);
    }
    out
}

/// The terminal rendering: the per-metric summary, then every run's figures.
pub fn render_table(v: &Validation) -> String {
    let rows: Vec<Vec<String>> = v
        .summary
        .iter()
        .map(|m| {
            vec![
                m.metric.clone(),
                m.runs.to_string(),
                m.missing.to_string(),
                num(m.mean_abs_error, false),
                num(m.mean_abs_pct_error, true),
                num(m.max_abs_pct_error, true),
            ]
        })
        .collect();
    let mut out = String::from("Simulator error against the server, per metric\n\n");
    out.push_str(&table(
        &["metric", "runs", "missing", "mean |error|", "mean |error| %", "max |error| %"],
        &rows,
    ));
    out.push_str("\nPer run\n\n");
    let rows: Vec<Vec<String>> = v
        .details
        .iter()
        .map(|d| {
            vec![
                format!("{} · {}", d.run, d.metric),
                num(Some(d.sim), false),
                num(Some(d.server), false),
                num(Some(d.error), false),
                num(d.abs_pct_error, true),
            ]
        })
        .collect();
    out.push_str(&table(&["run · metric", "sim", "server", "error", "|error| %"], &rows));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_core::{Counters, IndexResult, LoadPlan, LoadResult, TableSizes};

    fn run(splits: u64, leaf: u64, fill: Option<f64>) -> RunResult {
        RunResult {
            variant: "uuid4:text".into(),
            strategy: "uuid4".into(),
            encoding: "text".into(),
            placement: "pk".into(),
            model: None,
            rows: 100,
            load: LoadResult::unmeasured(&LoadPlan::default()),
            counters: Counters { page_splits: Some(splits), ..Counters::default() },
            table: TableSizes { data_length: Some(leaf * 16384), ..TableSizes::default() },
            indexes: vec![IndexResult {
                name: "PRIMARY".into(),
                leaf_pages: Some(leaf),
                fill_pct: fill,
                ..IndexResult::default()
            }],
            phases: Vec::new(),
            queries: Vec::new(),
            buffer_pool: None,
            postgres: None,
            shards: None,
            repeats: None,
        }
    }

    #[test]
    fn errors_are_absolute_and_relative_to_the_server() {
        let labels = vec!["a".to_string(), "b".to_string()];
        let sim = [run(110, 50, Some(70.0)), run(0, 10, None)];
        let server = [run(100, 40, Some(75.0)), run(5, 10, Some(80.0))];
        let v = compare(&labels, &sim, &server);
        let splits = v.summary.iter().find(|m| m.metric == "page_splits").unwrap();
        assert_eq!(splits.runs, 2);
        // |110-100| and |0-5|.
        assert_eq!(splits.mean_abs_error, Some(7.5));
        assert_eq!(splits.mean_abs_pct_error, Some((10.0 + 100.0) / 2.0));
        assert_eq!(splits.max_abs_pct_error, Some(100.0));
        let fill = v.summary.iter().find(|m| m.metric == "PRIMARY.fill_pct").unwrap();
        assert_eq!((fill.runs, fill.missing), (1, 1), "a null figure is missing, not 0");
        let merges = v.summary.iter().find(|m| m.metric == "merges").unwrap();
        assert_eq!((merges.runs, merges.missing), (0, 2));
        let leaf = v.details.iter().find(|d| d.run == "a" && d.metric == "PRIMARY.leaf_pages");
        assert_eq!(leaf.unwrap().error, 10.0);
        assert_eq!(leaf.unwrap().abs_pct_error, Some(25.0));
        let text = render_table(&v);
        assert!(text.contains("page_splits"), "{text}");
        assert!(text.contains("a · PRIMARY.leaf_pages"), "{text}");
    }

    #[test]
    fn the_end_state_is_compared_only_after_the_same_phases() {
        let phase = |kind: &str, status: &str, splits: u64| -> PhaseResult {
            serde_json::from_value(serde_json::json!({
                "kind": kind, "status": status, "page_splits": splits,
            }))
            .unwrap()
        };
        let mut sim = run(500, 50, None);
        sim.phases = vec![phase("load", "ok", 400), phase("churn", "ok", 100)];
        let mut server = run(380, 40, None);
        server.phases = vec![phase("load", "ok", 380), phase("churn", "not_applicable", 0)];
        let v = compare(&["a".to_string()], &[sim], &[server]);
        let load = v.details.iter().find(|d| d.metric == "load.page_splits").unwrap();
        assert_eq!((load.sim, load.server), (400.0, 380.0));
        assert!(v.details.iter().all(|d| d.metric != "page_splits"), "end states differ");
        let churn = v.summary.iter().find(|m| m.metric == "churn.page_splits").unwrap();
        assert_eq!((churn.runs, churn.missing), (0, 1));
    }

    #[test]
    fn zero_on_the_server_has_no_percentage_unless_both_are_zero() {
        let labels = vec!["a".to_string()];
        let v = compare(&labels, &[run(3, 0, None)], &[run(0, 0, None)]);
        let d = v.details.iter().find(|d| d.metric == "page_splits").unwrap();
        assert_eq!(d.abs_pct_error, None);
        let d = v.details.iter().find(|d| d.metric == "PRIMARY.leaf_pages").unwrap();
        assert_eq!(d.abs_pct_error, Some(0.0));
    }
}
