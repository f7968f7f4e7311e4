//! The simulator's answer to an online DDL statement: what the modelled server's rules allow
//! ([`keylab_innodb_model::online_ddl`]): accepted or refused with the error number, the
//! algorithm and lock used, whether the table is rebuilt and whether concurrent writers wait
//! for the statement's whole run. Times, writers' stalls and rows inserted are `null`: the
//! model predicts no time. The model's pages are left as they were (a rebuild is not run).

use keylab_core::{DdlAction, DdlAlgorithm, DdlLock, DdlOutcome, DdlSpec, DdlWriters};
use keylab_innodb_model::online_ddl::{
    self, Algorithm, Change, ColumnChange, Decision, Lock, ServerLine, TableTraits,
};
use keylab_innodb_model::Flavour;
use keylab_schema::{RowFormat, Table};

/// The versions whose rules the models follow: MariaDB 10.11, and MySQL 8.0 from 8.0.29 on
/// (the message says when 8.0.12 to 8.0.28 decide otherwise).
fn line_of(flavour: Flavour) -> (ServerLine, (u32, u32, u32)) {
    match flavour {
        Flavour::MariaDb1011 => (ServerLine::Mariadb, (10, 11, 0)),
        Flavour::Mysql80 => (ServerLine::Mysql, (8, 0, 29)),
    }
}

/// What the modelled table has been through since it was created: what the rules look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DdlState {
    /// Instant column changes since the table was created or rebuilt (MySQL 8.0's row
    /// versions).
    pub row_versions: u32,
    /// FULLTEXT indexes added by earlier steps.
    pub fulltext_indexes: u32,
}

/// The statement's change as the rules see it; a column the table does not have (one a
/// previous step added) is in no index.
fn change_of(table: &Table, spec: &DdlSpec) -> Change {
    match spec.action {
        DdlAction::AddColumn => Change::Column(ColumnChange::Add { last: spec.after.is_none() }),
        DdlAction::DropColumn => {
            let col = table.columns.iter().position(|c| c.name == spec.column);
            let indexed = col.is_some_and(|c| {
                table.primary_key.contains(&c)
                    || table.indexes.iter().any(|i| i.columns.contains(&c))
            });
            Change::Column(ColumnChange::Drop { indexed })
        }
        DdlAction::AddFulltextIndex => Change::AddFulltext,
        DdlAction::ChangePrimaryKey => Change::ChangePrimaryKey,
    }
}

/// What `flavour`'s rules do with `spec` on `table`, with `writers` concurrent writers (0:
/// none), and the table's state after it (`state`: instant column changes since the table was
/// created or rebuilt, which MySQL 8.0 caps, and its FULLTEXT indexes).
pub fn outcome(
    flavour: Flavour,
    table: &Table,
    spec: &DdlSpec,
    writers: u32,
    state: &mut DdlState,
) -> DdlOutcome {
    let (line, version) = line_of(flavour);
    let change = change_of(table, spec);
    let algorithm = match spec.algorithm {
        DdlAlgorithm::Instant => Algorithm::Instant,
        DdlAlgorithm::Inplace => Algorithm::Inplace,
        DdlAlgorithm::Copy => Algorithm::Copy,
    };
    let lock = spec.lock.map(|l| match l {
        DdlLock::None => Lock::None,
        DdlLock::Shared => Lock::Shared,
        DdlLock::Exclusive => Lock::Exclusive,
    });
    let traits = TableTraits {
        fulltext_indexes: state.fulltext_indexes,
        compressed: table.row_format == RowFormat::Compressed,
        // keylab's tables are never temporary (a temporary table lives in one session, and
        // keylab's server engines work over several); the rules know them all the same.
        temporary: false,
    };
    let decision = online_ddl::decide_on_table(
        line,
        version,
        change,
        algorithm,
        lock,
        traits,
        state.row_versions,
    );
    match online_ddl::new_row_version(&decision) {
        Some(true) => state.row_versions += 1,
        Some(false) => state.row_versions = 0,
        None => {}
    }
    if change == Change::AddFulltext && matches!(decision, Decision::Accepted { .. }) {
        state.fulltext_indexes += 1;
    }
    let mut notes = vec!["the modelled server's rules (no time is predicted; the model's pages \
                          are left as they were)"
        .to_string()];
    if line == ServerLine::Mysql {
        let old = online_ddl::decide_on_table(line, (8, 0, 28), change, algorithm, lock, traits, 0);
        if old != decision {
            notes.push(format!("MySQL 8.0.12 to 8.0.28 decide otherwise: {}", say(&old)));
        }
    }
    let writers = (writers > 0).then_some(DdlWriters {
        writers,
        blocks_writers: match decision {
            Decision::Accepted { blocks_writers, .. } => Some(blocks_writers),
            Decision::Refused { .. } => Some(false),
        },
        longest_stall_ms: None,
        rows_inserted_during: None,
        rows_inserted: None,
    });
    match decision {
        Decision::Refused { code, ref reason } => {
            notes.insert(0, format!("error {code}: {reason}"));
            DdlOutcome { writers, ..DdlOutcome::refused(None, code, notes.join("; ")) }
        }
        Decision::Accepted { algorithm, lock, .. } => {
            notes.insert(0, say(&decision));
            DdlOutcome {
                wall_ms: None,
                supported: true,
                error_code: None,
                algorithm_used: Some(algorithm.token().into()),
                lock_used: Some(lock.token().into()),
                message: Some(notes.join("; ")),
                writers,
            }
        }
    }
}

fn say(d: &Decision) -> String {
    match d {
        Decision::Refused { code, reason } => format!("refused, error {code}: {reason}"),
        Decision::Accepted { algorithm, lock, rebuilds, blocks_writers } => format!(
            "runs {} with LOCK={}, {}, {}",
            algorithm.token().to_uppercase(),
            lock.token().to_uppercase(),
            if *rebuilds { "rebuilds the table" } else { "does not rebuild the table" },
            if *blocks_writers { "writers wait for the whole statement" } else { "writers go on" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, Index, RowFormat};

    fn table() -> Table {
        let col = |name: &str| Column::new(name, ColumnType::Int, false);
        Table {
            name: "t".into(),
            columns: vec![col("id"), col("k"), col("c")],
            primary_key: vec![0],
            auto_increment: false,
            indexes: vec![Index::new("k", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn spec(action: DdlAction, column: &str, algorithm: DdlAlgorithm) -> DdlSpec {
        DdlSpec {
            action,
            column: column.into(),
            algorithm,
            after: None,
            lock: None,
            column_type: None,
        }
    }

    #[test]
    fn copy_blocks_writers_and_refuses_lock_none_with_null_times() {
        let t = table();
        let copy = spec(DdlAction::AddColumn, "x", DdlAlgorithm::Copy);
        let o = outcome(Flavour::MariaDb1011, &t, &copy, 2, &mut DdlState::default());
        assert!(o.supported && o.wall_ms.is_none(), "{o:?}");
        assert_eq!(o.lock_used.as_deref(), Some("shared"));
        let w = o.writers.unwrap();
        assert_eq!(w.blocks_writers, Some(true));
        assert_eq!((w.longest_stall_ms, w.rows_inserted), (None, None));
        let none = DdlSpec { lock: Some(DdlLock::None), ..copy };
        let o = outcome(Flavour::Mysql80, &t, &none, 2, &mut DdlState::default());
        assert_eq!((o.supported, o.error_code), (false, Some(1846)), "{o:?}");
    }

    #[test]
    fn instant_after_names_mysqls_older_rule_and_indexed_drops_are_refused() {
        let t = table();
        let after = DdlSpec {
            after: Some("id".into()),
            ..spec(DdlAction::AddColumn, "x", DdlAlgorithm::Instant)
        };
        let o = outcome(Flavour::Mysql80, &t, &after, 0, &mut DdlState::default());
        assert!(o.supported && o.writers.is_none(), "{o:?}");
        assert!(o.message.unwrap().contains("8.0.28 decide otherwise: refused, error 1845"));
        let drop_k = spec(DdlAction::DropColumn, "k", DdlAlgorithm::Instant);
        let o = outcome(Flavour::MariaDb1011, &t, &drop_k, 0, &mut DdlState::default());
        assert_eq!(o.error_code, Some(1846), "{o:?}");
        let drop_c = spec(DdlAction::DropColumn, "c", DdlAlgorithm::Instant);
        assert!(outcome(Flavour::MariaDb1011, &t, &drop_c, 0, &mut DdlState::default()).supported);
    }

    #[test]
    fn mysql_80_counts_row_versions_and_a_rebuild_starts_them_again() {
        let t = table();
        let add = |n: usize| spec(DdlAction::AddColumn, &format!("x{n}"), DdlAlgorithm::Instant);
        let mut versions = DdlState::default();
        for n in 0..64 {
            let o = outcome(Flavour::Mysql80, &t, &add(n), 0, &mut versions);
            assert!(o.supported, "change {n}: {o:?}");
        }
        let o = outcome(Flavour::Mysql80, &t, &add(64), 0, &mut versions);
        assert_eq!((o.supported, o.error_code), (false, Some(4092)), "{o:?}");
        let copy = spec(DdlAction::AddColumn, "y", DdlAlgorithm::Copy);
        assert!(outcome(Flavour::Mysql80, &t, &copy, 0, &mut versions).supported);
        assert_eq!(versions.row_versions, 0);
        assert!(outcome(Flavour::Mysql80, &t, &add(65), 0, &mut versions).supported);
        // MariaDB keeps no row versions: the 65th instant change runs.
        let mut maria = DdlState { row_versions: 64, ..DdlState::default() };
        assert!(outcome(Flavour::MariaDb1011, &t, &add(66), 0, &mut maria).supported);
    }
}
