//! Which server the simulator models (`--model`, `[engine] model`), and which model matches a
//! given server (for `keylab validate`). Only the names and the matching live here; the rules
//! of each model are the simulator's.

use crate::engine::EngineKind;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A server whose storage rules the simulator follows; every list of choices comes from
/// [`SimModel::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum SimModel {
    /// InnoDB of MariaDB 10.11 (the default).
    #[default]
    #[serde(rename = "mariadb-10.11")]
    Mariadb1011,
    /// InnoDB of MySQL 8.0.
    #[serde(rename = "mysql-8.0")]
    Mysql80,
    /// PostgreSQL 15: heap and nbtree indexes (`keylab-nbtree-model`).
    #[serde(rename = "postgres-15")]
    Postgres15,
}

impl SimModel {
    /// Every model, in CLI order.
    pub const ALL: [SimModel; 3] = [SimModel::Mariadb1011, SimModel::Mysql80, SimModel::Postgres15];

    /// The CLI and JSON token (`engine.model`).
    pub fn token(self) -> &'static str {
        match self {
            SimModel::Mariadb1011 => "mariadb-10.11",
            SimModel::Mysql80 => "mysql-8.0",
            SimModel::Postgres15 => "postgres-15",
        }
    }

    /// The modelled server, for people: `MariaDB 10.11`.
    pub fn server(self) -> &'static str {
        match self {
            SimModel::Mariadb1011 => "MariaDB 10.11",
            SimModel::Mysql80 => "MySQL 8.0",
            SimModel::Postgres15 => "PostgreSQL 15",
        }
    }

    /// The valid tokens, comma-separated (for error messages).
    pub fn choices() -> String {
        SimModel::ALL.map(SimModel::token).join(", ")
    }

    /// The model to compare a server with, from its kind and version string (`10.11.6-MariaDB`,
    /// `8.0.36`, `15.4`): the matching model, and a note when none matches exactly and the closest
    /// one is used. `None` when no model is of that server's kind.
    pub fn for_server(kind: EngineKind, version: &str) -> Option<(SimModel, Option<String>)> {
        let (major, minor) = major_minor(version);
        let (model, exact) = match kind {
            EngineKind::Mariadb => (SimModel::Mariadb1011, (major, minor) == (Some(10), Some(11))),
            EngineKind::Mysql => (SimModel::Mysql80, (major, minor) == (Some(8), Some(0))),
            EngineKind::Postgres => (SimModel::Postgres15, major == Some(15)),
            EngineKind::Sim => return None,
        };
        let note = (!exact).then(|| {
            let mut note = format!(
                "no simulator model of {kind} {version}; the closest, {}, is used",
                model.token()
            );
            if model == SimModel::Mysql80 && (major, minor) >= (Some(8), Some(4)) {
                // The default the model uses that MySQL changed after 8.0 (8.4.0 release notes).
                note.push_str(
                    " (MySQL 8.4 and later default innodb_change_buffering to none; the \
                     model's default is 8.0's all)",
                );
            }
            note
        });
        Some((model, note))
    }
}

/// Major and minor version numbers at the start of a server's version string.
fn major_minor(version: &str) -> (Option<u32>, Option<u32>) {
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let mut next = || parts.next().and_then(|p| p.parse().ok());
    (next(), next())
}

impl fmt::Display for SimModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for SimModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SimModel::ALL
            .into_iter()
            .find(|m| m.token() == s)
            .ok_or_else(|| format!("unknown simulator model `{s}`; valid: {}", SimModel::choices()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_through_text_and_json() {
        for m in SimModel::ALL {
            assert_eq!(m.token().parse::<SimModel>(), Ok(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.token()));
            assert_eq!(serde_json::from_str::<SimModel>(&json).unwrap(), m);
        }
        let err = "mysql-8.4".parse::<SimModel>().unwrap_err();
        assert!(err.contains("mariadb-10.11, mysql-8.0, postgres-15"), "{err}");
    }

    #[test]
    fn a_server_gets_its_model_or_the_closest_with_a_note() {
        let m = |kind, v| SimModel::for_server(kind, v);
        assert_eq!(
            m(EngineKind::Mariadb, "10.11.6-MariaDB-0+deb12u1"),
            Some((SimModel::Mariadb1011, None))
        );
        assert_eq!(m(EngineKind::Mysql, "8.0.36"), Some((SimModel::Mysql80, None)));
        let (model, note) = m(EngineKind::Mariadb, "11.4.2-MariaDB").unwrap();
        assert_eq!(model, SimModel::Mariadb1011);
        assert!(note.unwrap().contains("closest, mariadb-10.11"));
        let (model, note) = m(EngineKind::Mysql, "9.2.0").unwrap();
        assert_eq!(model, SimModel::Mysql80);
        assert!(note.unwrap().contains("innodb_change_buffering to none"));
        assert_eq!(m(EngineKind::Postgres, "15.4"), Some((SimModel::Postgres15, None)));
        let (model, note) = m(EngineKind::Postgres, "16.2").unwrap();
        assert_eq!(model, SimModel::Postgres15);
        assert!(note.unwrap().contains("closest, postgres-15"));
        assert_eq!(m(EngineKind::Sim, "x"), None);
    }
}
