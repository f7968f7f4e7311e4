//! Read speed: `reads ROWS READS POOL_MIB [random|autoinc]` loads ROWS rows (random 16-byte
//! ids, or AUTO_INCREMENT) into the model under a POOL_MIB buffer pool, then times READS
//! uniform point reads (`SimTable::read_points`, batches of 256) and prints both times and the misses per
//! 1,000 reads. Issue 28's speed check: `reads 10000000 10000000 128` (ten million point reads
//! on a ten-million-row table under a bounded pool), under 30 s on the project's machine.
//! Not a test.

use keylab_innodb_model::testkit::Rng;
use keylab_innodb_model::{ReadStats, SimSettings, SimTable};
use keylab_schema::Value;

/// This process's CPU seconds (user + system) from `/proc/self/stat`, where readable: on a
/// machine shared with other work the wall time alone overstates the model's cost.
fn cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: u64| a.get(i).map_or(d, |s| s.replace('_', "").parse().unwrap());
    let (rows, reads, pool_mib) = (arg(1, 1_000_000), arg(2, 1_000_000), arg(3, 128));
    let autoinc = a.get(4).is_some_and(|s| s == "autoinc");
    let table = if autoinc {
        keylab_innodb_model::testkit::workload::autoinc_table()
    } else {
        keylab_innodb_model::testkit::workload::bin16_table()
    };
    let settings = SimSettings { buffer_pool_bytes: Some(pool_mib << 20), ..Default::default() };
    let mut sim = SimTable::new(&table, settings).unwrap();
    let mut rng = Rng(42);
    let mut ids: Vec<[u8; 16]> = Vec::with_capacity(if autoinc { 0 } else { rows as usize });
    let t = std::time::Instant::now();
    let mut row = vec![Value::Bytes(vec![0; 16]), Value::Bytes(b"data".to_vec())];
    if autoinc {
        row[0] = Value::Null;
    }
    for _ in 0..rows {
        if !autoinc {
            let k = rng.random16();
            ids.push(k);
            row[0] = Value::Bytes(k.to_vec());
        }
        sim.insert(&row).unwrap();
    }
    let load_s = t.elapsed().as_secs_f64();
    let before = sim.pool_counters().unwrap();
    let mut stats = ReadStats::new();
    // Reads go in batches, as `Engine::work` sends runs of point reads (`read_points`).
    let mut batch: Vec<Vec<Value>> = Vec::with_capacity(256);
    let (t, cpu0) = (std::time::Instant::now(), cpu_s());
    for n in 0..reads {
        let i = rng.next_u64() % rows;
        batch.push(vec![if autoinc {
            Value::Int(i as i64 + 1)
        } else {
            Value::Bytes(ids[i as usize].to_vec())
        }]);
        if batch.len() == 256 || n + 1 == reads {
            sim.read_points(&batch, &mut stats).unwrap();
            batch.clear();
        }
    }
    let read_s = t.elapsed().as_secs_f64();
    let read_cpu = cpu_s().zip(cpu0).map(|(b, a)| format!("{:.1} s", b - a));
    let misses = sim.pool_counters().unwrap().pages_read - before.pages_read;
    println!(
        "{} rows loaded in {load_s:.1} s; {reads} point reads in {read_s:.1} s wall, {} CPU \
         ({:.2} µs each): {} rows found, {:.2} pages per read, {:.1} misses per 1,000 reads, \
         pool {pool_mib} MiB",
        rows,
        read_cpu.as_deref().unwrap_or("unknown"),
        read_s * 1e6 / reads as f64,
        stats.rows,
        stats.page_requests as f64 / reads as f64,
        misses as f64 * 1000.0 / reads as f64
    );
}
