//! Load speed on a private server: `multi` and `prepared` at several batch sizes against
//! `load-data`, and keylab against the `mariadb` client sending the same rows: its own
//! `LOAD DATA LOCAL INFILE` from a file, and keylab's exact multi-row INSERT statements from a
//! file. Each load also reports the server's CPU time (from `/proc`), so a gap between methods
//! can be told apart: server CPU per row (the server's work) or server idle time (the client).
//!
//! `cargo run --release -p keylab-mariadb --example load_speed -- [ROWS] [VARIANT] [PLANS]`
//! (default 1000000 rows of `ulid`, primary-key placement). `PLANS` picks the loads to run,
//! comma-separated `method:batch[:writers]` (e.g. `multi:20000,load-data:0`; batch 0 = all
//! rows in one statement); `client` runs the `mariadb` client's own LOAD DATA and
//! `client-multi:BATCH` the client sending keylab's multi-row INSERTs of `BATCH` rows.

use keylab_core::{Engine, KeySource, LoadMethod, LoadPlan, Placement, Workload};
use keylab_keys::GenConfig;
use keylab_mariadb::{run_load, sql, MariaDbEngine, ServerSettings};
use mysql::prelude::Queryable;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// CPU seconds (user + system) a process has used so far, from `/proc/PID/stat`.
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the parenthesised command name start at field 3 (the state); utime and
    // stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    // Clock ticks of 1/100 s: USER_HZ is 100 on every Linux architecture keylab runs on.
    (ticks(11) + ticks(12)) as f64 / 100.0
}

/// One measured load: wall time and the server's CPU time over it.
struct Measured {
    rows_per_s: f64,
    wall_s: f64,
    server_cpu_s: f64,
}

impl Measured {
    fn line(&self, rows: u64) -> String {
        format!(
            "{:>8.0} rows/s  wall {:>6.2} s  server cpu {:>5.2} s ({:>3.0}% of wall, {:.2} us/row)",
            self.rows_per_s,
            self.wall_s,
            self.server_cpu_s,
            self.server_cpu_s / self.wall_s * 100.0,
            self.server_cpu_s / rows as f64 * 1e6
        )
    }
}

/// Runs the `mariadb` client on `socket` with `args`, feeding it `input` if given.
fn client(socket: &Path, pid: u32, rows: u64, args: &[&str], input: Option<&Path>) -> Measured {
    let mut cmd = Command::new("mariadb");
    cmd.args(["--no-defaults", "--local-infile=1", "-uroot", "-D", "keylab"])
        .arg(format!("--socket={}", socket.display()))
        .args(args);
    if let Some(f) = input {
        cmd.stdin(Stdio::from(std::fs::File::open(f).unwrap()));
    }
    let (cpu0, t0) = (cpu_s(pid), Instant::now());
    let status = cmd.status().expect("mariadb client");
    let wall_s = t0.elapsed().as_secs_f64();
    assert!(status.success());
    Measured { rows_per_s: rows as f64 / wall_s, wall_s, server_cpu_s: cpu_s(pid) - cpu0 }
}

fn main() {
    keylab_server_common::install_signal_cleanup().unwrap();
    let args: Vec<String> = std::env::args().collect();
    let rows: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let variant = args.get(2).cloned().unwrap_or_else(|| "ulid".into());
    let settings = ServerSettings { buffer_pool_bytes: 1 << 30, ..ServerSettings::default() };
    let mut engine = MariaDbEngine::private(&settings).expect("private server");
    let w = Workload::e1(&variant, Placement::Pk, rows, "t_speed");
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
                         load-data:0,multi:5000:2,client-multi:50000,client";
    let plan_list = args.get(3).map(String::as_str).unwrap_or(default_plans);
    let mut plans = Vec::new();
    let mut client_load = false;
    let mut client_multi = Vec::new();
    for p in plan_list.split(',').map(str::trim) {
        if p == "client" {
            client_load = true;
            continue;
        }
        if let Some(b) = p.strip_prefix("client-multi:") {
            client_multi.push(b.parse::<usize>().expect("a batch size"));
            continue;
        }
        let parts: Vec<&str> = p.split(':').collect();
        let method: LoadMethod = parts[0].parse().expect("a load method");
        let batch: u32 = parts.get(1).map_or(5000, |b| b.parse().expect("a batch size"));
        let batch = if batch == 0 { rows as u32 } else { batch };
        let writers: u32 = parts.get(2).map_or(1, |w| w.parse().expect("a writer count"));
        plans.push((method, batch, writers));
    }
    let server = engine.private_server().unwrap();
    let (dir, socket) = (server.dir().to_path_buf(), server.socket().to_path_buf());
    let pid = server.pid().unwrap();
    for (method, batch, writers) in plans {
        engine.create_table(&table).unwrap();
        let plan = LoadPlan { method, batch, writers, batch_max: None };
        let mut gen = w.row_gen(KeySource::Generated(GenConfig::default()));
        // The load pipeline itself, without the engine's row count and checksum scans around
        // it, so the server's CPU time covers the load alone.
        let conns = (0..writers).map(|_| engine.new_connection().unwrap()).collect();
        let cpu0 = cpu_s(pid);
        let out = run_load(&table, &plan, conns, &mut gen, &mut |_| {}).unwrap();
        let m = Measured {
            rows_per_s: rows as f64 / out.wall_s,
            wall_s: out.wall_s,
            server_cpu_s: cpu_s(pid) - cpu0,
        };
        let count: Option<u64> =
            engine.new_connection().unwrap().query_first("SELECT COUNT(*) FROM t_speed").unwrap();
        assert_eq!(count, Some(rows), "rows on the server");
        let lat = keylab_server_common::latency_ms(&out.times.batch_latency_us).unwrap();
        let first = &out.times.first_batch_ms;
        println!(
            "{:<9} batch {:>7} writers {}: {}  batch p50 {:>8.2} p99 {:>8.2} max {:>8.2} ms  \
             first {:?} ms",
            method.token(),
            batch,
            writers,
            m.line(rows),
            lat.p50,
            lat.p99,
            lat.max,
            first.iter().map(|f| (f * 100.0).round() / 100.0).collect::<Vec<_>>()
        );
        engine.drop_table(&table).unwrap();
    }
    // The client sending keylab's own multi-row INSERT statements from a file.
    for batch in client_multi {
        let file = dir.join("multi.sql");
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        let all: Vec<_> = w.row_gen(KeySource::Generated(GenConfig::default())).collect();
        for chunk in all.chunks(batch) {
            out.write_all(sql::multi_insert_sql(&table, chunk).as_bytes()).unwrap();
            out.write_all(b";\n").unwrap();
        }
        out.flush().unwrap();
        drop((out, all));
        engine.create_table(&table).unwrap();
        // Its default character set is utf8mb3; keylab's connections use utf8mb4.
        let m = client(&socket, pid, rows, &["--default-character-set=utf8mb4"], Some(&file));
        println!("mariadb client, keylab's multi SQL, batch {batch:>7}: {}", m.line(rows));
        engine.drop_table(&table).unwrap();
        std::fs::remove_file(&file).unwrap();
    }
    if !client_load {
        return;
    }
    // The client's own LOAD DATA of the same rows from a file.
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
    let m = client(&socket, pid, rows, &["-e", &stmt], None);
    println!("mariadb client LOAD DATA LOCAL INFILE (file): {}", m.line(rows));
    engine.drop_table(&table).unwrap();
}
