//! `keylab keys`, help text and exit codes.

use crate::util::Dir;

#[test]
fn keys_prints_one_id_per_line() {
    let run = Dir::new().keylab(&["keys", "uuid7", "--count", "5"]).expect_code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 5);
    for l in &lines {
        assert_eq!(l.len(), 36, "{l}");
        assert_eq!(&l[14..15], "7", "version nibble of {l}");
    }
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(sorted, lines, "uuid7 text ascends");
}

#[test]
fn keys_binary_as_hex_and_integers_in_decimal() {
    let d = Dir::new();
    let bin = d.keylab(&["keys", "uuid4:bin", "--count", "3"]).expect_code(0);
    for l in bin.stdout.lines() {
        assert_eq!(l.len(), 32);
        assert!(l.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{l}");
    }
    let seq = d.keylab(&["keys", "seq", "--count", "3"]).expect_code(0);
    assert_eq!(seq.stdout, "1\n2\n3\n");
}

#[test]
fn keys_are_reproducible_by_seed() {
    let d = Dir::new();
    let a = d.keylab(&["keys", "uuid4", "--count", "4", "--seed", "7"]).expect_code(0);
    let b = d.keylab(&["keys", "uuid4", "--count", "4", "--seed", "7"]).expect_code(0);
    let c = d.keylab(&["keys", "uuid4", "--count", "4", "--seed", "8"]).expect_code(0);
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn unknown_variant_exits_2_with_the_choices() {
    let run = Dir::new().keylab(&["keys", "uuid9"]).expect_code(2);
    assert!(run.stderr.contains("uuid9"), "{}", run.stderr);
    assert!(run.stderr.contains("uuid7") && run.stderr.contains("ulid"), "{}", run.stderr);
}

#[test]
fn unsupported_encoding_exits_2_with_the_valid_encodings() {
    let run = Dir::new().keylab(&["keys", "uuid4:bigint"]).expect_code(2);
    assert!(run.stderr.contains("bin"), "{}", run.stderr);
    let run = Dir::new().keylab(&["keys", "uuid4:bin-swap"]).expect_code(2);
    assert!(run.stderr.contains("text"), "{}", run.stderr);
}

#[test]
fn bad_flag_values_exit_2() {
    let d = Dir::new();
    d.keylab(&["keys", "ulid", "--within-ms", "sideways"]).expect_code(2);
    d.keylab(&["keys", "ulid", "--ids-per-ms", "0"]).expect_code(2);
    d.keylab(&["compare", "--page-size", "3k"]).expect_code(2);
    d.keylab(&["compare", "--engine", "oracle"]).expect_code(2);
    d.keylab(&["compare", "--method", "carrier-pigeon"]).expect_code(2);
    d.keylab(&["compare", "--placement", "sideways"]).expect_code(2);
    d.keylab(&["compare", "--format", "pdf"]).expect_code(2);
    d.keylab(&["nonsense"]).expect_code(2);
}

#[test]
fn help_is_available_on_every_command() {
    let d = Dir::new();
    let top = d.keylab(&["--help"]).expect_code(0);
    for cmd in ["compare", "run", "scenarios", "keys", "validate", "inspect", "report"] {
        assert!(top.stdout.contains(cmd), "top-level help lists {cmd}");
        let run = d.keylab(&[cmd, "--help"]).expect_code(0);
        assert!(run.stdout.contains("Usage:"), "{cmd} --help");
    }
    let compare = d.keylab(&["compare", "--help"]).expect_code(0);
    for flag in [
        "--engine",
        "--keys",
        "--rows",
        "--placement",
        "--page-size",
        "--method",
        "--batch",
        "--writers",
        "--seed",
        "--ids-per-ms",
        "--within-ms",
        "--clock",
        "--format",
        "--export-json",
        "--export-csv",
        "--export-markdown",
        "--export-html",
        "--keys-file",
        "--url",
        "--payload-bytes",
    ] {
        assert!(compare.stdout.contains(flag), "compare --help mentions {flag}");
    }
}
