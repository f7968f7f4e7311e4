//! The reading says only what the figures show.

use keylab_report::{load_report, reading, Report};
use std::path::PathBuf;

fn fixture(name: &str) -> Report {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.json"));
    load_report(path).unwrap()
}

fn text(report: &Report) -> String {
    reading(report).join("\n")
}

#[test]
fn e1_like_compare_explains_order_and_size() {
    let t = text(&fixture("sim_compare_4"));
    // The provenance closes the reading ("about these figures"), after the figures.
    assert!(t.contains("These figures are simulated"), "{t}");
    assert!(
        t.contains("auto-inc uses 2.7x fewer PRIMARY pages than uuid4:text (225 vs 612)"),
        "{t}"
    );
    assert!(t.contains("its keys arrive in index order"), "{t}");
    assert!(t.contains("uuid7:text and uuid4:text have keys of the same length (36 bytes)"), "{t}");
    assert!(t.contains("comes from record size: 8-byte vs 36-byte keys"), "{t}");
}

#[test]
fn ordered_keys_are_not_called_ordered_when_the_fill_says_otherwise() {
    // uuid7 generated with random bits inside a millisecond fills like a random key.
    let mut report = fixture("sim_compare_4");
    report.runs.retain(|r| r.variant == "uuid7:text" || r.variant == "auto-inc");
    report.runs[1].indexes[0].fill_pct = Some(66.0);
    let t = text(&report);
    assert!(!t.contains("arrive in index order"), "{t}");
    assert!(t.contains("its leaf pages are 91.0% full against 66.0%"), "{t}");
}

#[test]
fn random_keys_are_not_called_random_when_the_fill_is_high() {
    // A random-key index just rebuilt by a sorted build is full.
    let mut report = fixture("sim_compare_4");
    report.runs.retain(|r| r.variant == "uuid4:text" || r.variant == "ulid:text");
    report.runs[0].indexes[0].fill_pct = Some(93.0);
    let t = text(&report);
    assert!(!t.contains("random keys"), "{t}");
}

#[test]
fn server_figures_are_measured() {
    let t = text(&fixture("server_load"));
    assert!(t.contains("Figures measured on mariadb 10.11.6-MariaDB."), "{t}");
    assert!(
        t.contains("auto-inc loaded fastest, 20,325 rows/s, 1.9x the rate of uuid4:bin"),
        "{t}"
    );
    assert!(!t.contains("simulated"), "{t}");
}

#[test]
fn runs_of_different_sizes_compare_per_thousand_rows() {
    let mut report = fixture("sim_compare_4");
    report.runs.truncate(2);
    report.runs[1].rows = 300_000;
    let t = text(&report);
    assert!(t.contains("PRIMARY pages per 1000 rows"), "{t}");
}

#[test]
fn equal_pages_say_so() {
    let mut report = fixture("sim_compare_4");
    report.runs.truncate(2);
    report.runs[1].indexes[0].size_pages = Some(226);
    let t = text(&report);
    assert!(t.contains("use about the same number of PRIMARY pages (225–226)"), "{t}");
}

#[test]
fn unknown_variants_get_no_key_size_claims() {
    let mut report = fixture("sim_compare_4");
    for r in &mut report.runs {
        r.strategy = "custom".into();
        r.encoding = "blob".into();
    }
    let t = text(&report);
    assert!(!t.contains("-byte"), "{t}");
    assert!(!t.contains("arrive in index order"), "{t}");
}

#[test]
fn missing_figures_are_named_not_guessed() {
    let t = text(&fixture("null_heavy"));
    assert!(t.contains("does not report page splits and leaf fill"), "{t}");
    assert!(t.contains("With the id as the primary key:"), "{t}");
    assert!(t.contains("With the id in a secondary index:"), "{t}");
    assert!(!t.contains("15/16"), "{t}");
}

#[test]
fn secondary_index_fill_is_not_called_fifteen_sixteenths() {
    let t = text(&fixture("single_variant"));
    assert!(t.contains("289 k_id pages for 100,000 rows"), "{t}");
    assert!(!t.contains("15/16"), "{t}");
}
