//! `keylab advise --url ... --table ...`: reading the user's table from their server,
//! read-only, with `keylab_mariadb::read_user_table` (MariaDB/MySQL: `SHOW CREATE TABLE` and
//! information_schema) or `keylab_pg_server::read_user_table` (PostgreSQL: pg_catalog). Only the
//! URL and table name are checked here; what is read and how is in those modules. Messages
//! name the server by host and port, never with the password.

use crate::args::UrlArg;
use crate::UsageError;
use anyhow::Result;
use keylab_ddl::SourceDialect;
use keylab_server_common::UserTable;
use keylab_server_common::{ServerError, ServerUrl};

/// What was read from a server.
pub struct LiveTable {
    /// Where: `host:port/schema.table` (no password).
    pub origin: String,
    /// The definition as DDL text (`SHOW CREATE TABLE`, or the pg_dump text of the catalog).
    pub sql: String,
    /// The dialect of `sql`.
    pub dialect: SourceDialect,
    /// The table's name.
    pub table: String,
    /// Rows, widths and the sample.
    pub user: UserTable,
}

/// True when `url` names a PostgreSQL server.
fn is_postgres(url: &UrlArg) -> bool {
    let u = url.expose();
    u.starts_with("postgres://") || u.starts_with("postgresql://")
}

/// Reads `table` from the server at `url`.
pub fn read_live(url: &UrlArg, table: &str) -> Result<LiveTable> {
    let u = url.expose();
    if !["mysql://", "mariadb://", "postgres://", "postgresql://"].iter().any(|s| u.starts_with(s))
    {
        return Err(UsageError(format!(
            "--url {url}: valid: mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (or mariadb://), \
             postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or postgresql://)"
        ))
        .into());
    }
    if is_postgres(url) {
        read_postgres(url, table)
    } else {
        read_mysql(url, table)
    }
}

fn no_table_is_usage<'a>(
    table: &'a str,
    origin: &'a str,
) -> impl Fn(ServerError) -> anyhow::Error + 'a {
    move |e| match e {
        ServerError::Sql(m) if m.starts_with("no table") => {
            anyhow::Error::from(UsageError(format!("--table {table}: {m} on {origin}")))
        }
        // A view, a system table, a table of another engine: named with the reason.
        ServerError::Unsupported(m) => {
            anyhow::Error::from(UsageError(format!("--table {table}: {m} (on {origin})")))
        }
        ServerError::BadUrl(m) => anyhow::Error::from(UsageError(format!("--url: {m}"))),
        other => anyhow::Error::from(other).context(format!("reading {origin}")),
    }
}

fn read_mysql(url: &UrlArg, table: &str) -> Result<LiveTable> {
    let env = std::env::var(keylab_server_common::url::PASSWORD_ENV).ok();
    let parsed = ServerUrl::parse_with_env_password(url.expose(), env.as_deref())
        .map_err(|e| UsageError(format!("--url {url}: {e}")))?;
    let (schema, name) = match table.split_once('.') {
        Some((s, t)) => (s.to_string(), t.to_string()),
        None => match &parsed.database {
            Some(db) => (db.clone(), table.to_string()),
            None => {
                return Err(UsageError(format!(
                    "--table {table}: name the database too (DATABASE.TABLE), or put it in the \
                     URL (mysql://USER@HOST/DATABASE)"
                ))
                .into())
            }
        },
    };
    let origin = format!("{}/{schema}.{name}", parsed.address());
    let user = keylab_mariadb::read_user_table(&parsed, &schema, &name)
        .map_err(no_table_is_usage(table, &origin))?;
    let sql = user.create_sql.clone();
    Ok(LiveTable { origin, sql, dialect: SourceDialect::Mysql, table: name, user })
}

fn read_postgres(url: &UrlArg, table: &str) -> Result<LiveTable> {
    // KEYLAB_PASSWORD, else libpq's PGPASSWORD: both keep it out of `ps`.
    let env = std::env::var(keylab_server_common::url::PASSWORD_ENV)
        .ok()
        .or_else(|| std::env::var("PGPASSWORD").ok());
    let parsed = ServerUrl::parse_postgres_with_env_password(url.expose(), env.as_deref())
        .map_err(|e| UsageError(format!("--url {url}: {e}")))?;
    let Some(database) = parsed.database.clone() else {
        return Err(UsageError(format!(
            "--url {url}: name the database the table is in \
             (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)"
        ))
        .into());
    };
    let (schema, name) = match table.split_once('.') {
        Some((s, t)) if !s.is_empty() && !t.is_empty() && !t.contains('.') => {
            (s.to_string(), t.to_string())
        }
        None if !table.is_empty() => ("public".to_string(), table.to_string()),
        _ => {
            return Err(UsageError(format!(
                "--table {table}: valid: SCHEMA.TABLE or TABLE (in schema public) of database \
                 {database}"
            ))
            .into())
        }
    };
    let origin = format!("{}/{database}/{schema}.{name}", parsed.address());
    let (user, _catalog) = keylab_pg_server::read_user_table(&parsed, &schema, &name)
        .map_err(no_table_is_usage(table, &origin))?;
    let sql = user.create_sql.clone();
    Ok(LiveTable { origin, sql, dialect: SourceDialect::Postgres, table: name, user })
}
