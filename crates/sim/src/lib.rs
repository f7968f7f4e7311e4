//! keylab's simulator as engines: the page models (`keylab-innodb-model`,
//! `keylab-nbtree-model`) behind the [`keylab_core::Engine`] trait every command runs, so a
//! simulated run and a server's run go through the same workload and report the same fields.
//!
//! - [`SimEngine`] (`innodb`): one InnoDB model table (MariaDB 10.11 or MySQL 8.0 rules);
//!   [`sim_settings`] builds its settings from a run's [`EngineSettings`].
//! - [`NbtreeEngine`] (`nbtree`): the PostgreSQL 15 nbtree model; [`nbtree_settings`];
//!   its reads and mixed work in `nbtree_reads`.
//! - [`ShardedSim`] (`shards`): N InnoDB model tables behind the Spider head's routing rule.
//! - `writers`: the order in which a server sees parallel writers' rows ([`Interleave`]).
//! - `ddl`: the modelled server's answer to an online DDL statement.
//!
//! Every figure these engines give is a prediction, never a measurement: timings are `null`.
//! This crate does no I/O, reads no clock and uses no entropy beyond the fixed seeds it is
//! given (the writers' interleaving); it has no database client and no command line (the
//! binary maps its flags onto these types and its errors onto exit codes).
//!
//! [`EngineSettings`]: keylab_core::EngineSettings

mod ddl;
mod innodb;
mod innodb_work;
mod nbtree;
mod nbtree_reads;
mod shards;
mod writers;

pub use innodb::{flavour, sim_settings, PageSizeError, SimEngine};

/// Why the simulators refuse a time-boxed phase ([`keylab_core::Engine::timed_inserts`]).
pub(crate) fn no_clock() -> keylab_core::EngineError {
    keylab_core::EngineError::Unsupported(
        "the simulator has no clock: rows per second over a fixed time are a server's \
         measurement (run the phase with --engine mariadb); the simulator counts operations"
            .into(),
    )
}
pub use nbtree::{nbtree_settings, NbtreeEngine};
pub use shards::{ShardedSim, SpiderShape};
pub use writers::Interleave;
