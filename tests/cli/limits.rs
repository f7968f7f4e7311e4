//! Tables MariaDB refuses at `CREATE TABLE` (or changes silently) are a usage error (exit 2)
//! on every engine before anything runs, naming file:line:column or the flag and the limit.

use crate::util::{Dir, Run};

/// A scenario of one table `t` (id of `variant`, typed by `id`), the given columns (one per
/// line from line 7) and `indexes`, loaded with 10 rows on the simulator.
fn run_table(d: &Dir, variant: &str, id: &str, columns: &[&str], indexes: &str) -> Run {
    let src = format!(
        "name = \"limits\"\nvariants = [\"{variant}\"]\n[[tables]]\nname = \"t\"\nid = {{ name = \"id\"{id} }}\n\
         columns = [\n{}\n]\nindexes = [{indexes}]\n[[phases]]\nload = {{ rows = 10 }}\n",
        columns.join("\n")
    );
    std::fs::write(d.path("bad.toml"), src).unwrap();
    d.keylab(&["run", "bad.toml", "--format", "json"])
}

#[track_caller]
fn assert_mentions(run: &Run, parts: &[&str]) {
    for p in parts {
        assert!(run.stderr.contains(p), "stderr lacks {p:?}:\n{}", run.stderr);
    }
}

#[test]
fn payload_bytes_past_the_varchar_or_row_limit_is_a_usage_error() {
    let d = Dir::new();
    let run = d.keylab(&["compare", "--rows", "10", "--payload-bytes", "20000"]).expect_code(2);
    // Past the longest utf8mb4 VARCHAR, the flag's own range refuses it when parsed.
    assert_mentions(&run, &["--payload-bytes", "20000", "0..=16383"]);
    // 16383 characters fit a column, but not beside a varchar(36) id: 65,680 bytes.
    let args = ["compare", "--rows", "10", "--keys", "uuid4:text", "--payload-bytes", "16383"];
    let run = d.keylab(&args).expect_code(2);
    assert_mentions(&run, &["--payload-bytes 16383", "65680 bytes", "65535-byte row limit"]);
    d.keylab(&["compare", "--rows", "10", "--keys", "uuid4:text", "--payload-bytes", "16340"])
        .expect_code(0);
}

#[test]
fn a_varchar_longer_than_its_charset_allows_is_a_usage_error() {
    let d = Dir::new();
    let col = r#"  { name = "v", type = "varchar(65535)", gen = { fixed = "x" } },"#;
    let run = run_table(&d, "auto-inc", "", &[col], "").expect_code(2);
    assert_mentions(&run, &["bad.toml:7:24:", "column `v`", "error 1074", "at most 16383"]);
    let col =
        r#"  { name = "v", type = "varchar(65520)", charset = "latin1", gen = { fixed = "x" } },"#;
    run_table(&d, "auto-inc", "", &[col], "").expect_code(0);
}

#[test]
fn a_primary_key_past_3072_bytes_is_a_usage_error() {
    let d = Dir::new();
    let run = run_table(&d, "uuid4:text", r#", type = "varchar(1000)""#, &[], "").expect_code(2);
    assert_mentions(&run, &["bad.toml:5:28:", "primary key `PRIMARY` takes 4000 bytes", "3072"]);
    run_table(&d, "uuid4:text", r#", type = "varchar(768)""#, &[], "").expect_code(0);
}

#[test]
fn a_secondary_index_the_server_shortens_to_a_prefix_is_modelled_and_noted() {
    let d = Dir::new();
    let col = r#"  { name = "v", type = "varchar(2000)", gen = { ascii = [800, 1200] } },"#;
    // Before: the simulator refused the 8000-byte index record the server never builds.
    let run =
        run_table(&d, "auto-inc", "", &[col], r#"{ name = "kv", columns = ["v"] }"#).expect_code(0);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let notes = json["engine"]["settings"]["notes"].to_string();
    assert!(
        notes.contains("index `kv` is a prefix index on the first 768 characters of `v`"),
        "{notes}"
    );
    // A unique key is not shortened (MariaDB would build a hash index): refused.
    let run =
        run_table(&d, "auto-inc", "", &[col], r#"{ name = "kv", columns = ["v"], unique = true }"#)
            .expect_code(2);
    assert_mentions(&run, &["bad.toml:9:", "key `kv` takes 8000 bytes", "hash index"]);
}

#[test]
fn a_fixed_latin1_value_is_stored_in_latin1_and_an_unrepresentable_one_is_refused() {
    let d = Dir::new();
    // One character each in latin1 (é is 0xE9, € 0x80): the simulator stores 1 byte per
    // character, as the server does (live: `latin1_values_are_stored_as_latin1_by_every_method`).
    let cols = [
        r#"  { name = "c", type = "char(1)", charset = "latin1", gen = { fixed = "é" } },"#,
        r#"  { name = "v", type = "varchar(3)", charset = "latin1", gen = { fixed = "€éü" } },"#,
    ];
    run_table(&d, "auto-inc", "", &cols, "").expect_code(0);
    let col =
        r#"  { name = "v", type = "varchar(3)", charset = "latin1", gen = { fixed = "a✓" } },"#;
    let run = run_table(&d, "auto-inc", "", &[col], "").expect_code(2);
    assert_mentions(&run, &["bad.toml:7:", "column `v`", "`✓` (U+2713)", "character set latin1"]);
}
