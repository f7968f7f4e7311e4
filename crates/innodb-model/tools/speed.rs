//! Speed/memory helper: `speed sim|btreemap random|ascending|autoinc N` inserts N rows and
//! prints the wall time (run under `/usr/bin/time -v` for peak RSS). Not a test.

use keylab_innodb_model::testkit::workload::{run_btreemap, run_sim};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (engine, pattern, n) = (a[1].as_str(), a[2].as_str(), a[3].parse::<u64>().unwrap());
    let t = std::time::Instant::now();
    match engine {
        "sim" => {
            let sim = run_sim(pattern, n, 42);
            let wall_s = t.elapsed().as_secs_f64();
            let s = sim.stats();
            let p = &s.indexes[0];
            println!(
                "sim {pattern} {n}: {wall_s:.2} s; leaves {} height {} fill {:.1} splits {}",
                p.pages_per_level[0], p.height, p.fill_pct, s.counters.page_splits
            );
        }
        _ => {
            let len = run_btreemap(pattern, n, 42);
            println!("btreemap {pattern} {n}: {:.2} s ({len} keys)", t.elapsed().as_secs_f64());
        }
    }
}
