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
        // Repeated runs whose rates overlap differ by less than their spread.
        let pair = ((fast.0.run, fast.0.label), (slow.0.run, slow.0.label));
        let overlap = super::spread::within_spread("load.rows_per_s", "rows/s", 0, pair.0, pair.1);
        if slow.1 > 0.0 && fast.1 / slow.1 >= 1.05 {
            let mut line = format!(
                "{} loaded fastest, {} rows/s, {} the rate of {} ({} rows/s).",
                fast.0.label,
                decimal(fast.1, 0),
                times(fast.1 / slow.1),
                slow.0.label,
                decimal(slow.1, 0)
            );
            let beyond =
                super::spread::beyond_spread("load.rows_per_s", "rates", 0, fast.0.run, slow.0.run);
            for more in overlap.iter().chain(&beyond) {
                line.push(' ');
                line.push_str(more);
            }
            out.push(line);
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
/// Runs are compared only with runs of the same table and row count (E1's light and heavy
/// tables are not like for like); with several such groups each line names its group.
pub(super) fn queries(runs: &[Labeled]) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for r in runs {
        for q in &r.run.queries {
            if !names.contains(&q.name.as_str()) {
                names.push(&q.name);
            }
        }
    }
    let mut out = Vec::new();
    for name in names {
        let mut groups: Vec<(TableAndRows, Vec<&Labeled>)> = Vec::new();
        for r in runs.iter().filter(|r| r.run.queries.iter().any(|q| q.name == name)) {
            let key = (crate::labels::cell_table(r.run), r.run.rows);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, g)) => g.push(r),
                None => groups.push((key, vec![r])),
            }
        }
        let several = groups.len() > 1;
        for ((table, rows), group) in &groups {
            let prefix = match (several, table) {
                (false, _) => String::new(),
                (true, Some(t)) => format!("Table {t}, {rows} rows: "),
                (true, None) => format!("{rows} rows: "),
            };
            if let Some(line) = compare_query(name, group) {
                out.push(format!("{prefix}{line}"));
            }
        }
    }
    out
}

/// A run's table (when a matrix chose it) and row count: what query times are compared within.
type TableAndRows = (Option<String>, u64);

/// The sentence comparing query `name` over `runs` (of one table and size), if they differ.
fn compare_query(name: &str, runs: &[&Labeled]) -> Option<String> {
    let found: Vec<(&Labeled, &keylab_core::QueryResult)> = runs
        .iter()
        .filter_map(|r| Some((*r, r.run.queries.iter().find(|q| q.name == name)?)))
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
                if t.2 == 0 {
                    "n/a".to_string()
                } else {
                    decimal(t.1 * 1000.0 / t.2 as f64, 3)
                }
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
}

fn percent_words(share: f64) -> String {
    format!("{}%", decimal(share * 100.0, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_core::RunResult;

    fn run(table: &str, rows: u64, p50_ms: f64) -> RunResult {
        serde_json::from_value(serde_json::json!({
            "variant": "ulid:text", "strategy": "ulid", "encoding": "text", "placement": "pk",
            "rows": rows, "load": {"method": "row", "batch": 1, "writers": 1},
            "counters": {}, "table": {}, "indexes": [],
            "phases": [{"kind": "settings", "cell_table": table}],
            "queries": [{"name": "id_share", "runs": 3, "p50_ms": p50_ms, "p99_ms": p50_ms,
                         "min_ms": p50_ms, "max_ms": p50_ms, "rows": rows}]
        }))
        .unwrap()
    }

    fn labeled<'a>(runs: &'a [(RunResult, &'a str)]) -> Vec<Labeled<'a>> {
        runs.iter().map(|(run, label)| Labeled { run, label, in_order_fill: "" }).collect()
    }

    #[test]
    fn queries_are_compared_within_one_table_and_size() {
        let runs = [
            (run("e1", 100, 1.0), "light a"),
            (run("e1", 100, 2.0), "light b"),
            (run("e1_heavy", 100, 50.0), "heavy"),
        ];
        let lines = queries(&labeled(&runs));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("Table e1, 100 rows: Query id_share"), "{lines:?}");
        assert!(!lines[0].contains("heavy"), "{lines:?}");
    }

    #[test]
    fn overlapping_runs_are_not_a_difference() {
        let mut a = run("e1", 100, 1.0);
        a.queries[0].max_ms = Some(3.0);
        let b = run("e1", 100, 2.0);
        let runs = [(a, "a"), (b, "b")];
        let lines = queries(&labeled(&runs));
        assert!(lines[0].contains("within the spread, not a difference"), "{lines:?}");
    }
}
