//! What the live read tests (`reads.rs`, `ranges.rs`, `mixed.rs`) share: a private MariaDB
//! with a page size and a bounded pool, the same settings for the model, and the page requests
//! of one cached read.
//!
//! Not for: the comparisons themselves, whose bounds and figures each test gives.
#![allow(dead_code)] // each test binary uses its own part

use keylab_core::{Engine, EngineSettings, WorkOp};
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use keylab_schema::Table;

/// A private server with `page_size_bytes` pages and a `pool_bytes` buffer pool, and the
/// engine settings that give the model the same.
pub fn bounded_server(page_size_bytes: u32, pool_bytes: u64) -> (MariaDbEngine, EngineSettings) {
    let server_settings =
        ServerSettings { page_size_bytes, buffer_pool_bytes: pool_bytes, ..Default::default() };
    let server = MariaDbEngine::private(&server_settings).expect("private server");
    let settings = EngineSettings {
        page_size_bytes,
        buffer_pool_bytes: Some(pool_bytes),
        ..EngineSettings::default()
    };
    (server, settings)
}

/// Page requests of one read, every page cached (the read run once before), on `engine`.
pub fn requests_of(engine: &mut dyn Engine, table: &Table, op: &WorkOp) -> u64 {
    let mut once = || engine.work(table, &mut std::iter::once(op.clone()), &mut |_| {});
    once().expect("first read");
    once().expect("read").page_requests.expect("requests")
}
