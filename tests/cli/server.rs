//! `keylab compare --engine mariadb` on a private instance, and `keylab inspect` on a real
//! tablespace file. The server tests need MariaDB's server binaries: without them they print
//! SKIPPED, except under `CI=true`, where a missing server is a failure.

use crate::util::Dir;
use serde_json::Value;

/// True when a server is installed; SKIPPED otherwise (a failure under `CI=true`).
fn server_installed(test: &str) -> bool {
    keylab_server::private::installed_or_skip(test)
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("bad JSON ({e}):\n{stdout}"))
}

/// The simulator's whole claim: the same ids in the same order build the same tree as the
/// real server. Checked here for random and sequential keys in both placements.
#[test]
fn simulator_and_private_mariadb_build_the_same_tree() {
    if !server_installed("simulator_and_private_mariadb_build_the_same_tree") {
        return;
    }
    let d = Dir::new();
    for placement in ["pk", "secondary"] {
        let args = |engine: &str| {
            d.keylab(&[
                "compare",
                "--engine",
                engine,
                "--rows",
                "6000",
                "--keys",
                "uuid4:text,ulid:text",
                "--placement",
                placement,
                "--format",
                "json",
            ])
            .expect_code(0)
        };
        let (sim, server) = (json(&args("sim").stdout), json(&args("mariadb").stdout));
        assert_eq!(server["engine"]["kind"], "mariadb");
        assert!(server["runs"][0]["load"]["wall_s"].as_f64().unwrap() > 0.0, "measured");
        for run in 0..2 {
            let (s, m) = (&sim["runs"][run], &server["runs"][run]);
            assert_eq!(s["rows"], m["rows"]);
            for ix in 0..s["indexes"].as_array().unwrap().len() {
                let (si, mi) = (&s["indexes"][ix], &m["indexes"][ix]);
                for field in
                    ["leaf_pages", "n_leaf_pages_stat", "height", "size_pages", "nonleaf_pages"]
                {
                    assert_eq!(si[field], mi[field], "{placement} run {run} index {ix} {field}");
                }
                let fill = |v: &Value| v["fill_pct"].as_f64().unwrap();
                assert!((fill(si) - fill(mi)).abs() < 0.3, "{placement} fill {si} vs {mi}");
            }
            assert_eq!(s["counters"]["page_splits"], m["counters"]["page_splits"], "{placement}");
        }
    }
}

/// `--database` without `--url`: the private instance works in that database.
#[test]
fn a_private_instance_works_in_the_database_given() {
    if !server_installed("a_private_instance_works_in_the_database_given") {
        return;
    }
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--rows",
            "2000",
            "--keys",
            "uuid4:text",
            "--database",
            "kl_other",
            "--format",
            "json",
        ])
        .expect_code(0);
    let out = json(&run.stdout);
    assert_eq!(out["engine"]["settings"]["database"], "kl_other", "{}", run.stdout);
    assert_eq!(out["runs"][0]["rows"], 2000);
}

#[test]
fn a_bad_database_name_is_a_usage_error_naming_the_flag() {
    let run = Dir::new()
        .keylab(&["compare", "--engine", "mariadb", "--database", "no-dashes", "--rows", "10"])
        .expect_code(2);
    assert!(run.stderr.contains("--database"), "{}", run.stderr);
}

#[test]
fn a_bad_url_is_a_usage_error_and_never_shows_the_password() {
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--url",
            "mysql://root:s3cret@",
            "--rows",
            "10",
        ])
        .expect_code(2);
    assert!(!run.stderr.contains("s3cret"), "{}", run.stderr);
}

#[test]
fn an_unreachable_server_fails_fast_with_the_address() {
    let started = std::time::Instant::now();
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--url",
            "mysql://root:s3cret@127.0.0.1:9/keylab",
            "--rows",
            "10",
        ])
        .expect_code(1);
    assert!(started.elapsed().as_secs() < 15, "took {:?}", started.elapsed());
    assert!(run.stderr.contains("127.0.0.1:9"), "{}", run.stderr);
    assert!(!run.stderr.contains("s3cret"), "{}", run.stderr);
}

/// `tests/fixtures/ulid-2000.ibd`: MariaDB 10.11's file for 2,000 ULID rows (E1's table),
/// copied after `FLUSH TABLES t FOR EXPORT`.
#[test]
fn inspect_reads_a_real_tablespace() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ulid-2000.ibd");
    let d = Dir::new();
    let v = json(&d.keylab(&["inspect", fixture, "--json"]).expect_code(0).stdout);
    assert_eq!(v["page_size_bytes"], 16384);
    let ix = &v["indexes"][0];
    assert_eq!(ix["height"], 2);
    assert_eq!(ix["pages_per_level"], serde_json::json!([8, 1]));
    assert_eq!(ix["leaf_records"], 2000);
    let table = d.keylab(&["inspect", fixture]).expect_code(0);
    assert!(table.stdout.contains("8 / 1"), "{}", table.stdout);
}

#[test]
fn inspect_rejects_what_is_not_a_tablespace() {
    let d = Dir::new();
    std::fs::write(d.path("junk.ibd"), vec![7u8; 40_000]).unwrap();
    let run = d.keylab(&["inspect", "junk.ibd"]).expect_code(2);
    assert!(run.stderr.contains("junk.ibd"), "{}", run.stderr);
    d.keylab(&["inspect", "missing.ibd"]).expect_code(2);
}

/// Two built-in scenarios end to end on a private MariaDB: every phase runs (timed queries
/// included), and E3's structure equals the simulator's for the same rows.
#[test]
fn builtins_run_on_a_private_mariadb() {
    if !server_installed("builtins_run_on_a_private_mariadb") {
        return;
    }
    let d = Dir::new();
    let run = |engine: &str, name: &str, scale: &str| {
        let out = d
            .keylab(&["run", name, "--engine", engine, "--scale", scale, "--format", "json"])
            .expect_code(0);
        json(&out.stdout)
    };
    let (server, sim) =
        (run("mariadb", "e3-id-storage", "0.02"), run("sim", "e3-id-storage", "0.02"));
    assert_eq!(server["engine"]["kind"], "mariadb");
    let (server_runs, sim_runs) =
        (server["runs"].as_array().unwrap(), sim["runs"].as_array().unwrap());
    assert_eq!(server_runs.len(), sim_runs.len());
    for (m, s) in server_runs.iter().zip(sim_runs) {
        assert_eq!(m["variant"], s["variant"]);
        for field in ["leaf_pages", "size_pages", "height"] {
            assert_eq!(m["indexes"][0][field], s["indexes"][0][field], "{} {field}", m["variant"]);
        }
        assert_eq!(m["counters"]["page_splits"], s["counters"]["page_splits"], "{}", m["variant"]);
    }
    let e1 = run("mariadb", "e1-uuid-vs-ulid", "0.01");
    for r in e1["runs"].as_array().unwrap() {
        for p in r["phases"].as_array().unwrap() {
            assert_eq!(p["status"], "ok", "every E1 phase runs on a server: {p}");
        }
        assert!(!r["queries"].as_array().unwrap().is_empty(), "E1 times its queries");
        assert!(r["phases"][0].get("not_applicable").is_none(), "E1's settings apply: {r}");
        assert!(r["counters"]["io_write_requests"].is_u64(), "performance_schema is on: {r}");
    }
}

#[test]
fn validate_finds_no_error_against_a_private_mariadb() {
    if !server_installed("validate_finds_no_error_against_a_private_mariadb") {
        return;
    }
    let out = Dir::new().keylab(&["validate", "--format", "json"]).expect_code(0);
    let v = json(&out.stdout);
    let details = v["validation"]["details"].as_array().unwrap();
    // 16 runs (4 variants x 2 placements x 2 page sizes) through load, churn and rebuild.
    assert!(details.len() >= 16 * 40, "{} figures", details.len());
    for metric in ["churn.merges", "rebuild.primary_leaf_pages_after", "data_free"] {
        assert!(details.iter().any(|d| d["metric"] == metric), "{metric} compared");
    }
    let off: Vec<&Value> =
        details.iter().filter(|d| d["error"].as_f64().is_none_or(|e| e.abs() > 1e-9)).collect();
    assert!(off.is_empty(), "the simulator differs from the server: {off:#?}");
}
