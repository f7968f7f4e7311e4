//! The verdict: at most three lines a person can act on, drawn above the rest of the reading
//! in the terminal and in the HTML report's summary card.
//!
//! Each line names a run and the figure that sets it apart, with the ratio and both figures:
//! pages of the id's index (the size that every engine reports), the misses of a reads phase
//! when one ran (`reading/reads.rs`), the buffer pool reads or
//! the insert working set (what stays in cache), load speed when the runs were timed, and, for
//! `keylab advise`, total bytes against the current key. A database-assigned id that wins is
//! said to be one, with the smallest id the application can make beside it. Nothing here is
//! a fixed sentence per scenario: a report whose figures rank nothing says so.
//!
//! It does not explain why (the reading below it does) and does not weigh figures against
//! each other: when size and speed disagree, both lines are shown.

mod advise;

use self::advise::{advise_verdict, schema_verdict};
use super::{and_list, key_index};
use crate::labels::{cell, column_labels, run_models};
use crate::text::{decimal, group_thousands, human_bytes, times};
use keylab_core::{AdvicePhase, Figure, PhaseResult, Report, RunResult};
use keylab_keys::Variant;

/// The most lines a verdict has.
pub const MAX_LINES: usize = 3;

/// A gap smaller than this ratio is "about the same".
const SAME: f64 = 1.05;

/// The verdict of `report`: one to [`MAX_LINES`] lines.
pub fn verdict(report: &Report) -> Vec<String> {
    let mut lines = if let Some(schema) = report.schema.as_ref().filter(|_| report.runs.is_empty())
    {
        schema_verdict(schema)
    } else if report.runs.iter().any(|r| advice(r).is_some()) {
        advise_verdict(report)
    } else {
        runs_verdict(report)
    };
    if lines.is_empty() {
        lines.push(if report.runs.is_empty() {
            "No runs in this report: nothing to compare.".to_string()
        } else {
            "No figure in this report ranks the runs (no index pages, pool reads or timings); \
             the table below has what was measured."
                .to_string()
        });
    }
    lines.truncate(MAX_LINES);
    lines
}

fn advice(run: &RunResult) -> Option<&AdvicePhase> {
    run.phases.iter().find_map(|p| match p {
        PhaseResult::Advice(a) => Some(a),
        _ => None,
    })
}

fn value<T: Copy>(figure: &Figure<T>) -> Option<T> {
    match figure {
        Figure::Value(v) => Some(*v),
        _ => None,
    }
}

/// The variant of a run, `None` when its tokens are not a known variant.
pub(super) fn variant_of(run: &RunResult) -> Option<Variant> {
    let text = if run.encoding.is_empty() {
        run.strategy.clone()
    } else {
        format!("{}:{}", run.strategy, run.encoding)
    };
    text.parse().ok()
}

/// One run as the verdict sees it.
struct Entry<'a> {
    label: String,
    run: &'a RunResult,
}

/// What makes runs comparable by size: the same model, placement, table, row count and
/// page size.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scope {
    model: Option<String>,
    placement: String,
    table: String,
    rows: u64,
    page_size: String,
}

/// compare and the scenarios: the id index's leaf pages in each group of comparable runs
/// ([`Scope`]), then cache or load speed over the runs of each model.
fn runs_verdict(report: &Report) -> Vec<String> {
    let labels = column_labels(&report.runs);
    let models = run_models(&report.runs);
    let mut groups: Vec<(Scope, Vec<Entry>)> = Vec::new();
    let mut by_model: Vec<(Option<String>, Vec<Entry>)> = Vec::new();
    for ((run, label), model) in report.runs.iter().zip(&labels).zip(&models) {
        let label = match model {
            Some(m) => label.trim_end_matches(&format!(" @ {m}")).to_string(),
            None => label.clone(),
        };
        let dims = cell(run);
        let dim = |name: &str| dims.iter().find(|(d, _)| d == name).map(|(_, v)| v.clone());
        let scope = Scope {
            model: model.clone(),
            placement: run.placement.clone(),
            table: dim("table").unwrap_or_default(),
            rows: run.rows,
            page_size: dim("page_size").unwrap_or_default(),
        };
        match groups.iter_mut().find(|(k, _)| *k == scope) {
            Some((_, group)) => group.push(Entry { label: label.clone(), run }),
            None => groups.push((scope, vec![Entry { label: label.clone(), run }])),
        }
        match by_model.iter_mut().find(|(m, _)| m == model) {
            Some((_, group)) => group.push(Entry { label, run }),
            None => by_model.push((model.clone(), vec![Entry { label, run }])),
        }
    }
    let differs =
        |f: &dyn Fn(&Scope) -> String| groups.iter().any(|(k, _)| f(k) != f(&groups[0].0));
    let (placements, tables) = (differs(&|k| k.placement.clone()), differs(&|k| k.table.clone()));
    let (rows, pages) = (differs(&|k| k.rows.to_string()), differs(&|k| k.page_size.clone()));
    // Size lines that rank the runs first, "about the same" after; then cache or speed.
    let mut ranked = Vec::new();
    let mut level = Vec::new();
    for (k, group) in &groups {
        let mut scope = Vec::new();
        if let Some(m) = &k.model {
            scope.push(format!("on {m}"));
        }
        if placements {
            scope.push(match k.placement.as_str() {
                "pk" => "with the id as the primary key".to_string(),
                "secondary" => "with the id in a secondary index".to_string(),
                other => format!("with placement {other}"),
            });
        }
        if tables {
            scope.push(format!("on table {}", k.table));
        }
        if rows {
            scope.push(format!("at {} rows", group_thousands(k.rows)));
        }
        if pages {
            scope.push(format!("with {} pages", k.page_size));
        }
        let prefix = match scope.is_empty() {
            true => String::new(),
            false => capitalized(&format!("{}: ", scope.join(", "))),
        };
        match size_line(group) {
            Some((line, true)) => ranked.push(format!("{prefix}{line}")),
            Some((line, false)) => level.push(format!("{prefix}{line}")),
            None => {}
        }
    }
    let mut others = Vec::new();
    for (model, group) in &by_model {
        let prefix = model.as_ref().map(|m| format!("On {m}: ")).unwrap_or_default();
        let pairs: Vec<(&RunResult, &str)> =
            group.iter().map(|e| (e.run, e.label.as_str())).collect();
        let reads = super::reads::reads_line(&pairs);
        for line in
            [reads, pool_line(group), fpi_line(group), speed_line(group)].into_iter().flatten()
        {
            // A sentence of its own starts with a capital; a run's label never gets one.
            let line = if prefix.is_empty() && line.starts_with("the ") {
                capitalized(&line)
            } else {
                line
            };
            others.push(format!("{prefix}{line}"));
        }
    }
    // The first size line, then cache, WAL and speed, then the other size lines.
    let mut sizes = ranked.into_iter().chain(level);
    let mut out: Vec<String> = sizes.next().into_iter().collect();
    out.extend(others);
    out.extend(sizes);
    out.truncate(MAX_LINES);
    out
}

/// PostgreSQL's full-page images, when the runs wrote any (a checkpoint ran during the load).
fn fpi_line(group: &[Entry]) -> Option<String> {
    let fpis: Vec<(&Entry, u64)> = group
        .iter()
        .filter_map(|e| Some((e, e.run.postgres.as_ref()?.full_page_images?)))
        .collect();
    let best = fpis.iter().min_by_key(|f| f.1)?;
    let worst = fpis.iter().max_by_key(|f| f.1)?;
    if fpis.len() < 2 || worst.1 == 0 || (worst.1 as f64) < best.1 as f64 * SAME {
        return None;
    }
    if best.1 == 0 {
        return Some(format!(
            "{} writes no full-page image to the WAL; {} writes {}.",
            best.0.label,
            worst.0.label,
            group_thousands(worst.1)
        ));
    }
    Some(format!(
        "{} writes {} fewer full-page images to the WAL than {} ({} vs {}).",
        best.0.label,
        times(worst.1 as f64 / best.1 as f64),
        worst.0.label,
        group_thousands(best.1),
        group_thousands(worst.1)
    ))
}

/// `text` with its first letter upper-case.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The leaf pages of the index that holds the id (its size in pages when leaves are not
/// counted: a segment's size moves in whole extents, too coarse to rank small trees), and
/// what the figure is.
fn id_pages(run: &RunResult) -> Option<(u64, String)> {
    let index = key_index(run)?;
    match (index.leaf_pages, index.size_pages) {
        (Some(leaf), _) => Some((leaf, format!("{} leaf pages", index.name))),
        (None, Some(size)) => Some((size, format!("{} pages", index.name))),
        _ => None,
    }
}

/// The size line of one group and whether it ranks the runs (`false`: about the same).
fn size_line(group: &[Entry]) -> Option<(String, bool)> {
    let sized: Vec<(&Entry, u64, String)> =
        group.iter().filter_map(|e| id_pages(e.run).map(|(p, w)| (e, p, w))).collect();
    if sized.len() < 2 {
        return None;
    }
    let same_figure = sized.iter().all(|s| s.2 == sized[0].2);
    let what = if same_figure { sized[0].2.clone() } else { "pages in the id's index".into() };
    let best = sized.iter().min_by_key(|s| s.1)?;
    let worst = sized.iter().max_by_key(|s| s.1)?;
    let ratio = worst.1 as f64 / best.1.max(1) as f64;
    if ratio < SAME {
        let range = if best.1 == worst.1 {
            format!("{} each", group_thousands(best.1))
        } else {
            format!("{}–{}", group_thousands(best.1), group_thousands(worst.1))
        };
        let runs = if sized.len() == 2 {
            "Both runs".to_string()
        } else {
            format!("The {} runs", sized.len())
        };
        return Some((
            format!("{runs} take about the same {what} ({range}): what differs between them does not change the size."),
            false,
        ));
    }
    let engine_assigned =
        |e: &Entry| variant_of(e.run).is_some_and(|v| v.strategy.is_engine_assigned());
    if engine_assigned(best.0) {
        let app = sized
            .iter()
            .filter(|s| !engine_assigned(s.0) && (worst.1 as f64 / s.1.max(1) as f64) >= SAME)
            .min_by_key(|s| s.1);
        if let Some(app) = app {
            return Some((
                format!(
                    "{}: {} fewer {what} than {} ({} vs {}); {} is smaller still ({}) but its \
                     ids come from the database.",
                    app.0.label,
                    times(worst.1 as f64 / app.1.max(1) as f64),
                    worst.0.label,
                    group_thousands(app.1),
                    group_thousands(worst.1),
                    best.0.label,
                    group_thousands(best.1)
                ),
                true,
            ));
        }
    }
    Some((
        format!(
            "{}: {} fewer {what} than {} ({} vs {}).",
            best.0.label,
            times(ratio),
            worst.0.label,
            group_thousands(best.1),
            group_thousands(worst.1)
        ),
        true,
    ))
}

/// Pages read under a bounded buffer pool, when the runs have one.
fn pool_line(group: &[Entry]) -> Option<String> {
    let read: Vec<(&Entry, u64, Option<u64>)> = group
        .iter()
        .filter_map(|e| {
            let pool = e.run.buffer_pool.as_ref()?;
            Some((e, pool.pages_read?, pool.pool_bytes))
        })
        .collect();
    if read.len() < 2 {
        return None;
    }
    let best = read.iter().min_by_key(|r| r.1)?;
    let worst = read.iter().max_by_key(|r| r.1)?;
    let pool =
        best.2.map_or("the buffer pool".into(), |b| format!("the {} buffer pool", human_bytes(b)));
    if worst.1 as f64 <= best.1 as f64 * SAME {
        return Some(format!(
            "Every run reads about as many pages through {pool} ({}–{}).",
            group_thousands(best.1),
            group_thousands(worst.1)
        ));
    }
    if best.1 == 0 {
        let cached: Vec<&str> =
            read.iter().filter(|r| r.1 == 0).map(|r| r.0.label.as_str()).collect();
        let who = match cached.as_slice() {
            [one] => format!("{one}'s inserts"),
            many => format!("the inserts of {}", and_list(many)),
        };
        return Some(format!(
            "{who} stay in {pool} (no page read); {} reads {} pages.",
            worst.0.label,
            group_thousands(worst.1)
        ));
    }
    Some(format!(
        "{} reads {} fewer pages than {} through {pool} ({} vs {}).",
        best.0.label,
        times(worst.1 as f64 / best.1 as f64),
        worst.0.label,
        group_thousands(best.1),
        group_thousands(worst.1)
    ))
}

/// Load speed, when the runs were timed.
fn speed_line(group: &[Entry]) -> Option<String> {
    let timed: Vec<(&Entry, f64)> = group
        .iter()
        .filter_map(|e| Some((e, e.run.load.rows_per_s?)))
        .filter(|t| t.1 > 0.0)
        .collect();
    if timed.len() < 2 {
        return None;
    }
    let fast = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let slow = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let ratio = fast.1 / slow.1;
    if ratio < SAME {
        return Some(format!(
            "Every run loads at about the same speed ({}–{} rows/s).",
            decimal(slow.1, 0),
            decimal(fast.1, 0)
        ));
    }
    Some(format!(
        "{} loads {} faster than {} ({} vs {} rows/s, one measurement).",
        fast.0.label,
        times(ratio),
        slow.0.label,
        decimal(fast.1, 0),
        decimal(slow.1, 0)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{test_report, test_run};
    use serde_json::json;

    /// A run of `variant` (`strategy:encoding`) whose PRIMARY index has `leaf` leaf pages.
    fn run(variant: &str, leaf: Option<u64>) -> RunResult {
        let (strategy, encoding) = variant.split_once(':').unwrap_or((variant, ""));
        test_run(json!({
            "variant": variant, "strategy": strategy, "encoding": encoding,
            "indexes": [{"name": "PRIMARY", "leaf_pages": leaf}]
        }))
    }

    #[test]
    fn the_smallest_application_id_is_named_beside_a_database_one() {
        let report = test_report(vec![
            run("uuid4:bin", Some(71)),
            run("uuid7:bin", Some(54)),
            run("auto-inc", Some(44)),
        ]);
        assert_eq!(
            verdict(&report),
            ["uuid7:bin: 1.3x fewer PRIMARY leaf pages than uuid4:bin (54 vs 71); auto-inc is \
              smaller still (44) but its ids come from the database."]
        );
    }

    #[test]
    fn runs_of_one_size_are_said_to_be_alike() {
        let report = test_report(vec![run("uuid4:bin", Some(97)), run("uuid7:bin", Some(96))]);
        assert_eq!(
            verdict(&report),
            ["Both runs take about the same PRIMARY leaf pages (96–97): what differs between \
              them does not change the size."]
        );
    }

    #[test]
    fn no_figure_no_ranking() {
        let report = test_report(vec![run("uuid4:bin", None), run("uuid7:bin", None)]);
        let lines = verdict(&report);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("No figure in this report ranks the runs"), "{lines:?}");
    }

    #[test]
    fn never_more_than_three_lines() {
        let mut runs = Vec::new();
        for model in ["mariadb-10.11", "postgres-15", "mysql-8.0"] {
            for (v, leaf) in [("uuid4:bin", 70), ("uuid7:bin", 50)] {
                let mut r = run(v, Some(leaf));
                r.model = Some(model.into());
                r.load.rows_per_s = Some(leaf as f64 * 100.0);
                runs.push(r);
            }
        }
        let lines = verdict(&test_report(runs));
        assert_eq!(lines.len(), MAX_LINES, "{lines:?}");
        assert!(lines[0].starts_with("On mariadb-10.11: uuid7:bin: 1.4x fewer"), "{lines:?}");
    }
}
