//! The reading's sentences about phases: what each churn and rebuild did to the runs, and how
//! the runs differ there (E5's "lower fill factors split far less during churn but start with
//! more pages").
//!
//! Like the rest of the reading, every sentence is computed from the phase figures of the
//! report; a phase whose status is not `ok` or whose figures are absent says nothing here (the
//! table already shows it as not applicable). Loads and timed queries are read elsewhere.

use crate::text::{decimal, group_thousands, times};
use keylab_core::{ChurnPhase, PhaseResult, PhaseStatus, RebuildPhase, RunResult};

/// A run with its column label.
pub(crate) type LabeledRun<'a> = (&'a RunResult, &'a str);

/// One sentence per churn or rebuild phase that all runs ran.
pub(crate) fn phase_sentences(runs: &[LabeledRun]) -> Vec<String> {
    let steps: Vec<Vec<&PhaseResult>> = runs.iter().map(|(run, _)| steps(run)).collect();
    let Some(first) = steps.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (position, phase) in first.iter().enumerate() {
        // The same phase of every run: same position, same kind, status ok.
        let at: Option<Vec<(&PhaseResult, &str)>> = steps
            .iter()
            .zip(runs)
            .map(|(run_steps, (_, label))| {
                let p = *run_steps.get(position)?;
                (p.kind_name() == phase.kind_name() && ok(p)).then_some((p, *label))
            })
            .collect();
        let Some(at) = at else { continue };
        // Numbered as the table numbers them, from 1.
        let sentence = match phase {
            PhaseResult::Churn(_) => churn(position + 1, &of_kind(&at, as_churn)),
            PhaseResult::Rebuild(_) => rebuild(position + 1, &of_kind(&at, as_rebuild)),
            _ => None,
        };
        out.extend(sentence);
    }
    out
}

/// The phases the table numbers as steps (settings are not a step).
fn steps(run: &RunResult) -> Vec<&PhaseResult> {
    run.phases.iter().filter(|p| !matches!(p, PhaseResult::Settings(_))).collect()
}

/// A phase that ran (older results have no status).
fn ok(p: &PhaseResult) -> bool {
    p.status().is_none_or(|s| s == PhaseStatus::Ok)
}

fn as_churn(p: &PhaseResult) -> Option<&ChurnPhase> {
    match p {
        PhaseResult::Churn(c) => Some(c),
        _ => None,
    }
}

fn as_rebuild(p: &PhaseResult) -> Option<&RebuildPhase> {
    match p {
        PhaseResult::Rebuild(r) => Some(r),
        _ => None,
    }
}

/// The phases of one kind with their labels (all of `at` are of that kind).
fn of_kind<'a, T>(
    at: &[(&'a PhaseResult, &'a str)],
    typed: fn(&'a PhaseResult) -> Option<&'a T>,
) -> Vec<(&'a T, &'a str)> {
    at.iter().filter_map(|(p, l)| Some((typed(p)?, *l))).collect()
}

/// The runs with a figure, fewest first.
fn ranked<'a, T>(
    at: &[(&'a T, &'a str)],
    figure: impl Fn(&T) -> Option<u64>,
) -> Vec<(u64, &'a str)> {
    let mut v: Vec<(u64, &str)> = at.iter().filter_map(|(p, l)| Some((figure(p)?, *l))).collect();
    v.sort_by_key(|(n, _)| *n);
    v
}

/// "from 5,485 (ff 75) to 267,277 (ff 100), 48.9x" or, when all are equal, "12 in every run".
fn range(v: &[(u64, &str)]) -> Option<String> {
    let (lo, hi) = (v.first()?, v.last()?);
    if lo.0 == hi.0 {
        return Some(format!("{} in every run", group_thousands(lo.0)));
    }
    let ratio =
        if lo.0 > 0 { format!(", {}", times(hi.0 as f64 / lo.0 as f64)) } else { String::new() };
    Some(format!(
        "from {} ({}) to {} ({}){ratio}",
        group_thousands(lo.0),
        lo.1,
        group_thousands(hi.0),
        hi.1
    ))
}

fn churn(number: usize, at: &[(&ChurnPhase, &str)]) -> Option<String> {
    let p = at.first()?.0;
    let shape = match (p.rounds.value(), p.inserts_per_round.value(), p.deletes_per_round.value()) {
        (Some(r), Some(i), Some(d)) => format!(
            ", {} rounds of {} inserts and {} deletes",
            group_thousands(r),
            group_thousands(i),
            group_thousands(d)
        ),
        _ => String::new(),
    };
    let lead = format!("During phase {number} (churn{shape})");
    if at.len() == 1 {
        let mut parts = Vec::new();
        if let Some(s) = p.counters.page_splits.value() {
            parts.push(format!("{} page splits", group_thousands(s)));
        }
        if let (Some(a), Some(m)) = (p.counters.merge_attempts.value(), p.counters.merges.value()) {
            parts.push(format!(
                "{} merge attempts of which {} succeeded",
                group_thousands(a),
                group_thousands(m)
            ));
        }
        if let (Some(b), Some(a)) =
            (p.before.primary_leaf_pages.value(), p.after.primary_leaf_pages.value())
        {
            parts.push(format!(
                "PRIMARY went from {} to {} leaf pages",
                group_thousands(b),
                group_thousands(a)
            ));
        }
        return (!parts.is_empty()).then(|| format!("{lead}: {}.", parts.join("; ")));
    }
    let splits = ranked(at, |p| p.counters.page_splits.value());
    let mut parts = vec![format!("page splits ranged {}", range(&splits)?)];
    if let Some(r) = range(&ranked(at, |p| p.counters.merges.value())) {
        parts.push(format!("successful merges {r}"));
    }
    let mut sentence = format!("{lead}, {}.", parts.join("; "));
    // The trade-off E5 is about: the run that splits least began with the emptiest pages.
    let (fewest, most) = (splits.first()?, splits.last()?);
    let start = |label: &str| {
        let p = at.iter().find(|(_, l)| *l == label)?.0;
        Some((p.before.primary_leaf_pages.value()?, p.before.primary_fill_pct.value()?))
    };
    if let (Some(calm), Some(busy)) = (start(fewest.1), start(most.1)) {
        if fewest.0 < most.0 && calm.1 < busy.1 {
            sentence.push_str(&format!(
                " {} split least and began the churn with emptier PRIMARY pages, {}% full \
                 ({} leaf pages) against {}% ({}) for {}: the free space absorbs inserts that \
                 would otherwise split a page.",
                fewest.1,
                decimal(calm.1, 1),
                group_thousands(calm.0),
                decimal(busy.1, 1),
                group_thousands(busy.0),
                most.1
            ));
        }
    }
    Some(sentence)
}

fn rebuild(number: usize, at: &[(&RebuildPhase, &str)]) -> Option<String> {
    let p = at.first()?.0;
    if at.len() == 1 {
        let (b, a) = (p.before.primary_leaf_pages.value()?, p.after.primary_leaf_pages.value()?);
        let ff =
            p.fill_factor_pct.value().map(|f| format!(" at fill factor {f}")).unwrap_or_default();
        let fill = match (p.before.primary_fill_pct.value(), p.after.primary_fill_pct.value()) {
            (Some(fb), Some(fa)) => {
                format!(" (leaf fill {}% to {}%)", decimal(fb, 1), decimal(fa, 1))
            }
            _ => String::new(),
        };
        return Some(format!(
            "Phase {number} (rebuild{ff}) took PRIMARY from {} to {} leaf pages{fill}.",
            group_thousands(b),
            group_thousands(a)
        ));
    }
    let after = ranked(at, |p| p.after.primary_leaf_pages.value());
    let r = range(&after)?;
    let fills: Vec<(f64, &str)> =
        at.iter().filter_map(|(p, l)| Some((p.after.primary_fill_pct.value()?, *l))).collect();
    let fill = match (
        fills.iter().max_by(|a, b| a.0.total_cmp(&b.0)),
        fills.iter().min_by(|a, b| a.0.total_cmp(&b.0)),
    ) {
        (Some(hi), Some(lo)) if hi.0 - lo.0 >= 0.5 => format!(
            ", as the rebuild left leaf pages from {}% full ({}) to {}% ({})",
            decimal(lo.0, 1),
            lo.1,
            decimal(hi.0, 1),
            hi.1
        ),
        _ => String::new(),
    };
    Some(format!("After phase {number} (rebuild), PRIMARY leaf pages ranged {r}{fill}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn phase(kind: &str, figures: serde_json::Value) -> PhaseResult {
        let mut object = figures.as_object().cloned().unwrap_or_default();
        object.insert("kind".into(), json!(kind));
        serde_json::from_value(serde_json::Value::Object(object)).unwrap()
    }

    fn run_with(phases: Vec<PhaseResult>) -> RunResult {
        let mut run = crate::test_run(json!({}));
        run.phases = phases;
        run
    }

    /// A run with a load, a rebuild to `pages` leaves `fill` % full, then a churn that split
    /// `splits` times and merged `merges` times.
    fn rebuilt_then_churned(pages: u64, fill: f64, splits: u64, merges: u64) -> RunResult {
        let rounds = json!({"rounds": 200, "inserts_per_round": 10000, "deletes_per_round": 10000});
        let mut churn = json!({"status": "ok", "page_splits": splits, "merges": merges,
            "primary_leaf_pages_before": pages, "primary_fill_pct_before": fill});
        churn.as_object_mut().unwrap().extend(rounds.as_object().unwrap().clone());
        run_with(vec![
            phase("settings", json!({})),
            phase("load", json!({"status": "ok"})),
            phase(
                "rebuild",
                json!({"status": "ok", "primary_leaf_pages_before": 9000,
                "primary_leaf_pages_after": pages, "primary_fill_pct_after": fill}),
            ),
            phase("churn", churn),
        ])
    }

    #[test]
    fn churn_sentence_names_the_trade_off() {
        let ff100 = rebuilt_then_churned(6494, 92.1, 267277, 258455);
        let ff75 = rebuilt_then_churned(8131, 73.6, 5485, 5235);
        let s = phase_sentences(&[(&ff100, "ff 100"), (&ff75, "ff 75")]);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(
            s[0],
            "After phase 2 (rebuild), PRIMARY leaf pages ranged from 6,494 (ff 100) to 8,131 \
             (ff 75), 1.3x, as the rebuild left leaf pages from 73.6% full (ff 75) to 92.1% (ff 100)."
        );
        assert!(
            s[1].starts_with(
                "During phase 3 (churn, 200 rounds of 10,000 inserts and 10,000 deletes), page \
             splits ranged from 5,485 (ff 75) to 267,277 (ff 100), 48.7x"
            ),
            "{}",
            s[1]
        );
        assert!(s[1].contains("ff 75 split least and began the churn with emptier PRIMARY pages, 73.6% full (8,131 leaf pages) against 92.1% (6,494) for ff 100"), "{}", s[1]);
    }

    #[test]
    fn phases_not_run_everywhere_or_not_ok_say_nothing() {
        let a = run_with(vec![phase("churn", json!({"status": "ok", "page_splits": 5}))]);
        let b = run_with(vec![phase("churn", json!({"status": "not_applicable"}))]);
        assert!(phase_sentences(&[(&a, "a"), (&b, "b")]).is_empty());
        let single = phase_sentences(&[(&a, "a")]);
        assert_eq!(single, vec!["During phase 1 (churn): 5 page splits.".to_string()]);
    }
}
