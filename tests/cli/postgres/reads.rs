//! Reads on the `postgres-15` model against a private PostgreSQL 15 (issue 28): the same
//! rows loaded on both, `shared_buffers` about a quarter of the table, then the same reads
//! (point reads uniform, over the latest 5 % and Zipf(0.99); a secondary-index lookup; key
//! ranges of 50 rows; for the uuid keys, a mixed run of 10 % inserts and 90 % reads of the
//! latest 5 %) on both, through `Engine::work`. Misses per 1,000 reads (`pg_statio` `blks_read` on the
//! server) must agree within 10 %. Without PostgreSQL the test prints SKIPPED, except under
//! `CI=true`, where that fails.

use keylab_core::{
    Engine, KeySource, LoadMethod, LoadPlan, Placement, ReadDistribution, ReadKind, ReadPicker,
    ReadSource, ReadSpec, WorkOp, WorkOutcome, Workload,
};
use keylab_keys::GenConfig;
use keylab_nbtree_model::NbtreeSettings;
use keylab_pg_server::{installed_or_skip, PgEngine, PgSettings, TextCollation};
use keylab_sim::NbtreeEngine;

const ROWS: u64 = 100_000;
/// 288 buffers: about a quarter of the uuid tables (637 heap and ~470 index pages).
const POOL_BYTES: u64 = 288 * 8192;
const READS: u64 = 5_000;
/// Operations of the mixed case (a tenth of them inserts).
const MIXED_OPS: u64 = 5_000;

fn keys() -> KeySource {
    KeySource::Generated(GenConfig::default())
}

fn per_1k(o: &WorkOutcome) -> f64 {
    o.misses_per_1k_ops().unwrap()
}

/// Loads `variant` in `placement` on both engines and runs every spec; returns, per spec,
/// (model, server) misses per 1,000 reads.
fn run(
    server: &mut PgEngine,
    variant: &str,
    placement: Placement,
    specs: &[&str],
    mixed: bool,
) -> Vec<(String, f64, f64)> {
    // The rows past ROWS are the mixed case's inserts.
    let w = Workload::e1(variant, placement, ROWS + MIXED_OPS / 10, "t_reads");
    let table = w.table();
    let mut rows: Vec<_> = w.row_gen(keys()).collect();
    let mut inserts = rows.split_off(ROWS as usize).into_iter();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    let settings = NbtreeSettings { shared_buffers_bytes: Some(POOL_BYTES), ..Default::default() };
    let mut model = NbtreeEngine::new(settings);
    let kinds = [ReadKind::Point, ReadKind::Secondary];
    let kinds = if placement == Placement::Secondary { &kinds[..] } else { &kinds[..1] };
    let mut source = ReadSource::new(&table, kinds).unwrap();
    for r in &rows {
        source.record(r);
    }
    for e in [&mut model as &mut dyn Engine, server as &mut dyn Engine] {
        e.create_table(&table).unwrap();
        e.load(&table, &plan, &mut rows.iter().cloned(), &mut |_| {}).unwrap();
    }
    let mut out = Vec::new();
    if mixed {
        // 10 % inserts, 90 % point reads of the latest 5 % (of the rows so far).
        let mut picker = ReadPicker::new(ReadDistribution::Latest { pct: 5.0 }, 11);
        let mut ops = Vec::new();
        for i in 0..MIXED_OPS {
            if i % 10 == 0 {
                let row = inserts.next().unwrap();
                source.record(&row);
                ops.push(WorkOp::Insert(row));
            } else {
                ops.push(WorkOp::Read(source.op(ReadKind::Point, picker.pick(source.rows()))));
            }
        }
        let m = model.work(&table, &mut ops.clone().into_iter(), &mut |_| {}).unwrap();
        let s = server.work(&table, &mut ops.into_iter(), &mut |_| {}).unwrap();
        eprintln!(
            "{variant} {placement} mixed 10% inserts / 90% latest=5%: misses/1k ops model {:.1} \
             server {:.1}; requests/op model {:.2} server {:.2}",
            per_1k(&m),
            per_1k(&s),
            m.pages_per_op().unwrap(),
            s.pages_per_op().unwrap()
        );
        out.push((format!("{variant} {placement} mixed"), per_1k(&m), per_1k(&s)));
    }
    for spec in specs {
        let spec: ReadSpec = spec.parse().unwrap();
        let m = model.work(&table, &mut source.reads(&spec, 7), &mut |_| {}).unwrap();
        let s = server.work(&table, &mut source.reads(&spec, 7), &mut |_| {}).unwrap();
        assert_eq!(m.rows_returned, s.rows_returned, "{variant} {spec}");
        eprintln!(
            "{variant} {placement} {spec}: misses/1k model {:.1} server {:.1}; requests/read \
             model {:.2} server {:.2}",
            per_1k(&m),
            per_1k(&s),
            m.pages_per_op().unwrap(),
            s.pages_per_op().unwrap()
        );
        out.push((format!("{variant} {placement} {spec}"), per_1k(&m), per_1k(&s)));
    }
    server.drop_table(&table).unwrap();
    out
}

#[test]
fn misses_per_1000_reads_follow_the_server() {
    if !installed_or_skip("misses_per_1000_reads_follow_the_server") {
        return;
    }
    let settings = PgSettings { shared_buffers_bytes: POOL_BYTES, ..PgSettings::default() };
    let mut server = PgEngine::private(&settings, TextCollation::C).unwrap();
    let point = [
        format!("point:{READS}"),
        format!("point:{READS}:latest=5%"),
        format!("point:{READS}:zipf=0.99"),
        format!("range=50:{}", READS / 5),
    ];
    let point: Vec<&str> = point.iter().map(String::as_str).collect();
    let secondary = format!("secondary:{READS}");
    let mut all = Vec::new();
    for variant in ["uuid4:bin", "uuid7:bin", "auto-inc"] {
        all.extend(run(&mut server, variant, Placement::Pk, &point, variant != "auto-inc"));
    }
    for variant in ["uuid4:bin", "uuid7:bin"] {
        all.extend(run(&mut server, variant, Placement::Secondary, &[&secondary], false));
    }
    // Within 10 %, or 1 miss per 1,000 reads where the server misses almost nothing: the
    // latest 5 % fits in the cache, and what is left are a few misses of the first reads,
    // which depend on what keylab's load check (two or three sequential scans, each through
    // its own 32-buffer ring) evicted on the server before the reads (measured: 3.0 vs 3.4).
    for (case, m, s) in &all {
        assert!((m - s).abs() <= (0.10 * s).max(1.0), "{case}: model {m:.1} vs server {s:.1}");
    }
}
