//! The side-by-side table's sections for the contract's extensions, one file each: the
//! buffer pool and counter extensions (`rows/pool.rs`), the PostgreSQL figures
//! (`rows/postgres.rs`), the reads phase's rows per read spec (`rows/reads.rs`) and the sharded runs (`rows/shards.rs`, which also holds the shards'
//! HTML charts and reading sentence, so everything about shards is read in one place).
//!
//! Each section appears only when some run carries its figures. The table model itself is
//! `table.rs`; nothing here renders a format.

pub(crate) mod pool;
pub(crate) mod postgres;
pub(crate) mod reads;
pub(crate) mod shards;
