//! Shared code of the crate's unit tests, benchmark, integration tests and tools
//! (`tools/`): the seeded generator, E1's table, the insert workloads of the speed tool and
//! the benchmark, E5's table and churn. Hidden from the documentation: not part of the
//! model's interface, and nothing in the model uses it.
//!
//! Not for: the model's own behaviour; every figure it gives comes from [`crate::SimTable`].

pub mod e1;
pub mod e5;
pub mod splitmix;
pub mod workload;

pub use splitmix::Rng;
