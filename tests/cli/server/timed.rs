//! The `timed` phase (issue 32, item 9: E4's time-boxed run with N client threads and the
//! throughput over time, what sysbench reports): on a private MariaDB, 4 threads insert for
//! 3 s and the phase gives rows per second for each of the 3 whole seconds, with median, min
//! and max; the simulator, which has no clock, gives the phase as not applicable with its
//! reason; a timed phase that is not the last, or whose interval is longer than its time, is
//! refused at its file:line:column. Without MariaDB's server binaries the live part prints
//! SKIPPED, except under `CI=true`.

use crate::util::{json, server_installed, Dir};

const SCENARIO: &str = r#"name = "timed"
variants = ["uuid4:text"]
[[tables]]
name = "t"
columns = [
  { name = "k", type = "int", gen = { int = [0, 1000000] } },
]
indexes = [ { name = "ix_k", columns = ["k"] } ]
[[phases]]
load = { rows = 2000 }
[[phases]]
timed = { seconds = 3, threads = 4, interval_s = 1, max_rows = 1_000_000 }
"#;

#[test]
fn timed_inserts_report_rows_per_second_per_interval_on_a_server_only() {
    let d = Dir::new();
    std::fs::write(d.path("timed.toml"), SCENARIO).unwrap();
    let sim = d.keylab(&["run", "timed.toml", "--format", "json"]).expect_code(0);
    let timed = &json(&sim.stdout)["runs"][0]["phases"][2];
    assert_eq!(timed["kind"], "timed", "{timed}");
    assert_eq!(timed["status"], "not_applicable", "{timed}");
    assert!(timed["reason"].as_str().unwrap().contains("no clock"), "{timed}");
    if !server_installed("timed_inserts_report_rows_per_second_per_interval_on_a_server_only") {
        return;
    }
    let run = d.keylab(&["run", "timed.toml", "--engine", "mariadb", "--format", "json"]);
    let v = json(&run.expect_code(0).stdout);
    let timed = &v["runs"][0]["phases"][2];
    assert_eq!(timed["status"], "ok", "{timed}");
    assert_eq!(timed["threads"], 4);
    let per_s: Vec<f64> = timed["rows_per_s_per_interval"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(per_s.len(), 3, "three whole seconds: {timed}");
    assert!(per_s.iter().all(|&r| r > 0.0), "{timed}");
    let (min, med, max) = (
        timed["rows_per_s_min"].as_f64().unwrap(),
        timed["rows_per_s_median"].as_f64().unwrap(),
        timed["rows_per_s_max"].as_f64().unwrap(),
    );
    assert!(min <= med && med <= max, "{timed}");
    // Every row counted in an interval was inserted (and a few more may end the last one).
    let counted: f64 = per_s.iter().sum();
    let rows = timed["rows"].as_f64().unwrap();
    assert!(rows >= counted, "{timed}");
    assert!(timed["wall_s"].as_f64().unwrap() >= 3.0, "{timed}");
    // The table holds the loaded rows and the timed ones.
    let leaf = v["runs"][0]["indexes"][0]["leaf_pages"].as_u64().unwrap();
    assert!(leaf > 0, "{v}");
}

#[test]
fn a_timed_phase_must_be_last_and_hold_a_whole_interval() {
    let d = Dir::new();
    let not_last = format!("{SCENARIO}[[phases]]\nrestart = {{}}\n");
    std::fs::write(d.path("a.toml"), not_last).unwrap();
    let run = d.keylab(&["run", "a.toml"]).expect_code(2);
    assert!(run.stderr.contains("a.toml:"), "{}", run.stderr);
    assert!(run.stderr.contains("must be the last phase"), "{}", run.stderr);
    let long = SCENARIO.replace("interval_s = 1,", "interval_s = 5,");
    std::fs::write(d.path("b.toml"), long).unwrap();
    let run = d.keylab(&["run", "b.toml"]).expect_code(2);
    assert!(run.stderr.contains("b.toml:12:"), "{}", run.stderr);
    assert!(run.stderr.contains("interval_s 5 is longer than seconds 3"), "{}", run.stderr);
}
