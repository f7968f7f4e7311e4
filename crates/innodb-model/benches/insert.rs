//! SimTable vs `BTreeMap` inserting the same 1M keys: random 16-byte (uuid4:bin), ascending
//! 16-byte (uuid7:bin-like) and BIGINT AUTO_INCREMENT.

use criterion::{criterion_group, criterion_main, Criterion};

use keylab_innodb_model::testkit::workload::{run_btreemap, run_sim};

const ROWS: u64 = 1_000_000;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("insert_1m");
    g.sample_size(10);
    for pattern in ["random", "ascending", "autoinc"] {
        g.bench_function(format!("sim_{pattern}"), |b| b.iter(|| run_sim(pattern, ROWS, 42).len()));
        g.bench_function(format!("btreemap_{pattern}"), |b| {
            b.iter(|| run_btreemap(pattern, ROWS, 42))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
