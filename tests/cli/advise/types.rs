//! Every column built as declared: MySQL's small integers, YEAR, ENUM/SET, FLOAT/DOUBLE,
//! BIT, VARBINARY/BLOB and fractional-second times, and PostgreSQL's serial family, jsonb,
//! inet, macaddr, arrays, numeric, interval... are advised on without a note saying they were
//! built as another type, and on private servers the model gives the server's pages for
//! every index (SKIPPED without servers, failing under `CI=true`). A code table's short text
//! key is filled with distinct codes, or refused with exit 2 when it cannot hold `--rows`.

use super::{advise, simulator_agrees_with_private_mariadb};
use crate::util::{json, server_installed, Dir};
use keylab_pg_server::installed_or_skip;

const MYSQL_TYPES: &str = include_str!("../../fixtures/advise/mysql_types.sql");
const PG_TYPES: &str = include_str!("../../fixtures/advise/pg_types.sql");

fn notes(r: &serde_json::Value) -> String {
    r["engine"]["settings"]["notes"].to_string()
}

#[test]
fn mysql_types_are_built_as_declared() {
    let d = Dir::new();
    let out = advise(&d, MYSQL_TYPES, &["--rows", "2000", "--format", "json"]).expect_code(0);
    let r = json(&out.stdout);
    assert_eq!(r["engine"]["model"], "mariadb-10.11");
    let n = notes(&r);
    assert!(!n.contains("modelled (and created) as"), "no column built as another type: {n}");
    assert_eq!(r["runs"][0]["indexes"].as_array().unwrap().len(), 5);
}

#[test]
fn postgres_types_are_built_as_declared_and_serial_is_an_identity() {
    let d = Dir::new();
    let out = advise(&d, PG_TYPES, &["--rows", "2000", "--format", "json"]).expect_code(0);
    let r = json(&out.stdout);
    assert_eq!(r["engine"]["model"], "postgres-15", "{}", notes(&r));
    let n = notes(&r);
    assert!(!n.contains("modelled (and created) as"), "{n}");
    // bigserial: the database assigns the ids (an identity).
    assert_eq!(r["runs"][0]["phases"][0]["ids_from"], "the database (identity)", "{n}");
    // The same file on the InnoDB model, each type as its nearest InnoDB type.
    let out = advise(&d, PG_TYPES, &["--rows", "500", "--model", "mariadb-10.11"]);
    out.expect_code(0);
}

#[test]
fn an_extension_type_is_a_noted_varlena_not_a_refusal() {
    let d = Dir::new();
    let sql =
        "CREATE TABLE items (\n    id bigint NOT NULL,\n    embedding public.vector(3),\n    \
               note character varying(20)\n);\nALTER TABLE ONLY items ADD CONSTRAINT items_pkey \
               PRIMARY KEY (id);\n";
    let out = advise(&d, sql, &["--rows", "500", "--format", "json"]).expect_code(0);
    let n = notes(&json(&out.stdout));
    assert!(n.contains("no storage rule") && n.contains("--width"), "{n}");
    let sql = "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  g GEOMETRY\n);";
    let out = advise(&d, sql, &["--rows", "500", "--format", "json"]).expect_code(0);
    assert!(notes(&json(&out.stdout)).contains("`g`"));
}

/// Issue 31 item 9: a CHAR(2) key ("value Int(1) does not suit column", exit 1, before).
#[test]
fn a_code_tables_short_text_key_gets_distinct_codes_or_a_clear_refusal() {
    let d = Dir::new();
    let sql = "CREATE TABLE country (code CHAR(2) PRIMARY KEY, name VARCHAR(64));";
    let out = advise(&d, sql, &["--rows", "1000", "--format", "json"]).expect_code(0);
    let r = json(&out.stdout);
    assert!(notes(&r).contains("distinct values in row order"), "{}", notes(&r));
    // 36 x 36 codes: more rows are refused naming the limit.
    let out = advise(&d, sql, &["--rows", "5000"]).expect_code(2);
    assert!(out.stderr.contains("t.sql:1:1: table `country`: column `code`"), "{}", out.stderr);
    assert!(out.stderr.contains("valid: --rows 1..=1296"), "{}", out.stderr);
    // A TINYINT key holds 256.
    let sql = "CREATE TABLE level (id TINYINT PRIMARY KEY, name VARCHAR(16));";
    let out = advise(&d, sql, &["--rows", "300"]).expect_code(2);
    assert!(out.stderr.contains("valid: --rows 1..=256"), "{}", out.stderr);
    advise(&d, sql, &["--rows", "200"]).expect_code(0);
}

/// TINYINT, ENUM, DATETIME(3), DOUBLE, YEAR, VARBINARY... in secondary indexes: the same
/// pages per index on the simulator and on a private MariaDB for every candidate.
#[test]
fn simulator_and_private_mariadb_agree_on_exact_mysql_types() {
    if !server_installed("simulator_and_private_mariadb_agree_on_exact_mysql_types") {
        return;
    }
    let (sim, _) = simulator_agrees_with_private_mariadb(MYSQL_TYPES, &["--rows", "20000"], 5);
    assert_eq!(sim.len(), 6);
}

/// smallint, jsonb, inet, bigserial, timestamptz, arrays...: the same pages per index (and
/// heap pages) on the nbtree model and on a private PostgreSQL 15, for every candidate.
#[test]
fn nbtree_model_and_private_postgres_agree_on_postgres_types() {
    if !installed_or_skip("nbtree_model_and_private_postgres_agree_on_postgres_types") {
        return;
    }
    let d = Dir::new();
    let run = |engine: &str| {
        let out =
            advise(&d, PG_TYPES, &["--rows", "20000", "--engine", engine, "--format", "json"])
                .expect_code(0);
        json(&out.stdout)
    };
    let (sim, server) = (run("sim"), run("postgres"));
    assert_eq!(sim["engine"]["model"], "postgres-15");
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!(sim.len(), server.len());
    for (s, m) in sim.iter().zip(server) {
        assert_eq!(s["indexes"].as_array().unwrap().len(), 4, "PRIMARY and 3 secondaries");
        super::pg::assert_same_pages(s, m);
    }
}

/// A type the chosen engine lacks is built as its nearest type there, with a note saying
/// what differs: a MySQL table on the nbtree model, a PostgreSQL one on the InnoDB model.
#[test]
fn a_type_the_engine_lacks_is_built_as_its_nearest_with_a_note() {
    let d = Dir::new();
    let out =
        advise(&d, MYSQL_TYPES, &["--rows", "500", "--model", "postgres-15", "--format", "json"])
            .expect_code(0);
    let n = notes(&json(&out.stdout));
    for want in [
        "column `station` (MEDIUMINT): built on PostgreSQL as integer (4 bytes, not 3)",
        "column `season` (YEAR): built on PostgreSQL as smallint",
        "column `taken_at` (DATETIME(3)): built on PostgreSQL as timestamp(3)",
    ] {
        assert!(n.contains(want), "{want}: {n}");
    }
    let out =
        advise(&d, PG_TYPES, &["--rows", "500", "--model", "mariadb-10.11", "--format", "json"])
            .expect_code(0);
    let n = notes(&json(&out.stdout));
    for want in [
        "column `client` (inet): built on InnoDB as VARBINARY(16)",
        "column `payload` (jsonb): built on InnoDB as LONGTEXT",
        "column `tags` (bigint[]): built on InnoDB as LONGTEXT",
    ] {
        assert!(n.contains(want), "{want}: {n}");
    }
}

/// The MySQL types on PostgreSQL (each as its nearest PostgreSQL type): the nbtree model
/// and a private PostgreSQL 15 give the same pages for every index and the same heap.
#[test]
fn nbtree_model_and_private_postgres_agree_on_mysql_types_built_as_their_nearest() {
    if !installed_or_skip(
        "nbtree_model_and_private_postgres_agree_on_mysql_types_built_as_their_nearest",
    ) {
        return;
    }
    let d = Dir::new();
    let run = |engine: &[&str]| {
        let mut args = vec!["--rows", "5000", "--keys", "auto-inc,uuid7:bin", "--format", "json"];
        args.extend_from_slice(engine);
        json(&advise(&d, MYSQL_TYPES, &args).expect_code(0).stdout)
    };
    let (sim, server) = (run(&["--model", "postgres-15"]), run(&["--engine", "postgres"]));
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!((sim.len(), server.len()), (3, 3));
    for (s, m) in sim.iter().zip(server) {
        super::pg::assert_same_pages(s, m);
    }
}

/// A PostgreSQL file on the nbtree model is built in its own types: no "nearest type" note.
#[test]
fn postgres_times_on_the_nbtree_model_are_not_noted() {
    let d = Dir::new();
    let sql = "CREATE TABLE s (id serial PRIMARY KEY, t timestamp(3), g time(0), v bytea);";
    let out = advise(&d, sql, &["--rows", "300", "--format", "json"]).expect_code(0);
    let r = json(&out.stdout);
    assert_eq!(r["engine"]["model"], "postgres-15");
    assert!(!notes(&r).contains("built on PostgreSQL as"), "{}", notes(&r));
}

/// The PostgreSQL types on MariaDB (each as its nearest InnoDB type: jsonb and arrays as
/// LONGTEXT, inet as VARBINARY(16), interval as BIGINT...): the InnoDB model and a private
/// MariaDB give the same pages for every index.
#[test]
fn simulator_and_private_mariadb_agree_on_postgres_types_built_as_their_nearest() {
    if !server_installed(
        "simulator_and_private_mariadb_agree_on_postgres_types_built_as_their_nearest",
    ) {
        return;
    }
    let d = Dir::new();
    let run = |engine: &[&str]| {
        let mut args = vec!["--rows", "5000", "--keys", "auto-inc,uuid7:bin", "--format", "json"];
        args.extend_from_slice(engine);
        json(&advise(&d, PG_TYPES, &args).expect_code(0).stdout)
    };
    let (sim, server) = (run(&["--model", "mariadb-10.11"]), run(&["--engine", "mariadb"]));
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!((sim.len(), server.len()), (3, 3));
    for (s, m) in sim.iter().zip(server) {
        assert_eq!(s["variant"], m["variant"]);
        for a in s["indexes"].as_array().unwrap() {
            let b = m["indexes"].as_array().unwrap().iter().find(|b| b["name"] == a["name"]);
            let b = b.expect("same index names");
            for k in ["size_pages", "leaf_pages"] {
                assert_eq!(a[k], b[k], "{} {} {k}", s["variant"], a["name"]);
            }
        }
    }
}
