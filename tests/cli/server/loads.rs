//! Loads on a private MariaDB: times over their types' whole range, performance_schema's
//! counters, the ORM's block id generators, parallel writers and `autoinc_lock_mode` on both
//! engines, E2's first-batch reading, and concurrent churn around a restart. They need
//! MariaDB's server binaries: without them they print SKIPPED, except under `CI=true`, where
//! a missing server is a failure.

use crate::util::{json, server_installed, Dir};
use serde_json::Value;

/// Times over the whole range of DATE, DATETIME and TIMESTAMP (before 1970, after 2038, the
/// types' first and last years) load by every method on a private MariaDB and read back equal:
/// the load check compares a CRC of each row's id and times as the server stores them with
/// the client's, so a time stored as NULL or as another time fails the run.
#[test]
fn times_before_1970_and_after_2038_load_and_read_back_equal() {
    if !server_installed("times_before_1970_and_after_2038_load_and_read_back_equal") {
        return;
    }
    let d = Dir::new();
    let src = r#"name = "times"
variants = ["auto-inc"]
[[tables]]
name = "t"
columns = [
  # 1950-01-01, then every 400 days: to 2058.
  { name = "d", type = "date", nullable = false, gen = { timestamp = { start_unix_s = -631_152_000, step_s = 34_560_000 } } },
  # 1000-01-01 00:00:00, then about every 90 years: to 9945.
  { name = "dt", type = "datetime", nullable = false, gen = { timestamp = { start_unix_s = -30_610_224_000, step_s = 2_840_184_007 } } },
  # TIMESTAMP's whole range on MariaDB 10.11: 1970-01-01 00:00:01 to 2037.
  { name = "ts", type = "timestamp", gen = { timestamp = { start_unix_s = 1, step_s = 21_474_836 } } },
]
indexes = [{ name = "k_d", columns = ["d"] }]
[[matrix]]
method = ["row", "multi", "prepared", "load-data"]
[[phases]]
load = { rows = 100, batch = 30 }
"#;
    std::fs::write(d.path("times.toml"), src).unwrap();
    let out = d.keylab(&["run", "times.toml", "--engine", "mariadb", "--format", "json"]);
    let out = out.expect_code(0);
    let v = json(&out.stdout);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for r in runs {
        assert_eq!(r["rows"], 100, "{r}");
        assert_eq!(r["phases"][1]["status"], "ok", "{r}");
    }
}

#[test]
fn compare_perf_schema_turns_on_table_io_counters_and_is_noted_on_the_simulator() {
    let d = Dir::new();
    let sim = d
        .keylab(&[
            "compare",
            "--perf-schema",
            "--rows",
            "500",
            "--keys",
            "ulid:text",
            "--format",
            "json",
        ])
        .expect_code(0);
    let notes = json(&sim.stdout)["engine"]["settings"]["notes"].to_string();
    assert!(notes.contains("--perf-schema: not applicable on the simulator"), "{notes}");
    if !server_installed("compare_perf_schema_turns_on_table_io_counters") {
        return;
    }
    let args = |extra: &[&str]| {
        let mut a = vec!["compare", "--engine", "mariadb", "--rows", "500", "--keys", "ulid:text"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--format", "json"]);
        json(&d.keylab(&a).expect_code(0).stdout)
    };
    let on = args(&["--perf-schema"]);
    assert!(on["runs"][0]["counters"]["io_write_requests"].is_u64(), "{}", on["runs"][0]);
    let off = args(&[]);
    assert!(off["runs"][0]["counters"]["io_write_requests"].is_null(), "{}", off["runs"][0]);
}

/// The ORM's block generators on a server: a sequence and an id table beside the loaded
/// table, one block per round trip, ids interleaved between writers; every row arrives.
#[test]
fn sequence_and_table_ids_load_in_blocks_on_a_private_mariadb() {
    if !server_installed("sequence_and_table_ids_load_in_blocks_on_a_private_mariadb") {
        return;
    }
    let d = Dir::new();
    let out = d
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--perf-schema",
            "--keys",
            "sequence,table",
            "--rows",
            "3000",
            "--writers",
            "3",
            "--batch",
            "100",
            "--block",
            "50",
            "--format",
            "json",
        ])
        .expect_code(0);
    let v = json(&out.stdout);
    for r in v["runs"].as_array().unwrap() {
        assert_eq!(r["rows"], 3000, "{r}");
        assert_eq!(r["load"]["verification"]["checksum_equal"], true, "{r}");
        assert!(r["load"]["server_statement_ms"].as_f64().unwrap() > 0.0, "{r}");
        // Three writers' blocks interleave: the leaves are not filled in order.
        assert!(r["indexes"][0]["fill_pct"].as_f64().unwrap() < 85.0, "{r}");
    }
}

/// Parallel writers (E2), with statements of varying shape (the same seeded sizes on both
/// engines): keylab gives statement `n` to writer `n % writers` on both engines;
/// their rows interleave on the server, and the simulator models that interleaving, so both
/// trees lose fill against one writer's. The model lets every running statement advance at
/// once, an upper bound on the server's interleaving, so its fill is not above the server's.
#[test]
fn parallel_writers_lower_the_fill_on_both_engines() {
    if !server_installed("parallel_writers_lower_the_fill_on_both_engines") {
        return;
    }
    let d = Dir::new();
    let fill = |engine: &str, writers: &str| -> Vec<f64> {
        let out = d
            .keylab(&[
                "compare",
                "--engine",
                engine,
                "--rows",
                "40000",
                "--keys",
                "auto-inc,seq",
                "--batch",
                "500",
                "--writers",
                writers,
                "--format",
                "json",
            ])
            .expect_code(0);
        let v = json(&out.stdout);
        let runs = v["runs"].as_array().unwrap();
        runs.iter().map(|r| r["indexes"][0]["fill_pct"].as_f64().unwrap()).collect()
    };
    let (sim1, server1) = (fill("sim", "1"), fill("mariadb", "1"));
    let (sim4, server4) = (fill("sim", "4"), fill("mariadb", "4"));
    for k in 0..2 {
        assert!((sim1[k] - server1[k]).abs() < 0.3, "one writer: {sim1:?} vs {server1:?}");
        assert!(sim4[k] < sim1[k] - 5.0, "the model interleaves: {sim4:?} vs {sim1:?}");
        assert!(server4[k] < server1[k] - 1.0, "the server interleaves: {server4:?}");
        assert!(sim4[k] <= server4[k] + 2.0, "model {sim4:?} vs server {server4:?}");
    }
    assert_eq!(fill("sim", "4"), sim4, "the model is seeded");
}

/// E2's reading on a server: each writer's first batch against its other batches, and a
/// warning when the writers outnumber the cores of the machine running the server.
#[test]
fn the_reading_shows_first_batches_and_warns_beyond_the_cores() {
    if !server_installed("the_reading_shows_first_batches_and_warns_beyond_the_cores") {
        return;
    }
    let d = Dir::new();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let writers = (cores + 1).to_string();
    let args = ["compare", "--engine", "mariadb", "--rows", "20000", "--keys", "auto-inc"];
    let more = ["--batch", "500", "--writers", writers.as_str()];
    let json_out = d.keylab(&[&args[..], &more[..], &["--format", "json"]].concat()).expect_code(0);
    let v = json(&json_out.stdout);
    let load = &v["runs"][0]["load"];
    assert_eq!(load["first_batch_ms"].as_array().unwrap().len(), cores + 1, "{load}");
    let others = load["other_batch_p50_ms"].as_array().unwrap();
    assert_eq!(others.len(), cores + 1, "{load}");
    assert!(others.iter().any(Value::is_number), "{load}");
    assert_eq!(v["engine"]["settings"]["server_cores"], cores, "{}", v["engine"]);
    let text = d.keylab(&[&args[..], &more[..]].concat()).expect_code(0).stdout;
    assert!(text.contains("first batch took"), "{text}");
    assert!(text.contains(&format!("machine with {cores} cores")), "{text}");
}

/// `autoinc_lock_mode` as a matrix key: a private server starts with each mode, and under
/// mode 0 (the AUTO-INC lock held to each INSERT's end) parallel writers' blocks do not
/// interleave, on the server and in the model alike: the tree is one writer's.
#[test]
fn autoinc_lock_mode_is_a_matrix_key_on_both_engines() {
    if !server_installed("autoinc_lock_mode_is_a_matrix_key_on_both_engines") {
        return;
    }
    let d = Dir::new();
    let file = d.path("modes.toml");
    std::fs::write(
        &file,
        r#"name = "modes"
variants = ["auto-inc"]
[[tables]]
name = "t"
id = { name = "id" }
columns = [{ name = "v", type = "int", nullable = false, gen = { int = [1, 500] } }]
[[matrix]]
autoinc_lock_mode = [0, 2]
writers = [1, 3]
[[phases]]
load = { rows = 20_000, method = "multi", batch = 500 }
"#,
    )
    .unwrap();
    let run = |engine: &str| {
        let f = file.to_str().unwrap();
        json(&d.keylab(&["run", f, "--engine", engine, "--format", "json"]).expect_code(0).stdout)
    };
    for engine in ["sim", "mariadb"] {
        let v = run(engine);
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 4);
        let fill = |mode: &str, writers: &str| {
            let r = runs
                .iter()
                .find(|r| {
                    let p = &r["phases"][0];
                    p["cell_autoinc_lock_mode"] == mode && p["cell_writers"] == writers
                })
                .unwrap_or_else(|| panic!("{engine}: no run for mode {mode} x{writers}"));
            let p = &r["phases"][0];
            assert_eq!(p["autoinc_lock_mode"].to_string(), mode, "{engine}: {p}");
            assert!(p.get("not_applicable").is_none(), "{engine} applies the mode: {p}");
            r["indexes"][0]["fill_pct"].as_f64().unwrap()
        };
        let (one, three) = (fill("0", "1"), fill("0", "3"));
        assert!((one - three).abs() < 0.3, "{engine}: mode 0, 3 writers append: {one} {three}");
        fill("2", "1");
        fill("2", "3");
    }
}

/// Churn of autocommitted single-row inserts from three connections at once, a round's
/// deletes in one transaction, and a restart between: every phase runs on a private MariaDB,
/// the rows deleted are keylab's choice (every delete finds its row), and the result says
/// that the server's insert order was its own.
#[test]
fn concurrent_row_churn_and_a_restart_run_on_a_private_mariadb() {
    if !server_installed("concurrent_row_churn_and_a_restart_run_on_a_private_mariadb") {
        return;
    }
    let d = Dir::new();
    let src = r#"name = "pool"
variants = ["md5:text"]
[[tables]]
name = "t"
columns = [{ name = "r", type = "varchar(10)", gen = { prefix_digit = "test" } }]
[[phases]]
load = { rows = 300 }
[[phases]]
restart = {}
[[phases]]
churn = { rounds = 3, inserts = 100, deletes = 100, insert_method = "row", writers = 3, delete_method = "one_transaction" }
"#;
    std::fs::write(d.path("pool.toml"), src).unwrap();
    let out = d.keylab(&["run", "pool.toml", "--engine", "mariadb", "--format", "json"]);
    let v = json(&out.expect_code(0).stdout);
    let phases = v["runs"][0]["phases"].as_array().unwrap().clone();
    assert_eq!(phases[2]["kind"], "restart");
    assert_eq!(phases[2]["status"], "ok", "{}", phases[2]);
    let churn = &phases[3];
    assert_eq!(churn["status"], "ok", "{churn}");
    assert_eq!(churn["insert_order"], "concurrent_writers");
    assert_eq!(churn["live_rows"], 300);
    assert_eq!(v["runs"][0]["rows"], 300, "{}", v["runs"][0]);
}
