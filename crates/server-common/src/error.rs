//! The error type of every server engine (MariaDB/MySQL and PostgreSQL alike). Messages name
//! the server by its password-free address and say what to do; no message ever carries a
//! password. It converts into keylab-core's `EngineError`; turning a client library's error
//! into one is each engine's business.

/// A failure of a private instance, a connection, or a statement on a server.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// No server binary is installed.
    #[error("{0}")]
    NotInstalled(String),
    /// A private instance could not be created or started.
    #[error("{0}")]
    Start(String),
    /// The server did not answer.
    #[error("{0}")]
    Connect(String),
    /// A `--url` that is not `mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]`.
    #[error("{0}")]
    BadUrl(String),
    /// keylab refuses to work in this database (it holds objects keylab did not create).
    #[error("{0}")]
    Refused(String),
    /// A statement failed, or the loaded rows do not check out.
    #[error("{0}")]
    Sql(String),
    /// A local file or process operation failed.
    #[error("{0}")]
    Io(String),
    /// The operation cannot be done on this server as it is (the reason says why).
    #[error("{0}")]
    Unsupported(String),
}

impl ServerError {
    /// A statement that failed: what keylab was doing, then the client's reason. Every
    /// engine's statement errors read the same way.
    pub fn sql(what: &str, reason: impl std::fmt::Display) -> ServerError {
        ServerError::Sql(format!("{what}: {reason}"))
    }
}

/// How an engine's failure reads to keylab-core: a refused database or a bad URL is the
/// user's to fix, an unsupported operation is said so, anything else failed.
impl From<ServerError> for keylab_core::EngineError {
    fn from(e: ServerError) -> Self {
        use keylab_core::EngineError;
        match e {
            ServerError::Refused(m) | ServerError::BadUrl(m) => EngineError::Rejected(m),
            ServerError::Unsupported(m) => EngineError::Unsupported(m),
            other => EngineError::Failed(other.to_string()),
        }
    }
}
