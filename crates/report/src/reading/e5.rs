//! For E5, keylab's figures beside the published table, fill factor by fill factor: page
//! splits, merge attempts and merges during the churn, and PRIMARY's pages (leaf and non-leaf,
//! as the author counted them in the buffer pool) after the first rebuild. The published figures are the E5 author's measurements (Aurora MySQL), shown for
//! comparison only: nothing in keylab is computed or tuned from them.

use crate::labels::cell;
use crate::text::group_thousands;
use keylab_core::{CounterFigures, Figure, PhaseResult, PhaseStatus, RunResult};

/// (fill factor %, splits, merge attempts, merges, PRIMARY pages after the rebuild, PRIMARY
/// pages gained during the churn).
type Published = (u8, u64, Option<u64>, Option<u64>, u64, Option<u64>);

/// The E5 author's measurements per `innodb_fill_factor`: (fill factor, page splits, merge
/// attempts, merges, PRIMARY pages after the rebuild, PRIMARY pages gained during the churn,
/// counted in the buffer pool after a full scan); `None` where the write-up's table as keylab
/// has it gives no figure.
const E5_PUBLISHED: [Published; 6] = [
    (100, 244_606, Some(1_358_899), Some(237_509), 6_431, Some(2_818)),
    (95, 171_291, None, None, 6_349, None),
    (90, 77_562, None, None, 6_734, None),
    (85, 24_996, None, None, 7_117, None),
    (80, 6_258, None, None, 7_546, None),
    (75, 1_172, Some(4_072), Some(1_133), 8_095, Some(180)),
];

/// One line per fill factor that both the published table and the runs have, then a line
/// saying whose figures are whose. Nothing for other scenarios, nor for runs of another size
/// than the author's (1,000,000 rows loaded, 10,000 inserts and deletes per churn round: at
/// another `--scale` the counts are not comparable).
pub(crate) fn published_comparison(scenario: &str, runs: &[RunResult]) -> Vec<String> {
    if scenario != "e5-fill-factor-churn" {
        return Vec::new();
    }
    let mut lines = Vec::new();
    for (ff, splits, attempts, merges, pages, growth) in E5_PUBLISHED {
        let Some(run) = runs.iter().find(|r| {
            cell(r)
                .iter()
                .any(|(d, v)| d == "fill_factor" && v.trim_end_matches('%') == ff.to_string())
        }) else {
            continue;
        };
        let phases = || run.phases.iter().filter(|p| ok(p));
        let churn = phases().find_map(|p| match p {
            PhaseResult::Churn(c) => Some(c),
            _ => None,
        });
        let rebuild = phases().find_map(|p| match p {
            PhaseResult::Rebuild(r) => Some(r),
            _ => None,
        });
        let load = phases().find_map(|p| match p {
            PhaseResult::Load(l) => Some(l),
            _ => None,
        });
        let rows = load.and_then(|l| l.rows.value());
        if rows != Some(1_000_000)
            || churn.and_then(|c| c.inserts_per_round.value()) != Some(10_000)
        {
            continue;
        }
        let counter =
            |f: fn(&CounterFigures) -> &Figure<u64>| churn.and_then(|c| f(&c.counters).value());
        let parts = [
            ("page splits", counter(|c| &c.page_splits), Some(splits)),
            ("merge attempts", counter(|c| &c.merge_attempts), attempts),
            ("merges", counter(|c| &c.merges), merges),
            // The author counted PRIMARY's pages in the buffer pool after a full scan: the leaf
            // and non-leaf pages together, so those are what is set beside his figure.
            (
                "PRIMARY pages (leaf and non-leaf) after the rebuild",
                rebuild.and_then(|r| {
                    Some(
                        r.after.primary_leaf_pages.value()?
                            + r.after.primary_nonleaf_pages.value()?,
                    )
                }),
                Some(pages),
            ),
        ];
        let mut text: Vec<String> =
            parts.iter().map(|(what, ours, theirs)| pair(what, *ours, *theirs)).collect();
        if let Some(c) = churn {
            text.push(churn_growth(c, growth));
        }
        lines.push(format!("E5 at fill factor {ff}: {}.", text.join("; ")));
    }
    if !lines.is_empty() {
        lines.push(
            "In these E5 lines the first figure is keylab's for this run and the one after \
             \"published\" is the E5 author's measurement on Aurora MySQL (1,000,000 rows; not a \
             keylab output and not used by it)."
                .into(),
        );
    }
    lines
}

/// PRIMARY's growth during the churn two ways: its live pages (leaf and non-leaf), and its
/// pages in the buffer pool as the author counted them after a full scan, which adds the
/// freed pages the pool still holds under PRIMARY's index id (MySQL keeps a freed page until
/// it is evicted; MariaDB drops it when it flushes it).
fn churn_growth(c: &keylab_core::ChurnPhase, published: Option<u64>) -> String {
    let live = |s: &keylab_core::ShapeFigures| {
        Some(s.primary_leaf_pages.value()? + s.primary_nonleaf_pages.value()?)
    };
    let (before, after) = (live(&c.before), live(&c.after));
    let grown = |a: Option<u64>| Some(a? as i64 - before? as i64);
    let show = |v: Option<i64>| v.map_or("n/a".to_string(), |v| format!("{v:+}"));
    let pool = after.zip(c.after.primary_freed_pages_in_pool.value()).map(|(a, f)| a + f);
    let theirs = match published {
        Some(p) => format!(" vs published +{}", group_thousands(p)),
        None => String::new(),
    };
    format!(
        "PRIMARY pages gained during the churn: {} live (leaf and non-leaf), {} in the buffer \
         pool counted as the author did (live plus freed pages still buffered){theirs}",
        show(grown(after)),
        show(grown(pool)),
    )
}

/// A phase that ran (older results have no status).
fn ok(p: &PhaseResult) -> bool {
    p.status().is_none_or(|s| s == PhaseStatus::Ok)
}

/// "what keylab N vs published M (+x.x %)", with "n/a" for a figure that is missing.
fn pair(what: &str, ours: Option<u64>, theirs: Option<u64>) -> String {
    let show = |v: Option<u64>| v.map_or("n/a".to_string(), group_thousands);
    let diff = match (ours, theirs) {
        (Some(a), Some(b)) if b > 0 => {
            format!(" ({:+.1} %)", (a as f64 - b as f64) / b as f64 * 100.0)
        }
        _ => String::new(),
    };
    // No published figure: keylab's alone (the write-up's table gives none at this fill factor).
    let Some(theirs) = theirs else { return format!("{what} {}", show(ours)) };
    format!("{what} {} vs published {}{diff}", show(ours), show(Some(theirs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(kind: &str, figures: serde_json::Value) -> PhaseResult {
        let serde_json::Value::Object(mut figures) = figures else { panic!() };
        figures.insert("kind".into(), kind.into());
        serde_json::from_value(serde_json::Value::Object(figures)).unwrap()
    }

    #[test]
    fn keylab_figures_stand_beside_the_authors() {
        let mut run = crate::test_run(serde_json::json!({}));
        run.phases = vec![
            phase("settings", serde_json::json!({"cell_fill_factor": "75"})),
            phase("load", serde_json::json!({"status": "ok", "rows": 1_000_000})),
            phase(
                "rebuild",
                serde_json::json!({"status": "ok", "primary_leaf_pages_after": 7_960,
                    "primary_nonleaf_pages_after": 40}),
            ),
            phase(
                "churn",
                serde_json::json!({"status": "ok", "inserts_per_round": 10_000, "page_splits": 1_200,
                    "merge_attempts": 4_000, "merges": null,
                    "primary_leaf_pages_before": 7_960, "primary_nonleaf_pages_before": 40,
                    "primary_leaf_pages_after": 7_990, "primary_nonleaf_pages_after": 40,
                    "primary_freed_pages_in_pool_after": 100}),
            ),
        ];
        let lines = published_comparison("e5-fill-factor-churn", std::slice::from_ref(&run));
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            "E5 at fill factor 75: page splits 1,200 vs published 1,172 (+2.4 %); merge attempts \
             4,000 vs published 4,072 (-1.8 %); merges n/a vs published 1,133; PRIMARY pages \
             (leaf and non-leaf) after the rebuild 8,000 vs published 8,095 (-1.2 %); PRIMARY \
             pages gained during the churn: +30 live (leaf and non-leaf), +130 in the buffer pool \
             counted as the author did (live plus freed pages still buffered) vs published +180."
        );
        assert!(published_comparison("e1-uuid-vs-ulid", std::slice::from_ref(&run)).is_empty());
        // Another scale: nothing to compare with.
        run.phases[1] = phase("load", serde_json::json!({"status": "ok", "rows": 10_000}));
        assert!(published_comparison("e5-fill-factor-churn", &[run]).is_empty());
    }
}
