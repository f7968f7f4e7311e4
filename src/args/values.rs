//! Values of single flags: the parsers clap calls for them (bad values exit 2 naming the
//! flag and what is valid), and `--url`'s text, kept with its password masked.

use keylab_core::EngineKind;

/// The text of `--url`, kept as given (it is parsed when the engine is built, so a bad one
/// is an engine error with the flag named). `Debug` and `Display` mask the password, so
/// `Debug` of the parsed arguments never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct UrlArg(String);

impl UrlArg {
    /// A URL from a scenario file (`[engine] backends`).
    pub fn new(url: String) -> UrlArg {
        UrlArg(url)
    }

    /// The URL as given, password included: only for connecting.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The URL text with any password replaced by `***`. The password is what lies between
    /// the first `:` of the user info and the last `@`; without an `@` nothing says where a
    /// password would end, so nothing after the scheme is shown.
    fn masked(&self) -> String {
        let (scheme, rest) = match self.0.split_once("://") {
            Some((scheme, rest)) => (format!("{scheme}://"), rest),
            None => (String::new(), self.0.as_str()),
        };
        let shown = match rest.rsplit_once('@') {
            Some((userinfo, host)) => match userinfo.split_once(':') {
                Some((user, _)) => format!("{user}:***@{host}"),
                None => rest.to_string(),
            },
            None => "***".to_string(),
        };
        format!("{scheme}{shown}")
    }
}

impl std::str::FromStr for UrlArg {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(UrlArg(s.to_string()))
    }
}

impl std::fmt::Display for UrlArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.masked())
    }
}

impl std::fmt::Debug for UrlArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UrlArg({})", self.masked())
    }
}

/// The servers' own databases (MariaDB/MySQL) and schemas (PostgreSQL, where every `pg_`
/// name is reserved): keylab creates and drops tables in `--database`, never in these.
const SYSTEM_DATABASES: [&str; 4] = ["mysql", "information_schema", "performance_schema", "sys"];

/// `--database`: a name keylab accepts, checked before any server starts; a server's system
/// database or schema is refused, named.
pub(super) fn parse_database(s: &str) -> Result<String, String> {
    if !keylab_server_common::url::valid_identifier(s) {
        return Err(keylab_server_common::url::IDENTIFIER_RULE.into());
    }
    let lower = s.to_ascii_lowercase();
    let system = SYSTEM_DATABASES.contains(&lower.as_str()) || lower.starts_with("pg_");
    if system {
        return Err(format!(
            "`{s}` is a server's own database or schema (MariaDB/MySQL: mysql, \
             information_schema, performance_schema, sys; PostgreSQL: pg_catalog, pg_toast and \
             every pg_ name, information_schema), where keylab must not create or drop tables; \
             valid: a database of your own, such as keylab"
        ));
    }
    Ok(s.to_string())
}

/// The largest `--scale`: E1's million rows become ten billion, past any run that finishes,
/// while every scaled count still fits exactly in a float.
pub const MAX_SCALE: f64 = 10_000.0;

/// A size in bytes: an integer, or one with a binary suffix `K`, `M`, `G`, `T` (also
/// `KiB`, `MiB`..., and `KB`, `MB`... read as powers of 1024, as the servers read them).
pub fn parse_byte_size(s: &str) -> Result<u64, String> {
    let bad = || format!("`{s}` is not a size; write bytes (67108864) or 64M, 1G, 16MiB, 512K");
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    n.checked_mul(1 << shift).filter(|b| *b > 0).ok_or_else(bad)
}

pub(super) fn parse_scale(s: &str) -> Result<f64, String> {
    let scale: f64 = s.parse().map_err(|e| format!("`{s}` is not a number: {e}"))?;
    if scale.is_finite() && scale > 0.0 && scale <= MAX_SCALE {
        Ok(scale)
    } else {
        Err(format!("`{s}` is outside the accepted range: more than 0, at most {MAX_SCALE}"))
    }
}

/// A parser that lists `tokens` in `--help` and in errors, then parses the token into `T`.
pub(crate) fn choices<T>(tokens: &[&'static str]) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(tokens.to_vec())
        .try_map(|s: String| s.parse::<T>().map_err(|e| e.to_string()))
}

/// `--jobs`: a whole number of at least 1.
pub(super) fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "`{s}` is not a number of jobs; valid: a whole number from 1 (leave --jobs out for \
             one job per core)"
        )),
    }
}

pub(super) fn parse_server_engine(s: &str) -> Result<EngineKind, String> {
    match s.parse::<EngineKind>()? {
        k @ (EngineKind::Mariadb | EngineKind::Mysql | EngineKind::Postgres) => Ok(k),
        _ => Err(format!("`{s}` cannot be validated against; valid: mariadb, mysql, postgres")),
    }
}
