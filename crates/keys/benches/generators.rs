//! Throughput of every generator in every stored form (ids per second per core).
//!
//! Run: `cargo bench -p keylab-keys -- --warm-up-time 1 --measurement-time 2`.
//! Each iteration generates a batch of 1,000 ids (as a simulator's load loop does), so
//! criterion's per-iteration overhead does not blur the per-id cost; the reported time is
//! per batch and the throughput (`Throughput::Elements`) is ids per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use keylab_keys::{GenConfig, KeyGen, Variant};

const BATCH: u64 = 1_000;

fn generators(c: &mut Criterion) {
    let mut group = c.benchmark_group("keygen");
    group.throughput(Throughput::Elements(BATCH));
    for variant in Variant::all() {
        // 100 ids per ms exercises the within-millisecond paths as well as the new-ms ones.
        let cfg = GenConfig { ids_per_ms: 100, ..GenConfig::default() };
        let mut keys = KeyGen::new(variant, &cfg);
        group.bench_function(variant.to_string(), |b| {
            b.iter(|| {
                for _ in 0..BATCH {
                    black_box(keys.next_key());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generators);
criterion_main!(benches);
