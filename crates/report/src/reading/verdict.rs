//! The verdict: at most three lines a person can act on, drawn above the rest of the reading
//! in the terminal and in the HTML report's summary card.
//!
//! Each line names a run and the figure that sets it apart, with the ratio and both figures:
//! pages of the id's index (the size that every engine reports), the buffer pool reads or
//! the insert working set (what stays in cache), load speed when the runs were timed, and, for
//! `keylab advise`, total bytes against the current key. A database-assigned id that wins is
//! said to be one, with the smallest id the application can make beside it. Nothing here is
//! a fixed sentence per scenario: a report whose figures rank nothing says so.
//!
//! It does not explain why (the reading below it does) and does not weigh figures against
//! each other: when size and speed disagree, both lines are shown.

use super::key_index;
use crate::labels::{cell, column_labels, run_models};
use crate::text::{decimal, group_thousands, human_bytes, times};
use keylab_core::{AdvicePhase, Figure, PhaseResult, Report, RunResult, SchemaSummary};
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

/// `advise` on one table: the recommended candidate (the one the command's own
/// recommendation names, else the smallest) against the current key.
fn advise_verdict(report: &Report) -> Vec<String> {
    let labels = column_labels(&report.runs);
    let runs: Vec<(&str, &RunResult, &AdvicePhase)> = report
        .runs
        .iter()
        .zip(&labels)
        .filter_map(|(r, l)| Some((l.as_str(), r, advice(r)?)))
        .collect();
    let total = |a: &AdvicePhase| value(&a.total_bytes);
    let Some(&(_, _, current)) = runs.first() else { return Vec::new() };
    let named = recommended(report);
    let candidates = &runs[1..];
    let best = named
        .and_then(|n| candidates.iter().find(|(_, r, _)| r.variant == n))
        .or_else(|| candidates.iter().filter(|c| total(c.2).is_some()).min_by_key(|c| total(c.2)));
    let Some(&(label, run, best)) = best else {
        return vec!["Only the current key ran: no candidate to compare it with.".into()];
    };
    let mut out = Vec::new();
    let mut first = format!("{label}: ");
    match (total(best), total(current)) {
        (Some(b), Some(c)) if (b as f64) < c as f64 / 1.005 => first.push_str(&format!(
            "{:.0}% fewer bytes than the current key ({} vs {})",
            100.0 * (1.0 - b as f64 / c as f64),
            human_bytes(b),
            human_bytes(c)
        )),
        (Some(b), Some(c)) if (b as f64) > c as f64 * 1.005 => first.push_str(&format!(
            "{:.0}% more bytes than the current key ({} vs {}), but its inserts stay local",
            100.0 * (b as f64 / c as f64 - 1.0),
            human_bytes(b),
            human_bytes(c)
        )),
        (Some(b), _) => {
            first.push_str(&format!("the same size as the current key ({})", human_bytes(b)))
        }
        _ => first.push_str("the recommended key"),
    }
    let ws = |a: &AdvicePhase| value(&a.insert_working_set_pool_bytes);
    if let (Some(w), Some(cw)) = (ws(best), ws(current)) {
        first.push_str(&format!(
            "; inserts keep {} of buffer pool busy (current key: {})",
            human_bytes(w),
            human_bytes(cw)
        ));
    }
    first.push('.');
    out.push(first);
    let engine_assigned =
        |r: &RunResult| variant_of(r).is_some_and(|v| v.strategy.is_engine_assigned());
    if engine_assigned(run) {
        let app = candidates
            .iter()
            .filter(|c| !engine_assigned(c.1) && total(c.2).is_some())
            .min_by_key(|c| total(c.2));
        let mut line = "Its ids come from the database (known only after the insert)".to_string();
        if let Some(&(l, _, a)) = app {
            line.push_str(&format!(
                "; the smallest id the application makes is {l} ({})",
                human_bytes(total(a).unwrap_or(0))
            ));
        }
        line.push('.');
        out.push(line);
    }
    out
}

/// The candidate the command recommended, from its `Recommendation: X (...)` note.
fn recommended(report: &Report) -> Option<&str> {
    let notes = report.engine.settings.get("notes")?.as_array()?;
    notes.iter().filter_map(|n| n.as_str()).find_map(|n| {
        let rest = n.strip_prefix("Recommendation: ")?;
        rest.split([' ', '.']).next().filter(|s| !s.is_empty())
    })
}

fn variant_of(run: &RunResult) -> Option<Variant> {
    let text = if run.encoding.is_empty() {
        run.strategy.clone()
    } else {
        format!("{}:{}", run.strategy, run.encoding)
    };
    text.parse().ok()
}

/// `advise SCHEMA.sql`: the table that gains most, and how many gain at all.
fn schema_verdict(schema: &SchemaSummary) -> Vec<String> {
    let gains: Vec<_> = schema
        .tables
        .iter()
        .filter(|t| t.bytes_saved_with_children.or(t.bytes_saved).is_some_and(|b| b > 0))
        .collect();
    let mut out = Vec::new();
    match gains.first() {
        Some(t) => {
            let saved = t.bytes_saved_with_children.or(t.bytes_saved).unwrap_or(0) as u64;
            let best = t.best.as_deref().unwrap_or("another key");
            let share = match t.bytes_now {
                Some(now) if now > 0 => {
                    format!(" ({:.0}% of its bytes)", 100.0 * saved as f64 / now as f64)
                }
                _ => String::new(),
            };
            out.push(format!(
                "Rekey {} first: {best} instead of {} saves {}{share}, child tables included.",
                t.table,
                t.current_key,
                human_bytes(saved)
            ));
            out.push(format!(
                "{} of {} advised tables gain from another key; the others keep theirs.",
                gains.len(),
                schema.tables.len()
            ));
        }
        None if !schema.tables.is_empty() => out.push(format!(
            "Keep the keys: no candidate makes any of the {} advised tables smaller.",
            schema.tables.len()
        )),
        None => {}
    }
    if !schema.refused.is_empty() {
        out.push(format!(
            "{} table(s) could not be advised (listed below with the reason).",
            schema.refused.len()
        ));
    }
    out
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
        if let Some(line) = pool_line(group).or_else(|| speed_line(group)) {
            others.push(format!("{prefix}{line}"));
        }
    }
    let mut out: Vec<String> = ranked.into_iter().chain(level).take(2).collect();
    let room = MAX_LINES - out.len();
    out.extend(others.into_iter().take(room));
    out
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
        best.2.map_or("the buffer pool".into(), |b| format!("a {} buffer pool", human_bytes(b)));
    if worst.1 as f64 <= best.1 as f64 * SAME {
        return Some(format!(
            "Every run reads about as many pages through {pool} ({}–{}).",
            group_thousands(best.1),
            group_thousands(worst.1)
        ));
    }
    if best.1 == 0 {
        return Some(format!(
            "{}'s inserts stay in {pool} (no page read); {} reads {} pages.",
            best.0.label,
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
