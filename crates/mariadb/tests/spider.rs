//! Live tests of the sharded engine: private backends behind a private Spider head, started
//! by the tests themselves. Every load method with one and several writers goes through the
//! head; each backend holds exactly the rows the partitioning rule gives it (range bounds at
//! the key quantiles; `PARTITION BY KEY` checked row by row against keylab's own copy of the
//! server's hash); the hotspot curve shows an ordered key on one shard at a time; and nothing
//! is left running or on disk afterwards. The head reaches its backends with an account
//! generated per backend, never root's.
//!
//! Without a server, or without the Spider plugin, they print `SKIPPED: ...` and return,
//! except under `CI=true`, where either missing fails the run.

use keylab_core::{
    key_shard, run_variant, Engine, KeySource, LoadMethod, LoadPlan, NoProgress, Placement,
    Sharding, Workload,
};
use keylab_keys::GenConfig;
use keylab_mariadb::{ServerSettings, SpiderEngine};
use keylab_schema::Value;
use keylab_server_common::{is_ci, live_private_servers};
use mysql::prelude::Queryable;

/// E1's workload of `variant`, in a table named after it.
fn workload(variant: &str, placement: Placement, rows: u64) -> Workload {
    Workload::e1(variant, placement, rows, &format!("t_{}", variant.replace([':', '-'], "_")))
}

fn keys() -> KeySource {
    KeySource::Generated(GenConfig::default())
}

/// A Spider topology, or `None` after printing SKIPPED (a panic under `CI=true`).
fn spider(shards: u32, sharding: Sharding, test: &str) -> Option<SpiderEngine> {
    if !keylab_mariadb::installed_or_skip(test) {
        return None;
    }
    match SpiderEngine::private(&ServerSettings::default(), None, shards, sharding) {
        Ok(e) => Some(e),
        Err(e) if e.to_string().contains("Spider") => {
            let ci = std::env::var("CI").ok();
            assert!(!is_ci(ci.as_deref()), "{test}: CI is set but Spider is unavailable: {e}");
            eprintln!("SKIPPED: {test}: the Spider plugin is unavailable: {e}");
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

/// The ids each backend holds, in shard order (`integer`: the id column is an integer).
fn ids_per_backend(engine: &SpiderEngine, table: &str, integer: bool) -> Vec<Vec<Value>> {
    engine
        .backends()
        .iter()
        .map(|b| {
            let mut conn = b.new_connection().expect("backend connection");
            let rows: Vec<mysql::Value> =
                conn.query(format!("SELECT id FROM `{table}`")).expect("backend ids");
            rows.into_iter()
                .map(|v| match v {
                    // The text protocol sends integers as their digits.
                    mysql::Value::Bytes(b) if integer => {
                        Value::Int(String::from_utf8(b).unwrap().parse().unwrap())
                    }
                    mysql::Value::Bytes(b) => Value::Bytes(b),
                    mysql::Value::Int(n) => Value::Int(n),
                    mysql::Value::UInt(n) => Value::UInt(n),
                    other => panic!("unexpected id {other:?}"),
                })
                .collect()
        })
        .collect()
}

#[test]
fn hash_sharding_places_every_row_where_keylab_predicts() {
    let Some(mut engine) = spider(3, Sharding::Hash, module_path!()) else { return };
    for variant in ["uuid4:bin", "seq"] {
        let w = workload(variant, Placement::Pk, 6000);
        let table = w.table();
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 500, writers: 1, batch_max: None };
        engine.create_table(&table).unwrap();
        let mut rows = w.row_gen(keys());
        let out = engine.load(&table, &plan, &mut rows, &mut |_| {}).unwrap();
        assert_eq!(out.verification.unwrap().rows_found, Some(6000), "{variant}");
        let m = engine.measure(&table).unwrap();
        let shards = m.shards.expect("per-shard figures");
        let ty = &table.columns[0].ty;
        for (k, ids) in ids_per_backend(&engine, &table.name, variant == "seq").iter().enumerate() {
            assert_eq!(shards.shards[k].rows, Some(ids.len() as u64), "{variant} shard {k}");
            for id in ids {
                assert_eq!(key_shard(id, ty, 3), Some(k), "{variant}: {id:?} on shard {k}");
            }
        }
        let total: u64 = shards.shards.iter().filter_map(|s| s.rows).sum();
        assert_eq!(total, 6000, "{variant}");
        let inserted: u64 = shards.windows.iter().flat_map(|w| &w.inserts).sum();
        assert_eq!(inserted, 6000, "{variant}: the windows count every insert");
        engine.drop_table(&table).unwrap();
    }
}

#[test]
fn range_sharding_gives_equal_shares_and_an_ordered_key_one_hot_shard() {
    let Some(mut engine) = spider(3, Sharding::Range, module_path!()) else { return };
    for variant in ["seq", "uuid4:bin", "uuid7:bin"] {
        let w = workload(variant, Placement::Pk, 6000);
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 300, writers: 1, batch_max: None };
        let r = run_variant(&mut engine, &w, keys(), &plan, &mut NoProgress).unwrap();
        let s = r.shards.expect("per-shard figures");
        assert_eq!(s.shards.iter().map(|s| s.rows).collect::<Vec<_>>(), vec![Some(2000); 3]);
        let leaf: u64 = s.shards.iter().filter_map(|s| s.indexes[0].leaf_pages).sum();
        assert_eq!(r.indexes[0].leaf_pages, Some(leaf), "{variant}: the total sums the shards");
        let mean = s.mean_hottest_share_pct.unwrap();
        if variant == "uuid4:bin" {
            assert!(mean < 50.0, "{variant}: random keys spread ({mean}%)");
        } else {
            assert!(mean > 90.0, "{variant}: an ordered key writes one shard at a time ({mean}%)");
        }
    }
}

#[test]
fn every_method_and_writer_count_goes_through_the_head() {
    let Some(mut engine) = spider(2, Sharding::Hash, module_path!()) else { return };
    let rows = 1007;
    for method in LoadMethod::ALL {
        for writers in [1, 3] {
            for (variant, placement) in [
                ("uuid7:bin", Placement::Pk),
                ("auto-inc", Placement::Pk),
                ("seq", Placement::Secondary),
            ] {
                let label = format!("{variant} {placement} {method} x{writers}");
                let w = workload(variant, placement, rows);
                let plan = LoadPlan { method, batch: 250, writers, batch_max: None };
                let r = run_variant(&mut engine, &w, keys(), &plan, &mut NoProgress)
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(r.rows, rows, "{label}");
                assert_eq!(r.load.verification.unwrap().rows_found, Some(rows), "{label}");
                let s = r.shards.expect("per-shard figures");
                let held: u64 = s.shards.iter().filter_map(|s| s.rows).sum();
                assert_eq!(held, rows, "{label}");
                assert!(r.load.rows_per_s.unwrap() > 0.0, "{label}");
                assert!(s.shards.iter().all(|s| s.counters.page_splits.is_some()), "{label}");
            }
        }
    }
}

#[test]
fn a_dropped_topology_leaves_no_server_and_no_directory() {
    let Some(engine) = spider(2, Sharding::Range, module_path!()) else { return };
    let dirs: Vec<std::path::PathBuf> = engine
        .backends()
        .iter()
        .chain([engine.head()])
        .map(|e| e.private_server().unwrap().dir().to_path_buf())
        .collect();
    assert_eq!(dirs.len(), 3);
    assert!(dirs.iter().all(|d| d.exists()));
    // The head's links log in with an account generated per backend, never as root.
    let mut head = engine.head().new_connection().unwrap();
    let links: Vec<(String, String)> =
        head.query("SELECT Username, Password FROM mysql.servers ORDER BY Server_name").unwrap();
    assert_eq!(links.len(), 2, "{links:?}");
    for ((user, password), backend) in links.iter().zip(engine.backends()) {
        assert_eq!(user, "keylab_spider");
        assert!(password.len() >= 32, "a generated password");
        assert_ne!(password, backend.private_server().unwrap().secret().expose());
        let mut conn = backend.new_connection().unwrap();
        let grants: Vec<String> =
            conn.query("SHOW GRANTS FOR 'keylab_spider'@'localhost'").unwrap();
        let all = grants.join("\n");
        assert!(!all.contains("ALL PRIVILEGES") && !all.contains("FILE"), "{all}");
    }
    drop(head);
    drop(engine);
    assert!(dirs.iter().all(|d| !d.exists()), "{dirs:?}");
    // Other tests of this binary may run their own topology meanwhile: only ours are checked.
    let _ = live_private_servers();
}

/// A backend that dies under the head is named with its address in the load's error, not
/// left as the head's "Broken pipe" or Spider's connection error.
#[test]
fn a_dead_backend_is_named_in_the_loads_error() {
    let Some(mut engine) = spider(2, Sharding::Hash, module_path!()) else { return };
    let w = workload("seq", Placement::Pk, 2000);
    let table = w.table();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 500, writers: 1, batch_max: None };
    engine.create_table(&table).unwrap();
    let dead = &engine.backends()[1];
    let pid = dead.private_server().and_then(|s| s.pid()).expect("a private backend's pid");
    let address = dead.target_name();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), nix::sys::signal::SIGKILL)
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let err = engine.load(&table, &plan, &mut w.row_gen(keys()), &mut |_| {}).unwrap_err();
    let text = err.to_string();
    let want = format!("Spider backend 2 ({address}) is unreachable");
    assert!(text.contains(&want), "{text}");
}
