//! The reading's sentences on what one matrix setting changes when everything else is equal:
//! for runs of the same variant and placement whose matrix cells differ in one coordinate
//! only, the ratio of the device model's I/O time estimates (E4: change buffer on against off,
//! 4k against 16k pages, on the HDD and SSD models).
//!
//! The estimates are keylab's device model applied to simulated page reads and writes, and the
//! sentences say so. Runs without estimates (servers, the simulator without a pool) say nothing
//! here. For E4 it also sets keylab's change-buffer gain at 4k pages beside the published one
//! ([`published_comparison`]), labelled as the author's figure, never as a model output.

use crate::labels::{cell, show_dim, TableNames};
use crate::text::{decimal, times};
use keylab_core::{PhaseResult, RunResult};

/// One sentence per matrix coordinate whose effect the estimates show.
pub(crate) fn setting_effects(runs: &[RunResult]) -> Vec<String> {
    let cells: Vec<Vec<(String, String)>> = runs.iter().map(cell).collect();
    let tables = TableNames::new(runs);
    let mut dims: Vec<&str> = Vec::new();
    for c in &cells {
        for (d, _) in c {
            if !dims.contains(&d.as_str()) {
                dims.push(d);
            }
        }
    }
    let mut out = Vec::new();
    for dim in dims {
        let value = |i: usize| cells[i].iter().find(|(d, _)| d == dim).map(|(_, v)| v.as_str());
        let others = |i: usize| -> Vec<&(String, String)> {
            cells[i].iter().filter(|(d, _)| d != dim).collect()
        };
        // The first value seen is the baseline; each other run is compared with its twin.
        let Some(base) = (0..runs.len()).find_map(value) else { continue };
        let mut parts = Vec::new();
        let mut against = None;
        for i in (0..runs.len()).filter(|&i| value(i) == Some(base)) {
            let twin = (0..runs.len()).find(|&j| {
                value(j).is_some_and(|v| v != base)
                    && runs[j].variant == runs[i].variant
                    && runs[j].placement == runs[i].placement
                    && others(j) == others(i)
            });
            let Some(j) = twin else { continue };
            let (Some(a), Some(b)) = (estimates(&runs[i]), estimates(&runs[j])) else {
                continue;
            };
            if a.0 <= 0.0 || a.1 <= 0.0 || a.2 != b.2 {
                continue;
            }
            let context: Vec<String> = others(i)
                .iter()
                .filter(|(d, v)| varies(&cells, d, v))
                .map(|(d, v)| show_dim(d, v, &tables))
                .collect();
            let with = if context.is_empty() {
                String::new()
            } else {
                format!(" with {}", context.join(", "))
            };
            parts.push(format!(
                "{} on HDD and {} on SSD{with}",
                times(b.0 / a.0),
                times(b.1 / a.1)
            ));
            against.get_or_insert_with(|| {
                (show_dim(dim, value(j).unwrap_or(""), &tables), show_dim(dim, base, &tables), a.2)
            });
        }
        if let (Some((other, base, span)), false) = (against, parts.is_empty()) {
            out.push(format!(
                "Estimated I/O time of {span} (keylab's device model applied to the simulated \
                 page reads and writes, not a measurement), {other} against {base}: {}.",
                parts.join("; ")
            ));
        }
    }
    out
}

/// E4's published change-buffer gain with 4 KiB pages (TPS with the change buffer on against
/// off; MySQL 5.6, sysbench, 64 threads): the author's measurement, shown beside keylab's
/// estimate, never used to compute or tune one.
const E4_PUBLISHED_GAIN_4K: f64 = 2.9;

/// E4's published change-buffer share of all page I/O at 16 KiB and 4 KiB pages, percent:
/// the author's measurement, shown beside keylab's, never used to compute one.
const E4_PUBLISHED_IO_SHARE_PCT: [(&str, f64); 2] = [("16k", 20.6), ("4k", 40.4)];

/// For E4 (`scenario`), keylab's change-buffer gain at 4k pages (estimated I/O time with the
/// change buffer off against on) beside the published one, and in one sentence why keylab's
/// differs. Nothing for other scenarios, or without a 4k on/off pair with estimates.
pub(crate) fn published_comparison(scenario: &str, runs: &[RunResult]) -> Vec<String> {
    if scenario != "e4-change-buffer" {
        return Vec::new();
    }
    let cells: Vec<Vec<(String, String)>> = runs.iter().map(cell).collect();
    let get = |i: usize, dim: &str| {
        cells[i].iter().find(|(d, _)| d == dim).map(|(_, v)| v.as_str()).unwrap_or("")
    };
    let at_4k = |cb: &str| {
        (0..runs.len()).find(|&i| get(i, "page_size") == "4k" && get(i, "change_buffering") == cb)
    };
    let mut out = io_share(runs, &cells);
    let (Some(on), Some(off)) = (at_4k("on"), at_4k("off")) else { return out };
    let (Some(a), Some(b)) = (estimates(&runs[on]), estimates(&runs[off])) else {
        return out;
    };
    if a.0 <= 0.0 || a.1 <= 0.0 || a.2 != b.2 {
        return out;
    }
    let (hdd, ssd) = (b.0 / a.0, b.1 / a.1);
    out.push(format!(
        "Change buffer gain with 4k pages: keylab's estimate {} on HDD and {} on SSD (estimated \
         I/O time of {} with the change buffer off against on, from the InnoDB rules keylab \
         models); the published figure is {} (the E4 author's measurement of transactions per \
         second on MySQL 5.6, not a keylab output).",
        times(hdd),
        times(ssd),
        a.2,
        times(E4_PUBLISHED_GAIN_4K)
    ));
    if hdd.max(ssd) < E4_PUBLISHED_GAIN_4K {
        out.push(
            "keylab's gain is smaller: it follows MariaDB 10.11, where the change buffer holds \
             at most 25% of the buffer pool's pages, a leaf takes buffered inserts only up to \
             the free space its bitmap entry promises, a purge is buffered only while the \
             page's buffered operations leave it two records, and buffered changes are merged \
             when their leaf is read, never in the background (MariaDB 10.5 removed the master \
             thread's ibuf_merge_in_background, MDEV-19514, which the author's MySQL 5.6 runs \
             every second from srv_master_do_active_tasks; MariaDB 11.0 removed the change \
             buffer altogether, MDEV-29694), so with 4k pages, whose rows spread over four \
             times as many leaves, each leaf read from storage saves fewer buffered changes."
                .into(),
        );
    }
    out
}

/// E4: the change buffer's share of all page I/O with buffering on, per page size, in the
/// last phase after the load that has it, beside the published shares; and its largest size
/// against its cap.
fn io_share(runs: &[RunResult], cells: &[Vec<(String, String)>]) -> Vec<String> {
    let get = |i: usize, dim: &str| {
        cells[i].iter().find(|(d, _)| d == dim).map(|(_, v)| v.clone()).unwrap_or_default()
    };
    let last_share = |run: &RunResult| {
        let steps = run.phases.iter().filter_map(|p| match p {
            PhaseResult::Churn(c) => Some(&c.pool),
            PhaseResult::Rebuild(r) => Some(&r.pool),
            _ => None,
        });
        steps.filter_map(|pool| pool.change_buffer_io_share_pct.value()).next_back()
    };
    let mut parts = Vec::new();
    let mut sizes = Vec::new();
    for (size, published) in E4_PUBLISHED_IO_SHARE_PCT {
        let Some(i) = (0..runs.len())
            .find(|&i| get(i, "page_size") == size && get(i, "change_buffering") == "on")
        else {
            continue;
        };
        if let Some(share) = last_share(&runs[i]) {
            parts.push(format!(
                "{} % at {size} (published {} %)",
                decimal(share, 1),
                decimal(published, 1)
            ));
        }
        let cb = runs[i].buffer_pool.as_ref().and_then(|b| b.change_buffer.clone());
        if let Some((most, cap)) = cb.and_then(|c| Some((c.max_size_pages?, c.cap_pages?))) {
            sizes.push(format!("{most} of {cap} pages at {size}"));
        }
    }
    let mut out = Vec::new();
    if !parts.is_empty() {
        out.push(format!(
            "Change buffer share of all page I/O with buffering on, in the churn: {} (the \
             published figures are the E4 author's measurements on MySQL 5.6, not keylab \
             outputs; keylab counts the change buffer's own page writes against all page reads \
             and writes).",
            parts.join(", ")
        ));
    }
    if !sizes.is_empty() {
        out.push(format!(
            "The change buffer held at most {} (its cap is 25 % of the buffer pool; the \
             published run reached its cap, about 255 MB).",
            sizes.join(", ")
        ));
    }
    out
}

/// The HDD and SSD estimates of a run, seconds, and what they cover: the last phase after
/// the load that has them (E4's steady-state churn, as the published runs measured a loaded
/// table), else the whole run.
fn estimates(run: &RunResult) -> Option<(f64, f64, String)> {
    let steps = run.phases.iter().filter(|p| !matches!(p, PhaseResult::Settings(_))).enumerate();
    let phase =
        steps.filter(|(_, p)| !matches!(p, PhaseResult::Load(_))).last().and_then(|(i, p)| {
            let pool = match p {
                PhaseResult::Churn(c) => &c.pool,
                PhaseResult::Rebuild(r) => &r.pool,
                _ => return None,
            };
            let (hdd, ssd) = (pool.est_io_s_hdd.value()?, pool.est_io_s_ssd.value()?);
            Some((hdd, ssd, format!("phase {} ({})", i + 1, p.kind_name())))
        });
    phase.or_else(|| {
        let pool = run.buffer_pool.as_ref()?;
        Some((pool.est_io_s_hdd?, pool.est_io_s_ssd?, "the whole run".to_string()))
    })
}

/// Whether `dim` takes more than one value across the report (only those are worth naming).
fn varies(cells: &[Vec<(String, String)>], dim: &str, value: &str) -> bool {
    cells.iter().any(|c| c.iter().any(|(d, v)| d == dim && v != value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(page: &str, cb: &str, churn_hdd: f64, churn_ssd: f64) -> RunResult {
        crate::test_run(json!({
            "phases": [
                {"kind": "settings", "cell_page_size": page, "cell_change_buffering": cb},
                {"kind": "load", "est_io_s_hdd": 1000.0, "est_io_s_ssd": 1000.0},
                {"kind": "churn", "est_io_s_hdd": churn_hdd, "est_io_s_ssd": churn_ssd}
            ]
        }))
    }

    #[test]
    fn each_setting_is_compared_with_its_twin_on_the_phase_after_the_load() {
        let runs = [
            run("16k", "on", 100.0, 10.0),
            run("16k", "off", 240.0, 24.0),
            run("4k", "on", 150.0, 8.0),
            run("4k", "off", 300.0, 16.0),
        ];
        let s = setting_effects(&runs);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(
            s[0].ends_with(
                "4k pages against 16k pages: 1.5x on HDD and 0.80x on SSD with change buffer on; \
             1.2x on HDD and 0.67x on SSD with change buffer off."
            ),
            "{}",
            s[0]
        );
        assert!(s[1].starts_with("Estimated I/O time of phase 2 (churn)"), "{}", s[1]);
        assert!(
            s[1].ends_with(
                "change buffer off against change buffer on: 2.4x on HDD and 2.4x on SSD with 16k \
             pages; 2.0x on HDD and 2.0x on SSD with 4k pages."
            ),
            "{}",
            s[1]
        );
    }

    #[test]
    fn e4_sets_its_4k_gain_beside_the_published_one() {
        let runs = [
            run("16k", "on", 100.0, 10.0),
            run("16k", "off", 240.0, 24.0),
            run("4k", "on", 150.0, 8.0),
            run("4k", "off", 300.0, 16.0),
        ];
        assert!(published_comparison("compare", &runs).is_empty());
        let s = published_comparison("e4-change-buffer", &runs);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(
            s[0].starts_with(
                "Change buffer gain with 4k pages: keylab's estimate 2.0x on HDD and 2.0x on SSD"
            ),
            "{}",
            s[0]
        );
        assert!(s[0].contains("the published figure is 2.9x (the E4 author's"), "{}", s[0]);
        assert!(s[1].starts_with("keylab's gain is smaller: it follows MariaDB 10.11"), "{}", s[1]);
        assert_eq!(s[1].matches(". ").count(), 0, "one sentence: {}", s[1]);
    }

    #[test]
    fn runs_without_estimates_say_nothing() {
        let mut a = run("16k", "on", 1.0, 1.0);
        let mut b = run("16k", "off", 2.0, 2.0);
        a.phases.truncate(1);
        b.phases.truncate(1);
        assert!(setting_effects(&[a, b]).is_empty());
    }
}
