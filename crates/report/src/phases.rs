//! The phase sections of the side-by-side table: one section per phase position and kind
//! (`Settings`, `1. Load`, `2. Rebuild`, `3. Churn`...), figures in a fixed order (what the
//! phase did, its counters, then each shape figure before and after) with readable labels
//! and units taken from the figure's name (`_bytes`, `_pct`, `_ms`, `_s`).
//!
//! Every figure a phase carries gets a row, by the name the JSON gives it
//! ([`keylab_core::PhaseResult::figures`]), and the notes are read from the typed phase:
//! - a list (`samples`, `per_round`, `steps`, `first_batch_ms`) becomes a short summary
//!   ([`Value::List`]: `10 samples`, `20 points`); the HTML
//!   report charts the lists themselves, CSV leaves them out;
//! - an object of figures (`batch_latency_ms`) becomes one row per field;
//! - `status: "not_applicable"` with its `reason` becomes one note for the section
//!   (`n/a: online DDL needs a real server`), not rows; `status: "ok"` is not shown;
//! - text notes a phase carries (`not_applicable`, `reason`, `engine_not_applied`) become
//!   section notes.
//!
//! The first load phase's method, batch, writers and timings are the run's `load` (shown in
//! the Load section), so they are not repeated; and a load no phase changes the table after
//! (E1, E2, E3) has its counters and shape "after" in the Counters and Index sections, so
//! those are not repeated either. This module does not chart anything.

use crate::table::{Better, Builder, Value};
use keylab_core::{Figure, PhaseKind, PhaseResult, RunResult};
use serde_json::Value as Json;

/// Figures that are notes, not rows.
const NOTE_FIGURES: [&str; 5] =
    ["status", "reason", "not_applicable", "engine_not_applied", "notes"];

/// Figures of the first load phase that repeat the run's `load`.
const LOAD_REPEATS: [&str; 9] = [
    "method",
    "batch",
    "writers",
    "wall_s",
    "rows_per_s",
    "batch_latency_ms",
    "first_batch_ms",
    "server_statement_ms",
    "other_batch_p50_ms",
];

/// Whether a phase kind changes the table (a later one makes a load's "after" differ from
/// the run's end state).
fn changes_table(kind: PhaseKind) -> bool {
    matches!(
        kind,
        PhaseKind::Load | PhaseKind::Churn | PhaseKind::Rebuild | PhaseKind::Ddl | PhaseKind::Timed
    )
}

/// The text notes a phase carries: why it did not run (or why settings were not applied),
/// what the engine refused, and the settings a server did not apply.
struct PhaseNotes {
    reason: Option<String>,
    not_applicable: Option<String>,
    engine_not_applied: Option<String>,
    said: Option<String>,
}

fn phase_notes(p: &PhaseResult) -> PhaseNotes {
    let text = |f: &Figure<String>| f.get().cloned();
    let (reason, not_applicable) = match p {
        PhaseResult::Settings(s) => (text(&s.reason), text(&s.not_applicable)),
        PhaseResult::Load(l) => (text(&l.reason), None),
        PhaseResult::Churn(c) => (text(&c.reason), None),
        PhaseResult::Rebuild(r) => (text(&r.reason), None),
        PhaseResult::Restart(r) => (text(&r.reason), None),
        PhaseResult::Queries(q) => (text(&q.reason), text(&q.not_applicable)),
        PhaseResult::Ddl(d) => (text(&d.reason), text(&d.not_applicable)),
        PhaseResult::Reads(r) => (text(&r.reason), None),
        PhaseResult::Mixed(m) => (text(&m.reason), None),
        PhaseResult::Timed(t) => (text(&t.reason), None),
        PhaseResult::Advice(_) | PhaseResult::Other { .. } => (None, None),
    };
    let engine_not_applied = match p {
        PhaseResult::Settings(s) => s.engine_not_applied.get().map(|v| v.join(", ")),
        _ => None,
    };
    // A mixed phase's words on its figures (what they are, why one is missing).
    let said = match p {
        PhaseResult::Mixed(m) => m.notes.get().map(|n| n.join("; ")),
        _ => None,
    };
    PhaseNotes { reason, not_applicable, engine_not_applied, said }
}

/// Counter and buffer pool figures (deltas over a phase).
const COUNTERS: &[&str] = &[
    "page_splits",
    "merge_attempts",
    "merges",
    "page_reorgs",
    "page_discards",
    "pages_read",
    "pages_written",
    "page_requests",
    "io_write_requests",
    "io_write_bytes",
    "io_read_requests",
    "io_read_bytes",
    "hit_ratio",
    "misses_per_op",
    "evictions",
    "change_buffer_buffered",
    "change_buffer_merged",
    "change_buffer_refused",
    "change_buffer_io_share_pct",
    "est_io_s_hdd",
    "est_io_s_ssd",
];

/// Display order of figure names (without `_before`/`_after`); unknown figures come after
/// the settings of a phase and before its counters.
const ORDER: &[&str] = &[
    "page_size_bytes",
    "buffer_pool_bytes",
    "fill_factor_pct",
    "merge_threshold_pct",
    "change_buffering",
    "rows",
    "method",
    "batch",
    "writers",
    "sample_every",
    "samples",
    "wall_s",
    "rows_per_s",
    "batch_latency_ms.p50",
    "batch_latency_ms.p99",
    "batch_latency_ms.max",
    "first_batch_ms",
    "server_statement_ms",
    "other_batch_p50_ms",
    "rounds",
    "inserts_per_round",
    "deletes_per_round",
    "measure_every",
    "per_round",
    "live_rows",
    "queries",
    "steps",
    "read_spec",
    "insert_share",
    "ops",
    "inserts",
    "rows_returned",
    "misses_per_1000_ops",
    "page_requests_per_op",
    // Unknown figures go here.
    "",
    "page_splits",
    "merge_attempts",
    "merges",
    "page_reorgs",
    "page_discards",
    "pages_read",
    "pages_written",
    "page_requests",
    "io_write_requests",
    "io_write_bytes",
    "io_read_requests",
    "io_read_bytes",
    "hit_ratio",
    "misses_per_op",
    "evictions",
    "change_buffer_buffered",
    "change_buffer_merged",
    "change_buffer_refused",
    "change_buffer_io_share_pct",
    "change_buffer_size_pages",
    "change_buffer_max_size_pages",
    "change_buffer_cap_pages",
    "est_io_s_hdd",
    "est_io_s_ssd",
    "primary_size_pages",
    "primary_leaf_pages",
    "primary_height",
    "primary_fill_pct",
    "size_pages_all_indexes",
    "data_length",
    "index_length",
    "data_free",
];

/// Adds every phase section of `runs` to `b`; `labels` name the runs in notes.
pub(crate) fn add_phase_sections(b: &mut Builder, runs: &[RunResult], labels: &[String]) {
    let mut slots: Vec<(usize, PhaseKind, String)> = Vec::new();
    for r in runs {
        for (i, p) in r.phases.iter().enumerate() {
            if !slots.iter().any(|(j, _, k)| *j == i && k == p.kind_name()) {
                slots.push((i, p.kind(), p.kind_name().to_string()));
            }
        }
    }
    slots.sort_by_key(|(i, _, _)| *i);
    // Scenario runs start with the synthesised `settings` phase; number the others as the
    // scenario file lists them.
    let offset = usize::from(
        runs.iter().all(|r| matches!(r.phases.first(), Some(PhaseResult::Settings(_)))),
    );
    let first_load = slots.iter().find(|(_, k, _)| *k == PhaseKind::Load).map(|(i, _, _)| *i);
    // Position of the last phase that changes the table, over all runs.
    let last_change = slots.iter().filter(|(_, k, _)| changes_table(*k)).map(|(i, _, _)| *i).max();
    for (index, kind, name) in &slots {
        let title = if *kind == PhaseKind::Settings {
            "Settings".to_string()
        } else {
            format!("{}. {}", index + 1 - offset, kind_title(name))
        };
        b.section(&title);
        let key_prefix = format!("phase{}.{name}", index + 1);

        let applicable =
            |r: &RunResult| phase_at(r, *index, name).is_some_and(PhaseResult::applicable);
        // A run's figures of the phase, by name, where it ran (the table shows every figure
        // a phase carries, as the JSON names it).
        let figures_of = |r: &RunResult| {
            phase_at(r, *index, name).filter(|p| p.applicable()).map(PhaseResult::figures)
        };
        // Notes: n/a with reasons, and text the phase carries.
        let mut notes: Vec<(String, Vec<usize>)> = Vec::new();
        let mut note = |text: String, run: usize| match notes.iter_mut().find(|(t, _)| *t == text) {
            Some((_, who)) => who.push(run),
            None => notes.push((text, vec![run])),
        };
        for (i, r) in runs.iter().enumerate() {
            let Some(p) = phase_at(r, *index, name) else { continue };
            let notes = phase_notes(p);
            if !applicable(r) {
                note(
                    format!("n/a: {}", notes.reason.unwrap_or_else(|| "no reason given".into())),
                    i,
                );
                continue;
            }
            match (notes.reason, notes.not_applicable) {
                (Some(reason), Some(what)) => note(format!("{reason}: {what}"), i),
                (Some(reason), None) => note(reason, i),
                (None, Some(what)) => note(format!("not run: {what}"), i),
                (None, None) => {}
            }
            if let Some(list) = notes.engine_not_applied {
                note(format!("not applied by the engine: {list}"), i);
            }
            if let Some(said) = notes.said {
                note(said, i);
            }
        }
        let present = runs.iter().filter(|r| phase_at(r, *index, name).is_some()).count();
        for (text, who) in notes {
            if who.len() == present {
                b.note(&text);
            } else {
                let names: Vec<&str> = who.iter().map(|&i| labels[i].as_str()).collect();
                b.note(&format!("{}: {text}", names.join(", ")));
            }
        }

        if *kind == PhaseKind::Reads {
            // One group of rows per read spec (`rows/reads.rs`).
            crate::rows::reads::add_reads_rows(b, runs, labels, *index, &key_prefix);
            continue;
        }
        // Rows, from the runs that ran the phase.
        let mut figures: Vec<String> = Vec::new();
        for run_figures in runs.iter().filter_map(figures_of) {
            for (k, v) in &run_figures {
                if NOTE_FIGURES.contains(&k.as_str()) {
                    continue;
                }
                if Some(*index) == first_load && LOAD_REPEATS.contains(&k.as_str()) {
                    continue;
                }
                let end_state = *kind == PhaseKind::Load && Some(*index) == last_change;
                if end_state && (COUNTERS.contains(&k.as_str()) || k.ends_with("_after")) {
                    continue;
                }
                let names = match v {
                    Json::Object(o) => o.keys().map(|f| format!("{k}.{f}")).collect(),
                    _ => vec![k.clone()],
                };
                for name in names {
                    if !figures.contains(&name) {
                        figures.push(name);
                    }
                }
            }
        }
        figures.sort_by_key(|f| rank(f));
        for figure in figures {
            let (label, better) = label(&figure);
            b.row(&format!("{key_prefix}.{figure}"), &label, better, |r| {
                let Some(f) = figures_of(r) else {
                    return Value::Null;
                };
                let v = match figure.split_once('.') {
                    Some((head, field)) => f.get(head).and_then(|o| o.get(field)),
                    None => f.get(&figure),
                };
                v.map_or(Value::Null, |v| value(&figure, v))
            });
        }
    }
}

/// A run's phase at `index` when it is of the kind named `name`.
fn phase_at<'a>(r: &'a RunResult, index: usize, name: &str) -> Option<&'a PhaseResult> {
    r.phases.get(index).filter(|p| p.kind_name() == name)
}

fn kind_title(kind: &str) -> String {
    match kind {
        "ddl" => "DDL".to_string(),
        "rebuild" => "Rebuild (OPTIMIZE TABLE)".to_string(),
        other => {
            let mut c = other.chars();
            c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        }
    }
}

/// Sort key: position in [`ORDER`] of the name without its suffix, then before < after.
fn rank(figure: &str) -> (usize, u8, String) {
    let (base, when) = split_when(figure);
    let unknown = ORDER.iter().position(|o| o.is_empty()).expect("ORDER has a gap");
    let pos = if base.starts_with("cell_") {
        0
    } else if base.ends_with("_ms") && (base.starts_with("add_") || base.starts_with("drop_")) {
        // DDL statement times, just before the statement list.
        ORDER.iter().position(|o| *o == "steps").expect("steps")
    } else {
        ORDER.iter().position(|o| *o == base).unwrap_or(unknown)
    };
    let when = match when {
        Some("before") => 1,
        Some(_) => 2,
        None => 0,
    };
    (pos, when, figure.to_string())
}

/// `primary_size_pages_after` → (`primary_size_pages`, `after`).
fn split_when(figure: &str) -> (&str, Option<&str>) {
    for when in ["before", "after"] {
        if let Some(base) = figure.strip_suffix(&format!("_{when}")) {
            return (base, Some(when));
        }
    }
    (figure, None)
}

/// A readable label and the better direction of a figure.
fn label(figure: &str) -> (String, Option<Better>) {
    use Better::{Higher, Lower};
    let (base, when) = split_when(figure);
    let (text, better): (String, Option<Better>) = match base {
        "rows" => ("rows".into(), None),
        "batch" => ("batch (rows)".into(), None),
        "wall_s" => ("wall time (s)".into(), Some(Lower)),
        "rows_per_s" => ("rows/s".into(), Some(Higher)),
        "batch_latency_ms.p50" => ("batch p50 (ms)".into(), Some(Lower)),
        "batch_latency_ms.p99" => ("batch p99 (ms)".into(), Some(Lower)),
        "batch_latency_ms.max" => ("batch max (ms)".into(), Some(Lower)),
        "first_batch_ms" => ("first batch (ms)".into(), None),
        "server_statement_ms" => ("server statement time (ms)".into(), Some(Lower)),
        "other_batch_p50_ms" => ("other batches p50 (ms)".into(), None),
        "sample_every" => ("sampled every (rows)".into(), None),
        "samples" => ("shape samples".into(), None),
        "page_splits" => ("page splits".into(), Some(Lower)),
        "pages_read" => ("pages read".into(), Some(Lower)),
        "pages_written" => ("pages written".into(), Some(Lower)),
        "page_requests" => ("page requests".into(), Some(Lower)),
        "io_write_requests" => ("table file write requests".into(), Some(Lower)),
        "io_write_bytes" => ("table file bytes written".into(), Some(Lower)),
        "io_read_requests" => ("table file read requests".into(), Some(Lower)),
        "io_read_bytes" => ("table file bytes read".into(), Some(Lower)),
        "hit_ratio" => ("buffer pool hit ratio".into(), Some(Higher)),
        "misses_per_op" => ("misses per row op".into(), Some(Lower)),
        "change_buffer_buffered" => ("change buffer: buffered".into(), None),
        "change_buffer_merged" => ("change buffer: merged".into(), None),
        "change_buffer_refused" => ("change buffer: refused".into(), None),
        "change_buffer_io_share_pct" => ("change buffer: % of page I/O".into(), None),
        "change_buffer_size_pages" => ("change buffer: pages".into(), None),
        "change_buffer_max_size_pages" => ("change buffer: most pages".into(), None),
        "change_buffer_cap_pages" => ("change buffer: cap (pages)".into(), None),
        // From the device model, never measured (the Buffer pool section's note says so).
        "est_io_s_hdd" => ("est. I/O time, HDD model (s)".into(), Some(Lower)),
        "est_io_s_ssd" => ("est. I/O time, SSD model (s)".into(), Some(Lower)),
        "data_length" => ("data length".into(), Some(Lower)),
        "index_length" => ("index length".into(), Some(Lower)),
        "primary_size_pages" => ("PRIMARY size (pages)".into(), Some(Lower)),
        "primary_leaf_pages" => ("PRIMARY leaf pages".into(), Some(Lower)),
        "primary_height" => ("PRIMARY height".into(), None),
        "primary_fill_pct" => ("PRIMARY leaf fill".into(), Some(Higher)),
        "size_pages_all_indexes" => ("all indexes (pages)".into(), Some(Lower)),
        "measure_every" => ("measured every (rounds)".into(), None),
        "per_round" => ("measurements".into(), None),
        "page_size_bytes" => ("page size".into(), None),
        "buffer_pool_bytes" => ("buffer pool".into(), None),
        "fill_factor_pct" => ("fill factor".into(), None),
        "merge_threshold_pct" => ("merge threshold".into(), None),
        "queries" => ("queries run".into(), None),
        "read_spec" => ("reads".into(), None),
        "insert_share" => ("insert share".into(), None),
        "ops" => ("operations".into(), None),
        "inserts" => ("inserts".into(), None),
        "rows_returned" => ("rows returned".into(), None),
        "page_requests_per_op" => ("page requests per operation".into(), Some(Lower)),
        "misses_per_1000_ops" => ("misses per 1,000 operations".into(), Some(Lower)),
        "server_ms" => ("server time (ms)".into(), Some(Lower)),
        "steps" => ("statements".into(), None),
        other if other.starts_with("working_set_pages.") => {
            let ix = &other["working_set_pages.".len()..];
            (format!("working set, {ix} (pages)"), Some(Lower))
        }
        other => match other.strip_prefix("cell_") {
            Some(dim) => (format!("matrix: {}", dim.replace('_', " ")), None),
            None => match other.strip_suffix("_ms") {
                // `add_column_instant_ms` → `ADD COLUMN INSTANT (ms)`.
                Some(stmt) if stmt.starts_with("add_") || stmt.starts_with("drop_") => {
                    (format!("{} (ms)", stmt.replace('_', " ").to_uppercase()), Some(Lower))
                }
                _ => (other.replace('_', " "), None),
            },
        },
    };
    match when {
        Some(w) => (format!("{text} {w}"), better),
        None => (text, better),
    }
}

/// A figure as a table value, its unit from its name.
fn value(figure: &str, v: &Json) -> Value {
    let (base, _) = split_when(figure);
    match v {
        Json::Null => Value::Null,
        Json::Bool(on) if base == "change_buffering" => {
            Value::Text(if *on { "on" } else { "off" }.into())
        }
        Json::Bool(yes) => Value::Text(if *yes { "yes" } else { "no" }.into()),
        // Matrix coordinates are written as text; a number among them reads as one.
        Json::String(s) if base.starts_with("cell_") => {
            s.parse::<u64>().map_or_else(|_| Value::Text(s.clone()), Value::Count)
        }
        Json::String(s) => Value::Text(s.clone()),
        Json::Array(items) => Value::List(summary(base, items)),
        Json::Object(o) => Value::List(format!("{} fields", o.len())),
        Json::Number(n) => {
            let Some(x) = n.as_f64() else { return Value::Null };
            let whole = n.as_u64();
            if base.ends_with("_pct") {
                Value::Percent(x)
            } else if base.ends_with("_bytes")
                || matches!(base, "data_length" | "index_length" | "data_free")
            {
                whole.map_or(Value::Decimal { value: x, places: 0 }, Value::Bytes)
            } else if matches!(base, "hit_ratio" | "misses_per_op") {
                Value::Decimal { value: x, places: if base == "hit_ratio" { 4 } else { 3 } }
            } else if base == "rows_per_s" {
                Value::Decimal { value: x, places: 0 }
            } else if base.ends_with("_ms") || base.ends_with("_s") || base.contains("_ms.") {
                Value::Decimal { value: x, places: 2 }
            } else {
                whole.map_or(Value::Decimal { value: x, places: 2 }, Value::Count)
            }
        }
    }
}

/// A short summary of a list-valued figure.
fn summary(figure: &str, items: &[Json]) -> String {
    let n = items.len();
    let plural = |word: &str| if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") };
    match figure {
        "samples" => plural("sample"),
        // The rounds and `measure_every` are rows of their own; the count is enough here.
        "per_round" => plural("point"),
        "steps" => {
            let accepted =
                items.iter().filter(|s| s.get("supported") == Some(&Json::Bool(true))).count();
            format!("{} run, {accepted} accepted", plural("statement"))
        }
        _ => {
            let numbers: Vec<f64> = items.iter().filter_map(Json::as_f64).collect();
            match numbers[..] {
                [one] if n == 1 => crate::text::decimal(one, 2),
                [] => plural("item"),
                _ => {
                    let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    format!("{} values, max {}", n, crate::text::decimal(max, 2))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_readable() {
        assert_eq!(label("primary_size_pages_after").0, "PRIMARY size (pages) after");
        assert_eq!(label("add_column_instant_ms").0, "ADD COLUMN INSTANT (ms)");
        assert_eq!(label("cell_fill_factor").0, "matrix: fill factor");
        assert_eq!(label("something_new").0, "something new");
    }

    #[test]
    fn before_comes_before_after_and_counters_before_shape() {
        let mut f =
            vec!["primary_leaf_pages_after", "page_splits", "primary_leaf_pages_before", "rounds"];
        f.sort_by_key(|f| rank(f));
        assert_eq!(
            f,
            ["rounds", "page_splits", "primary_leaf_pages_before", "primary_leaf_pages_after"]
        );
    }

    #[test]
    fn lists_are_summarised() {
        let samples: Vec<Json> = (1..=10).map(|i| serde_json::json!({"rows": i * 200})).collect();
        assert_eq!(summary("samples", &samples), "10 samples");
        let rounds: Vec<Json> = (1..=20).map(|i| serde_json::json!({"round": i * 10})).collect();
        assert_eq!(summary("per_round", &rounds), "20 points");
        assert_eq!(summary("first_batch_ms", &[serde_json::json!(35.582)]), "35.58");
        let steps =
            [serde_json::json!({"supported": true}), serde_json::json!({"supported": false})];
        assert_eq!(summary("steps", &steps), "2 statements run, 1 accepted");
    }

    #[test]
    fn units_come_from_names() {
        assert_eq!(value("data_length_after", &serde_json::json!(16384)), Value::Bytes(16384));
        assert_eq!(value("primary_fill_pct_after", &serde_json::json!(66.5)), Value::Percent(66.5));
        assert_eq!(value("change_buffering", &serde_json::json!(true)), Value::Text("on".into()));
        assert_eq!(value("page_splits", &serde_json::json!(7)), Value::Count(7));
    }
}
