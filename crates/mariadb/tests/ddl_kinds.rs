//! The instant-DDL restrictions that come from a table's kind, statement by statement on a
//! private MariaDB against the InnoDB model's DDL rules (`online_ddl::decide_on_table`):
//! a `ROW_FORMAT=COMPRESSED` table (no instant column change; INPLACE rebuilds) and a
//! temporary table (every ALTER copies its rows: INPLACE refused, INSTANT accepted as a copy,
//! any LOCK= accepted, FULLTEXT refused). keylab's scenarios cannot hold a temporary table (it
//! lives in one session; the engine works over several), so this test sends the statements
//! itself on one connection. A copy shows as the statement's affected rows (the rows copied),
//! a rebuild of a compressed table as a new tablespace id.
//!
//! Without a server binary it prints `SKIPPED: ...` and returns, except under `CI=true`,
//! where a missing server fails the run.

use keylab_innodb_model::online_ddl::{
    decide_on_table, Algorithm, Change, ColumnChange, Decision, Lock, ServerLine, TableTraits,
};
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use mysql::prelude::Queryable;

const ROWS: u64 = 1_000;

/// One statement: what it changes as the rules see it, and its SQL tail after the table name.
struct Step {
    change: Change,
    algorithm: Algorithm,
    lock: Option<Lock>,
    sql: &'static str,
}

fn col(change: ColumnChange) -> Change {
    Change::Column(change)
}

const ADD: ColumnChange = ColumnChange::Add { last: true };
const ADD_AFTER: ColumnChange = ColumnChange::Add { last: false };
const DROP: ColumnChange = ColumnChange::Drop { indexed: false };
const DROP_INDEXED: ColumnChange = ColumnChange::Drop { indexed: true };

fn steps() -> Vec<Step> {
    use Algorithm::{Copy, Inplace, Instant};
    let s = |change, algorithm, lock, sql| Step { change, algorithm, lock, sql };
    vec![
        s(col(ADD), Instant, None, "ADD COLUMN a1 INT NULL, ALGORITHM=INSTANT"),
        s(col(ADD_AFTER), Instant, None, "ADD COLUMN a2 INT NULL AFTER id, ALGORITHM=INSTANT"),
        s(
            col(ADD),
            Inplace,
            Some(Lock::None),
            "ADD COLUMN a3 INT NULL, ALGORITHM=INPLACE, LOCK=NONE",
        ),
        s(col(ADD), Inplace, None, "ADD COLUMN a4 INT NULL, ALGORITHM=INPLACE"),
        s(col(DROP), Instant, None, "DROP COLUMN c, ALGORITHM=INSTANT"),
        s(col(DROP_INDEXED), Instant, None, "DROP COLUMN k, ALGORITHM=INSTANT"),
        s(col(ADD), Copy, Some(Lock::None), "ADD COLUMN a5 INT NULL, ALGORITHM=COPY, LOCK=NONE"),
        s(
            col(ADD),
            Copy,
            Some(Lock::Shared),
            "ADD COLUMN a6 INT NULL, ALGORITHM=COPY, LOCK=SHARED",
        ),
        s(
            Change::ChangePrimaryKey,
            Inplace,
            None,
            "DROP PRIMARY KEY, ADD PRIMARY KEY (id, w), ALGORITHM=INPLACE",
        ),
        s(Change::AddFulltext, Copy, None, "ADD FULLTEXT INDEX ft (c), ALGORITHM=COPY"),
    ]
}

/// What happened: refused with a code, or accepted and whether the rows were copied or the
/// table rebuilt.
#[derive(Debug, PartialEq)]
enum Seen {
    Refused(u16),
    Accepted { rebuilt: bool },
}

fn expected(d: &Decision) -> Seen {
    match d {
        Decision::Refused { code, .. } => Seen::Refused(*code),
        Decision::Accepted { rebuilds, .. } => Seen::Accepted { rebuilt: *rebuilds },
    }
}

fn space_id(conn: &mut mysql::Conn, db: &str, table: &str) -> Option<u64> {
    conn.exec_first(
        "SELECT SPACE FROM information_schema.INNODB_SYS_TABLES WHERE NAME = ?",
        (format!("{db}/{table}"),),
    )
    .unwrap()
}

#[test]
fn compressed_and_temporary_tables_answer_as_the_models_rules_say() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    let engine = MariaDbEngine::private(&ServerSettings::default()).expect("private server");
    let db = engine.database().to_string();
    let version = (10, 11, 19);
    for (kind, traits) in [
        ("compressed", TableTraits { compressed: true, ..TableTraits::default() }),
        ("temporary", TableTraits { temporary: true, ..TableTraits::default() }),
    ] {
        // One connection per kind: a temporary table lives in its session.
        let mut conn = engine.new_connection().unwrap();
        let (create, options) = match kind {
            "compressed" => ("CREATE TABLE", " ROW_FORMAT=COMPRESSED"),
            _ => ("CREATE TEMPORARY TABLE", ""),
        };
        let name = format!("t_{kind}");
        for step in steps() {
            conn.query_drop(format!("DROP TABLE IF EXISTS {name}")).unwrap();
            conn.query_drop(format!(
                "{create} {name} (id INT NOT NULL, w INT NOT NULL, k INT, c VARCHAR(20), \
                 PRIMARY KEY (id), KEY ix_k (k)){options}"
            ))
            .unwrap();
            conn.query_drop(format!(
                "INSERT INTO {name} SELECT seq, seq, seq, 'x' FROM seq_1_to_{ROWS}"
            ))
            .unwrap();
            let before = space_id(&mut conn, &db, &name);
            let result = conn.query_drop(format!("ALTER TABLE {name} {}", step.sql));
            let seen = match result {
                Err(mysql::Error::MySqlError(e)) => Seen::Refused(e.code),
                Err(e) => panic!("{kind}: {}: {e}", step.sql),
                Ok(()) => {
                    let copied = conn.affected_rows() == ROWS;
                    let new_space = before != space_id(&mut conn, &db, &name);
                    Seen::Accepted { rebuilt: copied || (traits.compressed && new_space) }
                }
            };
            let rule = decide_on_table(
                ServerLine::Mariadb,
                version,
                step.change,
                step.algorithm,
                step.lock,
                traits,
                0,
            );
            assert_eq!(seen, expected(&rule), "{kind} table: {}: the rules say {rule:?}", step.sql);
        }
    }
}
