//! A file of migrations read as the server ends up with it: the same statements run on a
//! private MariaDB 10.11 (its `SHOW CREATE TABLE` read back) or PostgreSQL 15 (its catalog
//! read back as `--url` reads it) give the same columns (name, type, nullability, in order),
//! primary key and indexes as keylab's reading of the file.

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

/// The same on PostgreSQL: ALTER COLUMN TYPE / SET and DROP NOT NULL, ADD/DROP/RENAME COLUMN,
/// CREATE UNIQUE INDEX, DROP INDEX, RENAME TO.
const PG_MIGRATIONS: [&str; 10] = [
    "CREATE TABLE t (id integer NOT NULL, a integer NOT NULL, b text, c varchar(20))",
    "ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id)",
    "CREATE INDEX t_a ON t USING btree (a)",
    "CREATE UNIQUE INDEX t_c ON t USING btree (c)",
    "ALTER TABLE t ALTER COLUMN a TYPE bigint, ALTER COLUMN a DROP NOT NULL",
    "ALTER TABLE t ALTER COLUMN c SET NOT NULL",
    "ALTER TABLE t ADD COLUMN d bigint NOT NULL DEFAULT 0",
    "ALTER TABLE t DROP COLUMN b",
    "ALTER TABLE t RENAME COLUMN c TO c2",
    "DROP INDEX t_a",
];

#[test]
fn a_migrated_table_is_read_as_postgres_ends_up_with_it() {
    use keylab_pg_server::{installed_or_skip, PgInstance, PgSettings};
    if !installed_or_skip("a_migrated_table_is_read_as_postgres_ends_up_with_it") {
        return;
    }
    let mut statements = PG_MIGRATIONS.to_vec();
    statements.push("ALTER TABLE t RENAME TO u");
    let file = statements.join(";\n") + ";\n";
    let read = keylab_ddl::parse_as(&file, "m.sql", SourceDialect::Postgres).unwrap();
    let ours = read.table(Some("u")).unwrap();
    let users = PgInstance::start(&PgSettings::default()).expect("user's server");
    let mut admin = users.config("postgres").connect(postgres::NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE app").unwrap();
    let mut app = users.config("app").connect(postgres::NoTls).unwrap();
    for statement in &statements {
        app.batch_execute(statement).unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    app.batch_execute(
        "CREATE ROLE reader LOGIN PASSWORD 'pw-Mg42'; GRANT SELECT ON public.u TO reader",
    )
    .unwrap();
    let url = keylab_server_common::ServerUrl {
        user: "reader".into(),
        password: Some("pw-Mg42".into()),
        host: "127.0.0.1".into(),
        port: users.port(),
        database: Some("app".into()),
    };
    let (_, catalog) = keylab_pg_server::read_user_table(&url, "public", "u").unwrap();
    let create = catalog.create_sql();
    let server = keylab_ddl::parse_as(&create, "server", SourceDialect::Postgres).unwrap();
    let theirs = server.table(Some("u")).unwrap();
    assert_eq!(shape(ours), shape(theirs), "the server's table:\n{create}");
}
