//! `keylab advise --workload` on a real table (BenchBase Twitter's `tweets`, from the
//! corpus): a mixed workload of inserts and reads of the newest rows, under a bounded pool;
//! per candidate the misses per 1,000 operations and the pool its hit target needs, and a
//! recommendation that weighs them. Bad input exits 2 naming the flag.

use crate::util::{json, Dir, Run};

const TWITTER: &str = "benchbase-twitter-mysql.sql";
const TWITTER_PG: &str = "benchbase-twitter-postgres.sql";

/// The corpus files copied into `d` (so the report names them by a relative path), or
/// `None` (SKIPPED; a failure under `CI=true`).
fn twitter(d: &Dir, test: &str) -> Option<()> {
    let corpus = crate::util::shared_dir("corpus", test)?;
    for f in [TWITTER, TWITTER_PG] {
        std::fs::copy(format!("{corpus}/{f}"), d.path(f)).unwrap();
    }
    Some(())
}

fn advise_file(d: &Dir, file: &str, extra: &[&str]) -> Run {
    let mut args = vec!["advise", file, "--table", "tweets"];
    args.extend_from_slice(extra);
    d.keylab(&args)
}

fn advise(d: &Dir, extra: &[&str]) -> Run {
    advise_file(d, TWITTER, extra)
}

/// The advice phase of run `i`.
fn advice(r: &serde_json::Value, i: usize) -> &serde_json::Value {
    let phases = r["runs"][i]["phases"].as_array().unwrap();
    phases.iter().find(|p| p["kind"] == "advice").expect("an advice phase")
}

fn notes(r: &serde_json::Value) -> Vec<String> {
    let n = r["engine"]["settings"]["notes"].as_array().unwrap();
    n.iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

const GOLDEN_ARGS: [&str; 8] = [
    "--rows",
    "3000",
    "--workload",
    "10%:point:3000:latest=5%,secondary:300",
    "--buffer-pool",
    "256K",
    "--keys",
    "uuid4:bin,uuid7:bin",
];

/// The JSON of the run below (the PostgreSQL file, on the nbtree model, whose pool goes down
/// to 128 KiB) is the report crate's golden fixture `advise_workload`, so its snapshots
/// (text, Markdown, CSV, HTML, JSON) are what the command prints. Regenerate it with `cp
/// ../shared/corpus/benchbase-twitter-postgres.sql /tmp/ && cd /tmp && keylab advise
/// benchbase-twitter-postgres.sql --table tweets --rows 3000 --workload
/// 10%:point:3000:latest=5%,secondary:300 --buffer-pool 256K --keys uuid4:bin,uuid7:bin
/// --format json > $OLDPWD/crates/report/tests/fixtures/advise_workload.json`.
#[test]
fn the_workload_report_is_the_golden_fixture() {
    let d = Dir::new();
    let Some(()) = twitter(&d, "the_workload_report_is_the_golden_fixture") else { return };
    let args = [&GOLDEN_ARGS[..], &["--format", "json"]].concat();
    let run = advise_file(&d, TWITTER_PG, &args).expect_code(0);
    let got = json(&run.stdout);
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/crates/report/tests/fixtures/advise_workload.json");
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(got, want, "regenerate the fixture (see this test's doc) and review the diff");
}

#[test]
fn a_mixed_workload_weighs_the_misses_and_the_pool_each_candidate_needs() {
    let d = Dir::new();
    let Some(()) = twitter(&d, "a_mixed_workload_weighs_the_misses") else { return };
    let args = [
        "--rows",
        "20000",
        "--workload",
        "10%:point:20000:latest=5%",
        "--buffer-pool",
        "8M",
        "--keys",
        "uuid4:bin,uuid7:bin",
        "--format",
        "json",
    ];
    let r = json(&advise(&d, &args).expect_code(0).stdout);
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "current, uuid4:bin, uuid7:bin");
    for (i, run) in runs.iter().enumerate() {
        let mixed = run["phases"].as_array().unwrap().iter().find(|p| p["kind"] == "mixed");
        let mixed = mixed.unwrap_or_else(|| panic!("no mixed phase in {run}"));
        assert_eq!((mixed["ops"].as_u64(), mixed["inserts"].as_u64()), (Some(20000), Some(2000)));
        let a = advice(&r, i);
        assert_eq!(a["buffer_pool_bytes"], 8 << 20);
        assert_eq!(a["hit_target"], 0.99);
        assert_eq!(a["workload"], "10%:point:20000:latest=5%");
        assert!(a["workload_misses_per_1000_ops"].as_f64().is_some(), "{a}");
        // The default curve: 1/16, 1/4, 1/2, 1x, 2x of the table, raised to the 6 MiB floor,
        // then 2x on top of the 1,536 pages the page cleaner keeps free (24 MiB at 16k).
        let curve = a["workload_curve"].as_array().unwrap();
        assert!((2..=6).contains(&curve.len()), "{a}");
        let largest = curve.last().unwrap()["pool_bytes"].as_u64().unwrap();
        assert!(largest > 24 << 20, "{a}");
    }
    // The newest 5% of a time-ordered key sit on a few leaves; uuid4:bin's are on every
    // leaf, and its inserts too. Every key's autocommitted inserts also cycle the 128 rollback
    // segments' header and undo pages through the pool, which MariaDB's page cleaner keeps
    // mostly free at 8 MiB (model-rules §9, §15): ordered keys miss those too.
    let (uuid4, uuid7) = (advice(&r, 1), advice(&r, 2));
    let m4 = uuid4["workload_misses_per_1000_ops"].as_f64().unwrap();
    let m7 = uuid7["workload_misses_per_1000_ops"].as_f64().unwrap();
    assert!(m4 > 2.0 * m7 && m7 > 50.0, "uuid4:bin {m4}, uuid7:bin {m7} misses per 1,000 ops");
    // Small pools hold few of the table's pages beside the page cleaner's free pages: the
    // pool each needs is found only past them, between the last two sizes.
    let need = |a: &serde_json::Value| {
        assert_eq!(a["cache_for_hit_target"], "interpolated from the curve", "{a}");
        a["cache_for_hit_target_bytes"].as_u64().unwrap()
    };
    assert!(need(uuid4) > need(uuid7) && need(uuid7) > 24 << 20, "{uuid4} {uuid7}");
    let n = notes(&r);
    let rec = n.iter().find(|n| n.starts_with("Recommendation: ")).unwrap();
    assert!(rec.starts_with("Recommendation: uuid7:bin"), "{rec}");
    assert!(rec.contains("Rule: ") && rec.contains("pool needed: uuid4:bin"), "{rec}");
    assert!(n.iter().any(|n| n.contains("8.0 MiB (--buffer-pool)")), "{n:?}");
}

#[test]
fn without_buffer_pool_the_servers_default_is_used_and_said() {
    let d = Dir::new();
    let Some(()) = twitter(&d, "without_buffer_pool_the_default") else { return };
    let args =
        ["--rows", "2000", "--workload", "point:500", "--keys", "uuid7:bin", "--format", "json"];
    let r = json(&advise(&d, &args).expect_code(0).stdout);
    assert_eq!(advice(&r, 1)["buffer_pool_bytes"], 128 << 20);
    let n = notes(&r);
    assert!(
        n.iter().any(|n| n.contains("128.0 MiB (the default innodb_buffer_pool_size")),
        "{n:?}"
    );
    // A table far below the pool: every point reads what is cached.
    assert_eq!(advice(&r, 1)["workload_misses_per_1000_ops"], 0.0);
}

#[test]
fn bad_workloads_and_targets_exit_2_naming_the_flag() {
    let d = Dir::new();
    let Some(()) = twitter(&d, "bad_workloads_and_targets_exit_2") else { return };
    let cases: [(&[&str], &[&str]); 8] = [
        (&["--workload", "150%:point:5"], &["--workload", "0 <= share < 1"]),
        (&["--workload", "x%:point:5"], &["--workload", "SHARE:KIND:OPS"]),
        (&["--workload", "scan:5"], &["--workload", "valid: point"]),
        (&["--workload", "point:5", "--hit-target", "100"], &["--hit-target", "0 < PCT < 100"]),
        (&["--hit-target", "95"], &["--hit-target", "give --workload too"]),
        (&["--pool-sizes", "1/4"], &["--pool-sizes", "give --workload too"]),
        (
            &["--workload", "10%:point:5,20%:point:5"],
            &["--workload", "one mixed workload", "20%:point:5"],
        ),
        (&["--workload", "point:5", "--engine", "mariadb"], &["--workload", "simulator only"]),
    ];
    for (extra, want) in cases {
        let e = advise(&d, extra).expect_code(2).stderr;
        for w in want {
            assert!(e.contains(w), "{extra:?}: wants `{w}`: {e}");
        }
    }
    // A partitioned table (pagila's payment, by range of payment_date): refused.
    let corpus = crate::util::shared_dir("corpus", "bad_workloads_and_targets_exit_2").unwrap();
    let pagila = format!("{corpus}/pagila-schema-pg.sql");
    let e = d
        .keylab(&["advise", &pagila, "--table", "payment", "--workload", "point:5"])
        .expect_code(2)
        .stderr;
    assert!(e.contains("--workload: table `payment` is partitioned"), "{e}");
    // A whole schema: the workload is one table's.
    let e = d.keylab(&["advise", TWITTER, "--workload", "point:5"]).expect_code(2).stderr;
    assert!(e.contains("--workload") && e.contains("--table"), "{e}");
}

/// With `--url` and no `--buffer-pool`, the workload runs under the user's server's own
/// `innodb_buffer_pool_size`, read read-only, and the note says where it came from.
#[test]
fn url_workload_runs_under_the_servers_own_pool() {
    use mysql::prelude::Queryable;
    if !crate::util::server_installed("url_workload_runs_under_the_servers_own_pool") {
        return;
    }
    let d = Dir::new();
    let Some(()) = twitter(&d, "url_workload_runs_under_the_servers_own_pool") else { return };
    let (users_server, mut admin) = crate::util::users_server();
    let schema = std::fs::read_to_string(d.path(TWITTER)).unwrap();
    admin.query_drop("CREATE DATABASE app").unwrap();
    admin.query_drop("USE app").unwrap();
    admin.query_drop(&schema).unwrap();
    admin
        .query_drop(
            "INSERT INTO user_profiles (uid) VALUES (1); \
             INSERT INTO tweets VALUES (1, 1, 'hello', NOW()), (2, 1, 'again', NOW()); \
             CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY 'pw-Wl42'; \
             GRANT SELECT ON app.* TO 'reader'@'127.0.0.1'",
        )
        .unwrap();
    let pool: u64 = admin.query_first("SELECT @@innodb_buffer_pool_size").unwrap().unwrap();
    let url = format!("mysql://reader:pw-Wl42@127.0.0.1:{}", users_server.port());
    let args = [
        "advise",
        "--url",
        &url,
        "--table",
        "app.tweets",
        "--rows",
        "2000",
        "--workload",
        "10%:point:500",
        "--keys",
        "uuid7:bin",
        "--format",
        "json",
    ];
    let run = d.keylab(&args);
    let r = json(&run.expect_code(0).stdout);
    assert_eq!(advice(&r, 1)["buffer_pool_bytes"], pool);
    let n = notes(&r);
    assert!(n.iter().any(|n| n.contains("(read from 127.0.0.1:")), "{n:?}");
}

/// `--buffer-pool` on a server engine: the private server starts with it (no workload).
#[test]
fn a_private_server_starts_with_buffer_pool() {
    if !crate::util::server_installed("a_private_server_starts_with_buffer_pool") {
        return;
    }
    let d = Dir::new();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/advise/orders.sql");
    let args = [
        "advise",
        file,
        "--engine",
        "mariadb",
        "--buffer-pool",
        "32M",
        "--rows",
        "300",
        "--keys",
        "uuid7:bin",
        "--format",
        "json",
    ];
    let r = json(&d.keylab(&args).expect_code(0).stdout);
    assert_eq!(r["engine"]["settings"]["innodb_buffer_pool_size"], 32 << 20);
    let n = notes(&r);
    assert!(n.iter().any(|n| n.contains("32.0 MiB (--buffer-pool)")), "{n:?}");
}
