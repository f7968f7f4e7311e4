//! The baseline of keylab's insert-speed benchmark (docs/benchmarks.md), not part of keylab:
//! `btreemap_baseline N` inserts N random 16-byte keys (what `uuid4:bin` stores) into a
//! `std::collections::BTreeMap` and prints how many it holds. Time the whole process with
//! hyperfine beside `keylab compare --keys uuid4:bin --rows N --format json`.
//!
//! The keys come from splitmix64 (a few instructions each, cheaper than keylab's UUID
//! generator), so the baseline is, if anything, flattered.

fn main() {
    let n: u64 = match std::env::args().nth(1).map(|a| a.parse()) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("usage: btreemap_baseline N (keys to insert)");
            std::process::exit(2);
        }
    };
    let mut state = 1u64;
    let mut next_u64 = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut map = std::collections::BTreeMap::new();
    for _ in 0..n {
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&next_u64().to_be_bytes());
        key[8..].copy_from_slice(&next_u64().to_be_bytes());
        map.insert(key, ());
    }
    println!("{} keys", map.len());
}
