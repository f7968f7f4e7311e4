//! End-to-end tests of the built `keylab` binary: output, exit codes, help text.

mod bounded;
mod compare;
mod exports;
mod keys;
mod leftovers;
mod pool;
mod scenarios;
mod server;
mod util;
