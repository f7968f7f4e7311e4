//! Scenario results (real simulator runs of E1 and E5, and reports built from them): lists
//! never printed as JSON, labels from the matrix cell, wide reports split, phases the engine
//! cannot run shown once, and the charts of phase lists drawn only when there is data.

use keylab_report::{load_report, render_to_string, Format, MetricTable, RenderContext, Report};
use std::path::PathBuf;

fn fixture(name: &str) -> Report {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.json"));
    load_report(path).unwrap()
}

fn ctx() -> RenderContext {
    RenderContext { color: false, generated_at: None, ..Default::default() }
}

#[test]
fn lists_are_summarised_not_dumped() {
    for name in ["e1_scenario", "e5_scenario"] {
        for format in [Format::Table, Format::Markdown, Format::Csv] {
            let out = render_to_string(&fixture(name), format, &ctx());
            // CSV's header is one line of every column by design; its rows are one figure per
            // column (E5's, about a thousand characters with the load check and the engine.model column), far from a dumped list's.
            let widest = out.lines().skip(1).map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(widest < 1500, "{name} {format}: a line of {widest} characters");
            assert!(!out.contains("[{") && !out.contains("\"rows\""), "{name} {format}: JSON text");
        }
    }
    let table = render_to_string(&fixture("e5_scenario"), Format::Table, &ctx());
    assert!(table.contains("20 points"), "{table}");
    let table = render_to_string(&fixture("e1_scenario"), Format::Table, &ctx());
    assert!(table.contains("10 samples"), "{table}");
}

#[test]
fn csv_keeps_scalar_columns_only() {
    let csv = render_to_string(&fixture("e5_scenario"), Format::Csv, &ctx());
    let header = csv.lines().next().unwrap();
    let lists = [".per_round", ".samples", ".steps", ".first_batch_ms"];
    assert!(!header.split(',').any(|c| lists.iter().any(|l| c.ends_with(l))), "{header}");
    assert!(header.contains("phase4.churn.page_splits"), "{header}");
    assert_eq!(csv.lines().count(), 1 + fixture("e5_scenario").runs.len());
}

#[test]
fn columns_are_named_by_their_matrix_cell() {
    let e5 = MetricTable::from_report(&fixture("e5_scenario"));
    assert_eq!(e5.columns[0], "md5:text (ff 100)");
    assert_eq!(e5.columns[5], "md5:text (ff 75)");
    let e1 = MetricTable::from_report(&fixture("e1_scenario"));
    assert!(e1.columns.contains(&"ulid:text (pk, heavy)".to_string()), "{:?}", e1.columns);
    assert!(e1.columns.contains(&"uuid4:text (secondary, 6,000 rows)".to_string()));
    assert!(e1.columns.iter().all(|c| !c.contains('#')), "{:?}", e1.columns);
}

#[test]
fn not_applicable_phases_show_once_with_the_reason() {
    let table = render_to_string(&fixture("e5_scenario"), Format::Table, &ctx());
    assert_eq!(table.matches("n/a: online DDL needs a real server").count(), 1, "{table}");
    assert!(!table.contains("not_applicable"), "{table}");
    let md = render_to_string(&fixture("e5_scenario"), Format::Markdown, &ctx());
    assert_eq!(md.matches("n/a: online DDL needs a real server").count(), 1, "{md}");
}

/// E1 with its runs repeated four times: 40 runs.
fn wide() -> Report {
    let mut report = fixture("e1_scenario");
    let runs = report.runs.clone();
    for _ in 0..3 {
        report.runs.extend(runs.iter().cloned());
    }
    report.runs[39].counters.page_splits = Some(1);
    report
}

#[test]
fn wide_reports_are_split_with_ratios_over_all_runs() {
    let report = wide();
    let model = MetricTable::from_report(&report);
    let groups = model.column_groups();
    assert_eq!(groups.len(), 7);
    assert!(groups.iter().all(|g| g.len() <= keylab_report::MAX_COLUMNS && !g.is_empty()));
    assert_eq!(groups.iter().map(|g| g.len()).sum::<usize>(), 40);
    let table = render_to_string(&report, Format::Table, &ctx());
    assert!(table.contains("Runs 1–6 of 40") && table.contains("Runs 36–40 of 40"), "{table}");
    // The best page-split count is in the last group; the first group's ratios are to it.
    let first_part = &table[..table.find("Runs 7–12").unwrap()];
    let splits = first_part.lines().find(|l| l.contains("  page splits")).unwrap();
    assert!(!splits.contains("best") && splits.contains("×10.0 "), "{splits}");
    let last_part = &table[table.find("Runs 36–40").unwrap()..];
    let splits = last_part.lines().find(|l| l.contains("  page splits")).unwrap();
    assert!(splits.contains("best"), "{splits}");
    let widest = table.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest < 220, "{widest}");
    let md = render_to_string(&report, Format::Markdown, &ctx());
    assert_eq!(md.matches("### Runs ").count(), 7);
}

fn chart_titles(html: &str) -> Vec<&str> {
    html.split("aria-label=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]).collect()
}

#[test]
fn html_charts_phase_lists() {
    let e1 = render_to_string(&fixture("e1_scenario"), Format::Html, &ctx());
    let titles = chart_titles(&e1);
    assert!(titles.iter().any(|t| t.starts_with("Growth: pages allocated")), "{titles:?}");
    assert!(!titles.iter().any(|t| t.starts_with("Churn")), "no churn, no churn chart");
    let e5 = render_to_string(&fixture("e5_scenario"), Format::Html, &ctx());
    let titles = chart_titles(&e5);
    for want in [
        "PRIMARY leaf pages around churn",
        "Churn: splits and merges",
        "Churn: page splits per 10 rounds",
        "Churn: merges per 10 rounds",
    ] {
        assert!(titles.contains(&want), "{want} missing from {titles:?}");
    }
    assert!(!titles.iter().any(|t| t.starts_with("Growth")), "E5 takes no samples");
    // The simulator does not time loads: no throughput charts at all.
    assert!(!titles.iter().any(|t| t.contains("throughput")), "{titles:?}");
}

#[test]
fn html_charts_load_against_writers_and_batch_size_when_timed() {
    let mut report = fixture("server_load");
    let base = report.runs.clone();
    report.runs.clear();
    for (i, writers) in [1u32, 2, 4, 8].into_iter().enumerate() {
        for run in &base {
            let mut r = run.clone();
            r.load.writers = writers;
            r.load.rows_per_s = r.load.rows_per_s.map(|v| v * (1.0 + i as f64 * 0.5));
            report.runs.push(r);
        }
    }
    let html = render_to_string(&report, Format::Html, &ctx());
    let titles = chart_titles(&html);
    assert!(titles.contains(&"Load throughput vs writers"), "{titles:?}");
    assert!(titles.contains(&"Batch latency p99 vs writers"), "{titles:?}");
    assert!(!titles.contains(&"Load throughput vs batch size"), "batch does not vary");
}
