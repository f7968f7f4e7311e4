//! End-to-end tests of the built `keylab` binary: output, exit codes, help text.

mod bounded;
mod compare;
mod exports;
mod inspect;
mod keys;
mod leftovers;
mod limits;
mod model;
mod pool;
mod postgres;
mod ranges;
mod scenarios;
mod server;
mod util;
