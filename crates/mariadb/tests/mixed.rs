//! Live fidelity of mixed workloads (issue 28): the same rows loaded into a private MariaDB
//! and into the InnoDB model, then the same interleaved inserts and reads (same seed, same
//! rows) on both, with a buffer pool of about a quarter of the table; misses per 1,000
//! operations of the model against the server's `Innodb_buffer_pool_reads`, for 10 % inserts
//! with latest-5 % point reads and 50 % inserts with uniform point reads, on `uuid4:bin`,
//! `uuid7:bin` and `auto-inc`. Both sides count the autocommitted inserts' undo pages and
//! purge's reads of them (docs/model-rules.md §15); the test takes about 100–115 s.
//!
//! Sizes as in `reads.rs`: 4 KiB pages, an 8 MiB pool, rows of about 240 bytes. Without a
//! server binary it prints `SKIPPED` and passes, except under `CI=true`.

mod common;

use keylab_core::{
    mixed_ops, Engine, KeySource, LoadMethod, LoadPlan, MixSpec, Payload, Placement,
    ReadDistribution, ReadKind, ReadSource, Workload,
};
use keylab_keys::GenConfig;

use keylab_sim::{sim_settings, SimEngine};

const PAGE: u32 = 4096;
const POOL: u64 = 8 << 20;
const ROWS: u64 = 140_000;
/// Operations of each measured mix, and of the warm-up before it.
const OPS: u64 = 10_000;
const WARM_UP: u64 = 8_000;
/// The criterion: the model's misses per 1,000 operations within 10 % of the server's.
const TOLERANCE: f64 = 0.10;
/// Near-zero rates (an ordered key's recent rows, 10 % inserts) compare in absolute terms,
/// within the server's own spread: with a 4,000-operation warm-up, auto-inc gave 30.0, 32.9
/// and 0.0 misses per 1,000 operations in three runs on the same machine (its
/// `innodb_old_blocks_time` and its purge run on the wall clock; the model counts operations).
const NEAR_ZERO_SPREAD: f64 = 35.0;

fn workload(variant: &str) -> Workload {
    let name = format!("m_{}", variant.replace([':', '-'], "_"));
    // Rows for the load and every mix's inserts after it.
    let mut w = Workload::e1(variant, Placement::Pk, ROWS + 4 * (OPS + WARM_UP), &name);
    w.payload = Payload::Data { bytes: 200 };
    w
}

fn mix(ops: u64, insert_share: f64, distribution: ReadDistribution) -> MixSpec {
    MixSpec { ops, insert_share, kind: ReadKind::Point, distribution }
}

/// Loads `w`'s first `ROWS` rows into `engine`, then runs each mix after a warm-up of the
/// same mix (other picks, other rows); per mix, misses per 1,000 operations and page
/// requests per operation.
fn run(engine: &mut dyn Engine, w: &Workload, mixes: &[MixSpec]) -> Vec<(f64, f64)> {
    let table = w.table();
    engine.create_table(&table).expect("create");
    let mut source = ReadSource::new(&table, &[ReadKind::Point]).expect("source");
    let mut rows = w.row_gen(KeySource::Generated(GenConfig::default()));
    let load: Vec<_> = (&mut rows).take(ROWS as usize).collect();
    for r in &load {
        source.record(r);
    }
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    engine.load(&table, &plan, &mut load.into_iter(), &mut |_| {}).expect("load");
    let out = mixes
        .iter()
        .map(|m| {
            let warm = MixSpec { ops: WARM_UP, ..*m };
            let mut warm_ops = mixed_ops(&mut source, &mut rows, &warm, 5);
            engine.work(&table, &mut warm_ops, &mut |_| {}).expect("warm-up");
            drop(warm_ops);
            let mut ops = mixed_ops(&mut source, &mut rows, m, 11);
            let o = engine.work(&table, &mut ops, &mut |_| {}).expect("work");
            assert_eq!(o.inserts, m.inserts(), "{m}");
            assert_eq!(o.rows_returned, o.reads, "{m}: every read finds its row");
            let per_op = o.page_requests.unwrap() as f64 / m.ops as f64;
            (o.misses_per_1k_ops().expect("pages read"), per_op)
        })
        .collect();
    engine.drop_table(&table).expect("drop");
    out
}

#[test]
fn model_misses_per_mixed_operation_within_ten_percent_of_the_server() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let (mut server, settings) = common::bounded_server(PAGE, POOL);
    let mixes = [
        mix(OPS, 0.10, ReadDistribution::Latest { pct: 5.0 }),
        mix(OPS, 0.50, ReadDistribution::Uniform),
    ];
    let mut table = vec![
        "| key | mix | model misses/1k ops | server misses/1k ops | error | model pages/op | server pages/op |\n|---|---|---|---|---|---|---|"
            .to_string(),
    ];
    let mut failures = Vec::new();
    for variant in ["uuid4:bin", "uuid7:bin", "auto-inc"] {
        let w = workload(variant);
        // The model runs beside the server (another core), on the same rows and operations.
        let (m, s) = std::thread::scope(|scope| {
            let model = scope.spawn(|| {
                let mut model = SimEngine::new(sim_settings(&settings).expect("settings"));
                run(&mut model, &w, &mixes)
            });
            let s = run(&mut server, &w, &mixes);
            (model.join().expect("model thread"), s)
        });
        for (mx, ((mm, mp), (sm, sp))) in mixes.iter().zip(m.into_iter().zip(s)) {
            let err = if sm > 0.0 { (mm - sm) / sm } else { mm };
            table.push(format!(
                "| {variant} | {mx} | {mm:.1} | {sm:.1} | {:+.1} % | {mp:.2} | {sp:.2} |",
                err * 100.0
            ));
            let ok = if sm < 100.0 {
                (mm - sm).abs() <= NEAR_ZERO_SPREAD
            } else {
                err.abs() <= TOLERANCE
            };
            if !ok {
                failures.push(format!("{variant} {mx}: model {mm:.1}, server {sm:.1}"));
            }
        }
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "outside 10 %:\n{}\n{}", failures.join("\n"), table.join("\n"));
}
