//! keylab-pg-server: keylab's real-server engine for PostgreSQL.
//!
//! - [`engine`]: [`PgEngine`], the `keylab_core::Engine` on a private instance or a user's
//!   server (`--url postgres://...`), working only inside a schema of its own.
//! - [`instance`]: throwaway private clusters (`initdb` + `postgres`), stopped and removed
//!   on drop, on signals and after a kill through `keylab-server-common`'s registry and sweep.
//! - [`load`]: the row pipeline to N writer connections (row, multi, prepared,
//!   prepared-uncached, load-data = `COPY FROM STDIN`).
//! - [`metrics`]: nbtree shape from `pageinspect`/`pgstattuple`, sizes, buffer figures, and
//!   the WAL of a phase counted by `pg_waldump`.
//! - [`owner`]: keylab's claim on its schema of a user's database.
//! - [`phases`]: churn + VACUUM, and REINDEX under an index fillfactor.
//! - [`query`]: timed queries with their `EXPLAIN` plan.
//! - [`sql`]: PostgreSQL DDL, literals, COPY text and the load checksum.
//! - [`user_table`]: a user's table read from the catalog, read-only, for `keylab advise`.
//!
//! It does not generate rows or render reports; keylab-core and keylab-report do. The nbtree
//! *model* lives elsewhere (it does no I/O).
#![deny(missing_docs)]

pub mod engine;
pub mod instance;
pub mod load;
pub mod metrics;
pub mod owner;
pub mod phases;
pub mod query;
pub mod sql;
pub mod user_table;

pub use engine::PgEngine;
pub use instance::{PgInstance, PgSettings};
pub use sql::TextCollation;
