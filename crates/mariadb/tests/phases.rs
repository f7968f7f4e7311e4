//! Live tests of the phase operations on private MariaDB/MySQL instances: churn (`apply`)
//! with purge and cumulative counters, rebuilds under a fill factor (and the refusal on a
//! `--url` server), every timed query kind, online DDL, and the table's file writes from
//! performance schema.
//!
//! Without a server binary they print `SKIPPED: ...` and return, except under `CI=true`,
//! where a missing server fails the run.

use keylab_core::{
    DdlAction, DdlAlgorithm, DdlSpec, Engine, EngineError, KeySource, LoadMethod, LoadPlan,
    Measurement, Op, Placement, QuerySpec, Row, Workload,
};
use keylab_keys::GenConfig;
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use keylab_schema::{Table, Value};
use mysql::prelude::Queryable;

/// True when a server is installed; SKIPPED otherwise (a failure under `CI=true`).
fn server_installed() -> bool {
    keylab_mariadb::installed_or_skip(module_path!())
}

fn rows_of(w: &Workload) -> Vec<Row> {
    w.row_gen(KeySource::Generated(GenConfig::default())).collect()
}

fn load(engine: &mut MariaDbEngine, table: &Table, rows: &[Row]) {
    engine.create_table(table).unwrap();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    engine.load(table, &plan, &mut rows.iter().cloned(), &mut |_| {}).unwrap();
}

fn count_rows(engine: &MariaDbEngine, table: &str) -> u64 {
    let mut conn = engine.new_connection().unwrap();
    conn.query_first(format!("SELECT COUNT(*) FROM `{table}`")).unwrap().unwrap()
}

fn leaf_pages(m: &Measurement) -> u64 {
    m.indexes[0].leaf_pages.unwrap()
}

/// Churn rounds like E5's: `inserts` new rows, then `deletes` live rows picked by a fixed
/// linear congruential sequence (deterministic, no extra dependency).
struct Churn {
    pk_column: usize,
    live: Vec<Vec<Value>>,
    fresh: std::vec::IntoIter<Row>,
    pick: u64,
}

impl Churn {
    fn round(&mut self, inserts: usize, deletes: usize) -> Vec<Op> {
        let mut ops = Vec::new();
        for row in self.fresh.by_ref().take(inserts) {
            self.live.push(vec![row[self.pk_column].clone()]);
            ops.push(Op::Insert(row));
        }
        for _ in 0..deletes {
            self.pick =
                self.pick.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let i = ((self.pick >> 33) % self.live.len() as u64) as usize;
            ops.push(Op::Delete(self.live.swap_remove(i)));
        }
        ops
    }
}

#[test]
fn churn_purges_merges_and_keeps_the_row_count() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    for (variant, placement) in [("uuid4:text", Placement::Pk), ("uuid4:bin", Placement::Secondary)]
    {
        let label = format!("{variant} {placement}");
        let w = Workload::e1(variant, placement, 6500, "t_churn");
        let table = w.table();
        let mut all = rows_of(&w);
        let fresh = all.split_off(5000);
        load(&mut engine, &table, &all);
        let after_load = engine.measure(&table).unwrap();
        let splits_at_load = after_load.counters.page_splits.unwrap();
        assert!(splits_at_load > 0, "{label}");
        let pk = table.primary_key[0];
        let mut churn = Churn {
            pk_column: pk,
            live: all.iter().map(|r| vec![r[pk].clone()]).collect(),
            fresh: fresh.into_iter(),
            pick: 7,
        };
        let mut prev = after_load.clone();
        for round in 1..=3 {
            let mut applied = 0;
            let ops = churn.round(500, 500);
            let t0 = std::time::Instant::now();
            engine.apply(&table, &mut ops.into_iter(), &mut |n| applied += n).unwrap();
            eprintln!("{label} round {round}: 1000 ops and purge in {:?}", t0.elapsed());
            assert_eq!(applied, 1000, "{label} round {round}");
            let m = engine.measure(&table).unwrap();
            // Cumulative since create_table: never below the previous measurement.
            let (c, p) = (&m.counters, &prev.counters);
            assert!(c.page_splits >= p.page_splits, "{label} round {round}");
            assert!(c.merge_attempts >= p.merge_attempts, "{label} round {round}");
            assert!(c.pages_written >= p.pages_written, "{label} round {round}");
            prev = m;
        }
        assert_eq!(count_rows(&engine, "t_churn"), 5000, "{label}");
        let c = &prev.counters;
        let attempts = c.merge_attempts.unwrap() - after_load.counters.merge_attempts.unwrap();
        assert!(attempts > 0, "{label}: merge attempts over the churn");
        assert!(c.merges.unwrap() <= c.merge_attempts.unwrap(), "{label}");
        // Purge ran: the leaves hold only live records (no delete-marked ones).
        let leaf_records: f64 =
            prev.indexes[0].records_per_leaf.unwrap() * leaf_pages(&prev) as f64;
        assert!((leaf_records - 5000.0).abs() < 1.0, "{label}: {leaf_records} leaf records");
        eprintln!(
            "{label}: load splits {splits_at_load}; after 3 rounds: {:?}; PRIMARY leaves {} -> {}",
            c,
            leaf_pages(&after_load),
            leaf_pages(&prev)
        );
        engine.drop_table(&table).unwrap();
    }
}

/// Through `--url` keylab changes no global: it polls the history list length instead.
#[test]
fn churn_on_a_url_server_polls_until_purged() {
    if !server_installed() {
        return;
    }
    let private = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let url = private.private_server().unwrap().tcp_url(None);
    let mut engine = MariaDbEngine::connect(&url, Some("keylab_url"), None).unwrap();
    let w = Workload::e1("uuid4:text", Placement::Pk, 3300, "t_url_churn");
    let table = w.table();
    let mut all = rows_of(&w);
    let fresh = all.split_off(3000);
    load(&mut engine, &table, &all);
    let before = engine.measure(&table).unwrap();
    let mut churn = Churn {
        pk_column: 0,
        live: all.iter().map(|r| vec![r[0].clone()]).collect(),
        fresh: fresh.into_iter(),
        pick: 3,
    };
    let ops = churn.round(300, 300);
    engine.apply(&table, &mut ops.into_iter(), &mut |_| {}).unwrap();
    // Read before measuring: ANALYZE TABLE's statistics update is a transaction of its own.
    let mut conn = engine.new_connection().unwrap();
    let history: Option<(String, u64)> =
        conn.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'").unwrap();
    assert_eq!(history.map(|h| h.1), Some(0), "purged before apply returned");
    let after = engine.measure(&table).unwrap();
    assert!(after.counters.merge_attempts >= before.counters.merge_attempts);
    assert_eq!(count_rows(&engine, "t_url_churn"), 3000);
    let info = serde_json::to_string(&engine.info()).unwrap();
    assert!(!info.contains("purge did not finish"), "{info}");
    // No global was touched on the way.
    let wait: u64 = conn.query_first("SELECT @@GLOBAL.innodb_max_purge_lag_wait").unwrap().unwrap();
    assert_eq!(wait, u64::from(u32::MAX));
    engine.drop_table(&table).unwrap();
}

#[test]
fn a_delete_of_a_missing_key_is_an_error_and_loads_check_the_whole_table() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let w = Workload::e1("ulid", Placement::Pk, 40, "t_missing");
    let table = w.table();
    let mut rows = rows_of(&w);
    let later = rows.split_off(20);
    let rows = rows[..10].to_vec();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 3, writers: 1, batch_max: None };
    // A load in two calls (as load samples make it): each is checked against the table.
    load(&mut engine, &table, &rows[..5]);
    engine.load(&table, &plan, &mut rows[5..].iter().cloned(), &mut |_| {}).unwrap();
    assert_eq!(engine.last_load().unwrap().server_checksum.0, 10);
    let ops = vec![
        Op::Delete(vec![rows[0][0].clone()]),
        Op::Delete(vec![Value::Bytes(b"not-a-key".to_vec())]),
    ];
    let err = engine.apply(&table, &mut ops.into_iter(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("'not-a-key'"), "{err}");
    assert_eq!(count_rows(&engine, "t_missing"), 10, "the transaction was rolled back");
    // After churn keylab no longer knows the table's checksum: the next load reads it.
    let ops = vec![Op::Delete(vec![rows[0][0].clone()])];
    engine.apply(&table, &mut ops.into_iter(), &mut |_| {}).unwrap();
    engine.load(&table, &plan, &mut later.iter().cloned(), &mut |_| {}).unwrap();
    assert_eq!(engine.last_load().unwrap().server_checksum.0, 29);
}

#[test]
fn rebuild_at_a_lower_fill_factor_leaves_more_leaves() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let w = Workload::e1("uuid4:text", Placement::Pk, 20_000, "t_rebuild");
    let table = w.table();
    load(&mut engine, &table, &rows_of(&w));
    let loaded = leaf_pages(&engine.measure(&table).unwrap());
    engine.rebuild(&table, 100).unwrap();
    let at_100 = engine.measure(&table).unwrap();
    engine.rebuild(&table, 75).unwrap();
    let at_75 = engine.measure(&table).unwrap();
    eprintln!(
        "PRIMARY leaves: loaded {loaded}, rebuilt at 100 {}, at 75 {} (fill {:?} -> {:?})",
        leaf_pages(&at_100),
        leaf_pages(&at_75),
        at_100.indexes[0].fill_pct,
        at_75.indexes[0].fill_pct
    );
    assert!(leaf_pages(&at_100) < loaded, "a sorted build packs random inserts' pages");
    assert!(leaf_pages(&at_75) > leaf_pages(&at_100));
    assert_eq!(count_rows(&engine, "t_rebuild"), 20_000);
    // The private instance is put back as it was started.
    let mut conn = engine.new_connection().unwrap();
    let ff: u64 = conn.query_first("SELECT @@GLOBAL.innodb_fill_factor").unwrap().unwrap();
    assert_eq!(ff, 100);

    // The same server through --url: no global is changed, so only the current value works.
    let url = engine.private_server().unwrap().tcp_url(None);
    let mut shared = MariaDbEngine::connect(&url, Some("keylab_url"), None).unwrap();
    let small = Workload::e1("ulid", Placement::Pk, 500, "t_shared");
    let t = small.table();
    load(&mut shared, &t, &rows_of(&small));
    match shared.rebuild(&t, 75) {
        Err(EngineError::Unsupported(reason)) => {
            assert!(
                reason.contains("cannot change innodb_fill_factor on a shared server"),
                "{reason}"
            )
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    shared.rebuild(&t, 100).expect("the server's own fill factor is fine");
    let ff: u64 = conn.query_first("SELECT @@GLOBAL.innodb_fill_factor").unwrap().unwrap();
    assert_eq!(ff, 100);
    shared.drop_table(&t).unwrap();
}

/// A load sample reads the buffer pool and does not flush the table (a flush writes every
/// dirty page: one per sample multiplied E1's write requests); a phase's measurement
/// flushes it and reads the tablespace file (pages per level).
#[test]
fn a_load_sample_does_not_flush_the_table() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let w = Workload::e1("uuid4:text", Placement::Pk, 5000, "t_sample");
    let table = w.table();
    load(&mut engine, &table, &rows_of(&w));
    let sample = engine.sample(&table).unwrap();
    assert!(sample.indexes[0].pages_per_level.is_none(), "no file read: {sample:?}");
    assert!(sample.indexes[0].fill_pct.is_some(), "fill from the buffer pool: {sample:?}");
    let m = engine.measure(&table).unwrap();
    assert!(m.indexes[0].pages_per_level.is_some(), "the file read after a flush: {m:?}");
    let (s, f) = (sample.indexes[0].fill_pct.unwrap(), m.indexes[0].fill_pct.unwrap());
    // INNODB_BUFFER_PAGE's DATA_SIZE counts a page's records a little differently from the
    // file reader (62.3% against 64.2% here): the same pages, within a few points.
    assert!((s - f).abs() < 4.0, "the same pages: {s} vs {f}");
    engine.drop_table(&table).unwrap();
}

#[test]
fn every_query_kind_returns_its_rows_and_file_writes_are_counted() {
    if !server_installed() {
        return;
    }
    let settings = ServerSettings { performance_schema: true, ..ServerSettings::default() };
    let mut engine = MariaDbEngine::private(&settings).expect("private server");
    for (variant, placement) in [("uuid7:text", Placement::Secondary), ("ulid", Placement::Pk)] {
        let label = format!("{variant} {placement}");
        let name = format!("t_q_{placement}");
        let w = Workload::e1(variant, placement, 3000, &name);
        let table = w.table();
        let rows = rows_of(&w);
        load(&mut engine, &table, &rows);
        engine.measure(&table).unwrap();

        let runs = 5;
        let point = engine.query(&table, &QuerySpec::Point { count: 50 }, runs).unwrap();
        assert_eq!(point.rows, 50, "{label}");
        assert_eq!(point.run_ms.len(), runs as usize, "{label}");
        assert!(point.run_ms.iter().all(|&ms| ms > 0.0), "{label}");
        let range = engine.query(&table, &QuerySpec::PkRange { rows: 100 }, runs).unwrap();
        assert_eq!(range.rows, 100, "{label}");
        assert_eq!(range.run_ms.len(), runs as usize, "{label}");
        let scan = engine.query(&table, &QuerySpec::FullScan, 2).unwrap();
        assert_eq!(scan.rows, 3000, "{label}");

        let id_col = if placement == Placement::Pk { 0 } else { 1 };
        let id = |r: &Row| match &r[id_col] {
            Value::Bytes(b) => String::from_utf8(b.clone()).unwrap(),
            v => panic!("{v:?}"),
        };
        // A prefix some but not all ids share: 20 characters of a middle row's id.
        let prefix: String = id(&rows[1500]).chars().take(20).collect();
        let expected = rows.iter().filter(|r| id(r).starts_with(&prefix)).count() as u64;
        assert!((1..3000).contains(&expected), "{label}: {expected}");
        let q = QuerySpec::IdPrefix { prefix: prefix.clone() };
        assert_eq!(engine.query(&table, &q, runs).unwrap().rows, expected, "{label} {prefix}");
        let all = QuerySpec::IdPrefix { prefix: String::new() };
        assert_eq!(engine.query(&table, &all, 1).unwrap().rows, 3000, "{label}");
        // LIKE wildcards in the prefix match only themselves.
        for wild in ["%", "_", "!"] {
            let q = QuerySpec::IdPrefix { prefix: wild.into() };
            assert_eq!(engine.query(&table, &q, 1).unwrap().rows, 0, "{label} {wild}");
        }

        let info = serde_json::to_value(engine.info()).unwrap();
        let writes = &info["settings"]["table_file_writes"][&name];
        assert!(writes["io_write_requests"].as_u64().unwrap() > 0, "{label}: {info}");
        assert!(writes["io_write_bytes"].as_u64().unwrap() >= 16384, "{label}: {info}");
        // Reads may be 0: a table this small stays in the pool from its creation on.
        assert!(writes["io_read_requests"].is_u64(), "{label}: {info}");
        assert!(writes["io_read_bytes"].is_u64(), "{label}: {info}");
        let m = engine.measure(&table).unwrap();
        assert!(m.counters.io_read_requests.is_some(), "{label}: {:?}", m.counters);
        assert!(m.counters.io_read_bytes.is_some(), "{label}: {:?}", m.counters);
        eprintln!("{label}: point {:?} ms, file writes {writes}", point.run_ms);
        engine.drop_table(&table).unwrap();
    }
}

#[test]
fn ddl_instant_inplace_copy_and_a_refused_algorithm() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let info = serde_json::to_value(engine.info()).unwrap();
    let mariadb = info["kind"] == "mariadb";
    assert!(info["settings"]["instant_ddl"].is_string(), "{info}");
    let w = Workload::e1("uuid4:text", Placement::Secondary, 2000, "t_ddl");
    let table = w.table();
    load(&mut engine, &table, &rows_of(&w));
    let step = |action, column: &str, algorithm| DdlSpec {
        action,
        column: column.into(),
        algorithm,
        after: None,
        lock: None,
        column_type: None,
    };
    use DdlAction::{AddColumn, DropColumn};
    use DdlAlgorithm::{Copy, Inplace, Instant};

    let add = engine.ddl(&table, &step(AddColumn, "c", Instant)).unwrap();
    assert!(add.supported && add.wall_ms.unwrap() > 0.0, "{add:?}");
    let msg = add.message.unwrap();
    assert!(msg.contains("not rebuilt"), "{msg}");
    if mariadb {
        assert!(msg.contains("no TOTAL_ROW_VERSIONS"), "{msg}");
    }
    let drop = engine.ddl(&table, &step(DropColumn, "c", Instant)).unwrap();
    assert!(drop.supported, "{drop:?}");
    let inplace = engine.ddl(&table, &step(AddColumn, "c", Inplace)).unwrap();
    assert!(inplace.supported, "{inplace:?}");
    if mariadb {
        assert!(inplace.message.as_deref().unwrap().contains("instantly"), "{inplace:?}");
    }
    let copy = engine.ddl(&table, &step(DropColumn, "c", Copy)).unwrap();
    assert!(copy.supported, "{copy:?}");
    assert!(copy.message.as_deref().unwrap().contains("was rebuilt"), "{copy:?}");

    // The id is in a secondary index: dropping it instantly is refused, not an error.
    let refused = engine.ddl(&table, &step(DropColumn, "id", Instant)).unwrap();
    assert!(!refused.supported, "{refused:?}");
    if mariadb {
        // As keylab_innodb_model::online_ddl says for MariaDB.
        assert_eq!(refused.error_code, Some(1846), "{refused:?}");
    }
    let msg = refused.message.unwrap();
    assert!(msg.contains("1845") || msg.contains("1846"), "{msg}");
    assert!(msg.contains("INSTANT"), "{msg}");
    let mut conn = engine.new_connection().unwrap();
    let cols: Vec<(String, String, String, String, Option<String>, String)> =
        conn.query("SHOW COLUMNS FROM t_ddl").unwrap();
    assert!(cols.iter().any(|c| c.0 == "id"), "the refused statement changed nothing");
    assert!(!cols.iter().any(|c| c.0 == "c"));
    // E5's write-up case, ADD COLUMN ... AFTER: instant on MariaDB 10.4+ (and MySQL 8.0.29+).
    let after = DdlSpec { after: Some("pk".into()), ..step(AddColumn, "a", Instant) };
    let placed = engine.ddl(&table, &after).unwrap();
    if mariadb {
        assert!(placed.supported && placed.message.as_deref().unwrap().contains("not rebuilt"));
        let cols: Vec<(String, String, String, String, Option<String>, String)> =
            engine.new_connection().unwrap().query("SHOW COLUMNS FROM t_ddl").unwrap();
        assert_eq!(cols[1].0, "a", "placed after pk: {cols:?}");
    }
    engine.ddl(&table, &step(DropColumn, "a", Copy)).unwrap();
    // Other failures stay errors.
    assert!(engine.ddl(&table, &step(DropColumn, "nope", Copy)).is_err());
    assert_eq!(count_rows(&engine, "t_ddl"), 2000);
    eprintln!(
        "ddl ms: add instant {:?}, drop instant {:?}, add inplace {:?}, drop copy {:?}",
        add.wall_ms, drop.wall_ms, inplace.wall_ms, copy.wall_ms
    );
}
