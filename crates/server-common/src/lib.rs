//! keylab-server-common: what keylab's real-server engines share, whatever the server
//! (`keylab-mariadb` for MariaDB/MySQL, `keylab-pg-server` for PostgreSQL; neither depends on
//! the other).
//!
//! - [`registry`]: the private instances alive in this process ([`LiveInstance`]), stopped
//!   and removed by [`cleanup_all_live`]; a free port, a log's tail, stopping a pid.
//! - [`process`]: a private instance's processes as the operating system sees them (spawned
//!   to die with keylab, found by the directory their command line names).
//! - [`secret`]: the password generated per private instance ([`Secret`]) and the 0600
//!   files that hand it to a server's bootstrap.
//! - [`shm`]: the System V shared memory a killed PostgreSQL leaves, released before its
//!   directory is removed.
//! - [`sweep`]: owner files in instance directories, and [`sweep_orphans`], which removes the
//!   instances a killed keylab left.
//! - [`signals`]: [`install_signal_cleanup`], the handler for the signals that would end
//!   keylab (engines add their own work with [`on_interrupt`]).
//! - [`url`]: `--url` parsing that never shows a password ([`ServerUrl`]), and the identifier
//!   rule for databases, tables and columns ([`valid_identifier`]).
//! - [`deadline`]: a deadline on a blocking connect ([`deadline::within`]).
//! - [`error`]: [`ServerError`], every engine's error.
//! - [`key_check`]: the verdict of a load check on a server-assigned key.
//! - [`load`]: what a load measured ([`LoadStats`]), statement latencies, the writer limit.
//! - [`user_table`]: [`UserTable`], what `advise --url` reads of a user's table.
//!
//! It does not talk to any server (no client library, no SQL), start one, or know a server's
//! configuration: the engine crates do.
#![deny(missing_docs)]

pub mod deadline;
pub mod error;
pub mod key_check;
pub mod load;
pub mod process;
pub mod registry;
pub mod secret;
pub mod shm;
pub mod signals;
pub mod sweep;
pub mod url;
pub mod user_table;

pub use error::ServerError;

/// How long keylab waits for a server to accept a connection and answer its start-up
/// (both engines, private instances and `--url` servers alike), before failing with an
/// error naming the address and this time.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
pub use load::{check_writers, latency_ms, LoadStats, MAX_WRITERS};
pub use registry::{cleanup_all_live, is_ci, live_private_servers, LiveInstance};
pub use secret::Secret;
pub use signals::{install_signal_cleanup, interrupted, on_interrupt};
pub use sweep::sweep_orphans;
pub use url::{valid_identifier, ServerUrl, IDENTIFIER_RULE, PASSWORD_ENV};
pub use user_table::UserTable;
