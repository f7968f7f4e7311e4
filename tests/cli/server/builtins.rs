//! The built-in experiments (E1 to E5) on a private MariaDB: every phase runs, and every run
//! whose order of rows is keylab's has the same structure as the simulator's. They need
//! MariaDB's server binaries: without them they print SKIPPED, except under `CI=true`, where
//! a missing server is a failure.

use crate::util::{json, server_installed, Dir};
use serde_json::Value;

/// The structural figures of a run: per index its leaf pages, pages and height; the run's
/// page splits; per load, churn and rebuild phase its splits, merges and pages after.
fn structure(run: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    // A ddl phase under concurrent writers inserts as many rows as the server's timing lets
    // it (the simulator none): the end state then differs by design, the phases' figures not.
    let writers_in_ddl = run["phases"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["kind"] == "ddl" && p["concurrent_writers"].as_u64().is_some_and(|w| w > 0));
    if !writers_in_ddl {
        out.push(("page_splits".to_string(), run["counters"]["page_splits"].clone()));
        for ix in run["indexes"].as_array().unwrap() {
            for f in ["leaf_pages", "size_pages", "height"] {
                out.push((format!("{}.{f}", ix["name"]), ix[f].clone()));
            }
        }
    }
    for (i, p) in run["phases"].as_array().unwrap().iter().enumerate() {
        if matches!(p["kind"].as_str(), Some("load" | "churn" | "rebuild")) {
            for f in [
                "page_splits",
                "merges",
                "primary_leaf_pages_after",
                "size_pages_all_indexes_after",
            ] {
                out.push((format!("phase {i} {}.{f}", p["kind"]), p[f].clone()));
            }
        }
    }
    out
}

/// Runs built-in `name` at `scale` on a private MariaDB and on the simulator (both must exit
/// 0), and checks that every run `deterministic` accepts has the same structural figures on
/// both. Returns the server's result, the simulator's and how many runs were compared.
fn builtin_on_mariadb_matches_the_simulator(
    name: &str,
    scale: &str,
    deterministic: impl Fn(&Value) -> bool,
) -> (Value, Value, usize) {
    let d = Dir::new();
    let run = |engine: &str| {
        let out = d
            .keylab(&["run", name, "--engine", engine, "--scale", scale, "--format", "json"])
            .expect_code(0);
        json(&out.stdout)
    };
    let (server, sim) = (run("mariadb"), run("sim"));
    assert_eq!(server["engine"]["kind"], "mariadb");
    let (server_runs, sim_runs) =
        (server["runs"].as_array().unwrap(), sim["runs"].as_array().unwrap());
    assert_eq!(server_runs.len(), sim_runs.len(), "{name}");
    let mut compared = 0;
    for (i, (m, s)) in server_runs.iter().zip(sim_runs).enumerate() {
        assert_eq!(m["variant"], s["variant"]);
        if !deterministic(m) {
            continue;
        }
        compared += 1;
        let (a, b) = (structure(m), structure(s));
        let off: Vec<_> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
        assert!(off.is_empty(), "{name} run {i} ({}): server vs simulator {off:?}", m["variant"]);
    }
    (server, sim, compared)
}

/// E1 and E3 end to end on a private MariaDB: every phase runs (timed queries included), and
/// the structure equals the simulator's for the same rows.
#[test]
fn builtins_run_on_a_private_mariadb() {
    if !server_installed("builtins_run_on_a_private_mariadb") {
        return;
    }
    let (e3, _, compared) =
        builtin_on_mariadb_matches_the_simulator("e3-id-storage", "0.02", |_| true);
    assert_eq!(compared, e3["runs"].as_array().unwrap().len());
    for r in e3["runs"].as_array().unwrap() {
        // E3's "query wait time": the load's statements timed on the server.
        assert!(r["load"]["server_statement_ms"].as_f64().unwrap() > 0.0, "{}", r["load"]);
    }
    let (e1, _, compared) =
        builtin_on_mariadb_matches_the_simulator("e1-uuid-vs-ulid", "0.01", |_| true);
    assert_eq!(compared, 10);
    for r in e1["runs"].as_array().unwrap() {
        for p in r["phases"].as_array().unwrap() {
            assert_eq!(p["status"], "ok", "every E1 phase runs on a server: {p}");
        }
        assert!(!r["queries"].as_array().unwrap().is_empty(), "E1 times its queries");
        let queries = r["queries"].as_array().unwrap();
        let names: Vec<&str> = queries.iter().map(|q| q["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["id_prefix", "id_share"], "{r}");
        for q in queries {
            assert!(q["server_p50_ms"].as_f64().unwrap() > 0.0, "server-side time: {q}");
            assert!(q["server_total_ms"].as_f64().unwrap() > 0.0, "{q}");
            assert!(q["cold_ms"].as_f64().is_some(), "the first run apart: {q}");
            let (min, max) = (q["min_ms"].as_f64().unwrap(), q["max_ms"].as_f64().unwrap());
            assert!(min <= q["p50_ms"].as_f64().unwrap() && max >= min, "{q}");
            assert!(q["plan"]["access_type"].is_string(), "EXPLAIN's type: {q}");
            assert!(q["plan"]["key"].is_string(), "a covering index: {q}");
            assert!(q["plan"]["key_len"].is_string(), "EXPLAIN's key_len: {q}");
        }
        // The author's query: a prefix just below every id selects nothing, and EXPLAIN
        // expects one row, as in the write-up.
        assert_eq!(queries[0]["rows"], 0, "{}", queries[0]);
        assert_eq!(queries[0]["plan"]["rows"], 1, "{}", queries[0]);
        // id_share = 1.0: every row.
        assert_eq!(queries[1]["rows"], r["rows"], "the share selects every row");
        assert_eq!(queries[1]["share"], 1.0);
        assert!(queries[1]["condition"].is_string());
        assert!(r["phases"][0].get("not_applicable").is_none(), "E1's settings apply: {r}");
        assert!(r["counters"]["io_write_requests"].is_u64(), "performance_schema is on: {r}");
        assert!(r["counters"]["io_read_requests"].is_u64(), "performance_schema is on: {r}");
        assert!(r["counters"]["io_read_bytes"].is_u64(), "performance_schema is on: {r}");
    }
}

/// E2 (its dates a grid of room types x days, valid at every scale) on a private MariaDB.
/// Runs of one writer equal the simulator's; with several writers the order rows reach the
/// tree depends on thread timing, so their structure is not compared.
#[test]
fn e2_runs_on_a_private_mariadb() {
    if !server_installed("e2_runs_on_a_private_mariadb") {
        return;
    }
    let (e2, _, compared) =
        builtin_on_mariadb_matches_the_simulator("e2-bulk-load", "0.002", |r| {
            r["load"]["writers"] == 1
        });
    // Every one-writer run: methods, batch sizes, keys, shapes and cache, lock modes.
    let one_writer = e2["runs"].as_array().unwrap().iter().filter(|r| r["load"]["writers"] == 1);
    assert_eq!(compared, one_writer.count());
    assert!(compared >= 13, "{compared}");
}

/// E4 (two page sizes, change buffering on and off, churn) on a private MariaDB. Runs without
/// change buffering equal the simulator's. With it, the order in which purge and the
/// change buffer meet depends on the server's timing, so the runs are held to bounds: page
/// splits within 5 % (the server's counters are instance-wide and include the change
/// buffer's own B-tree, which the simulator models) and leaf pages within 2 % on every
/// index; the change buffer no larger than the server's (both merge it at each measurement,
/// as `FLUSH TABLES ... FOR EXPORT` does).
#[test]
fn e4_runs_on_a_private_mariadb() {
    if !server_installed("e4_runs_on_a_private_mariadb") {
        return;
    }
    let (e4, sim, compared) =
        builtin_on_mariadb_matches_the_simulator("e4-change-buffer", "0.002", |r| {
            r["phases"][0]["cell_change_buffering"] == "off"
        });
    assert_eq!(compared, 2);
    let pairs = e4["runs"].as_array().unwrap().iter().zip(sim["runs"].as_array().unwrap());
    let mut buffered = 0;
    for (m, s) in pairs {
        // The change buffer's size is a gauge no larger than the pool (the status variable
        // `Innodb_ibuf_size` gave 403,726,925,825 pages here: junk in its high 32 bits).
        let bp = &m["buffer_pool"];
        let page_bytes = m["phases"][0]["page_size_bytes"].as_u64().unwrap();
        let pool_pages = bp["pool_bytes"].as_u64().unwrap() / page_bytes;
        let size = bp["change_buffer"]["size_pages"].as_u64();
        assert!(size.is_some_and(|s| s <= pool_pages), "size {size:?} of {pool_pages}: {bp}");
        if m["phases"][0]["cell_change_buffering"] != "on" {
            continue;
        }
        buffered += 1;
        let within = |what: &str, a: &Value, b: &Value, pct: f64| {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((a - b).abs() <= b * pct / 100.0, "{what}: simulator {a} vs server {b}");
        };
        // 5 % holds the server's own spread at this scale: three runs on MariaDB 10.11.19
        // (shared 2-core machine, load 8-10) gave 16k 1,468 / 1,405 / 1,449 splits (4.5 %
        // from lowest to highest) and 4k 6,823 / 6,648 / 6,711 (2.6 %), the simulator 1,436
        // and 6,700; with buffering off every run gave 1,367 and 5,800, as the simulator.
        within("page splits", &s["counters"]["page_splits"], &m["counters"]["page_splits"], 5.0);
        for (x, y) in s["indexes"].as_array().unwrap().iter().zip(m["indexes"].as_array().unwrap())
        {
            within(&format!("{} leaf pages", y["name"]), &x["leaf_pages"], &y["leaf_pages"], 2.0);
        }
        let sim_size = s["buffer_pool"]["change_buffer"]["size_pages"].as_u64().unwrap();
        assert!(sim_size <= size.unwrap(), "change buffer {sim_size} vs server {size:?}");
    }
    assert_eq!(buffered, 2);
}

/// E5 (fill factors, churn with purge, rebuilds, online DDL) on a private MariaDB: every run
/// equals the simulator's through load, rebuild, restart, churn and rebuild at this scale.
/// (A gap seen before E5 used the author's generators and churn: at --scale 0.01, fill factor
/// 100, churn round 168 made 6 splits on the server and 5 in the simulator. With the author's
/// rows and statements that run now gives equal counters, per round too; the rule behind the
/// old difference was not found.)
#[test]
fn e5_runs_on_a_private_mariadb() {
    if !server_installed("e5_runs_on_a_private_mariadb") {
        return;
    }
    let (e5, _, compared) =
        builtin_on_mariadb_matches_the_simulator("e5-fill-factor-churn", "0.002", |_| true);
    assert_eq!(compared, 6);
    for r in e5["runs"].as_array().unwrap() {
        for p in r["phases"].as_array().unwrap() {
            assert_eq!(p["status"], "ok", "every E5 phase runs on a server: {p}");
        }
        // The author's procedure: rebuild, restart (cold pool), then churn of autocommitted
        // single-row inserts and one delete transaction per round.
        let kinds: Vec<&str> =
            r["phases"].as_array().unwrap().iter().map(|p| p["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds[2..5], ["rebuild", "restart", "churn"], "{kinds:?}");
        assert_eq!(r["phases"][4]["insert_method"], "row");
        assert_eq!(r["phases"][4]["delete_method"], "one_transaction");
    }
}

/// Two queries phases with the same query: both keep their figures, in the JSON and as two
/// sections of the table (`point` and `point_2`), not one row showing only the first.
#[test]
fn two_queries_phases_keep_their_own_rows() {
    if !server_installed("two_queries_phases_keep_their_own_rows") {
        return;
    }
    let d = Dir::new();
    let src = "name = \"twice\"\nvariants = [\"ulid:text\"]\n[[tables]]\nname = \"t\"\n\
               id = { name = \"id\" }\n[[phases]]\nload = { rows = 2000 }\n\
               [[phases]]\nqueries = { runs = 3, point = 5 }\n\
               [[phases]]\nchurn = { rounds = 1, inserts = 100, deletes = 100 }\n\
               [[phases]]\nqueries = { runs = 3, point = 5 }\n";
    std::fs::write(d.path("twice.toml"), src).unwrap();
    let run = d.keylab(&["run", "twice.toml", "--engine", "mariadb", "--format", "json"]);
    let v = json(&run.expect_code(0).stdout);
    let names: Vec<&str> = v["runs"][0]["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["point", "point_2"]);
    std::fs::write(d.path("twice.json"), serde_json::to_string(&v).unwrap()).unwrap();
    let table = d.keylab(&["report", "twice.json", "--format", "markdown"]).expect_code(0);
    assert!(table.stdout.contains("**Query point\\_2**"), "{}", table.stdout);
}

/// `pg-wal-fpi` on a private MariaDB: its `LOAD DATA` into an `AUTO_INCREMENT` key leaves
/// the gaps the server's reservation rule makes (blocks of 1, 2, 4, ... values per statement,
/// the unused end lost), and the churn after it deletes and inserts by the keys the server
/// really assigned. The load check covers the assigned key, not only the row count.
#[test]
fn load_data_into_an_auto_increment_key_then_churn_runs_on_mariadb() {
    if !server_installed("load_data_into_an_auto_increment_key_then_churn_runs_on_mariadb") {
        return;
    }
    let out = Dir::new()
        .keylab(&[
            "run",
            "pg-wal-fpi",
            "--engine",
            "mariadb",
            "--scale",
            "0.02",
            "--format",
            "json",
        ])
        .expect_code(0);
    let v = json(&out.stdout);
    let mut auto = 0;
    for r in v["runs"].as_array().unwrap() {
        for p in r["phases"].as_array().unwrap() {
            assert_eq!(p["status"], "ok", "{}: {p}", r["variant"]);
        }
        let checked = r["load"]["verification"]["checked"].as_str().unwrap();
        if checked.contains("server-assigned key") {
            auto += 1;
            assert!(checked.contains("SUM(CRC32(") && checked.contains("LOAD DATA"), "{checked}");
            assert!(!checked.contains("not checksummed"), "{checked}");
            assert_eq!(r["load"]["verification"]["checksum_equal"], true);
        }
    }
    // auto-inc in both placements, and the uuid variants' surrogate keys (secondary).
    assert!(auto >= 3, "{auto} runs with a server-assigned key");
}
