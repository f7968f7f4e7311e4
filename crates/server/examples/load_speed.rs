//! Load speed on a private server: `multi` and `prepared` at several batch sizes against
//! `load-data`, and keylab's streamed `load-data` against the `mariadb` client's own
//! `LOAD DATA LOCAL INFILE` of the same rows from a file.
//!
//! `cargo run --release -p keylab-server --example load_speed -- [ROWS] [VARIANT] [PLANS]`
//! (default 1000000 rows of `ulid`, primary-key placement). `PLANS` picks the loads to run,
//! comma-separated `method:batch[:writers]` (e.g. `multi:20000,load-data:0`; batch 0 = all
//! rows in one statement), and `client` among them runs the `mariadb` client's own load.

use keylab_core::{Engine, KeySource, LoadMethod, LoadPlan, Payload, Placement, Workload};
use keylab_keys::GenConfig;
use keylab_server::{sql, MariaDbEngine, ServerSettings};
use std::io::Write;
use std::process::Command;
use std::time::Instant;

fn main() {
    keylab_server::install_signal_cleanup().unwrap();
    let args: Vec<String> = std::env::args().collect();
    let rows: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let variant = args.get(2).cloned().unwrap_or_else(|| "ulid".into());
    let settings = ServerSettings { buffer_pool_bytes: 1 << 30, ..ServerSettings::default() };
    let mut engine = MariaDbEngine::private(&settings).expect("private server");
    let w = Workload {
        variant: variant.parse().unwrap(),
        placement: Placement::Pk,
        payload: Payload::E1,
        rows,
        table_name: "t_speed".into(),
    };
    let table = w.table();
    println!("{rows} rows of {variant}, pk placement, {}", engine.info().version);
    // What the client side alone costs: generating rows and rendering each method's payload.
    let t0 = Instant::now();
    let all: Vec<_> = w.row_gen(KeySource::Generated(GenConfig::default())).collect();
    let gen_s = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let bytes: usize = all.chunks(5000).map(|c| sql::multi_insert_sql(&table, c).len()).sum();
    let multi_s = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let params: usize = all.chunks(5000).map(|c| sql::prepared_params(&table, c).len()).sum();
    let prep_s = t0.elapsed().as_secs_f64();
    let cols = sql::sent_columns(&table);
    let t0 = Instant::now();
    let mut tsv = Vec::new();
    for row in &all {
        sql::write_tsv_row(&mut tsv, &table, &cols, row);
    }
    let tsv_s = t0.elapsed().as_secs_f64();
    println!(
        "client only: generate {:.0} rows/s; render multi {:.0} rows/s ({bytes} bytes); \
         prepared params {:.0} rows/s ({params}); tsv {:.0} rows/s ({} bytes)",
        rows as f64 / gen_s,
        rows as f64 / multi_s,
        rows as f64 / prep_s,
        rows as f64 / tsv_s,
        tsv.len()
    );
    drop((all, tsv));
    let default_plans = "multi:1000,multi:5000,multi:20000,multi:50000,prepared:1000,\
                         prepared:5000,prepared:20000,prepared:30000,load-data:100000,\
                         load-data:0,multi:5000:2,client";
    let plan_list = args.get(3).map(String::as_str).unwrap_or(default_plans);
    let mut plans = Vec::new();
    let mut client_load = false;
    for p in plan_list.split(',').map(str::trim) {
        if p == "client" {
            client_load = true;
            continue;
        }
        let parts: Vec<&str> = p.split(':').collect();
        let method: LoadMethod = parts[0].parse().expect("a load method");
        let batch: u32 = parts.get(1).map_or(5000, |b| b.parse().expect("a batch size"));
        let batch = if batch == 0 { rows as u32 } else { batch };
        let writers: u32 = parts.get(2).map_or(1, |w| w.parse().expect("a writer count"));
        plans.push((method, batch, writers));
    }
    for (method, batch, writers) in plans {
        engine.create_table(&table).unwrap();
        let plan = LoadPlan { method, batch, writers };
        let mut gen = w.row_gen(KeySource::Generated(GenConfig::default()));
        let out = engine.load(&table, &plan, &mut gen, &mut |_| {}).unwrap();
        let wall = out.wall_s.unwrap();
        let lat = out.batch_latency_ms.unwrap();
        let first = &engine.last_load().unwrap().first_batch_ms;
        println!(
            "{:<9} batch {:>7} writers {}: {:>8.0} rows/s  wall {:>6.2} s  batch p50 {:>8.2} \
             p99 {:>8.2} max {:>8.2} ms  first {:?} ms",
            method.token(),
            batch,
            writers,
            rows as f64 / wall,
            wall,
            lat.p50,
            lat.p99,
            lat.max,
            first.iter().map(|f| (f * 100.0).round() / 100.0).collect::<Vec<_>>()
        );
        engine.drop_table(&table).unwrap();
    }
    if !client_load {
        return;
    }
    // The client's own LOAD DATA of the same rows from a file.
    let server = engine.private_server().unwrap();
    let (dir, socket) = (server.dir().to_path_buf(), server.socket().to_path_buf());
    let file = dir.join("rows.tsv");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let mut buf = Vec::new();
    for row in w.row_gen(KeySource::Generated(GenConfig::default())) {
        buf.clear();
        sql::write_tsv_row(&mut buf, &table, &cols, &row);
        out.write_all(&buf).unwrap();
    }
    out.flush().unwrap();
    drop(out);
    engine.create_table(&table).unwrap();
    let stmt = sql::load_data_sql(&table, &file.display().to_string());
    let t0 = Instant::now();
    let status = Command::new("mariadb")
        .args(["--no-defaults", "--local-infile=1", "-uroot", "-D", "keylab"])
        .arg(format!("--socket={}", socket.display()))
        .args(["-e", &stmt])
        .status()
        .expect("mariadb client");
    let wall = t0.elapsed().as_secs_f64();
    assert!(status.success());
    println!(
        "mariadb client LOAD DATA LOCAL INFILE (file): {:>8.0} rows/s  wall {:>6.2} s",
        rows as f64 / wall,
        wall
    );
    engine.drop_table(&table).unwrap();
}
