//! DDL the server of its dialect refuses is refused by `advise` too (exit 2), at the place of
//! the statement or column and with the server's error: a second primary key, a column
//! given twice, too many keys or columns for the engine, a name too long (MariaDB; PostgreSQL
//! truncates it, noted) or holding a NUL, an ENUM past what MariaDB stores. A refusal costs
//! its own table only. MariaDB's errors as 10.11.19 gives them for the same statements.

use super::{advise, refused};
use crate::util::{json, Dir};

#[test]
fn two_primary_keys_and_a_column_given_twice_are_refused_with_the_servers_error() {
    refused(
        "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  b INT,\n  PRIMARY KEY (b)\n);",
        &[],
        &["t.sql:4:16: a second PRIMARY KEY", "error 1068: Multiple primary key defined"],
    );
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY, b INT PRIMARY KEY);",
        &[],
        &["t.sql:1:37: a second PRIMARY KEY", "error 1068"],
    );
    refused(
        "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  ID INT\n);",
        &[],
        &["t.sql:3:3: column `ID` is defined twice", "error 1060: Duplicate column name 'ID'"],
    );
    refused(
        "CREATE TABLE t (id integer PRIMARY KEY, b integer, b integer);",
        &["--dialect", "postgres"],
        &["t.sql:1:52: column `b` is defined twice", "column \"b\" specified more than once"],
    );
    // PostgreSQL: a quoted name of another case is another column.
    let d = Dir::new();
    let sql = "CREATE TABLE t (id integer PRIMARY KEY, \"B\" integer, b integer);";
    advise(&d, sql, &["--dialect", "postgres", "--rows", "100", "--keys", "auto-inc"])
        .expect_code(0);
    // An ALTER TABLE adding a second primary key, or a column the table has.
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY, b INT);\nALTER TABLE t ADD PRIMARY KEY (b);",
        &[],
        &["t.sql:2:32: a second PRIMARY KEY"],
    );
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY, b INT);\nALTER TABLE t ADD COLUMN b INT;",
        &[],
        &["t.sql:2:26: column `b` is defined twice"],
    );
    // Dropping the key first is what the server takes.
    let d = Dir::new();
    let sql = "CREATE TABLE t (id INT PRIMARY KEY, b INT NOT NULL);\n\
               ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b);";
    advise(&d, sql, &["--rows", "100", "--keys", "auto-inc"]).expect_code(0);
}

fn columns(n: usize) -> String {
    (0..n).map(|i| format!(",\n  c{i} INT")).collect()
}

#[test]
fn too_many_keys_or_columns_for_the_engine_are_refused_naming_the_limit() {
    let keys: String = (0..64).map(|i| format!(",\n  KEY k{i} (c{i})")).collect();
    let sql = format!("CREATE TABLE t (\n  id INT PRIMARY KEY{}{keys}\n);", columns(64));
    // A primary key and 64 secondary indexes: 65 keys (error 1069 on MariaDB 10.11.19).
    refused(
        &sql,
        &["--rows", "100"],
        &["t.sql:1:1: table `t`", "65 keys", "error 1069: Too many keys specified; max 64"],
    );
    // PostgreSQL has no such limit: the same indexes on the nbtree model run.
    let pg: String = (0..64).map(|i| format!("CREATE INDEX k{i} ON t (c{i});\n")).collect();
    let cols: String = (0..64).map(|i| format!(", c{i} integer")).collect();
    let sql = format!("CREATE TABLE t (id bigint PRIMARY KEY{cols});\n{pg}");
    let d = Dir::new();
    advise(&d, &sql, &["--dialect", "postgres", "--rows", "50", "--keys", "auto-inc"])
        .expect_code(0);
    // 1018 columns: InnoDB's limit is 1017 (errno 185 on MariaDB 10.11.19).
    let sql = format!("CREATE TABLE t (\n  id INT PRIMARY KEY{}\n);", columns(1017));
    refused(
        &sql,
        &[],
        &["t.sql:1:1: table `t`", "1018 columns", "InnoDB's 1017", "Too many columns"],
    );
    // PostgreSQL's limit is 1600 columns.
    let cols: String = (0..1600).map(|i| format!(", c{i} integer")).collect();
    let sql = format!("CREATE TABLE t (id bigint PRIMARY KEY{cols});");
    refused(
        &sql,
        &["--dialect", "postgres", "--rows", "10"],
        &["t.sql:1:1: table `t`", "1601 columns", "PostgreSQL's 1600"],
    );
}

#[test]
fn long_names_nul_names_and_huge_enums_follow_the_server() {
    let long = "x".repeat(65);
    refused(
        &format!("CREATE TABLE t (\n  id INT PRIMARY KEY,\n  {long} INT\n);"),
        &[],
        &["t.sql:3:3: column name", "65 characters", "error 1059", "at most 64 characters"],
    );
    refused(
        &format!("CREATE TABLE {long} (id INT PRIMARY KEY);"),
        &[],
        &["t.sql:1:1: table name", "error 1059"],
    );
    refused(
        &format!("CREATE TABLE t (id INT PRIMARY KEY, b INT, KEY {long} (b));"),
        &[],
        &["index name", "error 1059"],
    );
    // 64 characters, multi-byte ones too, are accepted.
    let d = Dir::new();
    let sql = format!("CREATE TABLE t (id INT PRIMARY KEY, {} INT);", "é".repeat(64));
    advise(&d, &sql, &["--rows", "100", "--keys", "auto-inc"]).expect_code(0);
    // PostgreSQL truncates a name past 63 bytes with a NOTICE: noted, not refused.
    let long = "y".repeat(70);
    let sql = format!("CREATE TABLE t (id bigint PRIMARY KEY, {long} integer);");
    let args = ["--dialect", "postgres", "--rows", "100", "--keys", "auto-inc", "--format", "json"];
    let run = advise(&d, &sql, &args);
    let v = json(&run.expect_code(0).stdout);
    let notes = v["engine"]["notes"].to_string() + &v.to_string();
    assert!(notes.contains("70 bytes: PostgreSQL truncates it"), "{notes}");
    // A NUL in a name.
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY, `a\0b` INT);",
        &[],
        &["t.sql:1:37: column name holds a NUL character"],
    );
    refused(
        "CREATE TABLE t (id integer PRIMARY KEY, \"a\0b\" integer);",
        &["--dialect", "postgres"],
        &["column name holds a NUL character", "PostgreSQL"],
    );
    // 70,000 ENUM members: past MariaDB's table definition (error 1117 on 10.11.19).
    let members: Vec<String> = (0..70_000).map(|i| format!("'v{i}'")).collect();
    let sql =
        format!("CREATE TABLE t (\n  id INT PRIMARY KEY,\n  e ENUM({})\n);", members.join(","));
    refused(&sql, &[], &["t.sql:3:3: column `e` has 70000 members", "error 1117"]);
    let members: Vec<String> = (0..100).map(|i| format!("'v{i}'")).collect();
    let sql = format!("CREATE TABLE t (id INT PRIMARY KEY, e ENUM({}));", members.join(","));
    advise(&d, &sql, &["--rows", "100", "--keys", "auto-inc"]).expect_code(0);
}

#[test]
fn a_refused_table_leaves_the_others_of_the_file_advised() {
    let d = Dir::new();
    let sql = "CREATE TABLE good (id INT PRIMARY KEY, b INT);\n\
               CREATE TABLE bad (id INT PRIMARY KEY, b INT, b INT);\n\
               CREATE TABLE other (id BIGINT PRIMARY KEY);";
    let run = advise(&d, sql, &["--rows", "100", "--keys", "auto-inc", "--format", "json"]);
    let run = run.expect_code(0);
    assert!(run.stdout.contains("good") && run.stdout.contains("other"), "{}", run.stdout);
    assert!(run.stdout.contains("defined twice"), "the refusal is reported: {}", run.stdout);
    refused(sql, &["--table", "bad"], &["t.sql:2:46: column `b` is defined twice"]);
    advise(&d, sql, &["--table", "good", "--rows", "100", "--keys", "auto-inc"]).expect_code(0);
}

#[test]
fn a_temporary_table_is_read_as_a_table_with_a_note() {
    let d = Dir::new();
    let sql = "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, b INT);";
    let run = advise(&d, sql, &["--rows", "100", "--keys", "auto-inc", "--format", "json"]);
    let run = run.expect_code(0);
    assert!(run.stdout.contains("CREATE TEMPORARY TABLE: read as a table"), "{}", run.stdout);
    // With a byte-order mark in front, as Windows editors write it.
    let run = advise(&d, &format!("\u{feff}{sql}"), &["--rows", "100", "--keys", "auto-inc"]);
    run.expect_code(0);
}
