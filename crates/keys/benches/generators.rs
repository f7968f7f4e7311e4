//! Throughput of every generator in every stored form (ids per second per core).
//!
//! Run: `cargo bench -p keylab-keys -- --warm-up-time 1 --measurement-time 2`.
//! Each iteration generates one id; criterion reports time per id and, through
//! `Throughput::Elements`, ids per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use keylab_keys::{GenConfig, KeyGen, Variant};

fn generators(c: &mut Criterion) {
    let mut group = c.benchmark_group("keygen");
    group.throughput(Throughput::Elements(1));
    for variant in Variant::all() {
        // 100 ids per ms exercises the within-millisecond paths as well as the new-ms ones.
        let cfg = GenConfig { ids_per_ms: 100, ..GenConfig::default() };
        let mut keys = KeyGen::new(variant, &cfg);
        group.bench_function(variant.to_string(), |b| b.iter(|| black_box(keys.next_key())));
    }
    group.finish();
}

criterion_group!(benches, generators);
criterion_main!(benches);
