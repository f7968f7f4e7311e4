//! E5 on the simulator (docs/experiments.md): `e5 ROWS ROUNDS PER_ROUND [FF...] [--mysql]` loads
//! ROWS rows of E5's `test0` table (md5-like 32-hex-char ids in random order), then for each
//! fill factor (default 100 95 90 85 80 75) rebuilds the table, runs ROUNDS rounds of
//! {insert PER_ROUND new rows, delete PER_ROUND random rows}, rebuilds again, and prints
//! splits, merge attempts, merges and PRIMARY leaf pages, with the wall time of each churn.
//! Full size: `e5 1000000 200 10000`. Not a test.

use keylab_innodb_model::testkit::e5::{churn, load};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let mysql = a.iter().any(|x| x == "--mysql");
    let nums: Vec<u64> =
        a.iter().filter(|x| !x.starts_with("--")).map(|x| x.parse().unwrap()).collect();
    let (rows, rounds, per_round) = (nums[0], nums[1], nums[2]);
    let ffs: Vec<u8> = if nums.len() > 3 {
        nums[3..].iter().map(|&f| f as u8).collect()
    } else {
        vec![100, 95, 90, 85, 80, 75]
    };
    let flavour = if mysql {
        keylab_innodb_model::Flavour::Mysql80
    } else {
        keylab_innodb_model::Flavour::MariaDb1011
    };
    let t0 = std::time::Instant::now();
    let loaded = load(rows, 1, flavour);
    let load_s = t0.elapsed().as_secs_f64();
    println!("loaded {rows} rows in {load_s:.1} s");
    println!("| fill factor | PK leaf pages after rebuild | splits | merge attempts | merges | discards | PK leaf pages after churn | after final rebuild | churn wall s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for ff in ffs {
        let mut w = loaded.clone();
        let r = churn(&mut w, ff, rounds, per_round, 2);
        println!(
            "| {ff} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
            r.pk_leaves_rebuilt,
            r.splits,
            r.merge_attempts,
            r.merges,
            r.discards,
            r.pk_leaves_churned,
            r.pk_leaves_final,
            r.churn_wall_s
        );
    }
}
