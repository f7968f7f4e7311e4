//! The reading's read-locality sentences and the verdict's reads line (issue 28): per read
//! spec, the run that misses least against the one that misses most, in misses per 1,000
//! reads, and why in figures: how many of its id index's leaf pages the worst run's reads
//! touched (its working set) against the best's. "Spread over its leaves" is said only when
//! the working set figure shows it. Without a bounded pool no run misses: the sentence then
//! compares working sets only. A mixed phase gets the same sentence per 1,000 operations.
//!
//! Runs are compared only within one model (or one engine); this module does not weigh reads
//! against size or load speed (the verdict shows each line).

use super::key_index;
use crate::text::{decimal, group_thousands, human_bytes, times};
use keylab_core::{MixedPhase, PhaseResult, ReadFigures, ReadSpec, RunResult};
use std::collections::BTreeMap;

/// A gap smaller than this ratio is "about the same".
const SAME: f64 = 1.05;

/// A share of the leaves above this is "spread over most of its leaves".
const SPREAD: f64 = 0.5;

/// A read spec in words: `point reads of the latest 5% of rows`.
pub(crate) fn describe(spec: &str) -> String {
    let Ok(s) = spec.parse::<ReadSpec>() else { return spec.to_string() };
    let kind = match s.kind {
        keylab_core::ReadKind::Point => "point reads".to_string(),
        keylab_core::ReadKind::Secondary => "secondary-index lookups".to_string(),
        keylab_core::ReadKind::KeyRange { rows } => format!("{rows}-row key ranges"),
        keylab_core::ReadKind::TimeRange { rows } => format!("{rows}-row time ranges"),
    };
    match s.distribution {
        keylab_core::ReadDistribution::Uniform => format!("uniform {kind}"),
        keylab_core::ReadDistribution::Latest { pct } => {
            format!("{kind} of the latest {}% of rows", decimal(pct, 1).trim_end_matches(".0"))
        }
        keylab_core::ReadDistribution::Zipf { s } => format!("Zipf({s}) {kind}"),
    }
}

/// The first reads phase of a run.
fn reads_of(run: &RunResult) -> Option<&[ReadFigures]> {
    run.phases.iter().find_map(|p| match p {
        PhaseResult::Reads(r) => r.specs.get().map(Vec::as_slice),
        _ => None,
    })
}

fn mixed_of(run: &RunResult) -> Option<&MixedPhase> {
    run.phases.iter().find_map(|p| match p {
        PhaseResult::Mixed(m) if p.applicable() => Some(m),
        _ => None,
    })
}

/// One run's figures for one spec: label, misses per 1,000, working set of the id index,
/// the id index's leaf pages and name.
struct Point<'a> {
    label: &'a str,
    misses: Option<f64>,
    working_set: Option<u64>,
    leaves: Option<u64>,
    index: String,
}

/// `through_secondary`: the reads go through a secondary index (secondary lookups, time
/// ranges), whose working set is the one compared; else the primary key's.
fn point<'a>(
    run: &RunResult,
    label: &'a str,
    misses: Option<f64>,
    ws: Option<&BTreeMap<String, u64>>,
    through_secondary: bool,
) -> Point<'a> {
    let name = if through_secondary {
        let id_index =
            key_index(run).map(|i| i.name.clone()).filter(|_| run.placement == "secondary");
        id_index.or_else(|| ws?.keys().find(|k| *k != "PRIMARY").cloned())
    } else {
        run.indexes.first().map(|i| i.name.clone())
    }
    .unwrap_or_else(|| "PRIMARY".to_string());
    let index = run.indexes.iter().find(|i| i.name == name);
    Point {
        label,
        misses,
        working_set: ws.and_then(|m| m.get(&name)).copied(),
        leaves: index.and_then(|i| i.leaf_pages),
        index: name,
    }
}

/// Whether reads of this spec (`secondary:...`, `time-range=...`) go through a secondary
/// index.
fn through_secondary(spec: &str) -> bool {
    spec.starts_with("secondary") || spec.starts_with("time-range")
}

/// The sentence comparing `points` on `what` (`point reads of the latest 5% of rows`), per
/// 1,000 `unit`s.
fn compare(what: &str, unit: &str, recent: bool, points: &[Point]) -> Option<String> {
    if points.len() < 2 {
        return None;
    }
    let with_misses: Vec<&Point> = points.iter().filter(|p| p.misses.is_some()).collect();
    let why = |best: &Point, worst: &Point| -> String {
        let (Some(w), Some(b)) = (worst.working_set, best.working_set) else {
            return String::new();
        };
        if (w as f64) < b as f64 * SAME {
            // Alike working sets explain nothing.
            return String::new();
        }
        // The working set counts every page touched, the levels above the leaves too.
        let share = worst.leaves.filter(|&l| l > 0).map(|l| (w as f64 / l as f64).min(1.0));
        let spread = match share {
            Some(s) if recent && s >= SPREAD => format!(
                " (as many pages as {}% of its {} leaves: its recent rows are spread over the \
                 index)",
                decimal(s * 100.0, 0),
                group_thousands(worst.leaves.unwrap_or(0))
            ),
            _ => String::new(),
        };
        format!(
            ": the reads of {} touch {} {} pages{spread}, those of {} {}",
            worst.label,
            group_thousands(w),
            worst.index,
            best.label,
            group_thousands(b)
        )
    };
    if with_misses.len() >= 2 {
        let mut sorted = with_misses.clone();
        sorted.sort_by(|a, b| a.misses.partial_cmp(&b.misses).expect("finite"));
        let (best, worst) = (sorted[0], sorted[sorted.len() - 1]);
        let (b, w) = (best.misses?, worst.misses?);
        if w > 0.0 && (b == 0.0 || w / b >= SAME) {
            let each: Vec<String> = sorted
                .iter()
                .map(|p| format!("{} {}", p.label, decimal(p.misses.unwrap_or(0.0), 1)))
                .collect();
            return Some(format!(
                "{what}: {} misses per 1,000 {unit}{}.",
                super::and_list(&each.iter().map(String::as_str).collect::<Vec<_>>()),
                why(best, worst)
            ));
        }
        if w == 0.0 {
            let ws = points.iter().filter_map(|p| p.working_set.map(|w| (p, w)));
            let best = ws.clone().min_by_key(|x| x.1);
            let worst = ws.max_by_key(|x| x.1);
            if let (Some(best), Some(worst)) = (best, worst) {
                if worst.1 as f64 >= best.1 as f64 * SAME {
                    return Some(format!(
                        "{what}: no run read a page from storage (every page it touched was \
                         cached), but {} touched {} more {} pages than {} ({} vs {}): what a \
                         smaller cache would have to hold.",
                        worst.0.label,
                        times(worst.1 as f64 / best.1.max(1) as f64),
                        worst.0.index,
                        best.0.label,
                        group_thousands(worst.1),
                        group_thousands(best.1)
                    ));
                }
            }
        }
    }
    None
}

fn capital(text: &str) -> String {
    let mut c = text.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The reading's sentences on reads and mixed workloads, per model (`models[i]` is run `i`'s
/// model when runs of several models share the report).
pub(crate) fn read_sentences(
    runs: &[(&RunResult, &str)],
    models: &[Option<String>],
) -> Vec<String> {
    let mut out = Vec::new();
    // Runs are compared within one model and one placement of the id.
    let scopes: Vec<(&Option<String>, &str)> =
        runs.iter().zip(models).map(|((r, _), m)| (m, r.placement.as_str())).collect();
    let placements = scopes.iter().any(|s| s.1 != scopes[0].1);
    let mut seen: Vec<(&Option<String>, &str)> = Vec::new();
    for scope in &scopes {
        if seen.contains(scope) {
            continue;
        }
        seen.push(*scope);
        let group: Vec<&(&RunResult, &str)> =
            runs.iter().zip(&scopes).filter(|(_, s)| *s == scope).map(|(r, _)| r).collect();
        let mut prefix = scope.0.as_ref().map(|m| format!("On {m}: ")).unwrap_or_default();
        if placements {
            prefix.push_str(match scope.1 {
                "pk" => "with the id as the primary key: ",
                "secondary" => "with the id in a secondary index: ",
                _ => "",
            });
        }
        let specs: Vec<String> = group
            .iter()
            .filter_map(|(r, _)| reads_of(r))
            .flatten()
            .filter_map(|f| f.spec.get().cloned())
            .fold(Vec::new(), |mut v, s| {
                if !v.contains(&s) {
                    v.push(s);
                }
                v
            });
        for spec in specs {
            let points: Vec<Point> = group
                .iter()
                .filter_map(|(r, label)| {
                    let f = reads_of(r)?
                        .iter()
                        .find(|f| f.spec.get() == Some(&spec) && f.applicable())?;
                    let ws = f.working_set_pages.get();
                    let misses = f.misses_per_1000_reads.value();
                    Some(point(r, label, misses, ws, through_secondary(&spec)))
                })
                .collect();
            let recent = spec.contains(":latest=");
            if let Some(s) = compare(&describe(&spec), "reads", recent, &points) {
                out.push(capital(&format!("{prefix}{s}")));
            }
            if let Some(s) = hit_target_sentence(&group, &spec) {
                out.push(capital(&format!("{prefix}{s}")));
            }
        }
        let mixed: Vec<Point> = group
            .iter()
            .filter_map(|(r, label)| {
                let m = mixed_of(r)?;
                let secondary = m.read_spec.get().is_some_and(|s| through_secondary(s));
                let misses = m.misses_per_1000_ops.value();
                Some(point(r, label, misses, m.working_set_pages.get(), secondary))
            })
            .collect();
        let what = group.iter().find_map(|(r, _)| {
            let m = mixed_of(r)?;
            let share = m.insert_share.value()? * 100.0;
            let reads = m.read_spec.get()?;
            let text = format!("mixed workload ({}% inserts, reads {reads})", decimal(share, 0));
            Some((text, reads.contains(":latest=")))
        });
        if let Some(s) = what.and_then(|(w, recent)| compare(&w, "operations", recent, &mixed)) {
            out.push(capital(&format!("{prefix}{s}")));
        }
    }
    out
}

/// The pool each run needs for the phase's hit target on `spec`, and how it was found.
fn hit_target_sentence(group: &[&(&RunResult, &str)], spec: &str) -> Option<String> {
    let mut target = None;
    let mut each = Vec::new();
    let mut hows: Vec<String> = Vec::new();
    for (r, label) in group {
        let Some(PhaseResult::Reads(p)) =
            r.phases.iter().find(|p| matches!(p, PhaseResult::Reads(_)))
        else {
            continue;
        };
        let Some(t) = p.hit_target.value() else { continue };
        target = Some(t);
        let Some(f) = p.specs.get()?.iter().find(|f| f.spec.get().is_some_and(|s| s == spec))
        else {
            continue;
        };
        let how = f.cache_for_hit_target.get().cloned().unwrap_or_default();
        let size = f
            .cache_for_hit_target_bytes
            .value()
            .map_or_else(|| "more than the largest pool tried".to_string(), human_bytes);
        each.push(format!("{label} {size}"));
        if f.cache_for_hit_target_bytes.value().is_some() && !hows.contains(&how) {
            hows.push(how);
        }
    }
    let t = target?;
    if each.is_empty() {
        return None;
    }
    let how = if hows.is_empty() { String::new() } else { format!(" ({})", hows.join("; ")) };
    Some(format!(
        "{}: the buffer pool for a {}% hit ratio{how}: {}.",
        describe(spec),
        decimal(t * 100.0, 1).trim_end_matches(".0"),
        super::and_list(&each.iter().map(String::as_str).collect::<Vec<_>>())
    ))
}

/// The verdict's reads line for runs of one model: the first read spec whose misses rank
/// the runs.
pub(crate) fn reads_line(group: &[(&RunResult, &str)]) -> Option<String> {
    let first = group.iter().find_map(|(r, _)| reads_of(r))?;
    for spec in first.iter().filter_map(|f| f.spec.get()) {
        let misses: Vec<(&str, f64)> = group
            .iter()
            .filter_map(|(r, label)| {
                let f = reads_of(r)?.iter().find(|f| f.spec.get() == Some(spec))?;
                Some((*label, f.misses_per_1000_reads.value()?))
            })
            .collect();
        let best = misses.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let worst = misses.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let (Some(best), Some(worst)) = (best, worst) else { continue };
        if misses.len() < 2 || worst.1 == 0.0 || (best.1 > 0.0 && worst.1 / best.1 < SAME) {
            continue;
        }
        let what = describe(spec);
        return Some(if best.1 == 0.0 {
            format!(
                "{} reads no page from storage on {what}; {} reads {} per 1,000 reads.",
                best.0,
                worst.0,
                decimal(worst.1, 1)
            )
        } else {
            format!(
                "{} misses the cache {} less often than {} on {what} ({} vs {} per 1,000 reads).",
                best.0,
                times(worst.1 / best.1),
                worst.0,
                decimal(best.1, 1),
                decimal(worst.1, 1)
            )
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_as_words() {
        assert_eq!(describe("point:100:latest=5%"), "point reads of the latest 5% of rows");
        assert_eq!(describe("secondary:10:uniform"), "uniform secondary-index lookups");
        assert_eq!(describe("range=50:10:zipf=0.99"), "Zipf(0.99) 50-row key ranges");
    }

    #[test]
    fn the_worst_run_is_said_spread_only_when_its_working_set_shows_it() {
        let p = |label, misses, ws, leaves| Point {
            label,
            misses: Some(misses),
            working_set: Some(ws),
            leaves: Some(leaves),
            index: "PRIMARY".into(),
        };
        let s = compare(
            "point reads",
            "reads",
            true,
            &[p("uuid7:bin", 0.4, 15, 289), p("uuid4:bin", 610.0, 372, 481)],
        )
        .unwrap();
        assert!(s.starts_with("point reads: uuid7:bin 0.4 and uuid4:bin 610.0 misses"), "{s}");
        assert!(s.contains("touch 372 PRIMARY pages (as many pages as 77% of its 481"), "{s}");
        assert!(s.ends_with("those of uuid7:bin 15."), "{s}");
        let s = compare("x", "reads", true, &[p("a", 1.0, 15, 289), p("b", 3.0, 20, 481)]).unwrap();
        assert!(s.contains("the reads of b touch 20 PRIMARY pages, those of a 15"), "{s}");
        let s = compare("x", "reads", false, &[p("a", 1.0, 15, 289), p("b", 3.0, 400, 481)]);
        assert!(!s.unwrap().contains("spread"), "uniform reads touch every leaf of any key");
        assert!(
            compare("x", "reads", true, &[p("a", 1.0, 15, 289), p("b", 1.02, 20, 481)]).is_none()
        );
    }
}
