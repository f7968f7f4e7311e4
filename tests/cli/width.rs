//! The table format fits the terminal: with `COLUMNS` set (here, piped), no line of `compare`
//! with four variants or of `advise` with six candidates is longer than the width; without it
//! (a pipe, a file), tables keep the width of their figures. Every reading opens with a
//! verdict of at most three lines.

use crate::util::Dir;

const ORDERS: &str = include_str!("../fixtures/advise/orders.sql");

/// Lines of `text` longer than `width` characters.
fn too_long(text: &str, width: usize) -> Vec<String> {
    text.lines().filter(|l| l.chars().count() > width).map(str::to_string).collect()
}

/// The verdict's lines: the bullets between `Verdict:` and the next blank line.
fn verdict(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines().skip_while(|l| *l != "Verdict:").skip(1) {
        if line.is_empty() {
            break;
        }
        if let Some(b) = line.strip_prefix("* ") {
            lines.push(b.to_string());
        }
    }
    lines
}

#[test]
fn compare_with_four_variants_fits_80_and_120_columns() {
    let dir = Dir::new();
    let args = ["compare", "--keys", "auto-inc,uuid4:bin,uuid7:bin,ulid:text", "--rows", "20000"];
    let wide = dir.keylab(&args).expect_code(0).stdout;
    assert!(!too_long(&wide, 120).is_empty(), "the test needs a table wider than 120 columns");
    for width in [80, 120] {
        let out = dir.keylab_env(&args, &[("COLUMNS", &width.to_string())]).expect_code(0).stdout;
        let long = too_long(&out, width);
        assert!(
            long.is_empty(),
            "COLUMNS={width}: {} lines too long:\n{}",
            long.len(),
            long.join("\n")
        );
        for variant in ["auto-inc", "uuid4:bin", "uuid7:bin", "ulid:text"] {
            assert!(out.contains(variant), "COLUMNS={width}: {variant} missing:\n{out}");
        }
        let v = verdict(&out);
        assert!((1..=3).contains(&v.len()), "COLUMNS={width}: verdict {v:?}");
    }
}

#[test]
fn advise_with_six_candidates_fits_80_and_120_columns() {
    let dir = Dir::new();
    std::fs::write(dir.path("orders.sql"), ORDERS).unwrap();
    let args = ["advise", "orders.sql", "--rows", "3000"];
    for width in [80, 120] {
        let out = dir.keylab_env(&args, &[("COLUMNS", &width.to_string())]).expect_code(0).stdout;
        let long = too_long(&out, width);
        assert!(
            long.is_empty(),
            "COLUMNS={width}: {} lines too long:\n{}",
            long.len(),
            long.join("\n")
        );
        for candidate in ["current", "auto-inc", "uuid4:bin", "uuid7:bin", "ulid:bin", "snowflake"]
        {
            assert!(out.contains(candidate), "COLUMNS={width}: {candidate} missing:\n{out}");
        }
        let v = verdict(&out);
        assert!((1..=3).contains(&v.len()), "COLUMNS={width}: verdict {v:?}");
        assert!(v[0].contains("fewer bytes than the current key"), "{v:?}");
    }
}

#[test]
fn a_bad_columns_value_is_ignored_and_a_tiny_one_raised() {
    let dir = Dir::new();
    let args = ["compare", "--keys", "uuid4:bin,uuid7:bin", "--rows", "5000"];
    let plain = dir.keylab(&args).expect_code(0).stdout;
    let junk = dir.keylab_env(&args, &[("COLUMNS", "wide")]).expect_code(0).stdout;
    assert_eq!(plain, junk);
    let tiny = dir.keylab_env(&args, &[("COLUMNS", "10")]).expect_code(0).stdout;
    assert!(too_long(&tiny, 40).is_empty(), "{tiny}");
}

/// The built-ins not run elsewhere on the simulator open their reading with a verdict too
/// (`scenarios.rs` checks the others' through `run_builtin`).
#[test]
fn shards_hotspot_opens_with_a_verdict() {
    let dir = Dir::new();
    let out = dir.keylab(&["run", "shards-hotspot", "--scale", "0.002"]).expect_code(0).stdout;
    let v = verdict(&out);
    assert!((1..=3).contains(&v.len()), "{v:?}\n{out}");
}
