//! Loads one variant into a private server and prints the measurement as JSON.
//!
//! `cargo run -p keylab-mariadb --example measure -- VARIANT ROWS [pk|secondary] [METHOD]`

use keylab_core::{run_variant, KeySource, LoadPlan, NoProgress, Workload};
use keylab_keys::GenConfig;
use keylab_mariadb::{MariaDbEngine, ServerSettings};

fn main() {
    keylab_server_common::install_signal_cleanup().unwrap();
    let args: Vec<String> = std::env::args().collect();
    let variant = args.get(1).map_or("uuid4:text", String::as_str);
    let rows = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let placement = args.get(3).map_or("pk", String::as_str).parse().unwrap();
    let method = args.get(4).map_or("multi", String::as_str).parse().unwrap();
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let w = Workload::e1(variant, placement, rows, "t_measure");
    let plan = LoadPlan { method, ..LoadPlan::default() };
    let keys = KeySource::Generated(GenConfig::default());
    let run = run_variant(&mut engine, &w, keys, &plan, &mut NoProgress).expect("run");
    println!("{}", serde_json::to_string_pretty(&run).unwrap());
}
