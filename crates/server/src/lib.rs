//! keylab-server: keylab's real-server engine for MariaDB and MySQL.
//!
//! - [`engine`]: [`MariaDbEngine`], the `keylab_core::Engine` on a private instance or a
//!   user's server (`--url`), working only inside its own database: load, measure, and the
//!   phases after a load (churn, rebuild under a fill factor, timed queries, online DDL).
//! - [`load`]: the row pipeline to N writer connections (row, multi, prepared,
//!   prepared-uncached, load-data).
//! - [`metrics`]: counters, index statistics, table sizes and buffer-pool page figures.
//! - [`owner`]: keylab's claim on its database of a user's server.
//! - [`private`]: throwaway private instances started from the installed binaries, stopped
//!   and removed on drop, on error, on panic, (with keylab-server-common's signal handler and
//!   registry) on Ctrl-C and other signals, and (with its sweep) at the next start after a
//!   kill.
//! - [`spider`]: [`SpiderEngine`], N private backends behind a private head with MariaDB's
//!   Spider engine (`--shards`), with per-shard figures and the hotspot curve
//!   ([`spider_windows`]: where the backends hold each row sent).
//! - [`sql`]: INSERT / LOAD DATA text for rows.
//! - [`user_table`]: a user's table read from the server, read-only, for `keylab advise`.
//! - [`ibd`]: a reader of `.ibd` tablespace files (the start of `keylab inspect`).
//!
//! It does not generate rows or render reports (keylab-core and keylab-report do), and does
//! not hold what it shares with the PostgreSQL engine (keylab-server-common does: the
//! registry of live private instances, the sweep, the signal handler, `--url` parsing,
//! `ServerError`, load timing).
#![deny(missing_docs)]

mod client;
pub mod engine;
pub mod ibd;
pub mod load;
pub mod metrics;
pub mod owner;
pub mod private;
pub mod spider;
pub mod spider_windows;
pub mod sql;
pub mod user_table;

pub use client::url_opts;
pub use engine::MariaDbEngine;
pub use private::{PrivateServer, ServerSettings};
pub use spider::SpiderEngine;
