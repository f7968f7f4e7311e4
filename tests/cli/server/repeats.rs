//! `--repeat N` (issue 32, item 5): on a private MariaDB each variant and each scenario run
//! is repeated on a fresh table with the same rows, and every timing comes with its spread;
//! on the simulator, whose figures never vary, more than one repeat is refused. The live
//! tests need MariaDB's server binaries: without them they print SKIPPED, except under
//! `CI=true`, where a missing server is a failure.

use crate::util::{json, server_installed, Dir};
use serde_json::Value;

#[test]
fn repeats_on_the_simulator_are_refused_as_doing_nothing() {
    let d = Dir::new();
    let out = d.keylab(&["compare", "--rows", "100", "--repeat", "3"]).expect_code(2);
    assert!(
        out.stderr.contains("--repeat 3: the simulator's figures are the same"),
        "{}",
        out.stderr
    );
    let out = d.keylab(&["run", "e1-uuid-vs-ulid", "--scale", "0.001", "--repeat", "2"]);
    assert!(out.expect_code(2).stderr.contains("--repeat 2"));
    // One repeat is what the simulator does anyway: accepted, and no repeats block.
    let one = d.keylab(&[
        "compare",
        "--rows",
        "100",
        "--keys",
        "ulid:text",
        "--repeat",
        "1",
        "--format",
        "json",
    ]);
    let v = json(&one.expect_code(0).stdout);
    assert!(v["runs"][0].get("repeats").is_none(), "{}", v["runs"][0]);
    let zero = d.keylab(&["compare", "--rows", "100", "--repeat", "0"]).expect_code(2);
    assert!(zero.stderr.contains("--repeat"), "{}", zero.stderr);
}

/// The spread of `figure` in run `r`, checked to be over `n` repeats with the median in its
/// place in the run.
fn spread<'a>(r: &'a Value, figure: &str, n: usize) -> &'a Value {
    let timings = r["repeats"]["timings"].as_array().expect("repeats.timings");
    let t = timings
        .iter()
        .find(|t| t["figure"] == figure)
        .unwrap_or_else(|| panic!("{figure} in {timings:?}"));
    assert_eq!(t["values"].as_array().unwrap().len(), n, "{t}");
    let (min, max, median) =
        (t["min"].as_f64().unwrap(), t["max"].as_f64().unwrap(), t["median"].as_f64().unwrap());
    assert!(min <= median && median <= max, "{t}");
    assert_eq!(t["first"], t["values"][0], "{t}");
    t
}

#[test]
fn compare_repeat_3_on_mariadb_gives_every_timing_its_spread() {
    if !server_installed("compare_repeat_3_on_mariadb_gives_every_timing_its_spread") {
        return;
    }
    let d = Dir::new();
    let args = [
        "compare",
        "--engine",
        "mariadb",
        "--rows",
        "2000",
        "--keys",
        "auto-inc,uuid4:text",
        "--batch",
        "100",
        "--perf-schema",
        "--repeat",
        "3",
        "--format",
        "json",
    ];
    let v = json(&d.keylab(&args).expect_code(0).stdout);
    for r in v["runs"].as_array().unwrap() {
        assert_eq!(r["repeats"]["count"], 3, "{r}");
        let wall = spread(r, "load.wall_s", 3);
        assert_eq!(r["load"]["wall_s"], wall["median"], "{r}");
        spread(r, "load.rows_per_s", 3);
        spread(r, "load.batch_latency_ms.p99", 3);
        spread(r, "load.server_statement_ms", 3);
        // Structural figures are the first repeat's; the same rows build the same tree, so
        // the leaf pages never differ across repeats.
        let differing = r["repeats"]["differing"].as_array().cloned().unwrap_or_default();
        assert!(
            !differing.iter().any(|d| d["figure"].as_str().unwrap().contains("leaf_pages")),
            "{differing:?}"
        );
        assert!(r["indexes"][0]["leaf_pages"].as_u64().unwrap() > 0);
    }
    std::fs::write(d.path("r.json"), serde_json::to_string(&v).unwrap()).unwrap();
    let table = d.keylab(&["report", "r.json"]).expect_code(0).stdout;
    assert!(table.contains("Repeats") && table.contains("load wall time (s) mean ± σ"), "{table}");
    assert!(table.contains("the spread"), "{table}");
}

#[test]
fn run_repeat_2_on_mariadb_repeats_the_scenario_run_with_its_queries() {
    if !server_installed("run_repeat_2_on_mariadb_repeats_the_scenario_run_with_its_queries") {
        return;
    }
    let d = Dir::new();
    let src = "name = \"again\"\nvariants = [\"ulid:text\"]\n[[tables]]\nname = \"t\"\n\
               id = { name = \"id\" }\n[[phases]]\nload = { rows = 1000 }\n\
               [[phases]]\nqueries = { runs = 3, point = 5 }\n";
    std::fs::write(d.path("again.toml"), src).unwrap();
    let run = d.keylab(&[
        "run",
        "again.toml",
        "--engine",
        "mariadb",
        "--repeat",
        "2",
        "--format",
        "json",
    ]);
    let v = json(&run.expect_code(0).stdout);
    let r = &v["runs"][0];
    assert_eq!(r["repeats"]["count"], 2, "{r}");
    spread(r, "load.wall_s", 2);
    let p50 = spread(r, "queries.point.p50_ms", 2);
    assert_eq!(r["queries"][0]["p50_ms"], p50["median"], "{r}");
    assert_eq!(r["queries"].as_array().unwrap().len(), 1, "{r}");
}
