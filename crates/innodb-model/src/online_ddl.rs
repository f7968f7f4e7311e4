//! What an `ALTER TABLE ... ADD/DROP COLUMN, ALGORITHM=..., LOCK=...` is allowed to do on a
//! given server line and version: accepted or refused (with the server's error number), the
//! algorithm and lock it runs with, whether it rebuilds the table and whether it holds
//! concurrent writers back for its whole run.
//!
//! These are the servers' rules, read in their source; the model predicts no time (how long a
//! statement takes or how long writers wait is a server measurement). It does not change any
//! page: a caller that models the table leaves it as it was. Index and clustered-key changes
//! (ADD FULLTEXT INDEX, a primary-key change) and what a FULLTEXT index does to later
//! statements are in `online_ddl/table_changes.rs`.

mod table_changes;

pub use self::table_changes::{decide_on_table, Change, TableTraits, ER_INNODB_NO_FT_TEMP_TABLE};

/// The server whose rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerLine {
    /// MariaDB.
    Mariadb,
    /// MySQL.
    Mysql,
}

/// The change a statement makes (a nullable column, keylab's only DDL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnChange {
    /// `ADD COLUMN`; `last` when it is appended after every column.
    Add {
        /// Appended last (no `AFTER col`).
        last: bool,
    },
    /// `DROP COLUMN`; `indexed` when the column is part of an index.
    Drop {
        /// Part of an index (which the statement must change too).
        indexed: bool,
    },
}

/// `ALGORITHM=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// `INSTANT`: only the data dictionary changes.
    Instant,
    /// `INPLACE`: the table may be rebuilt in place, logging concurrent changes.
    Inplace,
    /// `COPY`: rows are copied into a new table.
    Copy,
}

impl Algorithm {
    /// The lower-case token reports use.
    pub fn token(self) -> &'static str {
        match self {
            Algorithm::Instant => "instant",
            Algorithm::Inplace => "inplace",
            Algorithm::Copy => "copy",
        }
    }
}

/// `LOCK=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// `LOCK=NONE`.
    None,
    /// `LOCK=SHARED`: reads go on, writes wait.
    Shared,
    /// `LOCK=EXCLUSIVE`.
    Exclusive,
}

impl Lock {
    /// The lower-case token reports use.
    pub fn token(self) -> &'static str {
        match self {
            Lock::None => "none",
            Lock::Shared => "shared",
            Lock::Exclusive => "exclusive",
        }
    }
}

/// `ER_ALTER_OPERATION_NOT_SUPPORTED`: "%s is not supported for this operation. Try %s."
pub const ER_ALTER_OPERATION_NOT_SUPPORTED: u16 = 1845;
/// `ER_ALTER_OPERATION_NOT_SUPPORTED_REASON`: "%s is not supported. Reason: %s. Try %s."
pub const ER_ALTER_OPERATION_NOT_SUPPORTED_REASON: u16 = 1846;

/// What the server does with a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// It runs.
    Accepted {
        /// The algorithm it runs with (MariaDB may pick a better one than asked for).
        algorithm: Algorithm,
        /// The lock it holds against other statements while it works.
        lock: Lock,
        /// It writes a new copy of the table (its pages are built anew).
        rebuilds: bool,
        /// Concurrent writers wait for its whole run (`LOCK=SHARED` or stronger on a
        /// statement that does work; an instant change holds its lock only for a moment).
        blocks_writers: bool,
    },
    /// It is refused before changing anything.
    Refused {
        /// The server's error number.
        code: u16,
        /// Why, as the server's message says it.
        reason: String,
    },
}

/// Whether `change` can be INSTANT on `line` at `version` (major, minor, patch).
pub fn instant_possible(line: ServerLine, version: (u32, u32, u32), change: ColumnChange) -> bool {
    let at_least = |v: (u32, u32, u32)| version >= v;
    // MariaDB: instant_alter_column_possible() (handler0alter.cc): ADD last from 10.3,
    // ADD anywhere and DROP from 10.4 (a metadata record keeps the column order). MySQL:
    // innobase_support_instant() (handler0alter.cc): ADD last from 8.0.12, any position and
    // DROP from 8.0.29 (row versions). Neither drops an indexed column instantly: the index
    // changes too (ha_innobase::check_if_supported_inplace_alter sees an index change).
    let (any_position, last_only) = match line {
        ServerLine::Mariadb => ((10, 4, 0), (10, 3, 0)),
        ServerLine::Mysql => ((8, 0, 29), (8, 0, 12)),
    };
    match change {
        ColumnChange::Add { last } => at_least(any_position) || (last && at_least(last_only)),
        ColumnChange::Drop { indexed } => !indexed && at_least(any_position),
    }
}

/// `ER_INNODB_MAX_ROW_VERSION`: "Maximum row versions reached for table %s. No more columns
/// can be added or dropped instantly. Please use COPY/INPLACE."
pub const ER_INNODB_MAX_ROW_VERSION: u16 = 4092;

/// Row versions a MySQL 8.0 table may reach by instant ADD/DROP COLUMN before it must be
/// rebuilt (`MAX_ROW_VERSION`, dict0mem.h; MySQL 9.1 raised it to 255).
pub const MYSQL_80_MAX_ROW_VERSIONS: u32 = 64;

/// [`decide`] on a table that has had `row_versions` instant ADD/DROP COLUMNs since it was
/// created or last rebuilt. MySQL 8.0.29+ gives each such change a new row version and
/// refuses an explicit INSTANT once the next one would pass the maximum
/// (ha_innobase::check_if_supported_inplace_alter checks is_valid_row_version of
/// current_row_version + 1); MariaDB keeps no row versions.
pub fn decide_with_row_versions(
    line: ServerLine,
    version: (u32, u32, u32),
    change: ColumnChange,
    algorithm: Algorithm,
    lock: Option<Lock>,
    row_versions: u32,
) -> Decision {
    let decision = decide(line, version, change, algorithm, lock);
    let versioned = line == ServerLine::Mysql && version >= (8, 0, 29);
    let instant = matches!(decision, Decision::Accepted { algorithm: Algorithm::Instant, .. });
    if versioned && instant && row_versions >= MYSQL_80_MAX_ROW_VERSIONS {
        return Decision::Refused {
            code: ER_INNODB_MAX_ROW_VERSION,
            reason: "Maximum row versions reached for the table. No more columns can be added \
                     or dropped instantly. Please use COPY/INPLACE"
                .into(),
        };
    }
    decision
}

/// Whether `decision` gives the table a new row version (`true`) or rebuilds it, starting its
/// row versions again from zero (`false`); `None` when it leaves them as they were.
pub fn new_row_version(decision: &Decision) -> Option<bool> {
    match decision {
        Decision::Accepted { algorithm: Algorithm::Instant, .. } => Some(true),
        Decision::Accepted { rebuilds: true, .. } => Some(false),
        _ => None,
    }
}

/// What `line` at `version` does with `change` under `algorithm` and `lock` (`None`: no
/// `LOCK=` clause, the least restrictive lock the algorithm supports).
pub fn decide(
    line: ServerLine,
    version: (u32, u32, u32),
    change: ColumnChange,
    algorithm: Algorithm,
    lock: Option<Lock>,
) -> Decision {
    let instant = instant_possible(line, version, change);
    match algorithm {
        Algorithm::Copy => match lock {
            // mysql_alter_table() (sql_table.cc), both servers: COPY cannot let writers go
            // on, so LOCK=NONE is refused with ER_ALTER_OPERATION_NOT_SUPPORTED_REASON_COPY.
            Some(Lock::None) => Decision::Refused {
                code: ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
                reason: "LOCK=NONE is not supported. Reason: COPY algorithm requires a lock. \
                         Try LOCK=SHARED"
                    .into(),
            },
            // The default for COPY is SHARED, its least restrictive lock.
            l => Decision::Accepted {
                algorithm: Algorithm::Copy,
                lock: l.unwrap_or(Lock::Shared),
                rebuilds: true,
                blocks_writers: true,
            },
        },
        // MariaDB's handler names the index change as the reason (checked on 10.11.19:
        // "ALGORITHM=INSTANT is not supported. Reason: DROP INDEX. Try ALGORITHM=NOCOPY").
        Algorithm::Instant
            if line == ServerLine::Mariadb && change == (ColumnChange::Drop { indexed: true }) =>
        {
            Decision::Refused {
                code: ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
                reason: "ALGORITHM=INSTANT is not supported. Reason: DROP INDEX. Try \
                         ALGORITHM=NOCOPY"
                    .into(),
            }
        }
        Algorithm::Instant if !instant => Decision::Refused {
            code: ER_ALTER_OPERATION_NOT_SUPPORTED,
            reason: "ALGORITHM=INSTANT is not supported for this operation. Try \
                     ALGORITHM=INPLACE"
                .into(),
        },
        Algorithm::Instant => Decision::Accepted {
            algorithm: Algorithm::Instant,
            lock: lock.unwrap_or(Lock::None),
            rebuilds: false,
            blocks_writers: false,
        },
        Algorithm::Inplace => {
            // MariaDB (ha_innobase::check_if_supported_inplace_alter with
            // ALTER_INPLACE_INSTANT): ALGORITHM=X allows any algorithm at least as good, so
            // INPLACE runs instantly when it can. MySQL runs INPLACE as asked: a rebuild.
            let upgraded = line == ServerLine::Mariadb && instant;
            let lock_used = lock.unwrap_or(Lock::None);
            Decision::Accepted {
                algorithm: if upgraded { Algorithm::Instant } else { Algorithm::Inplace },
                lock: lock_used,
                rebuilds: !upgraded,
                // An online rebuild logs concurrent changes (row_log) and applies them at the
                // end; an explicit SHARED/EXCLUSIVE lock holds writers for the whole run.
                blocks_writers: !upgraded && lock_used != Lock::None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::{Copy, Inplace, Instant};
    use ServerLine::{Mariadb, Mysql};

    const AFTER: ColumnChange = ColumnChange::Add { last: false };
    const LAST: ColumnChange = ColumnChange::Add { last: true };

    fn refused_code(d: &Decision) -> Option<u16> {
        match d {
            Decision::Refused { code, .. } => Some(*code),
            Decision::Accepted { .. } => None,
        }
    }

    #[test]
    fn the_write_ups_after_column_case_by_version() {
        // E5: refused as INSTANT on MySQL 8.0.26, accepted on 8.0.31.
        let d = decide(Mysql, (8, 0, 26), AFTER, Instant, None);
        assert_eq!(refused_code(&d), Some(1845));
        assert!(matches!(
            decide(Mysql, (8, 0, 31), AFTER, Instant, None),
            Decision::Accepted { .. }
        ));
        assert!(matches!(
            decide(Mysql, (8, 0, 26), LAST, Instant, None),
            Decision::Accepted { .. }
        ));
        assert!(matches!(
            decide(Mariadb, (10, 11, 0), AFTER, Instant, None),
            Decision::Accepted { .. }
        ));
        assert_eq!(refused_code(&decide(Mariadb, (10, 3, 0), AFTER, Instant, None)), Some(1845));
        assert_eq!(refused_code(&decide(Mariadb, (10, 2, 0), LAST, Instant, None)), Some(1845));
    }

    #[test]
    fn copy_needs_a_lock_and_blocks_writers() {
        for line in [Mariadb, Mysql] {
            let v = if line == Mariadb { (10, 11, 0) } else { (8, 0, 31) };
            let none = decide(line, v, LAST, Copy, Some(Lock::None));
            assert_eq!(refused_code(&none), Some(1846));
            for lock in [None, Some(Lock::Shared), Some(Lock::Exclusive)] {
                let d = decide(line, v, LAST, Copy, lock);
                assert!(
                    matches!(d, Decision::Accepted { blocks_writers: true, rebuilds: true, .. }),
                    "{d:?}"
                );
            }
        }
    }

    #[test]
    fn inplace_runs_instantly_on_mariadb_and_rebuilds_on_mysql() {
        let d = decide(Mariadb, (10, 11, 0), LAST, Inplace, Some(Lock::None));
        assert!(matches!(
            d,
            Decision::Accepted { algorithm: Instant, rebuilds: false, blocks_writers: false, .. }
        ));
        let d = decide(Mysql, (8, 0, 31), LAST, Inplace, Some(Lock::None));
        assert!(matches!(
            d,
            Decision::Accepted { algorithm: Inplace, rebuilds: true, blocks_writers: false, .. }
        ));
        let d = decide(Mysql, (8, 0, 31), LAST, Inplace, Some(Lock::Shared));
        assert!(matches!(d, Decision::Accepted { blocks_writers: true, .. }));
        // An indexed column cannot go instantly; INPLACE rebuilds, online.
        let indexed = ColumnChange::Drop { indexed: true };
        assert_eq!(refused_code(&decide(Mariadb, (10, 11, 0), indexed, Instant, None)), Some(1846));
        assert_eq!(refused_code(&decide(Mysql, (8, 0, 31), indexed, Instant, None)), Some(1845));
        let d = decide(Mariadb, (10, 11, 0), indexed, Inplace, None);
        assert!(matches!(d, Decision::Accepted { algorithm: Inplace, blocks_writers: false, .. }));
    }

    #[test]
    fn mysql_80_refuses_the_65th_instant_column_change_until_a_rebuild() {
        let v = (8, 0, 31);
        let at = |n| decide_with_row_versions(Mysql, v, LAST, Instant, None, n);
        assert!(matches!(at(63), Decision::Accepted { algorithm: Instant, .. }));
        assert_eq!(refused_code(&at(MYSQL_80_MAX_ROW_VERSIONS)), Some(4092));
        // INPLACE on MySQL rebuilds: allowed, and the row versions start again.
        let inplace = decide_with_row_versions(Mysql, v, LAST, Inplace, None, 64);
        assert_eq!(new_row_version(&inplace), Some(false));
        // MariaDB has no row versions; MySQL before 8.0.29 neither.
        let maria = decide_with_row_versions(Mariadb, (10, 11, 0), LAST, Instant, None, 500);
        assert_eq!(new_row_version(&maria), Some(true));
        let old = decide_with_row_versions(Mysql, (8, 0, 28), LAST, Instant, None, 500);
        assert!(matches!(old, Decision::Accepted { .. }));
    }
}
