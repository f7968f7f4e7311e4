//! The nbtree model's composite keys and posting lists against a private PostgreSQL 15: the
//! same seeded rows (30,000, with `a` in 0..199 and `b` in 0..9, so every index is full of
//! duplicates) go through `keylab run` on `--engine postgres` and on `--engine sim --model
//! postgres-15`, for two-column non-unique indexes (`(a, b)` and the low-cardinality-first
//! `(b, a)`) and a one-column one (`a`, long posting lists). After the load, after churn +
//! VACUUM, and after REINDEX: per index, leaf pages within 0.5 %, `avg_leaf_density` within
//! 0.3 points, internal pages and height equal, and the page splits of each phase equal (the
//! server's are counted from its WAL). Without PostgreSQL it prints SKIPPED, except under
//! `CI=true`, where that fails.

use crate::util::Dir;
use keylab_pg_server::installed_or_skip;
use serde_json::Value;

const TABLE: &str = r#"
name = "pg-two-column-duplicates"
description = "two-column and one-column non-unique indexes full of duplicates"
variants = ["auto-inc"]

[[tables]]
name = "t"
id = { name = "id" }
columns = [
  { name = "a", type = "bigint", nullable = false, gen = { int = [0, 199] } },
  { name = "b", type = "int", nullable = false, gen = { int = [0, 9] } },
]
indexes = [
  { name = "t_a_b", columns = ["a", "b"] },
  { name = "t_a", columns = ["a"] },
  { name = "t_b_a", columns = ["b", "a"] },
]

[[phases]]
load = { rows = 30_000, method = "multi", batch = 1_000 }
"#;

const CHURN: &str = r#"
[[phases]]
churn = { rounds = 2, inserts = 2_000, deletes = 3_000, insert_method = "multi", writers = 1, delete_method = "one_transaction" }
"#;

const REBUILD: &str = "\n[[phases]]\nrebuild = {}\n";

fn run(d: &Dir, toml: &str, engine: &[&str]) -> Value {
    std::fs::write(d.path("s.toml"), toml).unwrap();
    let mut args = vec!["run", "s.toml", "--export-json", "out.json"];
    args.extend_from_slice(engine);
    d.keylab(&args).expect_code(0);
    serde_json::from_str(&std::fs::read_to_string(d.path("out.json")).unwrap()).unwrap()
}

fn splits(v: &Value) -> Vec<u64> {
    v["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["page_splits"].as_u64())
        .collect()
}

/// Compares every index of `model` with the server's; returns the lines of the error table.
fn compare(stage: &str, model: &Value, server: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let theirs = server["runs"][0]["indexes"].as_array().unwrap();
    for m in model["runs"][0]["indexes"].as_array().unwrap() {
        let name = m["name"].as_str().unwrap();
        let s = theirs.iter().find(|s| s["name"] == name).expect("the same indexes");
        let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
        let leaf_err = (f(m, "leaf_pages") - f(s, "leaf_pages")) * 100.0 / f(s, "leaf_pages");
        let density = f(m, "avg_leaf_density") - f(s, "avg_leaf_density");
        let line = format!(
            "{stage} {name}: leaf {} vs {} ({leaf_err:+.2} %), density {:.2} vs {:.2} \
             ({density:+.2}), internal {} vs {}, height {} vs {}",
            m["leaf_pages"],
            s["leaf_pages"],
            f(m, "avg_leaf_density"),
            f(s, "avg_leaf_density"),
            m["nonleaf_pages"],
            s["nonleaf_pages"],
            m["height"],
            s["height"]
        );
        assert!(leaf_err.abs() <= 0.5, "{line}");
        assert!(density.abs() <= 0.3, "{line}");
        assert_eq!(m["nonleaf_pages"], s["nonleaf_pages"], "{line}");
        assert_eq!(m["height"], s["height"], "{line}");
        lines.push(line);
    }
    lines
}

#[test]
fn composite_keys_and_posting_lists_follow_postgresql() {
    if !installed_or_skip("composite_keys_and_posting_lists_follow_postgresql") {
        return;
    }
    let d = Dir::new();
    let model_args = ["--engine", "sim", "--model", "postgres-15"];
    let server_args = ["--engine", "postgres"];
    for (stage, toml) in [
        ("load", TABLE.to_string()),
        ("churn+VACUUM", format!("{TABLE}{CHURN}")),
        ("REINDEX", format!("{TABLE}{CHURN}{REBUILD}")),
    ] {
        let model = run(&d, &toml, &model_args);
        let server = run(&d, &toml, &server_args);
        for line in compare(stage, &model, &server) {
            eprintln!("{line}");
        }
        assert_eq!(splits(&model), splits(&server), "{stage}: page splits per phase");
    }
}
