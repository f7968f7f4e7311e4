//! `keylab scenarios`, `keylab run` on every built-in (small scale, on the simulator) and
//! scenario errors.

use crate::util::{json, Dir};
use serde_json::{json, Value};

const BUILTINS: [&str; 7] = [
    "e1-uuid-vs-ulid",
    "e2-bulk-load",
    "e3-id-storage",
    "e4-change-buffer",
    "e4-throughput",
    "e5-fill-factor-churn",
    "pg-wal-fpi",
];

/// Runs a built-in at `scale` on the simulator and returns the JSON result, after checking
/// that its reading opens with a verdict of one to three lines.
fn run_builtin(name: &str, scale: &str) -> Value {
    let run =
        Dir::new().keylab(&["run", name, "--scale", scale, "--format", "json"]).expect_code(0);
    let report = keylab_report::parse_report(&run.stdout, std::path::Path::new(name)).unwrap();
    let verdict = keylab_report::verdict(&report);
    assert!((1..=keylab_report::MAX_VERDICT_LINES).contains(&verdict.len()), "{name}: {verdict:?}");
    let v = json(&run.stdout);
    assert_eq!(v["scenario"], name);
    assert_eq!(v["engine"]["kind"], "sim");
    for r in v["runs"].as_array().unwrap() {
        let phases = r["phases"].as_array().unwrap();
        assert_eq!(phases[0]["kind"], "settings");
        assert_eq!(phases[1]["kind"], "load");
        for p in phases {
            let status = p["status"].as_str().unwrap();
            assert!(status == "ok" || status == "not_applicable", "{p}");
            if status == "not_applicable" {
                assert!(!p["reason"].as_str().unwrap().is_empty(), "{p}");
            }
        }
        assert!(r["indexes"][0]["leaf_pages"].as_u64().unwrap() >= 1);
    }
    v
}

#[test]
fn scenarios_lists_the_five_builtins_one_line_each() {
    let run = Dir::new().keylab(&["scenarios"]).expect_code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    for (line, name) in lines.iter().zip(BUILTINS) {
        assert!(line.starts_with(name), "{line}");
        assert!(line.len() > name.len() + 10, "a description follows: {line}");
    }
}

#[test]
fn scenarios_show_prints_toml_that_runs_from_a_file() {
    let d = Dir::new();
    let run = d.keylab(&["scenarios", "show", "e3-id-storage"]).expect_code(0);
    assert!(run.stdout.contains("name = \"e3-id-storage\""), "{}", run.stdout);
    std::fs::write(d.path("mine.toml"), &run.stdout).unwrap();
    let run = d.keylab(&["run", "mine.toml", "--scale", "0.01", "--format", "json"]).expect_code(0);
    assert_eq!(json(&run.stdout)["runs"].as_array().unwrap().len(), 12);
}

#[test]
fn scenarios_show_unknown_name_exits_2_listing_the_names() {
    let run = Dir::new().keylab(&["scenarios", "show", "e9"]).expect_code(2);
    assert!(
        run.stderr.contains("no built-in scenario `e9`; valid: e1-uuid-vs-ulid"),
        "{}",
        run.stderr
    );
}

#[test]
fn e1_runs_both_keys_both_placements_and_samples_growth() {
    let v = run_builtin("e1-uuid-vs-ulid", "0.02");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10);
    assert_eq!(runs[0]["variant"], "uuid4:text");
    assert_eq!(runs[0]["rows"], 2000);
    assert_eq!(runs[0]["load"]["method"], "row");
    let load = &runs[0]["phases"][1];
    let samples = load["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 10);
    assert_eq!(samples[9]["rows"], 2000);
    assert!(samples[0]["primary_leaf_pages"].as_u64() <= samples[9]["primary_leaf_pages"].as_u64());
    // The prefix query needs a server: reported, not faked.
    let queries = &runs[0]["phases"][2];
    assert_eq!(queries["kind"], "queries");
    assert_eq!(queries["status"], "not_applicable");
    assert!(runs[0]["queries"].as_array().unwrap().is_empty());
    // ULID fills its clustered pages better than UUIDv4.
    let fill = |i: usize| runs[i]["indexes"][0]["fill_pct"].as_f64().unwrap();
    assert!(fill(1) > fill(0));
}

#[test]
fn e2_runs_the_three_matrix_groups() {
    let v = run_builtin("e2-bulk-load", "0.002");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4 + 6 + 27 + 6 + 6);
    assert_eq!(runs[0]["load"]["method"], "row");
    assert_eq!(runs[3]["load"]["method"], "load-data");
    assert_eq!(runs[36]["variant"], "uuid4:text");
    assert_eq!(runs[36]["load"]["writers"], 15);
    assert_eq!(runs[38]["load"]["batch_max"], 1500);
    assert_eq!(runs[38]["load"]["method"], "prepared");
    assert_eq!(runs[39]["load"]["method"], "prepared-uncached");
    assert_eq!(runs[43]["phases"][0]["autoinc_lock_mode"], 0);
    assert_eq!(runs[48]["phases"][0]["cell_autoinc_lock_mode"], "2");
    assert_eq!(runs[48]["load"]["writers"], 4);
}

#[test]
fn e3_runs_every_id_strategy() {
    let v = run_builtin("e3-id-storage", "0.02");
    let variants: Vec<&str> =
        v["runs"].as_array().unwrap().iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(variants[0], "auto-inc");
    assert!(variants.contains(&"uuid1:bin-swap"));
    assert!(variants.contains(&"uuid4:hex"));
    // JDBC batching without a rewrite: one INSERT per row, 500 per transaction.
    for r in &v["runs"].as_array().unwrap()[1..] {
        assert_eq!((&r["load"]["method"], &r["load"]["batch"]), (&json!("row"), &json!(500)));
    }
}

#[test]
fn e4_says_which_settings_the_engine_does_not_apply() {
    let v = run_builtin("e4-change-buffer", "0.001");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let settings = &runs[0]["phases"][0];
    assert_eq!(settings["cell_page_size"], "16k");
    assert_eq!(settings["page_size_bytes"], 16384);
    assert_eq!(runs[2]["phases"][0]["page_size_bytes"], 4096);
    // Scaled pools floor at the server's minimum for the page size.
    assert_eq!(settings["buffer_pool_bytes"], 6 << 20);
    assert_eq!(runs[2]["phases"][0]["buffer_pool_bytes"], 5 << 20);
    assert_eq!(runs[0]["phases"][2]["kind"], "churn");
    let cb = &runs[0]["buffer_pool"]["change_buffer"];
    assert!(cb["cap_pages"].as_u64().unwrap() > 0, "{cb}");
    assert!(cb["io_share_pct"].is_number(), "{cb}");
    assert!(runs[0]["phases"][2]["change_buffer_io_share_pct"].is_number());
    // One engine block for engines of two page sizes: what differed says so.
    let engine = &v["engine"]["settings"];
    assert!(engine["innodb_page_size"].as_str().unwrap().starts_with("varies by run"), "{engine}");
    assert_eq!(engine["row_format"], "DYNAMIC");
}

#[test]
fn e5_runs_every_fill_factor_with_churn_and_rebuilds() {
    let v = run_builtin("e5-fill-factor-churn", "0.005");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    let kinds: Vec<&str> =
        runs[0]["phases"].as_array().unwrap().iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["settings", "load", "rebuild", "restart", "churn", "rebuild", "ddl"]);
    assert_eq!(runs[5]["phases"][0]["fill_factor_pct"], 75);
    assert_eq!(runs[0]["indexes"].as_array().unwrap().len(), 4);
    // The simulator restarts by emptying its pool model.
    assert_eq!(runs[0]["phases"][3]["status"], "ok");
    let churn = &runs[0]["phases"][4];
    if churn["status"] == "ok" {
        assert_eq!(churn["rounds"], 200);
        assert_eq!(churn["per_round"].as_array().unwrap().len(), 20);
        assert_eq!(churn["insert_method"], "row");
        assert_eq!(churn["writers"], 1);
        assert_eq!(churn["delete_method"], "one_transaction");
        assert_eq!(churn["insert_order"], "keylab");
    }
    // DDL under two writers on the simulator: the rules' answers, every time null.
    let ddl = &runs[0]["phases"][6];
    assert_eq!(ddl["concurrent_writers"], 2);
    let steps = ddl["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 13);
    for s in steps {
        assert!(s["wall_ms"].is_null() && s["writers_longest_stall_ms"].is_null(), "{s}");
        assert!(s["rows_inserted_during_ddl"].is_null(), "{s}");
    }
    assert_eq!(steps[2]["after"], "id");
    assert_eq!(
        (&steps[2]["supported"], &steps[2]["algorithm_used"]),
        (&json!(true), &json!("instant"))
    );
    assert_eq!(steps[2]["blocks_writers"], false);
    // MariaDB runs INPLACE instantly when it can.
    assert_eq!(steps[4]["algorithm_used"], "instant");
    assert_eq!(
        (&steps[6]["lock_used"], &steps[6]["blocks_writers"]),
        (&json!("shared"), &json!(true))
    );
    assert_eq!(steps[7]["lock_used"], "shared", "COPY's default lock");
    assert_eq!((&steps[8]["supported"], &steps[8]["error_code"]), (&json!(false), &json!(1846)));
    assert!(ddl["add_column_copy_shared_writers_stall_ms"].is_null());
    // The DATETIME column goes instantly; the first FULLTEXT index rebuilds under a shared
    // lock (writers wait), after which no column change is instant.
    assert_eq!(steps[9]["algorithm_used"], "instant");
    assert_eq!(
        (&steps[11]["supported"], &steps[11]["lock_used"], &steps[11]["blocks_writers"]),
        (&json!(true), &json!("shared"), &json!(true))
    );
    assert!(steps[11]["message"].as_str().unwrap().contains("rebuilds the table"));
    assert_eq!((&steps[12]["supported"], &steps[12]["error_code"]), (&json!(false), &json!(1845)));
}

#[test]
fn bad_scenario_file_exits_2_with_file_line_column() {
    let d = Dir::new();
    let src = "name = \"x\"\nvariants = [\"uuid4\"]\n[[tables]]\nname = \"t\"\n\
               [[phases]]\nload = { rowz = 10 }\n";
    std::fs::write(d.path("bad.toml"), src).unwrap();
    let run = d.keylab(&["run", "bad.toml"]).expect_code(2);
    assert!(
        run.stderr.contains("bad.toml:6:10: unknown field `rowz`, expected one of `rows`"),
        "{}",
        run.stderr
    );
    let run = d.keylab(&["run", "nothing-here"]).expect_code(2);
    assert!(run.stderr.contains("built-ins: e1-uuid-vs-ulid"), "{}", run.stderr);
    let run = d.keylab(&["run", "e3-id-storage", "--scale", "0"]).expect_code(2);
    assert!(run.stderr.contains("--scale"), "{}", run.stderr);
}

#[test]
fn exports_hold_every_finished_run() {
    let d = Dir::new();
    d.keylab(&["run", "e3-id-storage", "--scale", "0.01", "--export-json", "r.json"])
        .expect_code(0);
    let v = json(&std::fs::read_to_string(d.path("r.json")).unwrap());
    assert_eq!(v["scenario"], "e3-id-storage");
    assert_eq!(v["runs"].as_array().unwrap().len(), 12);
}

#[test]
fn validate_needs_a_reachable_server() {
    let run = Dir::new().keylab(&["validate", "--url", "mysql://nobody@127.0.0.1:1/keylab"]);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("127.0.0.1:1"), "{}", run.stderr);
}

/// E3's v1 swap: with the built-in's clock step, time_low wraps within a full-size load; a
/// small load spans too little time for that, and the reading says so. A long step shows
/// the effect at small scale.
#[test]
fn e3_reading_shows_the_v1_swap_when_time_low_wraps() {
    let d = Dir::new();
    let show = d.keylab(&["scenarios", "show", "e3-id-storage"]).expect_code(0);
    assert!(show.stdout.contains("step_ms = 13"), "{}", show.stdout);
    let small = d.keylab(&["run", "e3-id-storage", "--scale", "0.02"]).expect_code(0);
    assert!(small.stdout.contains("time_low did not wrap"), "{}", small.stdout);
    std::fs::write(d.path("wrap.toml"), show.stdout.replace("step_ms = 13", "step_ms = 1000"))
        .unwrap();
    let wrap = d.keylab(&["run", d.path("wrap.toml").to_str().unwrap(), "--scale", "0.02"]);
    let out = wrap.expect_code(0).stdout;
    assert!(out.contains("UUIDv1's time-field swap"), "{out}");
    assert!(out.contains("the pages: canonical v1 starts with time_low"), "{out}");
}

#[test]
fn a_bad_id_share_exits_2_at_its_line_and_column() {
    let d = Dir::new();
    let src = |q: &str| {
        format!(
            "name = \"x\"\nvariants = [\"ulid\"]\n[[tables]]\nname = \"t\"\nid = {{ name = \"id\" }}\n\
             [[phases]]\nload = {{ rows = 10 }}\n[[phases]]\nqueries = {q}\n"
        )
    };
    std::fs::write(d.path("big.toml"), src("{ id_share = 1.5 }")).unwrap();
    let run = d.keylab(&["run", "big.toml"]).expect_code(2);
    assert!(run.stderr.contains("big.toml:9:"), "{}", run.stderr);
    assert!(run.stderr.contains("id_share must be in (0, 1]"), "{}", run.stderr);
    // Both: two queries, `id_prefix` and `id_share`.
    std::fs::write(d.path("both.toml"), src("{ id_share = 0.5, id_prefix = \"01\" }")).unwrap();
    d.keylab(&["run", "both.toml"]).expect_code(0);
    // On the simulator the query phase is not applicable, with the reason.
    std::fs::write(d.path("ok.toml"), src("{ id_share = 0.5 }")).unwrap();
    let run = d.keylab(&["run", "ok.toml", "--format", "json"]).expect_code(0);
    assert!(run.stdout.contains("timed queries need a real server"), "{}", run.stdout);
}

/// PostgreSQL's headline cost on the nbtree model: random keys log more full-page images
/// than time-ordered ones, which log more than identity keys; churn ends in VACUUM.
#[test]
fn pg_wal_fpi_orders_the_keys_by_full_page_images() {
    let v = run_builtin("pg-wal-fpi", "0.05");
    assert_eq!(v["engine"]["model"], "postgres-15");
    // The settings phase shows PostgreSQL's 8 KiB block, not InnoDB's page size.
    assert_eq!(v["runs"][0]["phases"][0]["page_size_bytes"], 8192, "{}", v["runs"][0]);
    let fpi = |variant: &str| {
        let r = v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == variant && r["placement"] == "pk")
            .unwrap();
        assert!(r["postgres"]["checkpoints"].as_u64().unwrap() >= 2, "{r}");
        r["postgres"]["full_page_images"].as_u64().unwrap()
    };
    let (random, ordered, identity) = (fpi("uuid4:bin"), fpi("uuid7:bin"), fpi("auto-inc"));
    assert!(random > ordered && ordered > identity, "{random} {ordered} {identity}");
}

/// `--interleave`: the simulator's three mixes of parallel writers' statements. For
/// auto-increment multi-row inserts: `serial` is the one-writer tree, `rows` the lowest fill,
/// `statements` (blocks out of order) in between; a bad value exits 2 naming the choices.
#[test]
fn interleave_modes_bound_the_fill_of_parallel_writers() {
    let d = Dir::new();
    let src = "name = \"w\"\nvariants = [\"auto-inc\"]\n[[tables]]\nname = \"t\"\n\
               columns = [{ name = \"v\", type = \"int\", gen = { int = [0, 50] } }]\n\
               [[matrix]]\nwriters = [1, 4]\n\
               [[phases]]\nload = { rows = 20_000, method = \"multi\", batch = 1_000 }\n";
    std::fs::write(d.path("w.toml"), src).unwrap();
    let fill = |mix: &str| -> Vec<f64> {
        let run = d.keylab(&["run", "w.toml", "--interleave", mix, "--format", "json"]);
        let v = json(&run.expect_code(0).stdout);
        assert_eq!(v["engine"]["settings"]["writer_interleave"], mix);
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["indexes"][0]["fill_pct"].as_f64().unwrap())
            .collect()
    };
    let (rows, statements, serial) = (fill("rows"), fill("statements"), fill("serial"));
    assert_eq!(rows[0], serial[0], "one writer: one tree");
    assert_eq!(serial[1], serial[0], "serial statements: the one-writer tree");
    assert!(
        rows[1] < statements[1] && statements[1] < serial[1],
        "{rows:?} {statements:?} {serial:?}"
    );
    let bad = d.keylab(&["run", "w.toml", "--interleave", "pages"]).expect_code(2);
    assert!(bad.stderr.contains("rows") && bad.stderr.contains("serial"), "{}", bad.stderr);
}

/// MySQL 8.0.29+ gives every instant ADD/DROP COLUMN a row version and refuses the 65th
/// (error 4092) until a rebuild; the `mysql-8.0` model follows, MariaDB's does not.
#[test]
fn mysql_80_model_refuses_the_65th_instant_column_change() {
    let d = Dir::new();
    let steps: Vec<String> = (0..66)
        .map(|n| {
            format!("{{ action = \"add_column\", column = \"c{n}\", algorithm = \"instant\" }}")
        })
        .collect();
    let src = format!(
        "name = \"versions\"\nvariants = [\"auto-inc\"]\n[[tables]]\nname = \"t\"\n\
         [[phases]]\nload = {{ rows = 100 }}\n[[phases]]\nddl = {{ steps = [{}] }}\n",
        steps.join(", ")
    );
    std::fs::write(d.path("versions.toml"), src).unwrap();
    let steps_of = |model: &str| {
        let run = d
            .keylab(&["run", "versions.toml", "--model", model, "--format", "json"])
            .expect_code(0);
        let v = json(&run.stdout);
        v["runs"][0]["phases"][2]["steps"].as_array().unwrap().clone()
    };
    let mysql = steps_of("mysql-8.0");
    assert_eq!(mysql.len(), 66);
    assert!(mysql[..64].iter().all(|s| s["supported"] == true), "{:?}", &mysql[..64]);
    for s in &mysql[64..] {
        assert_eq!((&s["supported"], &s["error_code"]), (&json!(false), &json!(4092)), "{s}");
    }
    let maria = steps_of("mariadb-10.11");
    assert!(maria.iter().all(|s| s["supported"] == true));
}
