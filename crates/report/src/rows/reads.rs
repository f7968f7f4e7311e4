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
pub(crate) fn add_reads_rows(
    b: &mut Builder,
    runs: &[RunResult],
    labels: &[String],
    index: usize,
    key_prefix: &str,
) {
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
