//! keylab-pg-server: keylab's real-server engine for PostgreSQL.
//!
//! Its public face:
//! - [`PgEngine`]: the `keylab_core::Engine` on a private instance or a user's server
//!   (`--url postgres://...`), working only inside a schema of its own: load (row, multi,
//!   prepared, prepared-uncached, load-data = `COPY FROM STDIN` over N writer connections),
//!   measure (nbtree shape from `pageinspect`/`pgstattuple`, sizes, buffer figures from
//!   `pg_statio_*` without keylab's own load check, the WAL of a phase counted by
//!   `pg_waldump`), churn + VACUUM, REINDEX under an index fillfactor, timed queries with
//!   their `EXPLAIN` plan, reads and mixed work (`Engine::work`: prepared SELECTs, buffer
//!   reads and hits per relation).
//! - [`PgInstance`]: a throwaway private cluster (`initdb` + `postgres`, found as
//!   [`PgBinaries`], configured by [`PgSettings`]), stopped and removed on drop, on signals
//!   and after a kill through `keylab-server-common`'s registry and sweep.
//! - [`read_user_table`]: a user's table read from the catalog, read-only, for `keylab
//!   advise` ([`CatalogTable`]).
//! - [`column_type`] and [`TextCollation`]: the PostgreSQL type keylab declares a column as.
//!
//! Inside (private modules): `engine`, `instance`, `interrupted` (a `--url` run's tables
//! dropped on a signal), `load` (the row pipeline), `metrics`,
//! `owner` (keylab's claim on its schema of a user's database), `phases`, `query`, `sql`
//! (DDL, literals, COPY text and the load checksum), `user_table`.
//!
//! It does not generate rows or render reports; keylab-core and keylab-report do. The nbtree
//! *model* lives elsewhere (it does no I/O). What it shares with the MariaDB engine (the
//! registry and sweep of private instances, signal cleanup, `--url` parsing, `ServerError`,
//! load timing) is keylab-server-common's; it does not depend on the MariaDB engine.
#![deny(missing_docs)]

mod connect;
mod engine;
mod instance;
mod interrupted;
mod load;
mod metrics;
mod owner;
mod phases;
mod query;
mod sql;
mod user_table;

pub use engine::PgEngine;
pub use instance::{installed_or_skip, PgBinaries, PgInstance, PgSettings};
pub use owner::MARK as OWNER_MARK;
pub use sql::{column_type, TextCollation};
pub use user_table::{fill_factor_of, read_user_table, CatalogColumn, CatalogTable};
