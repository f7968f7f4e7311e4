//! `keylab validate --shards N`, its arithmetic: the simulator's shard models against a
//! Spider run of the same planned runs, per shard (rows, PRIMARY leaf pages, page splits,
//! size) and per window of the hotspot curve (inserts each shard received per window of rows
//! sent), with the bounds the check holds: rows and every window's counts equal (routing is
//! deterministic), PRIMARY leaf pages within [`LEAF_PAGES_BOUND_PCT`]. Splits and size are
//! shown, not held. It runs nothing itself (`src/cmd/validate.rs` runs both sides).

use keylab_core::{RunResult, ShardResult, ShardWindow};
use serde::Serialize;
use std::fmt::Write;

/// How far a shard's PRIMARY leaf pages on the simulator may be from the backend's (percent).
pub const LEAF_PAGES_BOUND_PCT: f64 = 0.5;

/// One figure of one shard of one run on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShardFigure {
    /// The run's label.
    pub run: String,
    /// Shard number, from 0.
    pub shard: u32,
    /// `rows`, `PRIMARY.leaf_pages`, `page_splits` or `size_bytes` (data + index length).
    pub metric: String,
    /// The simulator's figure (`None`: not given).
    pub sim: Option<u64>,
    /// The backend's figure.
    pub server: Option<u64>,
    /// `(sim - server) / server x 100`; `None` without both or with a server figure of 0.
    pub error_pct: Option<f64>,
    /// The bound held (percent; 0 = equal), `None` when the figure is shown, not held.
    pub bound_pct: Option<f64>,
    /// Whether the figure keeps its bound (`None` when none is held).
    pub within: Option<bool>,
}

/// One window of the hotspot curve on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowCheck {
    /// The run's label.
    pub run: String,
    /// Window number, from 1.
    pub window: usize,
    /// The simulator's window (`None`: it has fewer windows).
    pub sim: Option<ShardWindow>,
    /// The server's window.
    pub server: Option<ShardWindow>,
    /// Equal rows at the end and equal inserts on every shard.
    pub equal: bool,
}

/// The whole sharded check.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ShardValidation {
    /// Every shard figure.
    pub figures: Vec<ShardFigure>,
    /// Every window.
    pub windows: Vec<WindowCheck>,
    /// What is out of bounds, one line each (empty: the check passed).
    pub failures: Vec<String>,
}

impl ShardValidation {
    /// True when every held figure and every window is within bounds.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// `(sim - server) / server x 100` (`validate::pool::error_pct`), and 0 when both are 0: a
/// shard holding nothing on both sides is equal.
fn error_pct(sim: Option<u64>, server: Option<u64>) -> Option<f64> {
    super::pool::error_pct(sim, server).or_else(|| (sim? == 0 && server? == 0).then_some(0.0))
}

/// The figures compared per shard, with their bound.
fn shard_figures(s: &ShardResult) -> [(&'static str, Option<u64>, Option<f64>); 4] {
    let primary = s.indexes.iter().find(|i| i.name == "PRIMARY").or(s.indexes.first());
    [
        ("rows", s.rows, Some(0.0)),
        ("PRIMARY.leaf_pages", primary.and_then(|i| i.leaf_pages), Some(LEAF_PAGES_BOUND_PCT)),
        ("page_splits", s.counters.page_splits, None),
        ("size_bytes", s.table.data_length.zip(s.table.index_length).map(|(d, i)| d + i), None),
    ]
}

/// Compares the simulator's and the server's sharded results of the same runs (paired by
/// position; `labels[i]` names pair `i`).
pub fn compare(labels: &[String], sim: &[RunResult], server: &[RunResult]) -> ShardValidation {
    let mut v = ShardValidation::default();
    for ((label, a), b) in labels.iter().zip(sim).zip(server) {
        let (Some(sa), Some(sb)) = (&a.shards, &b.shards) else {
            v.failures.push(format!("{label}: a side has no per-shard figures"));
            continue;
        };
        if sa.shards.len() != sb.shards.len() {
            v.failures.push(format!(
                "{label}: {} shards on the simulator, {} on the server",
                sa.shards.len(),
                sb.shards.len()
            ));
            continue;
        }
        for (x, y) in sa.shards.iter().zip(&sb.shards) {
            for ((metric, mine, bound), (_, theirs, _)) in
                shard_figures(x).into_iter().zip(shard_figures(y))
            {
                let err = error_pct(mine, theirs);
                let within = bound.map(|b| err.is_some_and(|e| e.abs() <= b + 1e-9));
                if within == Some(false) {
                    let shown = err.map_or("n/a".into(), |e| format!("{e:+.2}%"));
                    v.failures.push(format!(
                        "{label} · shard {} · {metric}: sim {}, server {} ({shown}; bound {}%)",
                        x.shard,
                        opt(mine),
                        opt(theirs),
                        bound.unwrap_or_default()
                    ));
                }
                v.figures.push(ShardFigure {
                    run: label.clone(),
                    shard: x.shard,
                    metric: metric.into(),
                    sim: mine,
                    server: theirs,
                    error_pct: err,
                    bound_pct: bound,
                    within,
                });
            }
        }
        let n = sa.windows.len().max(sb.windows.len());
        let mut unequal = 0;
        for i in 0..n {
            let (x, y) = (sa.windows.get(i).cloned(), sb.windows.get(i).cloned());
            let equal = x.is_some() && x == y;
            unequal += usize::from(!equal);
            v.windows.push(WindowCheck {
                run: label.clone(),
                window: i + 1,
                sim: x,
                server: y,
                equal,
            });
        }
        if unequal > 0 {
            v.failures.push(format!("{label}: {unequal} of {n} windows differ"));
        }
    }
    v
}

fn opt(v: Option<u64>) -> String {
    v.map_or("null".into(), |v| v.to_string())
}

/// Each shard's share of a window's inserts, percent, as `100/0/0`.
fn shares(w: &Option<ShardWindow>) -> String {
    let Some(w) = w else { return "—".into() };
    let total: u64 = w.inserts.iter().sum();
    w.inserts
        .iter()
        .map(|&i| {
            if total == 0 {
                "0".into()
            } else {
                format!("{:.1}", i as f64 * 100.0 / total as f64)
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The check as text: the per-shard table, the per-window shares, then the verdict.
pub fn render(v: &ShardValidation) -> String {
    let mut out = String::from("Per shard (simulator against each Spider backend)\n\n");
    let _ = writeln!(
        out,
        "{:<40} {:>5} {:<18} {:>12} {:>12} {:>9} {:>6}",
        "run", "shard", "metric", "sim", "server", "error", "bound"
    );
    for f in &v.figures {
        let _ = writeln!(
            out,
            "{:<40} {:>5} {:<18} {:>12} {:>12} {:>9} {:>6}",
            f.run,
            f.shard,
            f.metric,
            opt(f.sim),
            opt(f.server),
            f.error_pct.map_or("n/a".into(), |e| format!("{e:+.2}%")),
            match (f.bound_pct, f.within) {
                (Some(0.0), Some(true)) => "equal".to_string(),
                (Some(b), Some(true)) => format!("≤{b}%"),
                (Some(_), _) => "OUT".to_string(),
                (None, _) => "shown".to_string(),
            }
        );
    }
    out.push_str("\nPer window: each shard's share of the window's inserts, percent (windows of rows sent)\n\n");
    let _ = writeln!(
        out,
        "{:<40} {:>6} {:>9} {:<20} {:<20} {:>5}",
        "run", "window", "rows end", "sim", "server", "equal"
    );
    for w in &v.windows {
        let end = w.server.as_ref().or(w.sim.as_ref()).map_or(0, |x| x.rows_end);
        let _ = writeln!(
            out,
            "{:<40} {:>6} {:>9} {:<20} {:<20} {:>5}",
            w.run,
            w.window,
            end,
            shares(&w.sim),
            shares(&w.server),
            if w.equal { "yes" } else { "NO" }
        );
    }
    let runs = v.windows.iter().map(|w| &w.run).collect::<std::collections::BTreeSet<_>>().len();
    let equal = v.windows.iter().filter(|w| w.equal).count();
    let _ = writeln!(
        out,
        "\n{equal} of {} windows equal over {runs} runs; {} figures out of bounds",
        v.windows.len(),
        v.failures.len()
    );
    for f in &v.failures {
        let _ = writeln!(out, "OUT: {f}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_core::{Counters, IndexResult, LoadPlan, LoadResult, ShardsResult, TableSizes};

    fn base() -> RunResult {
        RunResult {
            model: None,
            variant: "seq".into(),
            strategy: "seq".into(),
            encoding: "bigint".into(),
            placement: "pk".into(),
            rows: 200,
            load: LoadResult::unmeasured(&LoadPlan { batch: 100, ..LoadPlan::default() }),
            counters: Counters::default(),
            table: TableSizes::default(),
            indexes: Vec::new(),
            phases: Vec::new(),
            queries: Vec::new(),
            buffer_pool: None,
            postgres: None,
            shards: None,
            repeats: None,
        }
    }

    fn run(leaf: [u64; 2], windows: Vec<ShardWindow>) -> RunResult {
        let shard = |k: u32, leaf: u64| ShardResult {
            shard: k,
            rows: Some(100),
            indexes: vec![IndexResult {
                name: "PRIMARY".into(),
                leaf_pages: Some(leaf),
                ..IndexResult::default()
            }],
            ..ShardResult::default()
        };
        RunResult {
            shards: Some(ShardsResult {
                shards: vec![shard(0, leaf[0]), shard(1, leaf[1])],
                windows,
                ..ShardsResult::default()
            }),
            ..base()
        }
    }

    fn w(end: u64, a: u64, b: u64) -> ShardWindow {
        ShardWindow { rows_end: end, inserts: vec![a, b] }
    }

    #[test]
    fn equal_shards_and_windows_pass() {
        let ws = vec![w(100, 100, 0), w(200, 0, 100)];
        let v = compare(&["a".into()], &[run([1000, 500], ws.clone())], &[run([1004, 500], ws)]);
        assert!(v.passed(), "{:?}", v.failures);
        let leaf = v.figures.iter().find(|f| f.metric == "PRIMARY.leaf_pages").unwrap();
        assert_eq!(leaf.within, Some(true));
        let text = render(&v);
        assert!(text.contains("100.0/0.0"), "{text}");
        assert!(text.contains("2 of 2 windows equal over 1 runs; 0 figures out"), "{text}");
    }

    #[test]
    fn leaf_pages_beyond_the_bound_and_a_different_window_fail() {
        let sim = run([1006, 500], vec![w(100, 100, 0), w(200, 0, 100)]);
        let server = run([1000, 500], vec![w(100, 99, 1), w(200, 1, 99)]);
        let v = compare(&["a".into()], &[sim], &[server]);
        assert!(!v.passed());
        assert!(v.failures.iter().any(|f| f.contains("PRIMARY.leaf_pages")), "{:?}", v.failures);
        assert!(v.failures.iter().any(|f| f.contains("2 of 2 windows differ")), "{:?}", v.failures);
        assert!(render(&v).contains("OUT: a · shard 0 · PRIMARY.leaf_pages"));
    }

    #[test]
    fn a_missing_window_or_shard_section_fails() {
        let sim = run([10, 10], vec![w(100, 100, 0)]);
        let server = run([10, 10], vec![w(100, 100, 0), w(150, 0, 50)]);
        let v = compare(&["a".into()], std::slice::from_ref(&sim), &[server]);
        assert_eq!(v.failures, vec!["a: 1 of 2 windows differ".to_string()]);
        let v = compare(&["b".into()], &[sim], &[base()]);
        assert!(v.failures[0].contains("no per-shard figures"));
    }
}
