//! The verdicts of `keylab advise`: on one table, the recommended candidate against the
//! current key (bytes, insert working set, who makes the ids); on a schema, the table that
//! gains most from another key.

use super::{advice, value, variant_of};
use crate::labels::column_labels;
use crate::text::human_bytes;
use keylab_core::{AdvicePhase, Report, RunResult, SchemaSummary};

/// `advise` on one table: the recommended candidate (the one the command's own
/// recommendation names, else the smallest) against the current key.
pub(super) fn advise_verdict(report: &Report) -> Vec<String> {
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
    out.extend(workload_line(label, best, current));
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

/// With `--workload`: the recommended candidate's misses and the pool its hit target needs,
/// against the current key's.
fn workload_line(label: &str, best: &AdvicePhase, current: &AdvicePhase) -> Option<String> {
    let workload = best.workload.get()?;
    let pool = value(&best.buffer_pool_bytes)?;
    let misses = |a: &AdvicePhase| {
        value(&a.workload_misses_per_1000_ops).map_or("n/a".into(), |m| format!("{m:.1}"))
    };
    let cache = |a: &AdvicePhase| match (
        value(&a.cache_for_hit_target_bytes),
        a.cache_for_hit_target.get(),
    ) {
        (Some(b), Some(how)) if how.starts_with("the smallest") => {
            format!("at most {}", human_bytes(b))
        }
        (Some(b), _) => human_bytes(b),
        (None, Some(how)) if how.starts_with("more than") => how.replacen("more than", "above", 1),
        _ => "n/a".into(),
    };
    let target = value(&best.hit_target).map_or("the target".into(), |t| format!("{}%", t * 100.0));
    Some(format!(
        "Workload {workload} under a {} pool: {label} misses {} pages per 1,000 operations \
         (current key: {}); {target} hits need {} (current key: {}).",
        human_bytes(pool),
        misses(best),
        misses(current),
        cache(best),
        cache(current)
    ))
}

/// The candidate the command recommended, from its `Recommendation: X (...)` note.
fn recommended(report: &Report) -> Option<&str> {
    let notes = report.engine.settings.get("notes")?.as_array()?;
    notes.iter().filter_map(|n| n.as_str()).find_map(|n| {
        let rest = n.strip_prefix("Recommendation: ")?;
        rest.split([' ', '.']).next().filter(|s| !s.is_empty())
    })
}

/// `advise SCHEMA.sql`: the table that gains most, and how many gain at all.
pub(super) fn schema_verdict(schema: &SchemaSummary) -> Vec<String> {
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
