//! keylab-mariadb: keylab's real-server engine for MariaDB and MySQL.
//!
//! Its public face:
//! - [`MariaDbEngine`]: the `keylab_core::Engine` on a private instance or a user's server
//!   (`--url`), working only inside its own database: load (row, multi, prepared,
//!   prepared-uncached, load-data over N writer connections), measure (counters, index
//!   statistics, table sizes, buffer-pool page figures), and the phases after a load (churn,
//!   rebuild under a fill factor, timed queries, online DDL). [`check_plan`] is its refusal of
//!   a load plan no server can run, which the binary applies to every run before it starts.
//! - [`PrivateServer`]: a throwaway private instance started from the installed binaries
//!   ([`ServerBinaries`]) with [`ServerSettings`], stopped and removed on drop, on error, on
//!   panic, (with keylab-server-common's signal handler and registry) on Ctrl-C and other
//!   signals, and (with its sweep) at the next start after a kill.
//! - [`SpiderEngine`]: N private backends behind a private head with MariaDB's Spider engine
//!   (`--shards`), with per-shard figures and the hotspot curve.
//! - [`read_user_table`]: a user's table read from the server, read-only, for `keylab advise`.
//! - [`sql`]: the INSERT / LOAD DATA text and parameters rows are sent as.
//! - [`ibd`]: a reader of `.ibd` tablespace files (the start of `keylab inspect`).
//!
//! Inside (private modules): `engine` (the engine and its phases), `load` (the row pipeline),
//! `metrics`, `owner` (keylab's claim on its database of a user's server), `private`,
//! `spider` (and `spider::windows`), `user_table`, `client` (connection options for a `--url`).
//!
//! It does not generate rows or render reports (keylab-core and keylab-report do), and does
//! not hold what it shares with the PostgreSQL engine (keylab-server-common does: the
//! registry of live private instances, the sweep, the signal handler, `--url` parsing,
//! `ServerError`, load timing).
#![deny(missing_docs)]

mod client;
mod engine;
pub mod ibd;
mod load;
mod metrics;
mod owner;
mod private;
mod spider;
pub mod sql;
mod user_table;

pub use client::url_opts;
pub use engine::{LoadDetails, MariaDbEngine};
pub use load::{check_plan, run_load};
pub use metrics::index_ids;
pub use private::{
    installed_or_skip, Flavour, PrivateServer, ServerBinaries, ServerSettings, ServerVersion,
};
pub use spider::{SpiderEngine, HOTSPOT_WINDOWS, MAX_SHARDS};
pub use user_table::read_user_table;
