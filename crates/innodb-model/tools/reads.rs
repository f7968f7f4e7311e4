//! Read speed: `reads ROWS READS POOL_MIB [random|autoinc]` loads ROWS rows (random 16-byte
//! ids, or AUTO_INCREMENT) into the model under a POOL_MIB buffer pool, then times READS
//! uniform point reads (`SimTable::read_point`) and prints both times and the misses per
//! 1,000 reads. Issue 28's speed check: `reads 10000000 10000000 128` (ten million point reads
//! on a ten-million-row table under a bounded pool), under 30 s on the project's machine.
//! Not a test.

use keylab_innodb_model::testkit::Rng;
use keylab_innodb_model::{ReadStats, SimSettings, SimTable};
use keylab_schema::Value;

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
    let mut key = [Value::Null];
    let t = std::time::Instant::now();
    for _ in 0..reads {
        let i = rng.next_u64() % rows;
        key[0] =
            if autoinc { Value::Int(i as i64 + 1) } else { Value::Bytes(ids[i as usize].to_vec()) };
        sim.read_point(&key, &mut stats).unwrap();
    }
    let read_s = t.elapsed().as_secs_f64();
    let misses = sim.pool_counters().unwrap().pages_read - before.pages_read;
    println!(
        "{} rows loaded in {load_s:.1} s; {reads} point reads in {read_s:.1} s ({:.2} µs each): \
         {} rows found, {:.2} pages per read, {:.1} misses per 1,000 reads, pool {pool_mib} MiB",
        rows,
        read_s * 1e6 / reads as f64,
        stats.rows,
        stats.page_requests as f64 / reads as f64,
        misses as f64 * 1000.0 / reads as f64
    );
}
