//! The rules for statements that change an index or the clustered key rather than add or drop
//! one column: `ADD FULLTEXT INDEX` and a primary-key change (`DROP PRIMARY KEY, ADD PRIMARY
//! KEY (...)`), and what FULLTEXT indexes already on the table do to every later statement.
//!
//! Checked against a private MariaDB 10.11.19 statement by statement (error numbers, and
//! whether the tablespace changed); MySQL 8.0 follows the same rules where its documentation
//! says so (no instant column change on a table with a FULLTEXT index, FULLTEXT creation
//! needs a lock), not checked on a MySQL server. Like the column rules, these predict no time
//! and change no page.
//!
//! Also the tables whose own kind restricts ALTER: `ROW_FORMAT=COMPRESSED` (no instant column
//! change) and temporary tables (every ALTER copies), measured on MariaDB 10.11.19.
//!
//! Not for: spatial and virtual-column indexes.

use super::{
    decide, decide_with_row_versions, Algorithm, ColumnChange, Decision, Lock, ServerLine,
    ER_ALTER_OPERATION_NOT_SUPPORTED, ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
};

/// A statement the rules decide on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// `ADD COLUMN` or `DROP COLUMN`.
    Column(ColumnChange),
    /// `ADD FULLTEXT INDEX` on one character column.
    AddFulltext,
    /// `DROP PRIMARY KEY, ADD PRIMARY KEY (...)`: a new clustered key, so a rebuild.
    ChangePrimaryKey,
}

/// What the table already holds that the rules look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableTraits {
    /// FULLTEXT indexes on the table (the first one also adds the hidden `FTS_DOC_ID`).
    pub fulltext_indexes: u32,
    /// `ROW_FORMAT=COMPRESSED`.
    pub compressed: bool,
    /// `CREATE TEMPORARY TABLE`.
    pub temporary: bool,
}

/// `ER_INNODB_NO_FT_TEMP_TABLE`: "Cannot create FULLTEXT index on temporary InnoDB table".
pub const ER_INNODB_NO_FT_TEMP_TABLE: u16 = 1796;

fn refused(code: u16, reason: String) -> Decision {
    Decision::Refused { code, reason }
}

fn instant_refused() -> Decision {
    refused(
        ER_ALTER_OPERATION_NOT_SUPPORTED,
        "ALGORITHM=INSTANT is not supported for this operation. Try ALGORITHM=INPLACE".into(),
    )
}

/// A FULLTEXT index on the table (or being added) cannot be kept up to date by an online
/// change log (`ER_ALTER_OPERATION_NOT_SUPPORTED_REASON_FTS`).
fn fulltext_needs_a_lock() -> Decision {
    refused(
        ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
        "LOCK=NONE is not supported. Reason: Fulltext index creation requires a lock. Try \
         LOCK=SHARED"
            .into(),
    )
}

/// A native rebuild of a table with several FULLTEXT indexes (`ER_INNODB_FT_LIMIT`).
fn one_fulltext_at_a_time(asked: Algorithm) -> Decision {
    refused(
        ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
        format!(
            "ALGORITHM={} is not supported. Reason: InnoDB presently supports one FULLTEXT \
             index creation at a time. Try ALGORITHM=COPY",
            asked.token().to_uppercase()
        ),
    )
}

/// What `line` at `version` does with `change` under `algorithm` and `lock` on a table with
/// `traits` and `row_versions` (see [`decide_with_row_versions`]).
pub fn decide_on_table(
    line: ServerLine,
    version: (u32, u32, u32),
    change: Change,
    algorithm: Algorithm,
    lock: Option<Lock>,
    traits: TableTraits,
    row_versions: u32,
) -> Decision {
    let fulltext = traits.fulltext_indexes;
    if traits.temporary {
        return on_temporary_table(line, version, change, algorithm, lock);
    }
    // COPY builds a new table row by row: the same whatever the statement.
    if algorithm == Algorithm::Copy {
        return decide(line, version, ColumnChange::Add { last: true }, algorithm, lock);
    }
    match change {
        // dict_table_t::supports_instant() is false for ROW_FORMAT=COMPRESSED, so
        // instant_alter_column_possible() refuses and the change is a native rebuild (10.11.19:
        // ER 1845 "Try ALGORITHM=INPLACE" for INSTANT, an indexed column's DROP included).
        Change::Column(_) if traits.compressed && fulltext == 0 => rebuild(algorithm, lock, 0),
        Change::Column(c) if fulltext == 0 => {
            decide_with_row_versions(line, version, c, algorithm, lock, row_versions)
        }
        // instant_alter_column_possible() (handler0alter.cc) refuses any stored-column
        // change on a table with a FULLTEXT index (MDEV-17459), so the change is a rebuild.
        Change::Column(_) | Change::ChangePrimaryKey => rebuild(algorithm, lock, fulltext),
        // ha_innobase::check_if_supported_inplace_alter: FULLTEXT creation is never online,
        // and the first one rebuilds the table to add FTS_DOC_ID (innobase_fts_check_doc_id_col).
        Change::AddFulltext => match (algorithm, lock) {
            (Algorithm::Instant, _) => instant_refused(),
            (_, Some(Lock::None)) => fulltext_needs_a_lock(),
            (_, l) => Decision::Accepted {
                algorithm: Algorithm::Inplace,
                lock: l.unwrap_or(Lock::Shared),
                rebuilds: fulltext == 0,
                blocks_writers: true,
            },
        },
    }
}

/// A temporary table: no in-place ALTER at all (is_inplace_alter_impossible in
/// mysql_alter_table), so every statement copies. Measured on MariaDB 10.11.19: INPLACE is
/// refused (ER 1845 "Try ALGORITHM=COPY"), INSTANT is accepted and copies every row, any
/// LOCK= is accepted (LOCK=NONE with COPY too: no other session can see the table, so no
/// writer waits), and FULLTEXT is refused (ER 1796). MySQL refuses INSTANT as well (its
/// mysql_alter_table); there the COPY rules are the ordinary ones (not run on a server).
fn on_temporary_table(
    line: ServerLine,
    version: (u32, u32, u32),
    change: Change,
    algorithm: Algorithm,
    lock: Option<Lock>,
) -> Decision {
    let refuse = |asked: Algorithm| {
        refused(
            ER_ALTER_OPERATION_NOT_SUPPORTED,
            format!(
                "ALGORITHM={} is not supported for this operation. Try ALGORITHM=COPY",
                asked.token().to_uppercase()
            ),
        )
    };
    match (line, algorithm) {
        (_, Algorithm::Inplace) => refuse(algorithm),
        (ServerLine::Mysql, Algorithm::Instant) => refuse(algorithm),
        _ if change == Change::AddFulltext => refused(
            ER_INNODB_NO_FT_TEMP_TABLE,
            "Cannot create FULLTEXT index on temporary InnoDB table".into(),
        ),
        (ServerLine::Mysql, _) => {
            decide(line, version, ColumnChange::Add { last: true }, Algorithm::Copy, lock)
        }
        (ServerLine::Mariadb, _) => Decision::Accepted {
            algorithm: Algorithm::Copy,
            lock: lock.unwrap_or(Lock::Shared),
            rebuilds: true,
            // Only the session that created it sees a temporary table.
            blocks_writers: false,
        },
    }
}

/// A statement that rebuilds the table natively (innobase_need_rebuild), on a table with
/// `fulltext` FULLTEXT indexes: more than one refuses any native rebuild, one forbids
/// LOCK=NONE (ha_innobase::check_if_supported_inplace_alter).
fn rebuild(algorithm: Algorithm, lock: Option<Lock>, fulltext: u32) -> Decision {
    if fulltext > 1 {
        return one_fulltext_at_a_time(algorithm);
    }
    if algorithm == Algorithm::Instant {
        return instant_refused();
    }
    match (fulltext, lock) {
        (1, Some(Lock::None)) => fulltext_needs_a_lock(),
        (1, l) => Decision::Accepted {
            algorithm: Algorithm::Inplace,
            lock: l.unwrap_or(Lock::Shared),
            rebuilds: true,
            blocks_writers: true,
        },
        (_, l) => {
            let lock = l.unwrap_or(Lock::None);
            Decision::Accepted {
                algorithm: Algorithm::Inplace,
                lock,
                rebuilds: true,
                blocks_writers: lock != Lock::None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::{Copy, Inplace, Instant};

    const V: (u32, u32, u32) = (10, 11, 19);

    fn code(d: &Decision) -> Option<u16> {
        match d {
            Decision::Refused { code, .. } => Some(*code),
            Decision::Accepted { .. } => None,
        }
    }

    fn on(change: Change, a: Algorithm, lock: Option<Lock>, fulltext: u32) -> Decision {
        let traits = TableTraits { fulltext_indexes: fulltext, ..TableTraits::default() };
        decide_on_table(ServerLine::Mariadb, V, change, a, lock, traits, 0)
    }

    fn on_kind(change: Change, a: Algorithm, lock: Option<Lock>, traits: TableTraits) -> Decision {
        decide_on_table(ServerLine::Mariadb, V, change, a, lock, traits, 0)
    }

    /// ROW_FORMAT=COMPRESSED on MariaDB 10.11.19 (1,000 rows): no instant column change, an
    /// online rebuild for INPLACE (the tablespace changed), COPY as on any table.
    #[test]
    fn compressed_tables_change_columns_by_rebuilding() {
        let zip = TableTraits { compressed: true, ..TableTraits::default() };
        let add = Change::Column(ColumnChange::Add { last: true });
        let after = Change::Column(ColumnChange::Add { last: false });
        let drop = Change::Column(ColumnChange::Drop { indexed: false });
        let drop_indexed = Change::Column(ColumnChange::Drop { indexed: true });
        for change in [add, after, drop, drop_indexed] {
            assert_eq!(code(&on_kind(change, Instant, None, zip)), Some(1845), "{change:?}");
        }
        for lock in [None, Some(Lock::None)] {
            let d = on_kind(add, Inplace, lock, zip);
            assert!(
                matches!(
                    d,
                    Decision::Accepted {
                        algorithm: Inplace,
                        rebuilds: true,
                        blocks_writers: false,
                        ..
                    }
                ),
                "{d:?}"
            );
        }
        assert_eq!(code(&on_kind(add, Copy, Some(Lock::None), zip)), Some(1846));
        assert!(matches!(on_kind(add, Copy, None, zip), Decision::Accepted { rebuilds: true, .. }));
    }

    /// A temporary table on MariaDB 10.11.19: every accepted statement copied every row.
    #[test]
    fn temporary_tables_copy_every_alter() {
        let tmp = TableTraits { temporary: true, ..TableTraits::default() };
        let add = Change::Column(ColumnChange::Add { last: true });
        let drop_indexed = Change::Column(ColumnChange::Drop { indexed: true });
        for change in [add, drop_indexed, Change::ChangePrimaryKey] {
            assert_eq!(code(&on_kind(change, Inplace, None, tmp)), Some(1845));
            for (a, lock) in
                [(Instant, None), (Instant, Some(Lock::None)), (Copy, Some(Lock::None))]
            {
                let d = on_kind(change, a, lock, tmp);
                assert!(
                    matches!(
                        d,
                        Decision::Accepted {
                            algorithm: Copy,
                            rebuilds: true,
                            blocks_writers: false,
                            ..
                        }
                    ),
                    "{change:?} {a:?} {lock:?}: {d:?}"
                );
            }
        }
        assert_eq!(code(&on_kind(Change::AddFulltext, Copy, None, tmp)), Some(1796));
        assert_eq!(code(&on_kind(Change::AddFulltext, Inplace, None, tmp)), Some(1845));
        // MySQL refuses INSTANT on a temporary table.
        let my = decide_on_table(ServerLine::Mysql, (8, 0, 31), add, Instant, None, tmp, 0);
        assert_eq!(code(&my), Some(1845));
    }

    /// The statements run on a private MariaDB 10.11.19 (1,000 rows), with what it answered.
    #[test]
    fn mariadb_10_11_answers_as_measured() {
        let add = Change::Column(ColumnChange::Add { last: true });
        let pk = Change::ChangePrimaryKey;
        let ft = Change::AddFulltext;
        assert_eq!(code(&on(ft, Instant, None, 0)), Some(1845));
        assert_eq!(code(&on(ft, Inplace, Some(Lock::None), 0)), Some(1846));
        assert_eq!(code(&on(ft, Copy, Some(Lock::None), 0)), Some(1846));
        assert_eq!(code(&on(pk, Instant, None, 0)), Some(1845));
        // The primary-key change rebuilds online; the first FULLTEXT rebuilds, the second not.
        let d = on(pk, Inplace, Some(Lock::None), 0);
        assert!(matches!(d, Decision::Accepted { rebuilds: true, blocks_writers: false, .. }));
        assert!(matches!(on(ft, Inplace, None, 0), Decision::Accepted { rebuilds: true, .. }));
        assert!(matches!(on(ft, Inplace, None, 1), Decision::Accepted { rebuilds: false, .. }));
        // One FULLTEXT index: no instant column change; a rebuild needs a lock.
        assert_eq!(code(&on(add, Instant, None, 1)), Some(1845));
        let drop = Change::Column(ColumnChange::Drop { indexed: false });
        assert_eq!(code(&on(drop, Instant, None, 1)), Some(1845));
        assert_eq!(code(&on(add, Inplace, Some(Lock::None), 1)), Some(1846));
        assert_eq!(code(&on(pk, Inplace, Some(Lock::None), 1)), Some(1846));
        for change in [add, pk] {
            let d = on(change, Inplace, None, 1);
            assert!(
                matches!(d, Decision::Accepted { lock: Lock::Shared, rebuilds: true, .. }),
                "{d:?}"
            );
        }
        // Two: no native rebuild at all, COPY only.
        for a in [Instant, Inplace] {
            let d = on(pk, a, None, 2);
            assert_eq!(code(&d), Some(1846));
            let Decision::Refused { reason, .. } = d else { unreachable!() };
            assert!(reason.contains("one FULLTEXT index creation at a time"), "{reason}");
        }
        assert!(matches!(on(add, Copy, None, 2), Decision::Accepted { rebuilds: true, .. }));
    }

    #[test]
    fn without_fulltext_a_column_change_follows_the_column_rules() {
        let add = ColumnChange::Add { last: true };
        assert_eq!(
            on(Change::Column(add), Instant, None, 0),
            decide(ServerLine::Mariadb, V, add, Instant, None)
        );
    }
}
