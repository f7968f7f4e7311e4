//! Connecting within a deadline on the whole start-up (the client library's
//! `connect_timeout` bounds only the TCP connect). Later statements have no deadline: a long
//! `CREATE INDEX` is normal.
//!
//! This module does not choose where to connect (see `engine::open`, `user_table`).

use crate::engine::describe;
use keylab_server_common::deadline;
use postgres::{Client, NoTls};
use std::time::Duration;

/// How long a connection may take, from the TCP connect to the server's first
/// ready-for-query: the same for the private instance and a `--url` server.
pub(crate) const CONNECT_TIMEOUT: Duration = keylab_server_common::CONNECT_TIMEOUT;

/// Connects with `config`, giving up after `timeout`; the error says why (the client's
/// message, or the time waited), without the password.
pub(crate) fn connect_within(
    config: &postgres::Config,
    timeout: Duration,
) -> Result<Client, String> {
    let mut config = config.clone();
    config.connect_timeout(timeout);
    match deadline::within(timeout, move || config.connect(NoTls)) {
        Some(Ok(client)) => Ok(client),
        Some(Err(e)) => Err(describe(&e)),
        None => Err(deadline::no_answer(timeout)),
    }
}
