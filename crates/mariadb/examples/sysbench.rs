//! keylab's `multi` load against sysbench's `bulk_insert` on the same private server.
//!
//! sysbench's `bulk_insert` appends `(n, n)` rows to `sbtest<thread>(id INT PRIMARY KEY,
//! k INT)` in multi-row INSERTs of about 512 KiB each; keylab loads the `seq` variant (an
//! application-assigned BIGINT primary key, no payload), the nearest shape it has.
//!
//! `cargo run --release -p keylab-mariadb --example sysbench -- [ROWS] [SECONDS]`
//! (default 1000000 rows for keylab and 20 s per sysbench run; needs `sysbench` on PATH).

use keylab_core::{Engine, KeySource, LoadMethod, LoadPlan, Payload, Placement, Workload};
use keylab_keys::GenConfig;
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use mysql::prelude::Queryable;
use std::process::Command;

/// Rows per second of a sysbench run: each event appends one row, and sysbench 1.0 prints
/// the rate on its `transactions:` line as `(N per sec.)`.
fn sysbench_rows_per_s(socket: &str, threads: u32, seconds: u32) -> f64 {
    let common = [
        "bulk_insert".to_string(),
        "--db-driver=mysql".into(),
        format!("--mysql-socket={socket}"),
        "--mysql-user=root".into(),
        "--mysql-db=sbtest".into(),
        format!("--threads={threads}"),
    ];
    for step in ["cleanup", "prepare"] {
        let out = Command::new("sysbench").args(&common).arg(step).output().expect("sysbench");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = Command::new("sysbench")
        .args(&common)
        .arg(format!("--time={seconds}"))
        .arg("run")
        .output()
        .expect("sysbench");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let line = text.lines().find(|l| l.contains("transactions:")).expect("a transactions line");
    let rate = line.split('(').nth(1).and_then(|r| r.split_whitespace().next());
    rate.and_then(|r| r.parse().ok()).unwrap_or_else(|| panic!("no rate in `{line}`"))
}

fn main() {
    keylab_server_common::install_signal_cleanup().unwrap();
    let args: Vec<String> = std::env::args().collect();
    let rows: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let seconds: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let settings = ServerSettings { buffer_pool_bytes: 1 << 30, ..ServerSettings::default() };
    let mut engine = MariaDbEngine::private(&settings).expect("private server");
    let socket = engine.private_server().unwrap().socket().to_string_lossy().into_owned();
    engine.new_connection().unwrap().query_drop("CREATE DATABASE sbtest").unwrap();
    println!("{}", engine.info().version);
    for writers in [1u32, 4] {
        let sb = sysbench_rows_per_s(&socket, writers, seconds);
        println!("sysbench bulk_insert, {writers} thread(s): {sb:.0} rows/s");
        let w = Workload {
            payload: Payload::None,
            ..Workload::e1("seq", Placement::Pk, rows, "t_seq")
        };
        let table = w.table();
        for batch in [1000u32, 10_000, 30_000] {
            engine.create_table(&table).unwrap();
            let plan = LoadPlan { method: LoadMethod::Multi, batch, writers, batch_max: None };
            let mut gen = w.row_gen(KeySource::Generated(GenConfig::default()));
            let out = engine.load(&table, &plan, &mut gen, &mut |_| {}).unwrap();
            let wall_s = out.wall_s.unwrap();
            println!(
                "keylab multi, batch {batch}, {writers} writer(s): {:.0} rows/s ({rows} rows in \
                 {wall_s:.2} s) = {:.2}x sysbench",
                rows as f64 / wall_s,
                rows as f64 / wall_s / sb
            );
            engine.drop_table(&table).unwrap();
        }
    }
}
