//! Statements that rebuild or reshape a table: `OPTIMIZE TABLE` under a chosen
//! `innodb_fill_factor` (E5's sorted rebuild) and online DDL (`ALTER TABLE ... ADD/DROP
//! COLUMN, ALGORITHM=...`), with what the server says about how it did them.
//!
//! `innodb_fill_factor` is a global: it is changed only on a private instance (and put back
//! afterwards); on a user's server a rebuild runs only when the global already has the
//! requested value. This module does not measure the table; `measure` does.

use super::{sql_err, MariaDbEngine};
use crate::metrics;
use crate::private::{Flavour, ServerVersion};
use crate::sql::quote_ident;
use keylab_core::{DdlAction, DdlAlgorithm, DdlOutcome, DdlSpec};
use keylab_schema::{Dialect, Table};
use keylab_server_common::url::{valid_identifier, IDENTIFIER_RULE};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use std::time::Instant;

/// `ER_ALTER_OPERATION_NOT_SUPPORTED` and `..._REASON`: the server refuses the algorithm.
const ALGORITHM_REFUSED: [u16; 2] = [1845, 1846];

/// What this server version allows for instant ADD/DROP COLUMN, for
/// [`EngineInfo::settings`](keylab_core::EngineInfo) (`instant_ddl`).
pub(super) fn instant_ddl_rules(flavour: Flavour, version: &str) -> String {
    // An unreadable version gets the oldest rules.
    let v = ServerVersion::parse(version).unwrap_or(ServerVersion::new(0, 0, 0));
    let at_least = |major, minor, patch| v >= ServerVersion::new(major, minor, patch);
    match flavour {
        Flavour::Mariadb if at_least(10, 4, 0) => {
            "MariaDB 10.4+: ADD COLUMN at any position and DROP COLUMN can be INSTANT; \
             ALGORITHM=X lets the server use any algorithm at least as good as X, so INPLACE \
             may run instantly (see each statement's message); dropping an indexed column is \
             refused INSTANT (its index must go); there is no row-version count \
             (INNODB_TABLES.TOTAL_ROW_VERSIONS is MySQL's)"
        }
        Flavour::Mariadb if at_least(10, 3, 0) => {
            "MariaDB 10.3: only ADD COLUMN as the last column can be INSTANT; no instant DROP \
             COLUMN; no row-version count"
        }
        Flavour::Mariadb => "MariaDB before 10.3: no instant ADD/DROP COLUMN",
        Flavour::Mysql if at_least(8, 0, 29) => {
            "MySQL 8.0.29+: ADD COLUMN at any position and DROP COLUMN can be INSTANT; a table \
             takes at most 64 row versions (INNODB_TABLES.TOTAL_ROW_VERSIONS), then it must be \
             rebuilt (OPTIMIZE TABLE resets the count)"
        }
        Flavour::Mysql if at_least(8, 0, 12) => {
            "MySQL 8.0.12 to 8.0.28: only ADD COLUMN as the last column can be INSTANT; no \
             instant DROP COLUMN"
        }
        Flavour::Mysql => "MySQL before 8.0.12: no instant ADD/DROP COLUMN",
    }
    .to_string()
}

fn algorithm_sql(a: DdlAlgorithm) -> &'static str {
    match a {
        DdlAlgorithm::Instant => "INSTANT",
        DdlAlgorithm::Inplace => "INPLACE",
        DdlAlgorithm::Copy => "COPY",
    }
}

/// The `ALTER TABLE` statement of `spec` on `table`, whose primary key is `primary_key`.
pub fn ddl_sql(table: &str, spec: &DdlSpec, dialect: Dialect, primary_key: &[&str]) -> String {
    let column = quote_ident(&spec.column);
    // The step's type, nullable (TIMESTAMP's SQL already says NULL); INT where none given.
    let ty = spec.column_type.map_or("INT".to_string(), |t| t.sql(dialect));
    let null = if ty.ends_with(" NULL") { "" } else { " NULL" };
    let change = match spec.action {
        DdlAction::AddColumn => match &spec.after {
            Some(after) => format!("ADD COLUMN {column} {ty}{null} AFTER {}", quote_ident(after)),
            None => format!("ADD COLUMN {column} {ty}{null}"),
        },
        DdlAction::DropColumn => format!("DROP COLUMN {column}"),
        DdlAction::AddFulltextIndex => {
            format!("ADD FULLTEXT INDEX {} ({column})", quote_ident(&format!("ft_{}", spec.column)))
        }
        DdlAction::ChangePrimaryKey => {
            let mut key: Vec<String> = primary_key.iter().map(|c| quote_ident(c)).collect();
            key.push(column.clone());
            format!("DROP PRIMARY KEY, ADD PRIMARY KEY ({})", key.join(", "))
        }
    };
    let lock = spec.lock.map(|l| format!(", LOCK={}", l.sql())).unwrap_or_default();
    format!(
        "ALTER TABLE {} {change}, ALGORITHM={}{lock}",
        quote_ident(table),
        algorithm_sql(spec.algorithm)
    )
}

impl MariaDbEngine {
    /// Rebuilds `table` by a sorted index build with `innodb_fill_factor = fill_factor_pct`.
    pub(super) fn rebuild_table(
        &mut self,
        table: &Table,
        fill_factor_pct: u8,
    ) -> Result<(), ServerError> {
        let name = self.owned_name(table)?;
        if !(10..=100).contains(&fill_factor_pct) {
            return Err(ServerError::Refused(format!(
                "innodb_fill_factor {fill_factor_pct} is outside 10..=100"
            )));
        }
        let wanted = u64::from(fill_factor_pct);
        let current: u64 = self
            .conn
            .query_first("SELECT @@GLOBAL.innodb_fill_factor")
            .map_err(|e| sql_err("reading innodb_fill_factor failed", e))?
            .unwrap_or(100);
        let change = current != wanted;
        if change && self.server.is_none() {
            return Err(ServerError::Unsupported(format!(
                "cannot change innodb_fill_factor on a shared server: it is {current} there and \
                 the rebuild asks for {wanted} (run on a private instance, or have an \
                 administrator set it first)"
            )));
        }
        if change {
            self.set_fill_factor(wanted)?;
        }
        let outcome = self.optimize(&name);
        if change {
            // Put the instance back as it was started, whatever the rebuild did.
            let restored = self.set_fill_factor(current);
            outcome?;
            return restored;
        }
        outcome
    }

    fn set_fill_factor(&mut self, pct: u64) -> Result<(), ServerError> {
        self.conn
            .query_drop(format!("SET GLOBAL innodb_fill_factor = {pct}"))
            .map_err(|e| sql_err("SET GLOBAL innodb_fill_factor failed", e))
    }

    /// `OPTIMIZE TABLE`, which InnoDB runs as a table recreate (a sorted build of every
    /// index) and analyze. With MariaDB's `innodb_defragment` on, OPTIMIZE defragments in
    /// place instead, so the same rebuild is asked for directly.
    fn optimize(&mut self, name: &str) -> Result<(), ServerError> {
        let defragment: Option<u64> =
            self.conn.query_first("SELECT @@GLOBAL.innodb_defragment").ok().flatten();
        let statements = if defragment == Some(1) {
            self.note_once(
                "innodb_defragment is ON: rebuilds ran ALTER TABLE ... FORCE, \
                 ALGORITHM=INPLACE and ANALYZE TABLE instead of OPTIMIZE TABLE (which would \
                 defragment, not rebuild)"
                    .into(),
            );
            vec![
                format!("ALTER TABLE {} FORCE, ALGORITHM=INPLACE", quote_ident(name)),
                format!("ANALYZE TABLE {}", quote_ident(name)),
            ]
        } else {
            vec![format!("OPTIMIZE TABLE {}", quote_ident(name))]
        };
        for stmt in statements {
            // Admin statements report failures as result rows, not as errors.
            let rows: Vec<mysql::Row> =
                self.conn.query(&stmt).map_err(|e| sql_err(&format!("{stmt} failed"), e))?;
            for row in rows {
                let kind: Option<String> = row.get_opt(2).and_then(Result::ok);
                let text: Option<String> = row.get_opt(3).and_then(Result::ok);
                if kind.as_deref().is_some_and(|k| k.eq_ignore_ascii_case("error")) {
                    return Err(ServerError::Sql(format!(
                        "{stmt} failed: {}",
                        text.unwrap_or_default()
                    )));
                }
            }
        }
        Ok(())
    }

    /// Runs `spec` on `table` and times it; a refused algorithm is `supported: false` with
    /// the server's words. On success the message says whether the table was rebuilt (its
    /// tablespace changed) and what the server reports about instant row versions.
    pub(super) fn run_ddl(
        &mut self,
        table: &Table,
        spec: &DdlSpec,
    ) -> Result<DdlOutcome, ServerError> {
        let started = self.ddl_start(table, spec)?;
        let t0 = Instant::now();
        let result = self.conn.query_drop(&started.stmt);
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        self.ddl_finish(spec, started, wall_ms, result)
    }

    /// Checks `spec`, forgets the table's checksum and reads what [`Self::ddl_finish`]
    /// compares with.
    pub(super) fn ddl_start(
        &mut self,
        table: &Table,
        spec: &DdlSpec,
    ) -> Result<DdlStarted, ServerError> {
        let name = self.owned_name(table)?;
        if !valid_identifier(&spec.column) {
            return Err(ServerError::Refused(format!(
                "column name `{}`: {IDENTIFIER_RULE}",
                spec.column
            )));
        }
        let primary_key: Vec<&str> =
            table.primary_key.iter().map(|&i| table.columns[i].name.as_str()).collect();
        let stmt = ddl_sql(&name, spec, self.dialect(), &primary_key);
        // A dropped column may be the one the load checksum is taken over.
        self.contents.remove(&name);
        let space_before = metrics::space_id(&mut self.conn, self.flavour, &self.database, &name);
        let instant_before = metrics::instant_alter_count(&mut self.conn);
        Ok(DdlStarted { name, stmt, space_before, instant_before })
    }

    /// The outcome of the statement `started` that took `wall_ms` and ended in `result`.
    pub(super) fn ddl_finish(
        &mut self,
        spec: &DdlSpec,
        started: DdlStarted,
        wall_ms: f64,
        result: Result<(), mysql::Error>,
    ) -> Result<DdlOutcome, ServerError> {
        let DdlStarted { name, stmt, space_before, instant_before } = started;
        match result {
            Ok(()) => {}
            Err(mysql::Error::MySqlError(e)) if ALGORITHM_REFUSED.contains(&e.code) => {
                return Ok(DdlOutcome::refused(
                    Some(wall_ms),
                    e.code,
                    format!("error {}: {}", e.code, e.message),
                ));
            }
            Err(e) => return Err(sql_err(&format!("{stmt} failed"), e)),
        }
        let mut facts = Vec::new();
        let mut algorithm_used = algorithm_token(spec.algorithm);
        let space_after = metrics::space_id(&mut self.conn, self.flavour, &self.database, &name);
        if let (Some(a), Some(b)) = (space_before, space_after) {
            facts.push(if a == b {
                "the table was not rebuilt (same tablespace)".to_string()
            } else {
                "the table was rebuilt (new tablespace)".to_string()
            });
        }
        match self.flavour {
            Flavour::Mariadb => {
                let instant = instant_before
                    .zip(metrics::instant_alter_count(&mut self.conn))
                    .map(|(a, b)| b.saturating_sub(a));
                if let Some(n) = instant {
                    facts.push(format!("Innodb_instant_alter_column +{n}"));
                    if n > 0 {
                        algorithm_used = "instant";
                    }
                    if n > 0 && spec.algorithm != DdlAlgorithm::Instant {
                        facts.push(format!(
                            "MariaDB ran ALGORITHM={} instantly (it uses the best algorithm at \
                             least as good as the one asked for)",
                            algorithm_sql(spec.algorithm)
                        ));
                    }
                }
                facts.push(
                    "instant row versions: not available (MariaDB has no TOTAL_ROW_VERSIONS)"
                        .into(),
                );
            }
            Flavour::Mysql => {
                match metrics::total_row_versions(&mut self.conn, &self.database, &name) {
                    Some(n) => facts.push(format!("TOTAL_ROW_VERSIONS = {n} (at most 64)")),
                    None => facts.push(
                        "instant row versions: not available (no \
                         INNODB_TABLES.TOTAL_ROW_VERSIONS before MySQL 8.0.29)"
                            .into(),
                    ),
                }
            }
        }
        Ok(DdlOutcome {
            wall_ms: Some(wall_ms),
            supported: true,
            error_code: None,
            algorithm_used: Some(algorithm_used.into()),
            // The server does not say which lock it held; its writers' stall shows it.
            lock_used: None,
            message: Some(facts.join("; ")),
            writers: None,
        })
    }
}

/// What [`MariaDbEngine::ddl_start`] read before a statement.
pub(super) struct DdlStarted {
    /// The table's name.
    pub name: String,
    /// The `ALTER TABLE` statement.
    pub stmt: String,
    space_before: Option<u64>,
    instant_before: Option<u64>,
}

fn algorithm_token(a: DdlAlgorithm) -> &'static str {
    match a {
        DdlAlgorithm::Instant => "instant",
        DdlAlgorithm::Inplace => "inplace",
        DdlAlgorithm::Copy => "copy",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ddl_sql_m(table: &str, spec: &DdlSpec) -> String {
        ddl_sql(table, spec, Dialect::Mariadb, &["id"])
    }

    #[test]
    fn ddl_statements() {
        let spec = DdlSpec {
            action: DdlAction::AddColumn,
            column: "c".into(),
            algorithm: DdlAlgorithm::Instant,
            after: None,
            lock: None,
            column_type: None,
        };
        // The step's type, nullable: E5's DATETIME, and TIMESTAMP without a second NULL.
        let typed = |t| DdlSpec { column_type: Some(t), ..spec.clone() };
        assert_eq!(
            ddl_sql_m("t", &typed(keylab_schema::ColumnType::DateTime)),
            "ALTER TABLE `t` ADD COLUMN `c` DATETIME NULL, ALGORITHM=INSTANT"
        );
        assert_eq!(
            ddl_sql_m("t", &typed(keylab_schema::ColumnType::Timestamp)),
            "ALTER TABLE `t` ADD COLUMN `c` TIMESTAMP NULL, ALGORITHM=INSTANT"
        );
        let rebuild = |action| DdlSpec { action, algorithm: DdlAlgorithm::Inplace, ..spec.clone() };
        assert_eq!(
            ddl_sql_m("t", &rebuild(DdlAction::AddFulltextIndex)),
            "ALTER TABLE `t` ADD FULLTEXT INDEX `ft_c` (`c`), ALGORITHM=INPLACE"
        );
        assert_eq!(
            ddl_sql_m("t", &rebuild(DdlAction::ChangePrimaryKey)),
            "ALTER TABLE `t` DROP PRIMARY KEY, ADD PRIMARY KEY (`id`, `c`), ALGORITHM=INPLACE"
        );
        assert_eq!(
            ddl_sql_m("t", &spec),
            "ALTER TABLE `t` ADD COLUMN `c` INT NULL, ALGORITHM=INSTANT"
        );
        let after = DdlSpec { after: Some("id".into()), ..spec.clone() };
        assert_eq!(
            ddl_sql_m("t", &after),
            "ALTER TABLE `t` ADD COLUMN `c` INT NULL AFTER `id`, ALGORITHM=INSTANT"
        );
        let spec = DdlSpec { action: DdlAction::DropColumn, algorithm: DdlAlgorithm::Copy, ..spec };
        assert_eq!(ddl_sql_m("t", &spec), "ALTER TABLE `t` DROP COLUMN `c`, ALGORITHM=COPY");
        let shared = DdlSpec { lock: Some(keylab_core::DdlLock::Shared), ..spec };
        assert_eq!(
            ddl_sql_m("t", &shared),
            "ALTER TABLE `t` DROP COLUMN `c`, ALGORITHM=COPY, LOCK=SHARED"
        );
    }

    #[test]
    fn rules_follow_the_version() {
        let v = ServerVersion::parse;
        assert_eq!(
            v("10.11.19-MariaDB-0+deb12u1 (Debian 12)"),
            Some(ServerVersion::new(10, 11, 19))
        );
        assert_eq!(v("8.0.36 (MySQL Community Server - GPL)"), Some(ServerVersion::new(8, 0, 36)));
        assert!(instant_ddl_rules(Flavour::Mariadb, "10.11.6-MariaDB").contains("10.4+"));
        assert!(instant_ddl_rules(Flavour::Mariadb, "10.3.39-MariaDB").contains("last column"));
        assert!(instant_ddl_rules(Flavour::Mysql, "8.0.36").contains("64 row versions"));
        assert!(instant_ddl_rules(Flavour::Mysql, "8.0.20").contains("last column"));
        assert!(instant_ddl_rules(Flavour::Mysql, "5.7.44").contains("no instant"));
    }
}
