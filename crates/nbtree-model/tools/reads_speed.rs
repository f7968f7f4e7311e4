//! Speed check of reads (release, issue 28): a table of ROWS random 16-byte keys (a `uuid`
//! primary key) loaded under `shared_buffers` of POOL_MB, then as many uniform point reads
//! (`SELECT * ... WHERE pk = v`: descent, leaf, heap page, all through the buffer model).
//! `cargo run --release -p keylab-nbtree-model --example nbtree_reads_speed [ROWS] [POOL_MB]`.

use keylab_nbtree_model::{NbtreeSettings, NbtreeTable};
use keylab_schema::{Column, ColumnType, RowFormat, Table, Value};
use std::time::Instant;

/// A fixed-seed 64-bit mixer (splitmix64): the same keys on every run, no entropy.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn key(i: u64) -> Value {
    let mut k = mix(i).to_be_bytes().to_vec();
    k.extend_from_slice(&mix(!i).to_be_bytes());
    Value::Bytes(k)
}

/// This process's CPU seconds (user + system) from `/proc/self/stat` (Linux; 0 elsewhere):
/// the machine is shared, so wall time alone says little.
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime, in ticks of 1/100 s) are the 12th and
    // 13th after the name.
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let arg = |n: usize, d: u64| std::env::args().nth(n).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (rows, pool_mb) = (arg(1, 10_000_000), arg(2, 256));
    let table = Table {
        name: "t".into(),
        columns: vec![
            Column::new("id", ColumnType::Binary { bytes: 16 }, false),
            Column::new("data", ColumnType::BigInt { unsigned: false }, true),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: Vec::new(),
        row_format: RowFormat::Dynamic,
        partitioning: None,
    };
    let settings =
        NbtreeSettings { shared_buffers_bytes: Some(pool_mb << 20), ..Default::default() };
    let mut t = NbtreeTable::new(&table, settings).unwrap();
    let t0 = Instant::now();
    for i in 0..rows {
        t.insert(&[key(i), Value::Int(i as i64)]).unwrap();
    }
    let load_s = t0.elapsed().as_secs_f64();
    let before = t.buffers().unwrap().counters();
    let (t1, cpu1) = (Instant::now(), cpu_s());
    let mut found = 0u64;
    for n in 0..rows {
        let pick = mix(n ^ 0x5EED) % rows;
        found += t.read_equal(0, &[key(pick)]).unwrap();
    }
    let (read_s, read_cpu_s) = (t1.elapsed().as_secs_f64(), cpu_s() - cpu1);
    let after = t.buffers().unwrap().counters();
    println!(
        "{rows} rows loaded in {load_s:.1} s; {rows} point reads in {read_s:.1} s wall, \
         {read_cpu_s:.1} s CPU ({:.2} us each), {found} rows found, {:.0} misses per 1,000 \
         reads, shared_buffers {pool_mb} MB",
        read_cpu_s * 1e6 / rows as f64,
        (after.reads - before.reads) as f64 * 1000.0 / rows as f64
    );
}
