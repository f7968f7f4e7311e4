//! Where `keylab compare --engine mariadb` works: the database `--database` names on a
//! private instance, a user's server given by `--url` (its objects left as they were, the
//! password never shown), and the usage errors and fast failure of bad names and addresses.
//! The server tests need MariaDB's server binaries: without them they print SKIPPED, except
//! under `CI=true`, where a missing server is a failure.

use crate::util::{json, server_installed, users_server, Dir};

/// `--database` without `--url`: the private instance works in that database.
#[test]
fn a_private_instance_works_in_the_database_given() {
    if !server_installed("a_private_instance_works_in_the_database_given") {
        return;
    }
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--rows",
            "2000",
            "--keys",
            "uuid4:text",
            "--database",
            "kl_other",
            "--format",
            "json",
        ])
        .expect_code(0);
    let out = json(&run.stdout);
    assert_eq!(out["engine"]["settings"]["database"], "kl_other", "{}", run.stdout);
    assert_eq!(out["runs"][0]["rows"], 2000);
}

#[test]
fn a_bad_database_name_is_a_usage_error_naming_the_flag() {
    let run = Dir::new()
        .keylab(&["compare", "--engine", "mariadb", "--database", "no-dashes", "--rows", "10"])
        .expect_code(2);
    assert!(run.stderr.contains("--database"), "{}", run.stderr);
}

#[test]
fn a_bad_url_is_a_usage_error_and_never_shows_the_password() {
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--url",
            "mysql://root:s3cret@",
            "--rows",
            "10",
        ])
        .expect_code(2);
    assert!(!run.stderr.contains("s3cret"), "{}", run.stderr);
}

#[test]
fn an_unreachable_server_fails_fast_with_the_address() {
    let started = std::time::Instant::now();
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--url",
            "mysql://root:s3cret@127.0.0.1:9/keylab",
            "--rows",
            "10",
        ])
        .expect_code(1);
    assert!(started.elapsed().as_secs() < 15, "took {:?}", started.elapsed());
    assert!(run.stderr.contains("127.0.0.1:9"), "{}", run.stderr);
    assert!(!run.stderr.contains("s3cret"), "{}", run.stderr);
}

/// `--url` end to end: keylab creates and uses only the database `--database` names, never
/// shows the password, refuses a database holding tables it did not create (exit 2, naming
/// them), and leaves the user's objects as they were.
#[test]
fn url_and_database_on_a_users_server() {
    use mysql::prelude::Queryable;
    if !server_installed("url_and_database_on_a_users_server") {
        return;
    }
    let (users_server, mut admin) = users_server();
    admin
        .query_drop(
            "CREATE DATABASE appdb; CREATE TABLE appdb.orders (id INT PRIMARY KEY); \
             INSERT INTO appdb.orders VALUES (7); \
             CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'pw-Zq81-secret'; \
             GRANT ALL ON *.* TO 'bench'@'127.0.0.1'",
        )
        .unwrap();
    let url = format!("mysql://bench:pw-Zq81-secret@127.0.0.1:{}", users_server.port());
    let d = Dir::new();
    let compare = |database: &str| {
        d.keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--url",
            &url,
            "--database",
            database,
            "--rows",
            "3000",
            "--keys",
            "uuid4:text,ulid:text",
            "--format",
            "json",
        ])
    };
    let run = compare("kl_cli").expect_code(0);
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains("pw-Zq81-secret"), "{text}");
    }
    let out = json(&run.stdout);
    assert_eq!(out["engine"]["kind"], "mariadb");
    assert_eq!(out["runs"][1]["rows"], 3000);
    assert!(out["runs"][0]["indexes"][0]["fill_pct"].as_f64().unwrap() > 0.0);
    let left: Vec<String> = admin.query("SHOW TABLES FROM kl_cli").unwrap();
    assert_eq!(left, vec!["keylab_owner".to_string()], "only keylab's marker stays");
    // Id sources (a sequence, a table) beside the table are marked and dropped too.
    let seq = [
        "compare",
        "--engine",
        "mariadb",
        "--url",
        &url,
        "--database",
        "kl_seq",
        "--rows",
        "500",
        "--keys",
        "sequence,table",
        "--block",
        "50",
    ];
    d.keylab(&seq).expect_code(0);
    let left: Vec<String> = admin.query("SHOW TABLES FROM kl_seq").unwrap();
    assert_eq!(left, vec!["keylab_owner".to_string()], "only keylab's marker stays");

    let refused = compare("appdb").expect_code(2);
    assert!(refused.stderr.contains("`orders`"), "{}", refused.stderr);
    assert!(!refused.stderr.contains("pw-Zq81-secret"), "{}", refused.stderr);
    let orders: Vec<i32> = admin.query("SELECT id FROM appdb.orders").unwrap();
    assert_eq!(orders, vec![7]);
    let appdb_tables: Vec<String> = admin.query("SHOW TABLES FROM appdb").unwrap();
    assert_eq!(appdb_tables, vec!["orders".to_string()]);

    // A `keylab_owner` someone else wrote, listing the user's table, is no claim: the table
    // lacks keylab's mark, so keylab refuses the database and drops nothing.
    admin
        .query_drop(
            "CREATE TABLE appdb.keylab_owner (table_name VARCHAR(64) NOT NULL PRIMARY KEY, \
             created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP); \
             INSERT INTO appdb.keylab_owner (table_name) VALUES ('orders')",
        )
        .unwrap();
    let forged = compare("appdb").expect_code(2);
    assert!(forged.stderr.contains("`orders`"), "{}", forged.stderr);
    let orders: Vec<i32> = admin.query("SELECT id FROM appdb.orders").unwrap();
    assert_eq!(orders, vec![7], "a forged keylab_owner made keylab drop the user's table");
}
