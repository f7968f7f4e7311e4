//! E4 on the simulator (docs/experiments.md): a sysbench-like table
//! `sbtest(id BIGINT PK, k BIGINT, c CHAR(120), pad CHAR(60), KEY k_1(k))` loaded in id order
//! with random k, then UPDATEs of k at random rows, each modelled as the purge of the row's
//! old records plus the insert of the row with a new random k (the clustered record goes
//! back to the same place; the secondary record moves to a random leaf). The buffer pool is
//! far smaller than the data. For change buffering on/off × 4k/16k pages it prints page reads,
//! writes, hit ratio, misses per update, and the device model's estimated I/O seconds and
//! updates per estimated I/O second on HDD and SSD. All times are estimates.
//!
//! `e4 ROWS POOL_MIB UPDATES [--k-plus-one]` (e.g. `e4 3000000 8 100000`). With
//! `--k-plus-one` each update sets k = k + 1 as sysbench's `update_index` does (the new
//! secondary record usually lands on the same leaf as the old one). Not a test.

use keylab_innodb_model::testkit::Rng;
use keylab_innodb_model::{Device, PageSize, SimSettings, SimTable};
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table, Value};

fn table() -> Table {
    let big = ColumnType::BigInt { unsigned: false };
    Table {
        name: "sbtest".into(),
        columns: vec![
            Column::new("id", big, false),
            Column::new("k", big, false),
            Column::new("c", ColumnType::Char { chars: 120, charset: Charset::Latin1 }, false),
            Column::new("pad", ColumnType::Char { chars: 60, charset: Charset::Latin1 }, false),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: vec![Index::new("k_1", vec![1], false)],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

fn row(id: i64, k: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k), Value::Bytes(vec![b'c'; 120]), Value::Bytes(vec![b'p'; 60])]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let k_plus_one = args.iter().any(|x| x == "--k-plus-one");
    let a: Vec<u64> =
        args.iter().filter(|x| !x.starts_with("--")).map(|x| x.parse().unwrap()).collect();
    let (rows, pool_mib, updates) = (a[0], a[1], a[2]);
    println!(
        "| page | change buffer | reads | writes | hit ratio | misses/update | ibuf buffered | \
         est. HDD I/O s | est. SSD I/O s | est. updates/s HDD | est. updates/s SSD |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut tps = Vec::new();
    for page in [PageSize::K16, PageSize::K4] {
        for cb in [false, true] {
            let s = SimSettings {
                page_size: page,
                buffer_pool_bytes: Some(pool_mib << 20),
                change_buffering: Some(cb),
                ..SimSettings::default()
            };
            let mut sim = SimTable::new(&table(), s).unwrap();
            let mut rng = Rng(4);
            let mut ks = Vec::with_capacity(rows as usize);
            for id in 0..rows as i64 {
                let k = (rng.next_u64() % rows) as i64;
                sim.insert(&row(id, k)).unwrap();
                ks.push(k);
            }
            sim.flush();
            let before = sim.pool_counters().unwrap();
            let mut rng = Rng(5);
            for _ in 0..updates {
                let id = (rng.next_u64() % rows) as i64;
                let random_k = (rng.next_u64() % rows) as i64;
                let k = if k_plus_one { ks[id as usize] + 1 } else { random_k };
                assert!(sim.delete(&[Value::Int(id)]).unwrap());
                sim.insert(&row(id, k)).unwrap();
                ks[id as usize] = k;
            }
            sim.flush();
            let c = sim.pool_counters().unwrap();
            let (reads, writes) =
                (c.pages_read - before.pages_read, c.pages_written - before.pages_written);
            let acc = c.page_accesses - before.page_accesses;
            let pb = page.bytes();
            let hdd = Device::Hdd.est_io_s(reads, writes, pb);
            let ssd = Device::Ssd.est_io_s(reads, writes, pb);
            let (th, ts) = (updates as f64 / hdd, updates as f64 / ssd);
            tps.push(((page, cb), th, ts));
            println!(
                "| {page} | {} | {reads} | {writes} | {:.3} | {:.2} | {} | {hdd:.1} | {ssd:.2} | {th:.1} | {ts:.0} |",
                if cb { "on" } else { "off" },
                1.0 - reads as f64 / acc as f64,
                reads as f64 / updates as f64,
                c.ibuf_buffered - before.ibuf_buffered,
            );
            let st = sim.stats();
            eprintln!(
                "{page} cb={cb}: PRIMARY {} pages, k_1 {} pages, pool {} pages; {:?}",
                st.indexes[0].size_pages,
                st.indexes[1].size_pages,
                st.pool.as_ref().unwrap().capacity_pages,
                st.pool.as_ref().unwrap().counters,
            );
        }
    }
    let get = |p, cb| tps.iter().find(|x| x.0 == (p, cb)).map(|x| (x.1, x.2)).unwrap();
    let (h16off, s16off) = get(PageSize::K16, false);
    let (h16on, s16on) = get(PageSize::K16, true);
    let (h4off, s4off) = get(PageSize::K4, false);
    let (h4on, s4on) = get(PageSize::K4, true);
    println!();
    println!("change buffer gain, 16k: HDD {:.2}x, SSD {:.2}x", h16on / h16off, s16on / s16off);
    println!("change buffer gain, 4k:  HDD {:.2}x, SSD {:.2}x", h4on / h4off, s4on / s4off);
    println!("4k vs 16k (change buffer on): HDD {:.2}x, SSD {:.2}x", h4on / h16on, s4on / s16on);
}
