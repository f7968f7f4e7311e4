//! The MySQL client's side of the types keylab-server-common shares with the PostgreSQL
//! engine: connection options for a [`ServerUrl`], and the client's errors as a
//! [`ServerError`].
//!
//! It opens no connection itself; the engine, the user-table reader and the tests do.

use keylab_server_common::{ServerError, ServerUrl};
use std::time::Duration;

/// Connection options for `url`: TCP, with a connect timeout so a dead server fails in
/// seconds.
pub fn url_opts(url: &ServerUrl, connect_timeout: Duration) -> mysql::OptsBuilder {
    mysql::OptsBuilder::new()
        .ip_or_hostname(Some(url.host.clone()))
        .tcp_port(url.port)
        .user(Some(url.user.clone()))
        .pass(url.password.clone())
        // Never switch to a local socket behind the user's back: the URL says where.
        .prefer_socket(false)
        .tcp_connect_timeout(Some(connect_timeout))
}

/// [`ServerError::sql`] for the MariaDB/MySQL client's errors.
pub(crate) fn sql_err(what: &str, e: mysql::Error) -> ServerError {
    ServerError::sql(what, e)
}
