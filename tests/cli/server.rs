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
            // Both check the load: the server by count and checksum, the model by count only.
            let (sv, mv) = (&s["load"]["verification"], &m["load"]["verification"]);
            for v in [sv, mv] {
                assert_eq!(v["rows_expected"], 6000, "{v}");
                assert_eq!(v["rows_found"], 6000, "{v}");
            }
            assert_eq!(mv["checksum_equal"], true, "{mv}");
            assert!(
                mv["checked"]
                    .as_str()
                    .unwrap()
                    .contains("SUM(CRC32(CONCAT_WS('|', `id`, `data`)))"),
                "{mv}"
            );
            assert!(sv["checksum_equal"].is_null(), "{sv}");
        }
    }
}

/// Time-ordered ids in random order inside each millisecond land near a leaf's end but not
/// at it, where PAGE_LAST_INSERT decides (left splits, the 1/16 reserve, right-sibling
/// inserts and the merge attempts they make on the level above): every figure equal. With
/// 200-byte payloads a right-sibling insert also replaces the first node pointer of a small
/// page on the level above (no merge attempt on MariaDB 10.11).
#[test]
fn ids_random_inside_a_millisecond_build_the_same_tree() {
    if !server_installed("ids_random_inside_a_millisecond_build_the_same_tree") {
        return;
    }
    let d = Dir::new();
    let cases = [
        ("100000", "pk", "4"),
        ("100000", "secondary", "4"),
        ("300000", "pk", "4"),
        ("300000", "secondary", "4"),
        ("100000", "pk", "200"),
    ];
    for (rows, placement, payload) in cases {
        let args = |engine: &str| {
            d.keylab(&[
                "compare",
                "--engine",
                engine,
                "--rows",
                rows,
                "--keys",
                "uuid7:text",
                "--ids-per-ms",
                "100",
                "--within-ms",
                "random",
                "--seed",
                "5",
                "--placement",
                placement,
                "--payload-bytes",
                payload,
                "--format",
                "json",
            ])
            .expect_code(0)
        };
        let (sim, server) = (json(&args("sim").stdout), json(&args("mariadb").stdout));
        let (s, m) = (&sim["runs"][0], &server["runs"][0]);
        let case = format!("{rows} rows {placement} payload {payload}");
        for c in ["page_splits", "merge_attempts", "merges", "page_reorgs", "page_discards"] {
            assert_eq!(s["counters"][c], m["counters"][c], "{case} {c}");
        }
        assert_eq!(s["table"]["data_length"], m["table"]["data_length"], "{case}");
        assert_eq!(s["indexes"].as_array().unwrap().len(), m["indexes"].as_array().unwrap().len());
        for ix in 0..s["indexes"].as_array().unwrap().len() {
            let (si, mi) = (&s["indexes"][ix], &m["indexes"][ix]);
            for field in
                ["leaf_pages", "n_leaf_pages_stat", "height", "size_pages", "nonleaf_pages"]
            {
                assert_eq!(si[field], mi[field], "{case} index {ix} {field}");
            }
            // Ratios: equal up to the last bit of the two engines' summation order.
            for field in ["fill_pct", "records_per_leaf"] {
                let (a, b) = (si[field].as_f64().unwrap(), mi[field].as_f64().unwrap());
                assert!((a - b).abs() < 1e-9, "{case} index {ix} {field}: {a} vs {b}");
            }
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

/// `--url` end to end: keylab creates and uses only the database `--database` names, never
/// shows the password, refuses a database holding tables it did not create (exit 2, naming
/// them), and leaves the user's objects as they were.
#[test]
fn url_and_database_on_a_users_server() {
    use mysql::prelude::Queryable;
    if !server_installed("url_and_database_on_a_users_server") {
        return;
    }
    let settings = keylab_server::ServerSettings::default();
    let users_server = keylab_server::PrivateServer::start(&settings).expect("user's server");
    let mut admin = mysql::Conn::new(users_server.socket_opts()).unwrap();
    admin
        .query_drop(
            "CREATE DATABASE appdb; CREATE TABLE appdb.orders (id INT PRIMARY KEY); \
             INSERT INTO appdb.orders VALUES (7); \
             CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'pw-Zq81-secret'; \
             GRANT ALL ON *.* TO 'bench'@'127.0.0.1'",
        )
        .unwrap();
    let url = format!("mysql://bench:pw-Zq81-secret@127.0.0.1:{}", users_server.port());
    let d = Dir::new();
    let compare = |database: &str| {
        d.keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--url",
            &url,
            "--database",
            database,
            "--rows",
            "3000",
            "--keys",
            "uuid4:text,ulid:text",
            "--format",
            "json",
        ])
    };
    let run = compare("kl_cli").expect_code(0);
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains("pw-Zq81-secret"), "{text}");
    }
    let out = json(&run.stdout);
    assert_eq!(out["engine"]["kind"], "mariadb");
    assert_eq!(out["runs"][1]["rows"], 3000);
    assert!(out["runs"][0]["indexes"][0]["fill_pct"].as_f64().unwrap() > 0.0);
    let left: Vec<String> = admin.query("SHOW TABLES FROM kl_cli").unwrap();
    assert_eq!(left, vec!["keylab_owner".to_string()], "only keylab's marker stays");

    let refused = compare("appdb").expect_code(2);
    assert!(refused.stderr.contains("`orders`"), "{}", refused.stderr);
    assert!(!refused.stderr.contains("pw-Zq81-secret"), "{}", refused.stderr);
    let orders: Vec<i32> = admin.query("SELECT id FROM appdb.orders").unwrap();
    assert_eq!(orders, vec![7]);
    let appdb_tables: Vec<String> = admin.query("SHOW TABLES FROM appdb").unwrap();
    assert_eq!(appdb_tables, vec!["orders".to_string()]);
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
/// both. Returns the server's result and how many runs were compared.
fn builtin_on_mariadb_matches_the_simulator(
    name: &str,
    scale: &str,
    deterministic: impl Fn(&Value) -> bool,
) -> (Value, usize) {
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
    (server, compared)
}

/// E1 and E3 end to end on a private MariaDB: every phase runs (timed queries included), and
/// the structure equals the simulator's for the same rows.
#[test]
fn builtins_run_on_a_private_mariadb() {
    if !server_installed("builtins_run_on_a_private_mariadb") {
        return;
    }
    let (e3, compared) =
        builtin_on_mariadb_matches_the_simulator("e3-id-storage", "0.02", |_| true);
    assert_eq!(compared, e3["runs"].as_array().unwrap().len());
    for r in e3["runs"].as_array().unwrap() {
        // E3's "query wait time": the load's statements timed on the server.
        assert!(r["load"]["server_statement_ms"].as_f64().unwrap() > 0.0, "{}", r["load"]);
    }
    let (e1, compared) =
        builtin_on_mariadb_matches_the_simulator("e1-uuid-vs-ulid", "0.01", |_| true);
    assert_eq!(compared, 10);
    for r in e1["runs"].as_array().unwrap() {
        for p in r["phases"].as_array().unwrap() {
            assert_eq!(p["status"], "ok", "every E1 phase runs on a server: {p}");
        }
        assert!(!r["queries"].as_array().unwrap().is_empty(), "E1 times its queries");
        for q in r["queries"].as_array().unwrap() {
            // id_share = 1.0: every row, timed on the server too, with the server's plan.
            assert_eq!(q["rows"], r["rows"], "the prefix selects every row: {q}");
            assert_eq!(q["share"], 1.0, "{q}");
            assert!(q["server_p50_ms"].as_f64().unwrap() > 0.0, "server-side time: {q}");
            assert!(q["server_total_ms"].as_f64().unwrap() > 0.0, "{q}");
            assert!(q["plan"]["access_type"].is_string(), "EXPLAIN's type: {q}");
            assert!(q["plan"]["key"].is_string(), "a covering index: {q}");
            assert!(q["condition"].is_string(), "{q}");
        }
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
    let (e2, compared) = builtin_on_mariadb_matches_the_simulator("e2-bulk-load", "0.002", |r| {
        r["load"]["writers"] == 1
    });
    // Every one-writer run: methods, batch sizes, keys, shapes and cache, lock modes.
    let one_writer = e2["runs"].as_array().unwrap().iter().filter(|r| r["load"]["writers"] == 1);
    assert_eq!(compared, one_writer.count());
    assert!(compared >= 13, "{compared}");
}

/// E4 (two page sizes, change buffering on and off, churn) on a private MariaDB. Runs without
/// change buffering equal the simulator's. With it, the server's split and merge counters
/// are instance-wide and include the change buffer's own B-tree (in the system tablespace),
/// which the simulator does not count, and at larger scales the simulator's merge timing
/// leaves the secondary index a few leaves off (a model gap: e.g. at --scale 0.005, 16k,
/// k_1 271 leaves simulated vs 266 on the server), so those runs are not compared.
#[test]
fn e4_runs_on_a_private_mariadb() {
    if !server_installed("e4_runs_on_a_private_mariadb") {
        return;
    }
    let (_, compared) =
        builtin_on_mariadb_matches_the_simulator("e4-change-buffer", "0.002", |r| {
            r["phases"][0]["cell_change_buffering"] == "off"
        });
    assert_eq!(compared, 2);
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
    let (e5, compared) =
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
fn validate_finds_no_error_against_a_private_mariadb() {
    if !server_installed("validate_finds_no_error_against_a_private_mariadb") {
        return;
    }
    let out = Dir::new().keylab(&["validate", "--format", "json"]).expect_code(0);
    let v = json(&out.stdout);
    // The simulator models the server it is compared with: MariaDB 10.11 here.
    assert_eq!(v["simulator"]["model"], "mariadb-10.11", "{}", v["simulator"]);
    assert!(v["model_note"].is_null(), "{}", v["model_note"]);
    let details = v["validation"]["details"].as_array().unwrap();
    // 16 runs (4 variants x 2 placements x 2 page sizes) and 4 of uuid7:text random inside a
    // millisecond (2 placements x 100k, 300k rows) through load, churn and rebuild.
    assert!(details.len() >= 20 * 40, "{} figures", details.len());
    let near_end = "uuid7:text secondary rows=300000 ids_per_ms=100 within_ms=random";
    assert!(details.iter().any(|d| d["run"] == near_end), "{near_end} compared");
    for metric in ["churn.merges", "rebuild.primary_leaf_pages_after", "data_free"] {
        assert!(details.iter().any(|d| d["metric"] == metric), "{metric} compared");
    }
    let off: Vec<&Value> =
        details.iter().filter(|d| d["error"].as_f64().is_none_or(|e| e.abs() > 1e-9)).collect();
    assert!(off.is_empty(), "the simulator differs from the server: {off:#?}");
    // The buffer pool check: the three keys on both engines, with reads compared.
    let pool = v["buffer_pool"].as_array().unwrap();
    assert_eq!(pool.len(), 3, "{pool:?}");
    assert_eq!(pool[0]["variant"], "uuid4:text");
    assert_eq!(pool[1]["variant"], "uuid4:bin");
    assert!(pool[0]["reads_error_pct"].as_f64().is_some(), "{}", pool[0]);
    assert!(pool[1]["reads_error_pct"].as_f64().is_some(), "{}", pool[1]);
    assert!(pool[2]["server_pages_read"].as_u64().is_some(), "{}", pool[2]);
}

/// Ctrl-C in the middle of a load on a private instance: keylab stops the server, removes
/// its directory and exits 130 (not 1 with the connection error the load then sees).
#[test]
fn ctrl_c_during_a_load_stops_the_private_server() {
    if !server_installed("ctrl_c_during_a_load_stops_the_private_server") {
        return;
    }
    let d = Dir::new();
    // The private server's directory goes under TMPDIR: a fresh one shows what is left behind.
    let tmp = d.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(["compare", "--engine", "mariadb", "--keys", "uuid4:text", "--rows", "50000000"])
        .args(["--method", "row", "--batch", "1"])
        .env("TMPDIR", &tmp)
        .current_dir(d.root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the server's socket, then give the load a moment to start.
    let started = std::time::Instant::now();
    let server_dir = loop {
        let dirs: Vec<_> = std::fs::read_dir(&tmp).unwrap().filter_map(|e| e.ok()).collect();
        if let Some(dir) = dirs.iter().map(|e| e.path()).find(|p| p.join("mysqld.sock").exists()) {
            break dir;
        }
        assert!(started.elapsed().as_secs() < 60, "no private server started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(!server_dir.exists(), "{} left behind", server_dir.display());
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "files left in TMPDIR");
    // No server process from that directory is still running.
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        assert!(!cmdline.contains(&*tmp.to_string_lossy()), "still running: {cmdline}");
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

/// A plain KEY on a `varchar(2000)` utf8mb4 column: MariaDB silently indexes its first 768
/// characters; the simulator models that prefix, so both build the same index, and both say
/// "prefix" in their notes.
#[test]
fn a_prefix_index_is_the_same_on_the_simulator_and_a_private_mariadb() {
    if !server_installed("a_prefix_index_is_the_same_on_the_simulator_and_a_private_mariadb") {
        return;
    }
    let d = Dir::new();
    let src = r#"name = "prefix"
variants = ["auto-inc"]
[[tables]]
name = "t"
columns = [
  { name = "v", type = "varchar(2000)", charset = "utf8mb4bin", gen = { ascii = [700, 1200] } },
]
indexes = [{ name = "kv", columns = ["v"] }]
[[phases]]
load = { rows = 3000, batch = 100 }
"#;
    std::fs::write(d.path("prefix.toml"), src).unwrap();
    let run = |engine: &str| {
        let out = d.keylab(&["run", "prefix.toml", "--engine", engine, "--format", "json"]);
        json(&out.expect_code(0).stdout)
    };
    let (sim, server) = (run("sim"), run("mariadb"));
    for v in [&sim, &server] {
        let notes = v["engine"]["settings"]["notes"].to_string();
        assert!(notes.contains("prefix index on the first 768 characters of `v`"), "{notes}");
    }
    let kv = |v: &Value| {
        let ix = v["runs"][0]["indexes"].as_array().unwrap().iter().find(|i| i["name"] == "kv");
        let ix = ix.unwrap().clone();
        (ix["size_pages"].clone(), ix["leaf_pages"].clone(), ix["height"].clone())
    };
    assert_eq!(kv(&sim), kv(&server), "sim {:?} server {:?}", kv(&sim), kv(&server));
}

/// The buffer pool checked against the server: the same seeded loads of two random keys and
/// an ordered one under a 16 MiB pool (read-ahead off on the server, so both count every page
/// read). Ordered keys read (almost) nothing on both; random keys read within
/// `READS_GAP_PCT` of the server (the issue's bound). Measured on MariaDB 10.11.19 at 300k
/// rows with the default (10.11.9) page cleaner rules: uuid4:text 198,751 against 213,269
/// (-6.8 %; index pages 202,087, -1.7 %), uuid4:bin 156,094 against 165,844 (-5.9 %; index
/// pages 156,647, -0.4 %). The model follows the page cleaner's LRU batch (a written page
/// stays for the next batch, which under 80 MiB passes the whole LRU), the pool's usable
/// pages and the file-space pages a page allocation changes; the server's reads also count
/// the system tablespace's pages (rollback-segment headers read by purge, as often as purge
/// runs, so more on a slower load; undo pages) and the ibuf bitmap, 4 to 10 %
/// (docs/model-rules.md §9).
#[test]
fn buffer_pool_reads_of_the_simulator_follow_the_server() {
    const READS_GAP_PCT: f64 = 10.0;
    if !server_installed("buffer_pool_reads_of_the_simulator_follow_the_server") {
        return;
    }
    let d = Dir::new();
    let run = |engine: &str| {
        json(
            &d.keylab(&[
                "compare",
                "--engine",
                engine,
                "--rows",
                "300000",
                "--keys",
                "uuid4:text,uuid4:bin,uuid7:text",
                "--buffer-pool",
                "16M",
                "--format",
                "json",
            ])
            .expect_code(0)
            .stdout,
        )
    };
    let (sim, server) = (run("sim"), run("mariadb"));
    let settings = &server["engine"]["settings"];
    assert_eq!(settings["innodb_buffer_pool_size"], 16u64 << 20, "{settings}");
    assert_eq!(settings["innodb_read_ahead_threshold"], 0, "{settings}");
    let reads = |r: &Value, i: usize| r["runs"][i]["buffer_pool"]["pages_read"].as_u64().unwrap();
    for (i, key) in [(0, "uuid4:text"), (1, "uuid4:bin")] {
        let (sim_random, server_random) = (reads(&sim, i), reads(&server, i));
        let gap = (sim_random as f64 - server_random as f64).abs() * 100.0 / server_random as f64;
        assert!(gap <= READS_GAP_PCT, "{key} reads: sim {sim_random}, server {server_random}");
    }
    // Ordered keys: the server reads a few system and undo pages, under 5 % of random keys'.
    for (name, r) in [("sim", &sim), ("server", &server)] {
        assert!(reads(r, 2) * 20 < reads(r, 0), "{name}: {} vs {}", reads(r, 2), reads(r, 0));
    }
    // Both sampled a curve during the load.
    for r in [&sim, &server] {
        let curve = r["runs"][0]["buffer_pool"]["curve"].as_array().unwrap();
        assert!(curve.len() >= 50, "{} points", curve.len());
    }
}
