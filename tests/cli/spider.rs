//! Sharded runs on MariaDB's Spider engine against the simulator's shard models: per-shard
//! trees and per-window shares (`compare --shards`), `validate --shards`, and a scenario that
//! names existing backends. Without MariaDB's server binaries the tests print SKIPPED, except
//! under `CI=true`, where a missing server is a failure.

use crate::util::{json, server_installed, Dir};

/// `--shards`: the simulator's N model tables predict the Spider run's per-shard trees (rows
/// equal, PRIMARY leaf pages within 0.5%, the issue's bar) under both rules, and the hotspot
/// curves are equal window by window (windows of rows sent; the server's counted from where
/// the backends hold each row after the load). Under range sharding the ordered keys' hot
/// shard moves 0, 1, 2. Hash sharding covers text keys in both utf8mb4 collations.
#[test]
fn simulator_predicts_the_spider_shards() {
    if !server_installed("simulator_predicts_the_spider_shards") {
        return;
    }
    let d = Dir::new();
    // Under hash, text keys too: utf8mb4_general_ci (uuid4:text) and utf8mb4_bin (ksuid:text).
    for (sharding, keys) in [
        ("range", "seq,uuid4:bin,uuid7:bin"),
        ("hash", "seq,uuid4:bin,uuid7:bin,uuid4:text,ksuid:text"),
    ] {
        let run = |engine: &str| {
            let out = d
                .keylab(&[
                    "compare",
                    "--engine",
                    engine,
                    "--shards",
                    "3",
                    "--sharding",
                    sharding,
                    "--keys",
                    keys,
                    "--rows",
                    "30000",
                    "--format",
                    "json",
                ])
                .expect_code(0);
            json(&out.stdout)
        };
        let (sim, server) = (run("sim"), run("mariadb"));
        for (a, b) in sim["runs"].as_array().unwrap().iter().zip(server["runs"].as_array().unwrap())
        {
            let label = format!("{sharding} {}", a["variant"]);
            let (sa, sb) = (&a["shards"]["shards"], &b["shards"]["shards"]);
            for k in 0..3 {
                assert_eq!(sa[k]["rows"], sb[k]["rows"], "{label} shard {k} rows");
                let (la, lb) = (
                    sa[k]["indexes"][0]["leaf_pages"].as_f64().unwrap(),
                    sb[k]["indexes"][0]["leaf_pages"].as_f64().unwrap(),
                );
                assert!((la - lb).abs() <= lb * 0.005, "{label} shard {k}: sim {la}, server {lb}");
            }
            let (wa, wb) = (&a["shards"]["windows"], &b["shards"]["windows"]);
            assert!(wa.as_array().unwrap().len() >= 10, "{label}: {wa}");
            assert_eq!(wa, wb, "{label}: per-window inserts per shard");
            assert!(
                b["shards"]["windows_from"].as_str().unwrap().contains("found on after the load"),
                "{}",
                b["shards"]["windows_from"]
            );
            if sharding == "range" && a["variant"] != "uuid4:bin" {
                let busiest: Vec<usize> = wb
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| {
                        let ins: Vec<u64> = w["inserts"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|i| i.as_u64().unwrap())
                            .collect();
                        (0..ins.len()).max_by_key(|&i| ins[i]).unwrap()
                    })
                    .fold(Vec::new(), |mut order, k| {
                        if order.last() != Some(&k) {
                            order.push(k);
                        }
                        order
                    });
                assert_eq!(busiest, vec![0, 1, 2], "{label}: the hot shards in turn");
            }
        }
    }
}

/// `keylab validate --shards 3 --sharding range`: the sharded matrix on both sides, every
/// window equal, every shard in bounds, exit 0; the table names the per-shard and per-window
/// sections.
#[test]
fn validate_compares_the_shards_with_a_spider_run() {
    if !server_installed("validate_compares_the_shards_with_a_spider_run") {
        return;
    }
    let d = Dir::new();
    let out = d
        .keylab(&["validate", "--shards", "3", "--sharding", "range", "--format", "json"])
        .expect_code(0);
    let v = json(&out.stdout);
    assert_eq!(v["passed"], true, "{}", v["shards"]["failures"]);
    let windows = v["shards"]["windows"].as_array().unwrap();
    // auto-inc, seq, uuid4:bin, uuid7:bin under range, about 20 windows each.
    assert!(windows.len() >= 4 * 15, "{} windows", windows.len());
    assert!(windows.iter().all(|w| w["equal"] == true));
    let figures = v["shards"]["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 4 * 3 * 4, "4 runs x 3 shards x 4 figures");
    assert!(figures.iter().all(|f| f["within"] != false), "{figures:#?}");
    assert!(figures
        .iter()
        .any(|f| f["run"] == "uuid4:bin pk sharding=range" && f["metric"] == "PRIMARY.leaf_pages"));
}

/// A scenario naming existing backends: two MariaDB servers the test starts stand for a
/// team's own, each with a database of its own and a keylab user with a password. keylab
/// creates and marks its database on each, puts a private Spider head in front, loads, and
/// predicts the same shards on the simulator; the team's data and users are as they were, no
/// password is printed, and only keylab's marker is left in its database.
#[test]
fn a_scenario_shards_over_existing_backends() {
    use mysql::prelude::Queryable;
    if !server_installed("a_scenario_shards_over_existing_backends") {
        return;
    }
    let settings = keylab_mariadb::ServerSettings::default();
    let servers: Vec<keylab_mariadb::PrivateServer> = (0..2)
        .map(|_| keylab_mariadb::PrivateServer::start(&settings).expect("a backend"))
        .collect();
    let mut admins: Vec<mysql::Conn> =
        servers.iter().map(|s| mysql::Conn::new(s.socket_opts()).unwrap()).collect();
    for a in &mut admins {
        a.query_drop(
            "CREATE DATABASE appdb; CREATE TABLE appdb.orders (id INT PRIMARY KEY); \
             INSERT INTO appdb.orders VALUES (7), (8); \
             CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'pw-Sh4rd-secret'; \
             GRANT ALL ON *.* TO 'bench'@'127.0.0.1'",
        )
        .unwrap();
    }
    let before = |a: &mut mysql::Conn| -> Vec<String> {
        a.query(
            "SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, ':', TABLE_ROWS) FROM \
                 information_schema.TABLES WHERE TABLE_SCHEMA NOT IN \
                 ('information_schema', 'performance_schema', 'mysql', 'sys', 'kl_shards') \
                 ORDER BY 1",
        )
        .unwrap()
    };
    let snapshot: Vec<Vec<String>> = admins.iter_mut().map(before).collect();
    let urls: Vec<String> = servers
        .iter()
        .map(|s| format!("\"mysql://bench:pw-Sh4rd-secret@127.0.0.1:{}/kl_shards\"", s.port()))
        .collect();
    let d = Dir::new();
    let scenario = format!(
        "name = \"existing\"\nvariants = [\"seq\", \"uuid4:bin\"]\n\
         [[tables]]\nname = \"t\"\nid = {{ name = \"id\" }}\n\
         [engine]\nsharding = \"hash\"\nbackends = [{}]\n\
         [[phases]]\nload = {{ rows = 20_000, method = \"multi\", batch = 1_000 }}\n",
        urls.join(", ")
    );
    std::fs::write(d.path("existing.toml"), scenario).unwrap();
    let file = d.path("existing.toml");
    let file = file.to_str().unwrap();
    let run = |engine: &str| {
        let out = d.keylab(&["run", file, "--engine", engine, "--format", "json"]).expect_code(0);
        for text in [&out.stdout, &out.stderr] {
            assert!(!text.contains("pw-Sh4rd-secret"), "password shown: {text}");
        }
        json(&out.stdout)
    };
    let (server, sim) = (run("mariadb"), run("sim"));
    let backends = server["engine"]["settings"]["backends"].as_array().unwrap();
    assert_eq!(backends.len(), 2, "{}", server["engine"]["settings"]);
    for (a, b) in sim["runs"].as_array().unwrap().iter().zip(server["runs"].as_array().unwrap()) {
        let label = a["variant"].to_string();
        let (sa, sb) = (&a["shards"], &b["shards"]);
        assert_eq!(sb["shards"].as_array().unwrap().len(), 2, "{label}");
        for k in 0..2 {
            assert_eq!(sa["shards"][k]["rows"], sb["shards"][k]["rows"], "{label} shard {k}");
        }
        assert_eq!(sa["windows"], sb["windows"], "{label}: per-window inserts");
        assert!(sb["windows_from"].as_str().unwrap().contains("existing server"), "{}", sb);
    }
    for (k, a) in admins.iter_mut().enumerate() {
        assert_eq!(before(a), snapshot[k], "backend {k}: the team's tables changed");
        let orders: Vec<i32> = a.query("SELECT id FROM appdb.orders ORDER BY id").unwrap();
        assert_eq!(orders, vec![7, 8]);
        let left: Vec<String> = a.query("SHOW TABLES FROM kl_shards").unwrap();
        assert_eq!(left, vec!["keylab_owner".to_string()], "backend {k}: only keylab's marker");
        let users: Vec<String> =
            a.query("SELECT CONCAT(User, '@', Host) FROM mysql.user ORDER BY 1").unwrap();
        assert!(users.contains(&"bench@127.0.0.1".to_string()), "{users:?}");
    }
}

/// A scenario's backends are checked before anything connects: a `--shards` that disagrees
/// and an engine without Spider exit 2 naming what is valid, and a bad URL's password is
/// never shown.
#[test]
fn scenario_backends_are_checked_before_anything_connects() {
    let d = Dir::new();
    let scenario = |urls: &str| {
        format!(
            "name = \"existing\"\nvariants = [\"seq\"]\n[[tables]]\nname = \"t\"\n\
             [engine]\nbackends = [{urls}]\n[[phases]]\nload = {{ rows = 1000 }}\n"
        )
    };
    let file = d.path("b.toml");
    let file_s = file.to_str().unwrap();
    std::fs::write(
        &file,
        scenario(r#""mysql://a:pw-x1@127.0.0.1:1", "mysql://a:pw-x1@127.0.0.1:2""#),
    )
    .unwrap();
    let run = d.keylab(&["run", file_s, "--engine", "mariadb", "--shards", "3"]).expect_code(2);
    assert!(run.stderr.contains("lists 2 servers"), "{}", run.stderr);
    let run = d.keylab(&["run", file_s, "--engine", "mysql"]).expect_code(2);
    assert!(run.stderr.contains("--engine mariadb"), "{}", run.stderr);
    assert!(!run.stderr.contains("pw-x1"), "{}", run.stderr);
    std::fs::write(&file, scenario(r#""mysql://a:pw-x1@h", "ftp://a:pw-x1@h""#)).unwrap();
    let run = d.keylab(&["run", file_s]).expect_code(2);
    assert!(run.stderr.contains("a backend is a MariaDB URL"), "{}", run.stderr);
    assert!(!run.stderr.contains("pw-x1"), "{}", run.stderr);
}
