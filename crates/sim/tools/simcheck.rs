//! Fidelity helper: generates id files and runs the simulator on them, so that the same ids
//! in the same order can be loaded into a real server by `tools/servercheck.sh`.
//!
//! `simcheck gen KIND N SEED` prints N ids, one per line. KIND: `uuid4` (random 36-char
//! lowercase hex), `ulid` (ascending 26-char Crockford), `ulid-ms-random` (26-char, the
//! millisecond part ascends every 8 ids, the rest random inside one millisecond).
//! `simcheck sim pk|secondary CHARS [mariadb|mysql] < ids` prints the simulator's stats as
//! JSON-like text for the E1 table with `id VARCHAR(CHARS)`.

use keylab_schema::{Charset, ColumnType, Value};
use keylab_sim::{Flavour, SimSettings, SimTable};
use std::io::{BufRead, Write};

include!("splitmix.rs");

const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

fn ulid(ms: u64, rand: u128) -> String {
    let mut s = String::with_capacity(26);
    for k in (0..10).rev() {
        s.push(CROCKFORD[((ms >> (5 * k)) & 31) as usize] as char);
    }
    for k in (0..16).rev() {
        s.push(CROCKFORD[((rand >> (5 * k)) & 31) as usize] as char);
    }
    s
}

fn gen(kind: &str, n: u64, seed: u64) {
    let mut rng = Rng(seed);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut rand: u128 = ((rng.next_u64() as u128) << 16) & ((1u128 << 80) - 1) >> 1;
    for i in 0..n {
        let id = match kind {
            "uuid4" => {
                let hex = format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64());
                format!(
                    "{}-{}-{}-{}-{}",
                    &hex[0..8],
                    &hex[8..12],
                    &hex[12..16],
                    &hex[16..20],
                    &hex[20..32]
                )
            }
            "ulid" => {
                rand += 1;
                ulid(1_700_000_000_000 + i, rand)
            }
            "ulid-ms-random" => {
                let r = ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) & ((1 << 80) - 1);
                ulid(1_700_000_000_000 + i / 8, r)
            }
            _ => panic!("unknown kind {kind}"),
        };
        writeln!(out, "{id}").unwrap();
    }
}

include!("e1_table.rs");

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("gen") => gen(&args[2], args[3].parse().unwrap(), args[4].parse().unwrap()),
        Some("sim") => {
            let secondary = args[2] == "secondary";
            let chars: u32 = args[3].parse().unwrap();
            let flavour = match args.get(4).map(String::as_str) {
                Some("mysql") => Flavour::Mysql80,
                _ => Flavour::MariaDb1011,
            };
            let settings = SimSettings { flavour, ..SimSettings::default() };
            let mut sim = SimTable::new(
                &e1_table(ColumnType::VarChar { chars, charset: Charset::Utf8mb4 }, secondary),
                settings,
            )
            .unwrap();
            // KEYLAB_PAYLOAD_BYTES=N stores N filler bytes in `data` instead of `data`.
            let data = match std::env::var("KEYLAB_PAYLOAD_BYTES") {
                Ok(n) => Value::Bytes(vec![b'x'; n.parse().unwrap()]),
                Err(_) => Value::Bytes(b"data".to_vec()),
            };
            let lines: Vec<String> = std::io::stdin().lock().lines().map(Result::unwrap).collect();
            // KEYLAB_TRACE_LAST=1 prints the target leaf and the counters around the last insert.
            let trace = std::env::var("KEYLAB_TRACE_LAST").is_ok();
            for (i, line) in lines.iter().enumerate() {
                let id = Value::Bytes(line.clone().into_bytes());
                let last = trace && i + 1 == lines.len();
                if last && !secondary {
                    println!("before: {:?}", sim.counters());
                    println!("leaf: {}", sim.debug_primary_leaf(std::slice::from_ref(&id)));
                }
                let row = if secondary {
                    vec![Value::Null, id, data.clone()]
                } else {
                    vec![id, data.clone()]
                };
                sim.insert(&row).unwrap();
                if last {
                    println!("after: {:?}", sim.counters());
                }
            }
            sim.check().unwrap();
            if std::env::var("KEYLAB_DUMP_PAGES").is_ok() {
                // Every PRIMARY page's header fields, to compare with the server's .ibd.
                for (no, ..) in sim.debug_pages(0) {
                    println!("{}", sim.debug_page(no));
                }
            }
            let s = sim.stats();
            println!("counters {:?}", s.counters);
            println!("data_length {} index_length {}", s.data_length_bytes, s.index_length_bytes);
            for ix in &s.indexes {
                println!(
                    "{} size {} n_leaf_pages {} per_level {:?} height {} fill {:.3} recs/leaf {:.2} data_size {}",
                    ix.name,
                    ix.size_pages,
                    ix.leaf_pages,
                    ix.pages_per_level,
                    ix.height,
                    ix.fill_pct,
                    ix.records_per_leaf,
                    ix.data_size_bytes
                );
            }
        }
        _ => eprintln!(
            "usage: simcheck gen KIND N SEED | simcheck sim pk|secondary CHARS [mariadb|mysql]"
        ),
    }
}
