//! Live fidelity of reads (issue 28): the same rows loaded into a private MariaDB and into
//! the InnoDB model, then the same reads (same seed, same ids) on both, with a buffer pool of
//! about a quarter of the table; misses per 1,000 reads of the model against the server's
//! `Innodb_buffer_pool_reads`, for uniform, latest-5% and Zipf(0.99) point reads and for a
//! secondary-index lookup, on `uuid4:bin`, `uuid7:bin` and `auto-inc`.
//!
//! Sizes keep the test short: 4 KiB pages, an 8 MiB pool (1,970 pages, of which the page
//! cleaner keeps 768 free), rows of about 240 bytes, so a table of 140,000 rows is about four
//! times the pool. Without a server binary it prints `SKIPPED` and passes, except under
//! `CI=true`.

mod common;

use keylab_core::{
    Engine, KeySource, LoadMethod, LoadPlan, Payload, Placement, ReadDistribution, ReadKind,
    ReadSource, ReadSpec, WorkOp, Workload,
};
use keylab_keys::GenConfig;

use keylab_sim::{sim_settings, SimEngine};

const PAGE: u32 = 4096;
const POOL: u64 = 8 << 20;
const ROWS: u64 = 140_000;
const READS: u64 = 10_000;
/// Reads of each spec run before the measured ones.
const WARM_UP: u64 = 5_000;
/// The criterion: the model's misses per 1,000 reads within 10% of the server's.
const TOLERANCE: f64 = 0.10;

fn workload(variant: &str, placement: Placement) -> Workload {
    let name = format!("r_{}_{placement}", variant.replace([':', '-'], "_"));
    let mut w = Workload::e1(variant, placement, ROWS, &name);
    w.payload = Payload::Data { bytes: 200 };
    w
}

/// Loads `w` into `engine` and returns the table and the reads' source.
fn load(engine: &mut dyn Engine, w: &Workload) -> (keylab_schema::Table, ReadSource) {
    let table = w.table();
    engine.create_table(&table).expect("create");
    let kinds: &[ReadKind] = match w.placement {
        Placement::Pk => &[ReadKind::Point],
        Placement::Secondary => &[ReadKind::Point, ReadKind::Secondary],
    };
    let mut source = ReadSource::new(&table, kinds).expect("source");
    let rows: Vec<_> = w.row_gen(KeySource::Generated(GenConfig::default())).collect();
    for r in &rows {
        source.record(r);
    }
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    engine.load(&table, &plan, &mut rows.into_iter(), &mut |_| {}).expect("load");
    (table, source)
}

/// Misses per 1,000 reads of each spec in turn (the pool carries over from one to the next).
fn misses(engine: &mut dyn Engine, w: &Workload, specs: &[ReadSpec]) -> Vec<(f64, f64)> {
    let (table, source) = load(engine, w);
    let out = specs
        .iter()
        .map(|s| {
            // A warm-up of the same reads first (other picks), so that the figure is the
            // steady state, not the filling of the pool with the spec's rows.
            let warm = ReadSpec { count: WARM_UP, ..*s };
            engine.work(&table, &mut source.reads(&warm, 5), &mut |_| {}).expect("warm-up");
            let o = engine.work(&table, &mut source.reads(s, 11), &mut |_| {}).expect("work");
            assert_eq!(o.rows_returned, s.count, "{s}: every read finds its row");
            let per_read = o.page_requests.unwrap() as f64 / s.count as f64;
            (o.misses_per_1k_ops().expect("pages read"), per_read)
        })
        .collect();
    engine.drop_table(&table).expect("drop");
    out
}

#[test]
fn model_misses_per_read_within_ten_percent_of_the_server() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let (mut server, settings) = common::bounded_server(PAGE, POOL);
    let point = |distribution| ReadSpec { kind: ReadKind::Point, count: READS, distribution };
    let pk_specs = [
        point(ReadDistribution::Uniform),
        point(ReadDistribution::Latest { pct: 5.0 }),
        point(ReadDistribution::Zipf { s: 0.99 }),
    ];
    let sec_specs = [ReadSpec {
        kind: ReadKind::Secondary,
        count: READS,
        distribution: ReadDistribution::Uniform,
    }];
    let cases = [
        ("uuid4:bin", Placement::Pk, &pk_specs[..]),
        ("uuid7:bin", Placement::Pk, &pk_specs[..]),
        ("auto-inc", Placement::Pk, &pk_specs[..]),
        ("uuid4:bin", Placement::Secondary, &sec_specs[..]),
        ("uuid7:bin", Placement::Secondary, &sec_specs[..]),
    ];
    let mut table = vec![format!(
        "| key | placement | reads | model misses/1k | server misses/1k | error | model pages/read | server pages/read |\n|---|---|---|---|---|---|---|---|"
    )];
    let mut failures = Vec::new();
    for (variant, placement, specs) in cases {
        let w = workload(variant, placement);
        // The model runs beside the server (another core), on the same rows and reads.
        let (m, s) = std::thread::scope(|scope| {
            let model = scope.spawn(|| {
                let mut model = SimEngine::new(sim_settings(&settings).expect("settings"));
                misses(&mut model, &w, specs)
            });
            let s = misses(&mut server, &w, specs);
            (model.join().expect("model thread"), s)
        });
        for (spec, ((mm, mp), (sm, sp))) in specs.iter().zip(m.into_iter().zip(s)) {
            let err = if sm > 0.0 { (mm - sm) / sm } else { mm };
            table.push(format!(
                "| {variant} | {placement} | {spec} | {mm:.1} | {sm:.1} | {:+.1} % | {mp:.2} | {sp:.2} |",
                err * 100.0
            ));
            // Near-zero miss rates (an ordered key's recent rows) compare in absolute terms,
            // within the server's own spread: its `innodb_old_blocks_time` is 1 s of wall
            // clock (the model counts operations), so how many hot pages the warm-up makes
            // young depends on the machine's speed. auto-inc latest-5% gave 0.1 on a quiet
            // machine and 16.4 under CI load, the model 0.1 both times.
            let ok = if sm < 100.0 { (mm - sm).abs() <= 25.0 } else { err.abs() <= TOLERANCE };
            if !ok {
                failures
                    .push(format!("{variant} {placement} {spec}: model {mm:.1}, server {sm:.1}"));
            }
        }
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "outside 10 %:\n{}\n{}", failures.join("\n"), table.join("\n"));
}

/// The rules of a read's page gets, key by key: point reads inside a leaf, at its first key
/// (the descent ends on the leaf before) and at its last key (the next leaf is got), and
/// secondary lookups (the range estimate, the lookup, the clustered visit), and key ranges of
/// 100 rows (the estimate, its recheck under the LIMIT, whole fetch calls); every page cached.
#[test]
fn requests_per_read_match_the_server_key_by_key() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let pool = 64 << 20;
    let (mut server, settings) = common::bounded_server(PAGE, pool);
    let mut model = SimEngine::new(sim_settings(&settings).expect("settings"));
    for (variant, placement, rows, kind) in [
        ("auto-inc", Placement::Pk, 3_000, ReadKind::Point),
        ("uuid4:bin", Placement::Secondary, 20_000, ReadKind::Secondary),
        // The range estimate (again under a LIMIT below its rows) and its walk on each level.
        ("uuid4:bin", Placement::Pk, 20_000, ReadKind::KeyRange { rows: 100 }),
    ] {
        let mut w = workload(variant, placement);
        w.rows = rows;
        let (table, source) = load(&mut server, &w);
        load(&mut model, &w);
        let ops: Vec<WorkOp> = match kind {
            // The first 60 keys: leaves of 16 rows, so first and last keys of several leaves.
            ReadKind::Point => (0..60).map(|p| WorkOp::Read(source.op(kind, p))).collect(),
            _ => {
                let spec = ReadSpec { kind, count: 20, distribution: ReadDistribution::Uniform };
                source.reads(&spec, 3).collect()
            }
        };
        let mut differ = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            let (s, m) = (
                common::requests_of(&mut server, &table, op),
                common::requests_of(&mut model, &table, op),
            );
            if s != m {
                differ.push(format!("read {i}: server {s}, model {m}"));
            }
        }
        assert!(differ.is_empty(), "{variant} {placement}: {}", differ.join("; "));
        server.drop_table(&table).expect("drop");
        model.drop_table(&table).expect("drop");
    }
}
