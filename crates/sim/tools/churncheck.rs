//! Churn fidelity helper: the same inserts and purged deletes on the simulator as
//! `tools/churncheck.sh` runs on a real server.
//!
//! `churncheck gen N ROUNDS PER_ROUND SEED DIR` writes `DIR/load.txt` (N random uuid4-like
//! ids) and `DIR/ops.txt` (per round PER_ROUND `I id` lines, then PER_ROUND `D id` lines
//! deleting random live ids, then `R`). `churncheck sim DIR pk|secondary [mariadb|mysql]`
//! runs them on the E1 table (`id VARCHAR(36)` as the primary key, or with a BIGINT
//! AUTO_INCREMENT key and `KEY k_id(id)`) and prints the counters after the load and their
//! deltas over the churn, then `size` / `n_leaf_pages` / pages per level of each index.

use keylab_schema::{Charset, ColumnType, Value};
use keylab_sim::{Flavour, SimSettings, SimTable};
use std::collections::HashMap;
use std::io::{BufRead, Write};

include!("splitmix.rs");

impl Rng {
    fn uuid4(&mut self) -> String {
        let hex = format!("{:016x}{:016x}", self.next_u64(), self.next_u64());
        format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
    }
}

fn gen(n: u64, rounds: u64, per_round: u64, seed: u64, dir: &str) {
    let mut rng = Rng(seed);
    let mut live: Vec<String> = (0..n).map(|_| rng.uuid4()).collect();
    let mut f = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/load.txt")).unwrap());
    for id in &live {
        writeln!(f, "{id}").unwrap();
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/ops.txt")).unwrap());
    for _ in 0..rounds {
        for _ in 0..per_round {
            let id = rng.uuid4();
            writeln!(f, "I {id}").unwrap();
            live.push(id);
        }
        for _ in 0..per_round {
            let i = (rng.next_u64() % live.len() as u64) as usize;
            writeln!(f, "D {}", live.swap_remove(i)).unwrap();
        }
        writeln!(f, "R").unwrap();
    }
}

include!("e1_table.rs");

fn sim(dir: &str, secondary: bool, flavour: Flavour) {
    let s = SimSettings { flavour, ..SimSettings::default() };
    let mut sim = SimTable::new(
        &e1_table(ColumnType::VarChar { chars: 36, charset: Charset::Utf8mb4 }, secondary),
        s,
    )
    .unwrap();
    // Auto-increment values in insert order, as the server assigns them.
    let mut pk_of: HashMap<String, i64> = HashMap::new();
    let mut next_pk = 1i64;
    let insert =
        |sim: &mut SimTable, pk_of: &mut HashMap<String, i64>, next_pk: &mut i64, id: &str| {
            let data = Value::Bytes(b"data".to_vec());
            let row = if secondary {
                vec![Value::Int(*next_pk), Value::Bytes(id.as_bytes().to_vec()), data]
            } else {
                vec![Value::Bytes(id.as_bytes().to_vec()), data]
            };
            pk_of.insert(id.to_string(), *next_pk);
            *next_pk += 1;
            sim.insert(&row).unwrap();
        };
    let load = std::fs::File::open(format!("{dir}/load.txt")).unwrap();
    let trace_load: Option<usize> =
        std::env::var("KEYLAB_TRACE_LOAD").ok().map(|t| t.parse().unwrap());
    for (n, line) in std::io::BufReader::new(load).lines().enumerate() {
        let line = line.unwrap();
        if trace_load.is_some_and(|t| t.abs_diff(n + 1) <= 3) && !secondary {
            let leaf = sim.debug_primary_leaf(&[Value::Bytes(line.trim().as_bytes().to_vec())]);
            eprintln!("before row {} {}: leaf {leaf:?} {:?}", n + 1, line.trim(), sim.counters());
        }
        insert(&mut sim, &mut pk_of, &mut next_pk, line.trim());
    }
    let c0 = sim.counters();
    println!("after load: {c0:?}");
    if let Ok(p) = std::env::var("KEYLAB_PAGE") {
        eprintln!("{}", sim.debug_page(p.parse().unwrap()));
    }
    let ops = std::fs::File::open(format!("{dir}/ops.txt")).unwrap();
    // KEYLAB_TRACE=a..b prints the counters after each op line in that range (debugging).
    let trace: Option<(usize, usize)> = std::env::var("KEYLAB_TRACE").ok().map(|t| {
        let (a, b) = t.split_once("..").unwrap();
        (a.parse().unwrap(), b.parse().unwrap())
    });
    for (n, line) in std::io::BufReader::new(ops).lines().enumerate() {
        let line = line.unwrap();
        if let Some((a, b)) = trace {
            if (a..=b).contains(&(n + 1)) {
                eprintln!("before line {}: {line} {:?}", n + 1, sim.counters());
                if let Some(id) = line.strip_prefix("D ") {
                    if !secondary {
                        eprintln!(
                            "  leaf {:?}",
                            sim.debug_primary_leaf(&[Value::Bytes(id.as_bytes().to_vec())])
                        );
                    }
                }
            }
        }
        if let Some(id) = line.strip_prefix("I ") {
            insert(&mut sim, &mut pk_of, &mut next_pk, id);
        } else if let Some(id) = line.strip_prefix("D ") {
            let key = if secondary {
                Value::Int(pk_of[id])
            } else {
                Value::Bytes(id.as_bytes().to_vec())
            };
            assert!(sim.delete(&[key]).unwrap(), "{id}");
        }
    }
    sim.check().unwrap();
    if std::env::var("KEYLAB_DUMP_PAGES").is_ok() {
        for (p, level, n, data) in sim.debug_pages(0) {
            let _ = level;
            eprintln!("page {p} recs {n} data {data}");
        }
    }
    let c = sim.counters();
    println!(
        "churn deltas: splits {} merge_attempts {} merges {} discards {} reorgs {}",
        c.page_splits - c0.page_splits,
        c.merge_attempts - c0.merge_attempts,
        c.merges - c0.merges,
        c.page_discards - c0.page_discards,
        c.page_reorgs - c0.page_reorgs
    );
    let st = sim.stats();
    for ix in &st.indexes {
        println!(
            "{}: size {} n_leaf_pages {} pages per level {:?} records {} fill {:.2}",
            ix.name, ix.size_pages, ix.leaf_pages, ix.pages_per_level, ix.records, ix.fill_pct
        );
    }
    println!(
        "data_length {} index_length {} data_free {}",
        st.data_length_bytes, st.index_length_bytes, st.data_free_bytes
    );
    println!("{}", sim.debug_fsp());
    if let Ok(ff) = std::env::var("KEYLAB_REBUILD_FF") {
        sim.rebuild(ff.parse().unwrap()).unwrap();
        sim.check().unwrap();
        let st = sim.stats();
        println!("after OPTIMIZE TABLE at fill factor {ff}:");
        for ix in &st.indexes {
            println!(
                "{}: size {} n_leaf_pages {} pages per level {:?}",
                ix.name, ix.size_pages, ix.leaf_pages, ix.pages_per_level
            );
        }
        println!(
            "data_length {} index_length {} data_free {}",
            st.data_length_bytes, st.index_length_bytes, st.data_free_bytes
        );
        println!("{}", sim.debug_fsp());
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    match a[0].as_str() {
        "gen" => gen(
            a[1].parse().unwrap(),
            a[2].parse().unwrap(),
            a[3].parse().unwrap(),
            a[4].parse().unwrap(),
            &a[5],
        ),
        "sim" => {
            let flavour = if a.get(3).map(String::as_str) == Some("mysql") {
                Flavour::Mysql80
            } else {
                Flavour::MariaDb1011
            };
            sim(&a[1], a[2] == "secondary", flavour)
        }
        other => panic!("unknown command {other}"),
    }
}
