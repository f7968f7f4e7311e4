//! `--url` parsing: `mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]` (also `mariadb://`), and
//! `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (also `postgresql://`) for the
//! PostgreSQL engine ([`ServerUrl::parse_postgres`]).
//!
//! The password is kept only to connect: `Display` and `Debug` show it as `***`, and no
//! parse error repeats it. It may come from `KEYLAB_PASSWORD` instead of the URL, which
//! keeps it out of `ps`. This module does not connect (each engine builds its client's
//! connection options from a [`ServerUrl`]).

use crate::error::ServerError;
use std::fmt;

/// The default database keylab works in on a user's server.
pub const DEFAULT_DATABASE: &str = "keylab";

/// The environment variable a password is taken from when the `--url` names a user but no
/// password: a password in the URL is visible to every user in `ps`.
pub const PASSWORD_ENV: &str = "KEYLAB_PASSWORD";

/// A parsed server address. `Display` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerUrl {
    /// User name.
    pub user: String,
    /// Password, if any (never printed).
    pub password: Option<String>,
    /// Host name or address (IPv6 without brackets).
    pub host: String,
    /// TCP port (3306 when the URL names none).
    pub port: u16,
    /// The database named in the URL, if any.
    pub database: Option<String>,
}

/// Decodes `%XX` escapes (user names and passwords may need `@`, `:` or `/`). Hand-written:
/// eight lines do not justify a dependency.
fn percent_decode(s: &str, what: &str) -> Result<String, ServerError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let v = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| {
                ServerError::BadUrl(format!("bad %-escape in the {what} of the --url"))
            })?;
            out.push(v);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| ServerError::BadUrl(format!("the {what} of the --url is not UTF-8")))
}

/// What [`valid_identifier`] accepts, for error messages.
pub const IDENTIFIER_RULE: &str = "use letters, digits or `_` (at most 64)";

/// True for names keylab accepts as a database, table or column: letters, digits, `_`, at most
/// 64. (Other characters, `$` too, are encoded in the server's file names, e.g. `@0024`, which
/// the tablespace reader would then not find.)
pub fn valid_identifier(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

const SHAPE: &str = "expected mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (or mariadb://)";
const PG_SHAPE: &str =
    "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or postgresql://)";

impl ServerUrl {
    /// Parses a `--url`. Errors describe the problem without repeating the password.
    pub fn parse(url: &str) -> Result<ServerUrl, ServerError> {
        let rest = url
            .strip_prefix("mysql://")
            .or_else(|| url.strip_prefix("mariadb://"))
            .ok_or_else(|| {
                ServerError::BadUrl(format!(
                    "--url must start with mysql:// or mariadb://; {SHAPE}"
                ))
            })?;
        parse_after_scheme(rest, SHAPE, 3306)
    }

    /// Parses a PostgreSQL `--url` (`postgres://` or `postgresql://`, port 5432 by default);
    /// the database is the one keylab connects to (its schema is made inside it).
    pub fn parse_postgres(url: &str) -> Result<ServerUrl, ServerError> {
        let rest = url
            .strip_prefix("postgres://")
            .or_else(|| url.strip_prefix("postgresql://"))
            .ok_or_else(|| {
                ServerError::BadUrl(format!(
                    "--url must start with postgres:// or postgresql:// for --engine postgres; \
                     {PG_SHAPE}"
                ))
            })?;
        parse_after_scheme(rest, PG_SHAPE, 5432)
    }

    /// Parses a `--url`; when it names no password, `env_password` (the value of
    /// [`PASSWORD_ENV`], passed in so callers decide where it comes from) is used if it is
    /// set and not empty. A password in the URL wins.
    pub fn parse_with_env_password(
        url: &str,
        env_password: Option<&str>,
    ) -> Result<ServerUrl, ServerError> {
        ServerUrl::parse(url).map(|u| u.with_env_password(env_password))
    }

    /// [`ServerUrl::parse_postgres`] with the password from `env_password` when the URL names
    /// none (the caller passes `KEYLAB_PASSWORD`, else `PGPASSWORD`).
    pub fn parse_postgres_with_env_password(
        url: &str,
        env_password: Option<&str>,
    ) -> Result<ServerUrl, ServerError> {
        ServerUrl::parse_postgres(url).map(|u| u.with_env_password(env_password))
    }

    fn with_env_password(mut self, env_password: Option<&str>) -> ServerUrl {
        if self.password.is_none() {
            self.password = env_password.filter(|p| !p.is_empty()).map(str::to_string);
        }
        self
    }

    /// The database keylab works in: the URL's, or `keylab`.
    pub fn database_or_default(&self) -> &str {
        self.database.as_deref().unwrap_or(DEFAULT_DATABASE)
    }

    /// `host:port` (for messages).
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Everything after `scheme://`: `shape` for messages, `default_port` when none is named.
fn parse_after_scheme(
    rest: &str,
    shape: &str,
    default_port: u16,
) -> Result<ServerUrl, ServerError> {
    // The last `@` ends the user info, so an unescaped `@` in a password still parses.
    let (userinfo, hostpart) = rest
        .rsplit_once('@')
        .ok_or_else(|| ServerError::BadUrl(format!("--url names no user; {shape}")))?;
    let (user, password) = match userinfo.split_once(':') {
        Some((u, p)) => (u, Some(percent_decode(p, "password")?)),
        None => (userinfo, None),
    };
    let user = percent_decode(user, "user")?;
    if user.is_empty() {
        return Err(ServerError::BadUrl(format!("--url names no user; {shape}")));
    }
    if hostpart.contains('?') || hostpart.contains('#') {
        return Err(ServerError::BadUrl(
            "--url options (?...) are not supported; give only USER, PASSWORD, HOST, PORT \
             and DATABASE"
                .into(),
        ));
    }
    let (addr, database) = match hostpart.split_once('/') {
        Some((a, "")) => (a, None),
        Some((a, d)) => (a, Some(d.to_string())),
        None => (hostpart, None),
    };
    let (host, port) = split_host_port(addr, shape, default_port)?;
    if let Some(db) = &database {
        if !valid_identifier(db) {
            return Err(ServerError::BadUrl(format!(
                "database `{db}` in --url: {IDENTIFIER_RULE}"
            )));
        }
    }
    Ok(ServerUrl { user, password, host, port, database })
}

fn split_host_port(
    addr: &str,
    shape: &str,
    default_port: u16,
) -> Result<(String, u16), ServerError> {
    let bad_port =
        |p: &str| ServerError::BadUrl(format!("port `{p}` in --url is not a number 1-65535"));
    let (host, port) = if let Some(v6) = addr.strip_prefix('[') {
        let (h, after) = v6
            .split_once(']')
            .ok_or_else(|| ServerError::BadUrl("unclosed `[` in the --url host".into()))?;
        match after.strip_prefix(':') {
            Some(p) => (h.to_string(), Some(p)),
            None if after.is_empty() => (h.to_string(), None),
            None => return Err(ServerError::BadUrl(format!("bad --url host; {shape}"))),
        }
    } else {
        match addr.split_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (addr.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(ServerError::BadUrl(format!("--url names no host; {shape}")));
    }
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|&n| n > 0).ok_or_else(|| bad_port(p))?,
        None => default_port,
    };
    Ok((host, port))
}

impl fmt::Display for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mysql://{}", self.user)?;
        if self.password.is_some() {
            f.write_str(":***")?;
        }
        write!(f, "@{}", self.address())?;
        if let Some(db) = &self.database {
            write!(f, "/{db}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServerUrl({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_url() {
        let u = ServerUrl::parse("mysql://root:s3cr%40t@db.example:3307/bench").unwrap();
        assert_eq!(u.user, "root");
        assert_eq!(u.password.as_deref(), Some("s3cr@t"));
        assert_eq!(u.host, "db.example");
        assert_eq!(u.port, 3307);
        assert_eq!(u.database.as_deref(), Some("bench"));
        assert_eq!(u.to_string(), "mysql://root:***@db.example:3307/bench");
        assert!(!format!("{u:?}").contains("s3cr"));
    }

    #[test]
    fn defaults_and_variants() {
        let u = ServerUrl::parse("mariadb://app@10.0.0.1").unwrap();
        assert_eq!(u.port, 3306);
        assert_eq!(u.password, None);
        assert_eq!(u.database_or_default(), "keylab");
        assert_eq!(u.to_string(), "mysql://app@10.0.0.1:3306");
        let v6 = ServerUrl::parse("mysql://a:b@[::1]:3310/").unwrap();
        assert_eq!(v6.host, "::1");
        assert_eq!(v6.to_string(), "mysql://a:***@[::1]:3310");
        // An unescaped `@` in the password: the last `@` ends the user info.
        let at = ServerUrl::parse("mysql://u:p@ss@h").unwrap();
        assert_eq!(at.password.as_deref(), Some("p@ss"));
    }

    #[test]
    fn password_from_the_environment_only_when_the_url_has_none() {
        let p = ServerUrl::parse_with_env_password;
        let u = p("mysql://app@db:3307/bench", Some("from-env")).unwrap();
        assert_eq!(u.password.as_deref(), Some("from-env"));
        assert_eq!(u.to_string(), "mysql://app:***@db:3307/bench");
        assert!(!format!("{u:?}").contains("from-env"));
        assert_eq!(p("mysql://app@db", None).unwrap().password, None);
        assert_eq!(p("mysql://app@db", Some("")).unwrap().password, None);
        let in_url = p("mysql://app:in-url@db", Some("from-env")).unwrap();
        assert_eq!(in_url.password.as_deref(), Some("in-url"));
        // An explicitly empty password in the URL is the URL's choice.
        assert_eq!(p("mysql://app:@db", Some("from-env")).unwrap().password.as_deref(), Some(""));
        let e = p("mysql://app@db:0", Some("from-env")).unwrap_err().to_string();
        assert!(!e.contains("from-env"), "{e}");
    }

    proptest::proptest! {
        /// Any text: no panic, and no error message repeats the password.
        #[test]
        fn postgres_url_errors_never_show_the_password(
            user in "[a-z@:/%]{0,6}", host in "[a-z0-9:\\[\\]/?.]{0,12}", tail in ".{0,8}"
        ) {
            let url = format!("postgres://{user}:Pw-9731xq@{host}{tail}");
            if let Err(e) = ServerUrl::parse_postgres(&url) {
                proptest::prop_assert!(!e.to_string().contains("Pw-9731xq"), "{}", e);
            }
        }
    }

    #[test]
    fn postgres_urls_parse_with_their_own_port_and_shape() {
        let u = ServerUrl::parse_postgres("postgres://bob:s%40cret@db.example:6543/app").unwrap();
        assert_eq!((u.user.as_str(), u.port), ("bob", 6543));
        assert_eq!(u.password.as_deref(), Some("s@cret"));
        assert_eq!(u.database.as_deref(), Some("app"));
        let d = ServerUrl::parse_postgres("postgresql://bob@localhost/app").unwrap();
        assert_eq!(d.port, 5432);
        let e = ServerUrl::parse_postgres("mysql://bob:hunter2@h/app").unwrap_err().to_string();
        assert!(e.contains("postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"), "{e}");
        assert!(!e.contains("hunter2"));
        let env = ServerUrl::parse_postgres_with_env_password("postgres://bob@h/app", Some("pw"));
        assert_eq!(env.unwrap().password.as_deref(), Some("pw"));
        assert!(ServerUrl::parse("postgres://bob@h/app").is_err(), "not a MariaDB url");
    }

    #[test]
    fn errors_never_show_the_password() {
        for bad in [
            "postgres://u:hunter2@h",
            "mysql://u:hunter2@h:99999",
            "mysql://u:hunter2@h:abc",
            "mysql://u:hunter2@/db",
            "mysql://u:hunter2@h/bad-name",
            "mysql://u:hunter2@h?ssl=1",
            "mysql://:hunter2@h",
            "mysql://u:hunter2%zz@h",
            "mysql://hunter2",
        ] {
            let e = ServerUrl::parse(bad).unwrap_err().to_string();
            assert!(!e.contains("hunter2"), "{bad}: {e}");
        }
    }
}
