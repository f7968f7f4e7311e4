//! A file of migrations read as the server ends up with it: the same statements run on a
//! private MariaDB 10.11, and its `SHOW CREATE TABLE` read back, give the same columns (name,
//! type, nullability, in order), primary key and indexes as keylab's reading of the file.

use crate::util::{server_installed, users_server};
use keylab_ddl::{DdlTable, SourceDialect};

/// Each statement of the migration file (one a line, for the server).
const MIGRATIONS: [&str; 12] = [
    "CREATE TABLE t (id int NOT NULL, a int, b varchar(10), c int, PRIMARY KEY (id)) \
     ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE INDEX t_a ON t (a)",
    "CREATE INDEX t_c ON t (c)",
    "ALTER TABLE t ADD COLUMN d bigint NOT NULL",
    "ALTER TABLE t DROP COLUMN a",
    "ALTER TABLE t MODIFY b varchar(40) NOT NULL",
    "ALTER TABLE t CHANGE c c2 bigint",
    "ALTER TABLE t RENAME COLUMN d TO d2",
    "ALTER TABLE t ADD UNIQUE KEY t_d (d2), ADD KEY t_bd (b, d2)",
    "DROP INDEX t_c ON t",
    "RENAME TABLE t TO t2",
    "ALTER TABLE t2 ADD INDEX t_b (b), DROP KEY t_bd",
];

/// Columns (name, type, nullable), the primary key's column names, and indexes (name,
/// column names, unique) sorted by name: what must agree.
type Shape = (Vec<(String, String, bool)>, Vec<String>, Vec<(String, Vec<String>, bool)>);

fn shape(d: &DdlTable) -> Shape {
    let t = &d.table;
    let name = |i: &usize| t.columns[*i].name.clone();
    let columns =
        t.columns.iter().map(|c| (c.name.clone(), format!("{:?}", c.ty), c.nullable)).collect();
    let mut indexes: Vec<(String, Vec<String>, bool)> = t
        .indexes
        .iter()
        .map(|i| (i.name.clone(), i.columns.iter().map(name).collect(), i.unique))
        .collect();
    indexes.sort();
    (columns, t.primary_key.iter().map(name).collect(), indexes)
}

#[test]
fn a_migrated_table_is_read_as_mariadb_ends_up_with_it() {
    use mysql::prelude::Queryable;
    if !server_installed("a_migrated_table_is_read_as_mariadb_ends_up_with_it") {
        return;
    }
    let file = MIGRATIONS.join(";\n") + ";\n";
    let read = keylab_ddl::parse_as(&file, "m.sql", SourceDialect::Mysql).unwrap();
    let ours = read.table(Some("t2")).unwrap();
    let (_server, mut admin) = users_server();
    admin.query_drop("CREATE DATABASE app").unwrap();
    admin.query_drop("USE app").unwrap();
    for statement in MIGRATIONS {
        admin.query_drop(statement).unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let (_, create): (String, String) =
        admin.query_first("SHOW CREATE TABLE app.t2").unwrap().unwrap();
    let server = keylab_ddl::parse_as(&create, "server", SourceDialect::Mysql).unwrap();
    let theirs = server.table(Some("t2")).unwrap();
    assert_eq!(shape(ours), shape(theirs), "the server's table:\n{create}");
}
