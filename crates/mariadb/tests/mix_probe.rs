//! Probe (not a fidelity test): which pages a private MariaDB reads during a mixed phase,
//! by page type (`INNODB_METRICS` module_buffer_page) and by tablespace
//! (`INNODB_BUFFER_PAGE`). Run by hand: `cargo test -p keylab-mariadb --test mix_probe --
//! --ignored --nocapture`; env PROBE_KEYS, PROBE_PAGE, PROBE_ROWS, PROBE_SHARE, PROBE_DIST.

use keylab_core::{
    mixed_ops, Engine, KeySource, LoadMethod, LoadPlan, MixSpec, Payload, Placement,
    ReadDistribution, ReadKind, ReadSource, Workload,
};
use keylab_keys::GenConfig;
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn metrics(conn: &mut mysql::Conn) -> BTreeMap<String, i64> {
    let mut m: BTreeMap<String, i64> = conn
        .query("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS")
        .unwrap()
        .into_iter()
        .collect();
    let status: Vec<(String, String)> = conn
        .query("SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Innodb_buffer_pool_read%' OR Variable_name LIKE 'Innodb_pages_%' OR Variable_name LIKE 'Innodb_history%'")
        .unwrap();
    for (k, v) in status {
        if let Ok(v) = v.parse() {
            m.insert(k, v);
        }
    }
    m
}

fn pool_by_space(conn: &mut mysql::Conn) -> BTreeMap<String, i64> {
    conn.query(
        "SELECT CONCAT(SPACE, ' ', PAGE_TYPE, ' ', IFNULL(INDEX_NAME,'')), COUNT(*) \
         FROM information_schema.INNODB_BUFFER_PAGE GROUP BY 1",
    )
    .unwrap()
    .into_iter()
    .collect()
}

fn diff(label: &str, a: &BTreeMap<String, i64>, b: &BTreeMap<String, i64>) {
    println!("--- {label}");
    for (k, vb) in b {
        let va = a.get(k).copied().unwrap_or(0);
        if vb != &va {
            println!("{k:50} {:>10}", vb - va);
        }
    }
}

#[test]
#[ignore]
fn probe_mixed_phase_reads_by_page_type() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let page: u32 = env("PROBE_PAGE", "16384").parse().unwrap();
    let rows: u64 = env("PROBE_ROWS", "100000").parse().unwrap();
    let ops: u64 = env("PROBE_OPS", "20000").parse().unwrap();
    let share: f64 = env("PROBE_SHARE", "0.1").parse().unwrap();
    let dist: ReadDistribution = env("PROBE_DIST", "latest=5%").parse().unwrap();
    let extra: Vec<(String, String)> = env("PROBE_EXTRA", "")
        .split(',')
        .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    let settings = ServerSettings {
        page_size_bytes: page,
        buffer_pool_bytes: 8 << 20,
        extra,
        ..Default::default()
    };
    let mut server = MariaDbEngine::private(&settings).expect("private server");
    let mut conn = server.new_connection().unwrap();
    conn.query_drop("SET GLOBAL innodb_monitor_enable = 'all'").unwrap();
    for variant in env("PROBE_KEYS", "uuid4:bin,uuid7:bin,auto-inc").split(',') {
        let name = format!("p_{}", variant.replace([':', '-'], "_"));
        let mut w = Workload::e1(variant, Placement::Pk, rows + 2 * ops, &name);
        if let Ok(b) = std::env::var("PROBE_PAYLOAD") {
            w.payload = Payload::Data { bytes: b.parse().unwrap() };
        }
        let table = w.table();
        server.create_table(&table).unwrap();
        let mut source = ReadSource::new(&table, &[ReadKind::Point]).unwrap();
        let mut gen = w.row_gen(KeySource::Generated(GenConfig::default()));
        let load: Vec<_> = (&mut gen).take(rows as usize).collect();
        for r in &load {
            source.record(r);
        }
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
        server.load(&table, &plan, &mut load.into_iter(), &mut |_| {}).unwrap();
        let mix = MixSpec { ops, insert_share: share, kind: ReadKind::Point, distribution: dist };
        for (phase, seed) in [("warm-up", 5u64), ("measured", 11)] {
            let (m0, p0) = (metrics(&mut conn), pool_by_space(&mut conn));
            let t0 = std::time::Instant::now();
            let out = server
                .work(&table, &mut mixed_ops(&mut source, &mut gen, &mix, seed), &mut |_| {})
                .unwrap();
            let el = t0.elapsed().as_secs_f64();
            let (m1, p1) = (metrics(&mut conn), pool_by_space(&mut conn));
            println!(
                "=== {variant} {phase}: {:.1}s ops {} reads {} req {:?} read {:?} written {:?} misses/1k {:?}",
                el,
                out.reads + out.inserts,
                out.reads,
                out.page_requests,
                out.pages_read,
                out.pages_written,
                out.misses_per_1k_ops()
            );
            diff("metrics", &m0, &m1);
            diff("pool by space/type/index", &p0, &p1);
        }
        server.drop_table(&table).unwrap();
    }
}
