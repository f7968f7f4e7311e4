//! `keylab compare` on the simulator, end to end.

use crate::util::{json, Dir};

#[test]
fn compare_json_follows_the_result_format() {
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--rows",
            "20000",
            "--keys",
            "auto-inc,uuid4:text",
            "--format",
            "json",
        ])
        .expect_code(0);
    let v = json(&run.stdout);
    assert_eq!(v["engine"]["kind"], "sim");
    assert_eq!(v["seed"], 1);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        assert_eq!(r["rows"], 20000);
        assert!(r["load"]["wall_s"].is_null(), "simulated load has no wall time");
        assert!(r["counters"]["page_splits"].as_u64().unwrap() > 0);
        assert!(r["counters"]["pages_read"].is_null());
        let primary = &r["indexes"][0];
        assert_eq!(primary["name"], "PRIMARY");
        assert!(primary["leaf_pages"].as_u64().unwrap() > 1);
        assert_eq!(primary["fill_histogram"].as_array().unwrap().len(), 10);
    }
    let auto = &runs[0]["indexes"][0];
    let uuid = &runs[1]["indexes"][0];
    assert!(auto["fill_pct"].as_f64().unwrap() > uuid["fill_pct"].as_f64().unwrap());
}

#[test]
fn same_seed_same_json() {
    let d = Dir::new();
    let args = ["compare", "--rows", "5000", "--keys", "uuid4:bin", "--format", "json"];
    let a = d.keylab(&args).expect_code(0);
    let b = d.keylab(&args).expect_code(0);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn exports_are_written_and_report_re_renders_them() {
    let d = Dir::new();
    d.keylab(&[
        "compare",
        "--rows",
        "3000",
        "--keys",
        "ulid",
        "--format",
        "table",
        "--export-json",
        "r.json",
        "--export-csv",
        "r.csv",
        "--export-markdown",
        "r.md",
        "--export-html",
        "r.html",
    ])
    .expect_code(0);
    for f in ["r.json", "r.csv", "r.md", "r.html"] {
        assert!(std::fs::metadata(d.path(f)).unwrap().len() > 0, "{f} written");
    }
    let again = d.keylab(&["report", "r.json", "--format", "json"]).expect_code(0);
    assert_eq!(json(&again.stdout), json(&std::fs::read_to_string(d.path("r.json")).unwrap()));
}

#[test]
fn keys_file_replays_the_same_tree() {
    let d = Dir::new();
    let ids = d.keylab(&["keys", "uuid4:text", "--count", "4000"]).expect_code(0);
    std::fs::write(d.path("ids.txt"), &ids.stdout).unwrap();
    let generated = d
        .keylab(&["compare", "--rows", "4000", "--keys", "uuid4:text", "--format", "json"])
        .expect_code(0);
    let replayed = d
        .keylab(&["compare", "--keys", "uuid4:text", "--keys-file", "ids.txt", "--format", "json"])
        .expect_code(0);
    let (g, r) = (json(&generated.stdout), json(&replayed.stdout));
    assert_eq!(g["runs"][0]["indexes"], r["runs"][0]["indexes"]);
    assert_eq!(g["runs"][0]["counters"], r["runs"][0]["counters"]);
}

#[test]
fn keys_file_errors_point_at_line_and_column() {
    let d = Dir::new();
    std::fs::write(d.path("ids.txt"), "01ARZ3NDEKTSV4RRFFQ69G5FAV\nnot-a-ulid\n").unwrap();
    let run = d.keylab(&["compare", "--keys", "ulid", "--keys-file", "ids.txt"]).expect_code(2);
    assert!(run.stderr.contains("ids.txt:2:1"), "{}", run.stderr);
    let run =
        d.keylab(&["compare", "--keys", "ulid,uuid4", "--keys-file", "ids.txt"]).expect_code(2);
    assert!(run.stderr.contains("exactly one variant"), "{}", run.stderr);
}

#[test]
fn url_without_a_server_engine_is_a_usage_error() {
    let run =
        Dir::new().keylab(&["compare", "--url", "mysql://root:secret@localhost/x"]).expect_code(2);
    assert!(!run.stderr.contains("secret"), "password leaked: {}", run.stderr);
}

/// `--batch MIN..MAX` varies the statement shape (multi and prepared only): the result says
/// so, and the other methods refuse it with the flag and the valid methods.
#[test]
fn varying_batch_shapes_are_reported_and_limited_to_statement_methods() {
    let d = Dir::new();
    let args = ["compare", "--keys", "auto-inc", "--rows", "5000", "--format", "json"];
    let out = d.keylab(&[&args[..], &["--method", "prepared", "--batch", "100..300"]].concat());
    let v = json(&out.expect_code(0).stdout);
    let load = &v["runs"][0]["load"];
    assert_eq!((load["batch"].as_u64(), load["batch_max"].as_u64()), (Some(100), Some(300)));
    let fixed = json(&d.keylab(&args).expect_code(0).stdout);
    assert!(fixed["runs"][0]["load"].get("batch_max").is_none(), "absent when fixed");
    let e = d.keylab(&["compare", "--method", "row", "--batch", "5..10"]).expect_code(2).stderr;
    assert!(e.contains("--batch 5..10") && e.contains("multi, prepared"), "{e}");
    let e = d.keylab(&["compare", "--batch", "10..5"]).expect_code(2).stderr;
    assert!(e.contains("valid: a row count (1000) or a range"), "{e}");
}

/// `--shards` refuses what it cannot do before anything starts (exit 2, naming the flag), and
/// on the simulator routes rows to N model tables: per-shard rows add up, an ordered key under
/// range sharding writes one shard at a time, and the report has a Shards section.
#[test]
fn shards_are_checked_and_simulated() {
    let d = Dir::new();
    let url = ["--engine", "mariadb", "--shards", "2", "--url", "mysql://root:secret@localhost/x"];
    let run = d.keylab(&[&["compare"][..], &url].concat()).expect_code(2);
    assert!(run.stderr.contains("--url"), "{}", run.stderr);
    assert!(!run.stderr.contains("secret"), "password leaked: {}", run.stderr);
    let run = d.keylab(&["compare", "--shards", "1"]).expect_code(2);
    assert!(run.stderr.contains("2..=16"), "{}", run.stderr);
    d.keylab(&["compare", "--sharding", "hash"]).expect_code(2);
    let run = d.keylab(&["compare", "--sharding", "diagonal", "--shards", "2"]).expect_code(2);
    assert!(run.stderr.contains("range") && run.stderr.contains("hash"), "{}", run.stderr);
    let run = d.keylab(&["compare", "--engine", "mysql", "--shards", "2"]).expect_code(2);
    assert!(run.stderr.contains("--engine mariadb"), "{}", run.stderr);

    let args = ["compare", "--shards", "3", "--keys", "seq,uuid4:bin", "--rows", "30000"];
    let out = d.keylab(&[&args[..], &["--format", "json"]].concat()).expect_code(0);
    let v = json(&out.stdout);
    for run in v["runs"].as_array().unwrap() {
        let shards = &run["shards"];
        let rows: u64 =
            shards["shards"].as_array().unwrap().iter().map(|s| s["rows"].as_u64().unwrap()).sum();
        assert_eq!(rows, 30000);
        let mean = shards["mean_hottest_share_pct"].as_f64().unwrap();
        match run["variant"].as_str().unwrap() {
            "seq" => assert!(mean > 90.0, "seq: {mean}"),
            _ => assert!(mean < 40.0, "uuid4:bin: {mean}"),
        }
    }
    let out = d.keylab(&[&args[..], &["--sharding", "hash"]].concat()).expect_code(0);
    assert!(out.stdout.contains("busiest shard's share"), "{}", out.stdout);
    assert!(out.stdout.contains("Sharded over 3 (hash)"), "{}", out.stdout);
}

/// `validate --shards` refuses what it cannot do before any server starts (exit 2, naming
/// the flag and what is valid).
#[test]
fn validate_shards_is_checked_before_anything_starts() {
    let d = Dir::new();
    let run = d.keylab(&["validate", "--sharding", "hash"]).expect_code(2);
    assert!(run.stderr.contains("add --shards N"), "{}", run.stderr);
    let run = d.keylab(&["validate", "--shards", "1"]).expect_code(2);
    assert!(run.stderr.contains("2..=16"), "{}", run.stderr);
    let run = d.keylab(&["validate", "--shards", "2", "--sharding", "diagonal"]).expect_code(2);
    assert!(run.stderr.contains("range") && run.stderr.contains("hash"), "{}", run.stderr);
    let run = d.keylab(&["validate", "--shards", "2", "--engine", "postgres"]).expect_code(2);
    assert!(run.stderr.contains("--engine mariadb"), "{}", run.stderr);
    let url = ["validate", "--shards", "2", "--url", "mysql://root:secret@localhost/x"];
    let run = d.keylab(&url).expect_code(2);
    assert!(run.stderr.contains("--url") && !run.stderr.contains("secret"), "{}", run.stderr);
}
