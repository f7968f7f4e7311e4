//! Live tests against private MariaDB/MySQL instances started by the tests themselves: every
//! load method with 1 and 4 writers in both placements, the `--url` safety rules (with a
//! second private instance standing in for a user's server), cleanup after a failure, the
//! tablespace reader against `innodb_index_stats`, and the result format.
//!
//! Without a server binary they print `SKIPPED: ...` and return, except under `CI=true`,
//! where a missing server fails the run.

use keylab_core::{
    run_variant, Engine, EngineError, KeySource, LoadMethod, LoadPlan, NoProgress, Payload,
    Placement, Report, Workload,
};
use keylab_keys::GenConfig;
use keylab_mariadb::{MariaDbEngine, PrivateServer, ServerSettings};
use keylab_schema::Value;
use keylab_server_common::{ServerError, ServerUrl};
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

/// True when a server is installed; SKIPPED otherwise (a failure under `CI=true`).
fn server_installed() -> bool {
    keylab_mariadb::installed_or_skip(module_path!())
}

fn keys() -> KeySource {
    KeySource::Generated(GenConfig::default())
}

#[test]
fn every_method_with_one_and_four_writers_in_both_placements() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    // 3007 rows with batch 500: every method also sends a remainder.
    let rows = 3007;
    for placement in [Placement::Pk, Placement::Secondary] {
        for method in LoadMethod::ALL {
            for writers in [1, 4] {
                for variant in ["uuid4:text", "uuid7:bin", "seq", "auto-inc"] {
                    if variant == "auto-inc" && placement == Placement::Secondary {
                        continue;
                    }
                    let name = format!("t_{}", variant.replace([':', '-'], "_"));
                    let w = Workload::e1(variant, placement, rows, &name);
                    let plan = LoadPlan { method, batch: 500, writers, batch_max: None };
                    let label = format!("{variant} {placement} {method} x{writers}");
                    let r = run_variant(&mut engine, &w, keys(), &plan, &mut NoProgress)
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    assert_eq!(r.rows, rows, "{label}");
                    assert!(r.load.rows_per_s.unwrap() > 0.0, "{label}");
                    let lat = r.load.batch_latency_ms.expect("latency");
                    assert!(lat.p50 <= lat.max, "{label}");
                    assert!(r.counters.page_splits.is_some(), "{label}: counters enabled");
                    assert!(r.counters.pages_written.is_some(), "{label}");
                    let expected_indexes = if placement == Placement::Pk { 1 } else { 2 };
                    assert_eq!(r.indexes.len(), expected_indexes, "{label}");
                    for ix in &r.indexes {
                        assert!(ix.size_pages.unwrap() >= 1, "{label}");
                        assert!(ix.height.unwrap() >= 1, "{label} {}", ix.name);
                        assert!(ix.fill_pct.unwrap() > 0.0, "{label} {}", ix.name);
                        let hist: u64 = ix.fill_histogram.as_ref().unwrap().iter().sum();
                        assert_eq!(Some(hist), ix.pages_per_level.as_ref().map(|l| l[0]));
                    }
                    let first = &engine.last_load().unwrap().first_batch_ms;
                    assert!(!first.is_empty() && first.len() <= writers as usize, "{label}");
                }
            }
        }
    }
    // Everything keylab created was dropped again; only its marker remains.
    let mut conn = engine.new_connection().unwrap();
    let tables: Vec<String> = conn.query("SHOW TABLES").unwrap();
    assert_eq!(tables, vec!["keylab_owner".to_string()]);
}

/// The server's own statement counters (`Com_*` in `SHOW GLOBAL STATUS`), read once `conn`
/// and the engine's own connection are the only sessions left.
///
/// A load returns before the server has counted all of it: a writer's last `COM_STMT_CLOSE`
/// has no reply, and its disconnect is not waited for, so the server may still be running
/// them; and while a session ends, `SHOW GLOBAL STATUS` can miss its counters (MariaDB's
/// `calc_sum_of_all_status` copies the global sum, then adds the sessions still listed). A
/// session the server no longer lists has been counted: `unlink_thd` (sql/mysqld.cc) adds
/// its status to the global sum before taking it off the session list.
fn statement_counts(conn: &mut mysql::Conn) -> std::collections::BTreeMap<String, u64> {
    let started = Instant::now();
    loop {
        let sessions: u64 = conn
            .query_first(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'",
            )
            .unwrap()
            .unwrap();
        if sessions <= 2 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{sessions} sessions still open");
        std::thread::sleep(Duration::from_millis(10));
    }
    let rows: Vec<(String, String)> = conn
        .query(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_insert', 'Com_begin', \
             'Com_commit', 'Com_stmt_prepare', 'Com_stmt_execute', 'Com_stmt_close', \
             'Com_load')",
        )
        .unwrap();
    rows.into_iter().map(|(k, v)| (k.to_lowercase(), v.parse().unwrap())).collect()
}

/// Each method sends what it promises, counted by the server: `row` one INSERT per row in
/// transactions of `batch` rows (autocommit at batch 1), `multi` one INSERT per batch,
/// `prepared` one statement of the batch's shape and one for the remainder per writer, each
/// executed once per batch, `prepared-uncached` a prepare, an execute and a close per batch,
/// `load-data` one LOAD DATA per batch. Varying shapes prepare one statement per shape.
#[test]
fn each_method_sends_the_statements_it_promises() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let mut status = engine.new_connection().unwrap();
    let rows = 2_050;
    let w = Workload::e1("uuid7:bin", Placement::Pk, rows, "t_counts");
    let table = w.table();
    // Method, batch, writers, and the counters' expected increase.
    type Case = (LoadMethod, u32, u32, &'static [(&'static str, u64)]);
    let cases: [Case; 7] = [
        (LoadMethod::Row, 500, 1, &[("com_insert", 2050), ("com_begin", 5), ("com_commit", 5)]),
        (LoadMethod::Row, 1, 1, &[("com_insert", 2050), ("com_begin", 0), ("com_commit", 0)]),
        (LoadMethod::Multi, 500, 1, &[("com_insert", 5), ("com_stmt_prepare", 0)]),
        (
            LoadMethod::Prepared,
            500,
            1,
            &[("com_stmt_prepare", 2), ("com_stmt_execute", 5), ("com_load", 0)],
        ),
        (LoadMethod::LoadData, 500, 1, &[("com_load", 5), ("com_insert", 0)]),
        (LoadMethod::LoadData, 1000, 2, &[("com_load", 3), ("com_insert", 0)]),
        (
            LoadMethod::PreparedUncached,
            500,
            1,
            &[("com_stmt_prepare", 5), ("com_stmt_execute", 5), ("com_stmt_close", 5)],
        ),
    ];
    for (method, batch, writers, expected) in cases {
        let label = format!("{method} batch {batch} x{writers}");
        engine.create_table(&table).unwrap();
        let plan = LoadPlan { method, batch, writers, batch_max: None };
        let before = statement_counts(&mut status);
        let mut gen = w.row_gen(keys());
        engine
            .load(&table, &plan, &mut gen, &mut |_| {})
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let after = statement_counts(&mut status);
        for &(name, want) in expected {
            assert_eq!(after[name] - before[name], want, "{label}: {name}");
        }
        engine.drop_table(&table).unwrap();
    }
    // Varying shapes: the seeded sizes, each prepared once, the remainder too.
    let plan =
        LoadPlan { method: LoadMethod::Prepared, batch: 100, writers: 1, batch_max: Some(400) };
    let mut sizes = Vec::new();
    let mut left = rows as usize;
    for n in plan.statement_rows() {
        sizes.push(n.min(left));
        left -= n.min(left);
        if left == 0 {
            break;
        }
    }
    let shapes = sizes.iter().collect::<std::collections::BTreeSet<_>>().len() as u64;
    assert!(shapes > 2, "{sizes:?}");
    engine.create_table(&table).unwrap();
    let before = statement_counts(&mut status);
    engine.load(&table, &plan, &mut w.row_gen(keys()), &mut |_| {}).unwrap();
    let after = statement_counts(&mut status);
    let grew = |name: &str| after[name] - before[name];
    assert_eq!(grew("com_stmt_prepare"), shapes, "{sizes:?}");
    assert_eq!(grew("com_stmt_execute"), sizes.len() as u64, "{sizes:?}");
    engine.drop_table(&table).unwrap();
}

#[test]
fn tablespace_reader_agrees_with_innodb_index_stats() {
    if !server_installed() {
        return;
    }
    for page_size in [16384u32, 4096] {
        let settings = ServerSettings { page_size_bytes: page_size, ..ServerSettings::default() };
        let mut engine = MariaDbEngine::private(&settings).expect("private server");
        assert_eq!(engine.info().settings["innodb_page_size"], page_size);
        let w = Workload::e1("uuid4:text", Placement::Secondary, 20_000, "t_ibd");
        let table = w.table();
        engine.create_table(&table).unwrap();
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
        engine.load(&table, &plan, &mut w.row_gen(keys()), &mut |_| {}).unwrap();
        let m = engine.measure(&table).unwrap();
        // measure() ran ANALYZE; now read the file ourselves and compare with the stats.
        let mut conn = engine.new_connection().unwrap();
        let stats: Vec<(String, u64)> = conn
            .query(
                "SELECT index_name, stat_value FROM mysql.innodb_index_stats \
                 WHERE database_name = 'keylab' AND table_name = 't_ibd' \
                 AND stat_name = 'n_leaf_pages' ORDER BY index_name",
            )
            .unwrap();
        conn.query_drop("FLUSH TABLES t_ibd FOR EXPORT").unwrap();
        let report =
            keylab_mariadb::ibd::read_tablespace(&engine.tablespace_path("t_ibd").unwrap())
                .unwrap();
        conn.query_drop("UNLOCK TABLES").unwrap();
        assert_eq!(report.page_size_bytes, page_size);
        let ids: Vec<(u64, String)> = conn
            .query(
                "SELECT i.INDEX_ID, i.NAME FROM information_schema.INNODB_SYS_INDEXES i JOIN \
                 information_schema.INNODB_SYS_TABLES t USING (TABLE_ID) \
                 WHERE t.NAME = 'keylab/t_ibd'",
            )
            .unwrap();
        for (index, n_leaf) in &stats {
            let id = ids.iter().find(|(_, n)| n == index).unwrap().0;
            let ix = report.indexes.iter().find(|i| i.index_id == id).unwrap();
            assert_eq!(ix.leaf_pages, *n_leaf, "{page_size}: {index} leaf pages");
            assert!(ix.height >= 2, "{page_size}: {index}");
            assert_eq!(ix.leaf_records, 20_000, "{page_size}: {index}");
            let r = m.indexes.iter().find(|r| &r.name == index).unwrap();
            assert_eq!(r.leaf_pages, Some(*n_leaf));
            assert_eq!(r.height, Some(ix.height));
            assert!(r.size_pages.unwrap() >= ix.leaf_pages + ix.nonleaf_pages);
        }
        engine.drop_table(&table).unwrap();
    }
}

/// A second private instance plays the user's server, reached by its TCP URL.
#[test]
fn url_rules_keep_other_objects_untouched() {
    if !server_installed() {
        return;
    }
    let users_server = PrivateServer::start(&ServerSettings::default()).expect("second server");
    let mut admin = mysql::Conn::new(users_server.socket_opts()).unwrap();
    admin
        .query_drop(
            "CREATE DATABASE keylab; CREATE TABLE keylab.customers (id INT PRIMARY KEY); \
             INSERT INTO keylab.customers VALUES (1), (2); CREATE DATABASE appdb; \
             CREATE TABLE appdb.orders (id INT PRIMARY KEY); INSERT INTO appdb.orders VALUES (7); \
             CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'hunter2-secret'; \
             GRANT ALL ON *.* TO 'bench'@'127.0.0.1'",
        )
        .unwrap();
    let url = ServerUrl::parse(&format!(
        "mysql://bench:hunter2-secret@127.0.0.1:{}",
        users_server.port()
    ))
    .unwrap();

    // A foreign table in `keylab`: refused, named, and left alone.
    let err = MariaDbEngine::connect(&url, None, None).err().expect("must refuse");
    let msg = err.to_string();
    assert!(matches!(err, ServerError::Refused(_)), "{msg}");
    assert!(msg.contains("`customers`") && msg.contains("`keylab`"), "{msg}");
    assert!(!msg.contains("hunter2"), "{msg}");
    assert!(matches!(EngineError::from(err), EngineError::Rejected(_)));

    // Its own database works, and the user's objects stay as they were.
    let hint = ServerSettings { page_size_bytes: 4096, ..ServerSettings::default() };
    let mut engine = MariaDbEngine::connect(&url, Some("keylab_run"), Some(&hint)).unwrap();
    let info = serde_json::to_string(&engine.info()).unwrap();
    assert!(!info.contains("hunter2"), "{info}");
    assert!(info.contains("not_applied") && info.contains("innodb_page_size"), "{info}");
    let w = Workload::e1("ulid", Placement::Pk, 2000, "t_url");
    let plan = LoadPlan { method: LoadMethod::LoadData, batch: 1000, writers: 2, batch_max: None };
    let r = run_variant(&mut engine, &w, keys(), &plan, &mut NoProgress).unwrap();
    assert_eq!(r.rows, 2000);
    assert!(r.indexes[0].fill_pct.is_some() && r.indexes[0].height.is_none());
    // keylab never drops what it did not create.
    let foreign = Workload::e1("ulid", Placement::Pk, 1, "customers").table();
    assert!(matches!(engine.drop_table(&foreign), Err(EngineError::Rejected(_))));
    drop(engine);
    let customers: Vec<i32> = admin.query("SELECT id FROM keylab.customers ORDER BY id").unwrap();
    assert_eq!(customers, vec![1, 2]);
    let orders: Vec<i32> = admin.query("SELECT id FROM appdb.orders").unwrap();
    assert_eq!(orders, vec![7]);
    let run_tables: Vec<String> = admin.query("SHOW TABLES FROM keylab_run").unwrap();
    assert_eq!(run_tables, vec!["keylab_owner".to_string()]);
    // Coming back to its own database is fine.
    MariaDbEngine::connect(&url, Some("keylab_run"), None).expect("reconnect");

    // A wrong password fails without echoing it.
    let bad = ServerUrl { password: Some("wrong-pass-xyz".into()), ..url.clone() };
    let e = MariaDbEngine::connect(&bad, Some("keylab_run"), None).err().unwrap().to_string();
    assert!(!e.contains("wrong-pass-xyz") && e.contains("127.0.0.1"), "{e}");
}

#[test]
fn a_dead_server_fails_within_seconds_naming_the_address() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = ServerUrl::parse(&format!("mysql://u:topsecret@127.0.0.1:{port}/x")).unwrap();
    let t0 = Instant::now();
    let e = MariaDbEngine::connect(&url, None, None).err().unwrap().to_string();
    assert!(t0.elapsed() < Duration::from_secs(8));
    assert!(e.contains(&format!("127.0.0.1:{port}")) && !e.contains("topsecret"), "{e}");
    // A port that accepts but never answers also fails within the timeout.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let url = ServerUrl::parse(&format!("mysql://u@127.0.0.1:{port}")).unwrap();
    let t0 = Instant::now();
    let e = MariaDbEngine::connect(&url, None, None).err().unwrap().to_string();
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
}

#[test]
fn a_failed_load_is_an_error_and_leaves_nothing_behind() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    let (pid, dir) = {
        let s = engine.private_server().unwrap();
        (s.pid().unwrap(), s.dir().to_path_buf())
    };
    let table = Workload::e1("uuid4:text", Placement::Pk, 2, "t_dup").table();
    engine.create_table(&table).unwrap();
    let dup = vec![Value::Bytes(b"same-id".to_vec()), Value::Bytes(b"data".to_vec())];
    let mut rows = vec![dup.clone(), dup].into_iter();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1, writers: 1, batch_max: None };
    let err = engine.load(&table, &plan, &mut rows, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("Duplicate"), "{err}");
    drop(engine);
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "server still running");
    assert!(!dir.exists(), "{} still exists", dir.display());
}

#[test]
fn the_result_format_carries_server_figures() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    let w = Workload::e1("uuid7:text", Placement::Pk, 5000, "t_fmt");
    let plan = LoadPlan { method: LoadMethod::Prepared, batch: 1000, writers: 1, batch_max: None };
    let run = run_variant(&mut engine, &w, keys(), &plan, &mut NoProgress).unwrap();
    let report = Report {
        keylab: "test".into(),
        schema_version: keylab_core::REPORT_SCHEMA_VERSION,
        scenario: "compare".into(),
        seed: 1,
        engine: engine.info(),
        runs: vec![run],
        schema: None,
    };
    let json: serde_json::Value = serde_json::to_value(&report).unwrap();
    assert_eq!(json["engine"]["kind"], "mariadb");
    assert!(json["engine"]["version"].as_str().unwrap().contains("MariaDB"));
    assert_eq!(json["engine"]["settings"]["innodb_page_size"], 16384);
    assert_eq!(json["engine"]["settings"]["index_page_counters"], "enabled");
    let r = &json["runs"][0];
    assert_eq!(r["load"]["method"], "prepared");
    assert!(r["load"]["batch_latency_ms"]["p99"].is_number());
    assert!(r["counters"]["page_splits"].as_u64().unwrap() > 0);
    assert!(r["table"]["data_length"].as_u64().unwrap() >= 16384);
    let ix = &r["indexes"][0];
    assert_eq!(ix["name"], "PRIMARY");
    for field in ["size_pages", "leaf_pages", "nonleaf_pages", "height", "fill_pct"] {
        assert!(ix[field].is_number(), "{field}: {ix}");
    }
    assert_eq!(ix["fill_histogram"].as_array().unwrap().len(), 10);
    // Buffer pool figures from status counters; no device estimates on a server.
    let bp = &r["buffer_pool"];
    assert!(bp["page_requests"].as_u64().unwrap() > 0, "{bp}");
    assert!((0.0..=1.0).contains(&bp["hit_ratio"].as_f64().unwrap()), "{bp}");
    assert!(bp["row_ops"].as_u64().unwrap() >= 5000, "{bp}");
    assert!(bp["pool_bytes"].as_u64().unwrap() > 0, "{bp}");
    assert!(bp["est_io_s_hdd"].is_null() && bp["est_io_s_ssd"].is_null(), "{bp}");
    assert_eq!(r["counters"]["page_requests"], bp["page_requests"]);
    // Round trip through the contract's types.
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back.runs[0].rows, 5000);
}

/// Load and measure (which runs `ANALYZE TABLE`) refuse a table keylab did not create, as
/// the phase operations do, and leave it as it was.
#[test]
fn load_and_measure_refuse_a_table_keylab_did_not_create() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    let mut conn = engine.new_connection().unwrap();
    conn.query_drop(
        "CREATE TABLE t_foreign (id VARCHAR(36) PRIMARY KEY, data VARCHAR(255)); \
         INSERT INTO t_foreign VALUES ('a', 'x')",
    )
    .unwrap();
    let w = Workload::e1("uuid4:text", Placement::Pk, 10, "t_foreign");
    let table = w.table();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 10, writers: 1, batch_max: None };
    let err = engine.load(&table, &plan, &mut w.row_gen(keys()), &mut |_| {}).unwrap_err();
    assert!(matches!(err, EngineError::Rejected(_)), "{err}");
    assert!(err.to_string().contains("did not create"), "{err}");
    let err = engine.measure(&table).unwrap_err();
    assert!(matches!(err, EngineError::Rejected(_)), "{err}");
    let rows: Vec<(String, String)> = conn.query("SELECT id, data FROM t_foreign").unwrap();
    assert_eq!(rows, vec![("a".to_string(), "x".to_string())]);
}

/// The buffer-pool path of a user's server (a private instance reached by its TCP URL, with
/// a 6 MiB pool, the least MariaDB allows for 16 KiB pages): `leaf_pages` is the true count or null, never the statistic's 1, a null
/// says why in a note, and an index larger than the pool is noted as not wholly buffered.
#[test]
fn url_leaf_pages_are_exact_or_null_and_a_small_pool_is_noted() {
    if !server_installed() {
        return;
    }
    let settings = ServerSettings { buffer_pool_bytes: 6 << 20, ..ServerSettings::default() };
    let server = PrivateServer::start(&settings).expect("server");
    let mut engine = MariaDbEngine::connect(&server.tcp_url(None), None, None).unwrap();
    let plan = LoadPlan { method: LoadMethod::LoadData, batch: 5000, writers: 1, batch_max: None };
    let mut admin = mysql::Conn::new(server.socket_opts()).unwrap();
    // t_big's PRIMARY (about 7 MiB of 200-byte rows) is larger than the pool; t_small's k_id
    // has too few leaves for ANALYZE TABLE to sample, so its statistic says 1.
    for (name, rows) in [("t_big", 25_000), ("t_small", 3000)] {
        let w = Workload {
            payload: Payload::Data { bytes: 200 },
            ..Workload::e1("uuid4:text", Placement::Secondary, rows, name)
        };
        let table = w.table();
        engine.create_table(&table).unwrap();
        engine.load(&table, &plan, &mut w.row_gen(keys()), &mut |_| {}).unwrap();
        let m = engine.measure(&table).unwrap();
        // The true counts, from the file.
        let ids =
            keylab_mariadb::index_ids(&mut admin, keylab_mariadb::Flavour::Mariadb, "keylab", name)
                .unwrap();
        admin.query_drop(format!("FLUSH TABLES keylab.{name} FOR EXPORT")).unwrap();
        let path = server.datadir().join("keylab").join(format!("{name}.ibd"));
        let report = keylab_mariadb::ibd::read_tablespace(&path).unwrap();
        admin.query_drop("UNLOCK TABLES").unwrap();
        for ix in &report.indexes {
            let r = m.indexes.iter().find(|r| Some(&r.name) == ids.get(&ix.index_id)).unwrap();
            assert!(
                r.leaf_pages.is_none() || r.leaf_pages == Some(ix.leaf_pages),
                "{name}.{}: {:?}, file {}",
                r.name,
                r.leaf_pages,
                ix.leaf_pages
            );
            eprintln!("{name}.{}: {r:?}; file {} leaves", r.name, ix.leaf_pages);
        }
        let primary = &m.indexes[0];
        assert!(primary.leaf_pages.is_some(), "{name}: PRIMARY has enough leaves to sample");
        if name == "t_small" {
            let k = &m.indexes[1];
            assert_eq!((k.leaf_pages, k.n_leaf_pages_stat), (None, Some(1)), "{k:?}");
        }
    }
    let info = serde_json::to_value(engine.info()).unwrap();
    let notes = info["settings"]["notes"].as_array().unwrap();
    let has = |s: &str| notes.iter().any(|n| n.as_str().unwrap().contains(s));
    eprintln!("{notes:#?}");
    assert!(has("`t_small`.k_id: leaf_pages is null"), "{notes:?}");
    // Which of the two notes depends on what the server has evicted by the time it is asked
    // (seen both ways on a loaded machine); either says PRIMARY is not wholly buffered.
    assert!(
        has("`t_big`.PRIMARY: only ") || has("`t_big`.PRIMARY: none of its pages"),
        "{notes:?}"
    );
    assert!(!has("`t_big`.PRIMARY: leaf_pages is null"), "{notes:?}");
}

#[test]
fn a_row_another_session_changes_mid_load_fails_the_check_for_an_auto_inc_key() {
    if !server_installed() {
        return;
    }
    use keylab_schema::{Charset, Column, ColumnType, RowFormat, Table};
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    let opts = engine.private_server().unwrap().socket_opts();
    let vc = ColumnType::VarChar { chars: 20, charset: Charset::Utf8mb4 };
    // A constant first column and a varying second: before, only the first was checksummed.
    let table = Table {
        name: "t_changed".into(),
        columns: vec![
            Column::new("pk", ColumnType::BigInt { unsigned: false }, false),
            Column::new("a", vc, true),
            Column::new("b", vc, true),
        ],
        primary_key: vec![0],
        auto_increment: true,
        indexes: Vec::new(),
        row_format: RowFormat::Dynamic,
        partitioning: None,
    };
    engine.create_table(&table).unwrap();
    let row = |n: u64| {
        vec![Value::Null, Value::Bytes(b"data".to_vec()), Value::Bytes(format!("b{n}").into())]
    };
    // The hook: at row 500 another session waits for a loaded row and changes its `b`.
    let mut rows = (0..1000u64).map(|n| {
        if n == 500 {
            let mut other = mysql::Conn::new(opts.clone()).unwrap();
            let db: String = other
                .query_first("SELECT table_schema FROM information_schema.tables WHERE table_name = 't_changed'")
                .unwrap()
                .unwrap();
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                other
                    .query_drop(format!("UPDATE `{db}`.t_changed SET b = 'changed' ORDER BY pk LIMIT 1"))
                    .unwrap();
                if other.affected_rows() == 1 || Instant::now() > deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        row(n)
    });
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 10, writers: 1, batch_max: None };
    let err = engine.load(&table, &plan, &mut rows, &mut |_| {}).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("load check failed on `t_changed`"), "{text}");
    assert!(text.contains("changed"), "{text}");
    // Unchanged, the same load passes and says what it covered.
    let mut t2 = table.clone();
    t2.name = "t_unchanged".into();
    engine.create_table(&t2).unwrap();
    let out = engine.load(&t2, &plan, &mut (0..1000).map(row), &mut |_| {}).unwrap();
    let v = out.verification.unwrap();
    assert_eq!(v.checksum_equal, Some(true));
    assert!(v.checked.contains("CONCAT_WS('|', `a`, `b`)"), "{}", v.checked);
    assert!(v.checked.contains("key `pk`: COUNT(*) and SUM(CRC32(`pk`))"), "{}", v.checked);
}

#[test]
fn latin1_values_are_stored_as_latin1_by_every_method() {
    if !server_installed() {
        return;
    }
    use keylab_schema::{Charset, Column, ColumnType, RowFormat, Table};
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    let opts = engine.private_server().unwrap().socket_opts();
    for method in [LoadMethod::Multi, LoadMethod::Prepared, LoadMethod::LoadData] {
        let name = format!("t_latin1_{}", method.token().replace('-', "_"));
        let table = Table {
            name: name.clone(),
            columns: vec![
                Column::new("pk", ColumnType::BigInt { unsigned: false }, false),
                Column::new("c", ColumnType::Char { chars: 1, charset: Charset::Latin1 }, true),
                Column::new("v", ColumnType::VarChar { chars: 3, charset: Charset::Latin1 }, true),
            ],
            primary_key: vec![0],
            auto_increment: true,
            indexes: Vec::new(),
            row_format: RowFormat::Dynamic,
            partitioning: None,
        };
        engine.create_table(&table).unwrap();
        // What the scenario makes of `fixed = "é"` and `fixed = "€éü"` in latin1 columns.
        let c = Charset::Latin1.encode("é").unwrap();
        let v = Charset::Latin1.encode("€éü").unwrap();
        let mut rows =
            (0..20).map(|_| vec![Value::Null, Value::Bytes(c.clone()), Value::Bytes(v.clone())]);
        let plan = LoadPlan { method, batch: 5, writers: 1, batch_max: None };
        let out = engine.load(&table, &plan, &mut rows, &mut |_| {}).unwrap();
        assert_eq!(out.verification.unwrap().checksum_equal, Some(true), "{method:?}");
        let mut other = mysql::Conn::new(opts.clone()).unwrap();
        let db: String = other
            .query_first(format!(
                "SELECT table_schema FROM information_schema.tables WHERE table_name = '{name}'"
            ))
            .unwrap()
            .unwrap();
        let got: (String, String, String) = other
            .query_first(format!("SELECT HEX(c), HEX(v), v FROM `{db}`.`{name}` LIMIT 1"))
            .unwrap()
            .unwrap();
        assert_eq!(got, ("E9".into(), "80E9FC".into(), "€éü".into()), "{method:?}");
    }
}
