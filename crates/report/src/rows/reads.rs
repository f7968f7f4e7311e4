//! The rows of a `reads` phase (issue 28): one group of rows per read spec, side by side for
//! the runs (variants, models, engines): page requests per read, misses per 1,000 reads,
//! pages read and written, rows returned, each index's working set and the server's time. A
//! spec an engine refused is a note (`n/a: ...`) and `null` cells, never a figure.
//!
//! Not for: the other phases (`phases.rs` renders every other kind from its figures) or the
//! reading's sentences (`reading/reads.rs`).

use crate::table::{Better, Builder, Value};
use keylab_core::{Figure, PhaseResult, ReadFigures, RunResult};

/// A run's figures of read spec `spec` in its phase at `index`, where it ran them.
fn spec_of<'a>(r: &'a RunResult, index: usize, spec: &str) -> Option<&'a ReadFigures> {
    let Some(PhaseResult::Reads(p)) = r.phases.get(index) else { return None };
    p.specs.get()?.iter().find(|f| f.spec.get().is_some_and(|s| s == spec))
}

/// The read specs of the phase at `index`, over all runs, in first-appearance order.
pub(crate) fn specs_at(runs: &[RunResult], index: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        let Some(PhaseResult::Reads(p)) = r.phases.get(index) else { continue };
        for f in p.specs.get().into_iter().flatten() {
            if let Some(s) = f.spec.get().filter(|s| !out.contains(s)) {
                out.push(s.clone());
            }
        }
    }
    out
}

/// One row of a spec: figure name, label, better direction, its value.
type SpecRow = (&'static str, &'static str, Option<Better>, fn(&ReadFigures) -> Value);

fn dec(f: &Figure<f64>, places: usize) -> Value {
    f.value().map_or(Value::Null, |value| Value::Decimal { value, places })
}

fn count(f: &Figure<u64>) -> Value {
    f.value().map_or(Value::Null, Value::Count)
}

/// Adds the rows of the reads phase at `index` (section already begun); `key_prefix` starts
/// every row key, `labels` name the runs in notes.
/// The curve's rows: per point, the pool each run ran at and each spec's misses.
fn add_curve_rows(b: &mut Builder, runs: &[RunResult], index: usize, key_prefix: &str) {
    let curve_of = |r: &RunResult| match r.phases.get(index) {
        Some(PhaseResult::Reads(p)) => p.pool_curve.get().cloned(),
        _ => None,
    };
    let points = runs.iter().filter_map(curve_of).map(|c| c.len()).max().unwrap_or(0);
    let specs = specs_at(runs, index);
    for j in 0..points {
        let label = format!("curve point {}: pool", j + 1);
        b.row(&format!("{key_prefix}.pool_curve.{j}.pool_bytes"), &label, None, |r| {
            curve_of(r)
                .and_then(|c| c.get(j).and_then(|p| p.pool_bytes.value()))
                .map_or(Value::Null, Value::Bytes)
        });
        for spec in &specs {
            let label = format!("curve point {}: {spec} misses per 1,000 reads", j + 1);
            let key = format!("{key_prefix}.pool_curve.{j}.{spec}");
            b.row(&key, &label, Some(Better::Lower), |r| {
                // Each run's spec order is its own: find the spec's position in its phase.
                let Some(PhaseResult::Reads(p)) = r.phases.get(index) else { return Value::Null };
                let at = p
                    .specs
                    .get()
                    .and_then(|s| s.iter().position(|f| f.spec.get().is_some_and(|x| x == spec)));
                curve_of(r)
                    .and_then(|c| {
                        c.get(j)?.misses_per_1000_reads.get()?.get(at?).copied().flatten()
                    })
                    .map_or(Value::Null, |value| Value::Decimal { value, places: 2 })
            });
        }
    }
}

pub(crate) fn add_reads_rows(
    b: &mut Builder,
    runs: &[RunResult],
    labels: &[String],
    index: usize,
    key_prefix: &str,
) {
    add_curve_rows(b, runs, index, key_prefix);
    for spec in specs_at(runs, index) {
        // Refusals, per spec: a note naming the runs.
        let refused: Vec<(usize, String)> = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let f = spec_of(r, index, &spec).filter(|f| !f.applicable())?;
                Some((i, f.reason.get().cloned().unwrap_or_else(|| "no reason given".into())))
            })
            .collect();
        for (i, why) in &refused {
            b.note(&format!("{}: {spec}: n/a: {why}", labels[*i]));
        }
        // What the engine said about figures it cannot give, once per distinct sentence.
        let mut said: Vec<String> = Vec::new();
        for r in runs {
            for n in spec_of(r, index, &spec).and_then(|f| f.notes.get()).into_iter().flatten() {
                if !said.contains(n) {
                    said.push(n.clone());
                }
            }
        }
        for n in said {
            b.note(&format!("{spec}: {n}"));
        }
        fn ran<'r>(r: &'r RunResult, index: usize, spec: &str) -> Option<&'r ReadFigures> {
            spec_of(r, index, spec).filter(|f| f.applicable())
        }
        let key = |name: &str| format!("{key_prefix}.{spec}.{name}");
        let rows: [SpecRow; 6] = [
            ("misses_per_1000_reads", "misses per 1,000 reads", Some(Better::Lower), |f| {
                dec(&f.misses_per_1000_reads, 2)
            }),
            ("page_requests_per_read", "page requests per read", Some(Better::Lower), |f| {
                dec(&f.page_requests_per_read, 2)
            }),
            ("pages_read", "pages read", Some(Better::Lower), |f| count(&f.pages_read)),
            ("pages_written", "pages written", Some(Better::Lower), |f| count(&f.pages_written)),
            ("rows_returned", "rows returned", None, |f| count(&f.rows_returned)),
            ("server_ms", "server time (ms)", Some(Better::Lower), |f| dec(&f.server_ms, 2)),
        ];
        for (name, label, better, value) in rows {
            b.row(&key(name), &format!("{spec}: {label}"), better, |r| {
                ran(r, index, &spec).map_or(Value::Null, value)
            });
        }
        let mut indexes: Vec<String> = Vec::new();
        for r in runs {
            for name in
                ran(r, index, &spec).and_then(|f| f.working_set_pages.get()).into_iter().flatten()
            {
                if !indexes.contains(name.0) {
                    indexes.push(name.0.clone());
                }
            }
        }
        // The pool the phase's hit target needs, and how it was found.
        let target = runs.iter().find_map(|r| match r.phases.get(index) {
            Some(PhaseResult::Reads(p)) => p.hit_target.value(),
            _ => None,
        });
        if let Some(t) = target {
            let label =
                format!("{spec}: pool for a {}% hit ratio", crate::text::decimal(t * 100.0, 1));
            b.row(&key("cache_for_hit_target_bytes"), &label, Some(Better::Lower), |r| {
                ran(r, index, &spec)
                    .and_then(|f| f.cache_for_hit_target_bytes.value())
                    .map_or(Value::Null, Value::Bytes)
            });
            let mut hows: Vec<(String, Vec<usize>)> = Vec::new();
            for (i, r) in runs.iter().enumerate() {
                if let Some(how) = ran(r, index, &spec).and_then(|f| f.cache_for_hit_target.get()) {
                    match hows.iter_mut().find(|(h, _)| h == how) {
                        Some((_, who)) => who.push(i),
                        None => hows.push((how.clone(), vec![i])),
                    }
                }
            }
            for (how, who) in hows {
                let names: Vec<&str> = who.iter().map(|&i| labels[i].as_str()).collect();
                b.note(&format!("{spec}: pool for the hit ratio, {}: {how}", names.join(", ")));
            }
        }
        for ix in indexes {
            let label = format!("{spec}: working set, {ix} (pages)");
            b.row(&key(&format!("working_set_pages.{ix}")), &label, Some(Better::Lower), |r| {
                ran(r, index, &spec)
                    .and_then(|f| f.working_set_pages.get())
                    .and_then(|m| m.get(&ix))
                    .map_or(Value::Null, |&n| Value::Count(n))
            });
        }
    }
}
