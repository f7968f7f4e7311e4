//! The reading's timing sentences: load throughput and batch latency, and per query the
//! fastest and slowest median with the rows each returned.
//!
//! Not for: simulated runs' speed (the simulator gives no times: these sentences then say
//! nothing, and `reading.rs` says why), or the page comparison (`reading/pages.rs`).

use super::Labeled;
use crate::text::{decimal, times};

pub(super) fn throughput(runs: &[Labeled]) -> Vec<String> {
    let mut out = Vec::new();
    let rated: Vec<(&Labeled, f64)> =
        runs.iter().filter_map(|r| Some((r, r.run.load.rows_per_s?))).collect();
    if rated.len() == 1 {
        let (r, rate) = rated[0];
        out.push(format!("{} loaded {} rows/s.", r.label, decimal(rate, 0)));
    } else if rated.len() >= 2 {
        let fast = rated.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        let slow = rated.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        if slow.1 > 0.0 && fast.1 / slow.1 >= 1.05 {
            out.push(format!(
                "{} loaded fastest, {} rows/s, {} the rate of {} ({} rows/s).",
                fast.0.label,
                decimal(fast.1, 0),
                times(fast.1 / slow.1),
                slow.0.label,
                decimal(slow.1, 0)
            ));
        } else {
            out.push(format!(
                "All variants loaded at about the same rate ({} rows/s).",
                decimal(slow.1, 0)
            ));
        }
    }
    let load: Vec<_> = runs.iter().map(|r| (r.run, r.label)).collect();
    out.extend(super::load::first_batch_wait(&load));
    let p99: Vec<(&Labeled, f64)> =
        runs.iter().filter_map(|r| Some((r, r.run.load.batch_latency_ms?.p99))).collect();
    if p99.len() >= 2 {
        let lo = p99.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        let hi = p99.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        if hi.1 > lo.1 {
            out.push(format!(
                "Batch latency p99 ranged from {} ms ({}) to {} ms ({}).",
                decimal(lo.1, 2),
                lo.0.label,
                decimal(hi.1, 2),
                hi.0.label
            ));
        }
    }
    out
}

/// Per query: the fastest and slowest median, on the server's clock where every run has
/// one (else the client's, which includes sending the rows), the rows each returned, and a
/// warning when the runs returned different row counts (then per 1,000 rows returned too).
pub(super) fn queries(runs: &[Labeled]) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for r in runs {
        for q in &r.run.queries {
            if !names.contains(&q.name.as_str()) {
                names.push(&q.name);
            }
        }
    }
    names
        .into_iter()
        .filter_map(|name| {
            let found: Vec<(&Labeled, &keylab_core::QueryResult)> = runs
                .iter()
                .filter_map(|r| Some((r, r.run.queries.iter().find(|q| q.name == name)?)))
                .collect();
            let on_server = found.iter().all(|(_, q)| q.server_p50_ms.is_some());
            let clock = if on_server { "server-side" } else { "client round trip" };
            let timed: Vec<(&Labeled, f64, u64)> = found
                .iter()
                .filter_map(|(r, q)| {
                    Some((*r, if on_server { q.server_p50_ms? } else { q.p50_ms? }, q.rows))
                })
                .collect();
            let lo = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
            let hi = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
            (timed.len() >= 2 && hi.1 > lo.1).then(|| {
                let mut line = format!(
                    "Query {name} ({clock} median): {} ms on {} ({} rows) vs {} ms on {} ({} rows).",
                    decimal(lo.1, 2),
                    lo.0.label,
                    lo.2,
                    decimal(hi.1, 2),
                    hi.0.label,
                    hi.2
                );
                if timed.iter().any(|t| t.2 != timed[0].2) {
                    let per_k = |t: &(&Labeled, f64, u64)| {
                        if t.2 == 0 { "n/a".to_string() } else { decimal(t.1 * 1000.0 / t.2 as f64, 3) }
                    };
                    line.push_str(&format!(
                        " The runs returned different row counts, so the times are not like for \
                         like; per 1,000 rows returned: {} ms vs {} ms.",
                        per_k(lo),
                        per_k(hi)
                    ));
                }
                // A difference smaller than the runs' spread is not one (hyperfine's rule of
                // thumb): say so when the fastest and slowest runs' ranges overlap.
                let range = |l: &Labeled| {
                    let q = l.run.queries.iter().find(|q| q.name == name)?;
                    Some((q.min_ms?, q.max_ms?))
                };
                if let (Some(a), Some(b)) = (range(lo.0), range(hi.0)) {
                    if a.1 >= b.0 && b.1 >= a.0 {
                        line.push_str(&format!(
                            " Their client runs overlap ({} to {} ms vs {} to {} ms, first run \
                             apart): within the spread, not a difference.",
                            decimal(a.0, 2),
                            decimal(a.1, 2),
                            decimal(b.0, 2),
                            decimal(b.1, 2)
                        ));
                    }
                }
                if let Some(p) = found.iter().find_map(|(_, q)| q.share) {
                    if found.iter().all(|(_, q)| q.share.is_some_and(|s| (s - p).abs() < 1e-9)) {
                        line.push_str(&format!(" Each selected {} of its table.", percent_words(p)));
                    }
                }
                line
            })
        })
        .collect()
}

fn percent_words(share: f64) -> String {
    format!("{}%", decimal(share * 100.0, 1))
}
