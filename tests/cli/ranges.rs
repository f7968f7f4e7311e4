//! Scenarios whose generators would make a value their column cannot hold: a usage error
//! (exit 2) before anything runs, on every engine, naming file:line:column, the column, the
//! first row that breaks it and the valid range. (The server side, times before 1970 and
//! after 2038 loading and reading back equal, is in `server.rs`.)

use crate::util::{Dir, Run};

/// A scenario of one table `t` with the given columns (one per line, starting at line 6) and
/// a load of `rows`, written to `bad.toml` and run on the simulator with `extra` flags.
fn run_columns(d: &Dir, columns: &[&str], rows: u64, extra: &[&str]) -> Run {
    let src = format!(
        "name = \"ranges\"\nvariants = [\"auto-inc\"]\n[[tables]]\nname = \"t\"\ncolumns = [\n{}\n]\n\
         [[phases]]\nload = {{ rows = {rows} }}\n",
        columns.join("\n")
    );
    std::fs::write(d.path("bad.toml"), src).unwrap();
    let mut args = vec!["run", "bad.toml", "--format", "json"];
    args.extend_from_slice(extra);
    d.keylab(&args)
}

#[track_caller]
fn assert_mentions(run: &Run, parts: &[&str]) {
    for p in parts {
        assert!(run.stderr.contains(p), "stderr lacks {p:?}:\n{}", run.stderr);
    }
}

#[test]
fn a_date_stepping_past_9999_is_a_usage_error_unless_scaled_down() {
    let d = Dir::new();
    let col = r#"  { name = "d", type = "date", gen = { timestamp = { step_s = 86_400 } } },"#;
    let run = run_columns(&d, &[col], 3_600_000, &[]).expect_code(2);
    // 2025-01-01 + 2,912,808 days is 10000-01-01: 1-based row 2,912,809.
    assert_mentions(
        &run,
        &[
            "bad.toml:6:38:",
            "column `d` (date)",
            "row 2912809 of the 3600000 rows",
            "valid: 1000-01-01 to 9999-12-31",
        ],
    );
    // --scale 0.01 leaves 36,000 days: up to 2123, a valid date.
    run_columns(&d, &[col], 3_600_000, &["--scale", "0.01"]).expect_code(0);
    // The same from a server engine: refused before any server starts.
    let run = run_columns(
        &d,
        &[col],
        3_600_000,
        &["--engine", "mariadb", "--url", "mysql://u@127.0.0.1:1/k"],
    )
    .expect_code(2);
    assert_mentions(&run, &["bad.toml:6:38:", "column `d`"]);
}

#[test]
fn an_int_fed_a_seq_past_its_maximum_is_a_usage_error() {
    let d = Dir::new();
    let col = r#"  { name = "n", type = "int", gen = { seq = 2_147_483_000 } },"#;
    let run = run_columns(&d, &[col], 1000, &[]).expect_code(2);
    // 2,147,483,000 + 648 = 2^31: the 649th row.
    assert_mentions(
        &run,
        &[
            "bad.toml:6:37:",
            "column `n` (int) cannot hold 2147483648",
            "row 649 of the 1000 rows",
            "valid: -2147483648 to 2147483647",
        ],
    );
    run_columns(&d, &[col], 648, &[]).expect_code(0);
}

#[test]
fn a_decimal_fed_more_digits_than_it_holds_is_a_usage_error() {
    let d = Dir::new();
    let col = r#"  { name = "p", type = "decimal(5,2)", gen = { int = [0, 1000] } },"#;
    let run = run_columns(&d, &[col], 10, &[]).expect_code(2);
    assert_mentions(
        &run,
        &[
            "bad.toml:6:46:",
            "column `p` (decimal(5,2)) cannot hold 1000",
            "any row",
            "valid: -999 to 999",
        ],
    );
}

#[test]
fn text_longer_than_its_column_is_a_usage_error() {
    let d = Dir::new();
    let col = r#"  { name = "v", type = "varchar(5)", gen = { fixed = "abcdéf" } },"#;
    let run = run_columns(&d, &[col], 10, &[]).expect_code(2);
    assert_mentions(
        &run,
        &[
            "bad.toml:6:44:",
            "column `v` (varchar(5))",
            "(6 characters)",
            "valid: at most 5 characters",
        ],
    );
    let col = r#"  { name = "b", type = "binary(4)", gen = { ascii = [2, 8] } },"#;
    let run = run_columns(&d, &[col], 10, &[]).expect_code(2);
    assert_mentions(
        &run,
        &[
            "bad.toml:6:43:",
            "column `b` (binary(4))",
            "values of up to 8 bytes",
            "valid: at most 4 bytes",
        ],
    );
}

#[test]
fn timestamp_zero_and_past_2038_are_usage_errors() {
    let d = Dir::new();
    let col =
        r#"  { name = "ts", type = "timestamp", gen = { timestamp = { start_unix_s = 0 } } },"#;
    let run = run_columns(&d, &[col], 10, &[]).expect_code(2);
    assert_mentions(
        &run,
        &[
            "bad.toml:6:44:",
            "column `ts` (timestamp) cannot hold 1970-01-01 00:00:00",
            "at row 1;",
            "valid: 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC",
        ],
    );
    let col = r#"  { name = "ts", type = "timestamp", gen = { timestamp = { start_unix_s = 2_147_483_640 } } },"#;
    let run = run_columns(&d, &[col], 10, &[]).expect_code(2);
    assert_mentions(&run, &["cannot hold 2038-01-19 03:14:08", "row 9 of the 10 rows"]);
    // DATETIME holds the same times.
    let col = r#"  { name = "dt", type = "datetime", gen = { timestamp = { start_unix_s = 2_147_483_640 } } },"#;
    run_columns(&d, &[col], 10, &[]).expect_code(0);
}

#[test]
fn churn_inserts_count_towards_the_rows_checked() {
    let d = Dir::new();
    let src = "name = \"c\"\nvariants = [\"auto-inc\"]\n[[tables]]\nname = \"t\"\ncolumns = [\n  \
               { name = \"n\", type = \"int\", gen = { seq = 2_147_483_000 } },\n]\n\
               [[phases]]\nload = { rows = 600 }\n[[phases]]\n\
               churn = { rounds = 2, inserts = 30, deletes = 0 }\n";
    std::fs::write(d.path("c.toml"), src).unwrap();
    let run = d.keylab(&["run", "c.toml"]).expect_code(2);
    assert_mentions(&run, &["c.toml:6:37:", "row 649 of the 660 rows"]);
}
