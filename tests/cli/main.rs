//! End-to-end tests of the built `keylab` binary: output, exit codes, help text.

mod advise;
mod bounded;
mod compare;
mod docs;
mod escapes;
mod exports;
mod flags;
mod inspect;
mod install;
mod jobs;
mod keys;
mod leftovers;
mod limits;
mod memory;
mod model;
mod pool;
mod postgres;
mod ranges;
mod reads;
mod scenarios;
mod server;
mod spider;
mod util;
mod width;
