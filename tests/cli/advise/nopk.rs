//! Tables without a PRIMARY KEY: the current table is loaded as it is (InnoDB clusters it on
//! its first UNIQUE index over NOT NULL columns, else on a hidden 6-byte row id; PostgreSQL
//! keeps a heap with no key index), each candidate adds a key column. The model equals a
//! private MariaDB on every index of both kinds.

use super::{advise, simulator_agrees_with_private_mariadb};
use crate::util::{json, server_installed, Dir};

/// benchbase TPC-C's `history` (no key at all) with a secondary index.
const HISTORY: &str = "CREATE TABLE history (\n  h_c_id INT NOT NULL,\n  h_d_id INT NOT NULL,\n  \
    h_date DATETIME NOT NULL,\n  h_amount DECIMAL(6,2) NOT NULL,\n  h_data VARCHAR(24) NOT NULL,\n  \
    KEY idx_c (h_c_id)\n) ENGINE=InnoDB;\n";

/// The same with a nullable UNIQUE key (not clustered) and a NOT NULL one (clustered).
const HISTORY_UK: &str = "CREATE TABLE history (\n  h_c_id INT NOT NULL,\n  h_d_id INT NOT NULL,\n  \
    h_date DATETIME NOT NULL,\n  h_amount DECIMAL(6,2) NOT NULL,\n  h_data VARCHAR(24) NOT NULL,\n  \
    h_note VARCHAR(10) NULL,\n  KEY idx_c (h_c_id),\n  UNIQUE KEY u_null (h_note),\n  \
    UNIQUE KEY uk (h_c_id, h_date)\n) ENGINE=InnoDB;\n";

fn notes(r: &serde_json::Value) -> String {
    r["engine"]["settings"]["notes"].to_string()
}

#[test]
fn a_table_without_a_key_is_advised_on_naming_its_clustered_index() {
    let d = Dir::new();
    let run = advise(&d, HISTORY, &["--rows", "3000", "--keys", "auto-inc", "--format", "json"]);
    let r = json(&run.expect_code(0).stdout);
    let n = notes(&r);
    assert!(n.contains("clustered on the hidden 6-byte row id"), "{n}");
    assert!(n.contains("each candidate adds a column keylab_id"), "{n}");
    let adv = &r["runs"][0]["phases"][0];
    assert_eq!(adv["key_entry_bytes"], 6, "secondary entries carry the row id");
    assert_eq!(adv["key_type"], "hidden DB_ROW_ID (6 bytes)");
    assert_eq!(adv["ids_from"], "the database (hidden row id)");
    assert_eq!(r["runs"][1]["phases"][0]["secondary_entry_bytes_change"], 2, "BIGINT vs 6");
    // With a UNIQUE NOT NULL key, that key is clustered (the old refusal claimed the row id).
    let run = advise(&d, HISTORY_UK, &["--rows", "3000", "--keys", "auto-inc", "--format", "json"]);
    let r = json(&run.expect_code(0).stdout);
    let n = notes(&r);
    assert!(n.contains("clustered on UNIQUE KEY uk (h_c_id, h_date)"), "{n}");
    assert!(!n.contains("row id"), "{n}");
    let names: Vec<&str> = r["runs"][0]["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["PRIMARY", "idx_c", "u_null"], "uk is the clustered index");
    assert_eq!(r["runs"][1]["indexes"].as_array().unwrap().len(), 4, "keylab_id, then all 3");
}

#[test]
fn a_descending_unique_key_that_would_be_clustered_is_refused() {
    let sql = HISTORY_UK.replace("uk (h_c_id, h_date)", "uk (h_c_id, h_date DESC)");
    let run = advise(&Dir::new(), &sql, &["--rows", "100"]).expect_code(2);
    assert!(
        run.stderr.contains("clusters on UNIQUE KEY `uk`, which has a DESC part"),
        "{}",
        run.stderr
    );
}

/// Model equals a private MariaDB 10.11 on leaf and total pages of every index, for the
/// current table (hidden row id; promoted UNIQUE key) and its candidates.
#[test]
fn simulator_and_private_mariadb_agree_on_tables_without_a_key() {
    if !server_installed("simulator_and_private_mariadb_agree_on_tables_without_a_key") {
        return;
    }
    let extra = ["--rows", "20000", "--keys", "auto-inc,uuid4:bin"];
    let (sim, _) = simulator_agrees_with_private_mariadb(HISTORY, &extra, 2);
    assert_eq!(sim.len(), 3);
    let d = Dir::new();
    let run = |engine: &str| {
        let mut args = vec!["--engine", engine, "--format", "json"];
        args.extend_from_slice(&extra);
        json(&advise(&d, HISTORY_UK, &args).expect_code(0).stdout)["runs"].clone()
    };
    let (sim, server) = (run("sim"), run("mariadb"));
    let (sim, server) = (sim.as_array().unwrap(), server.as_array().unwrap());
    assert_eq!((sim.len(), server.len()), (3, 3));
    for (s, m) in sim.iter().zip(server) {
        let (si, mi) = (s["indexes"].as_array().unwrap(), m["indexes"].as_array().unwrap());
        assert_eq!(si.len(), mi.len(), "{}", s["variant"]);
        for (a, b) in si.iter().zip(mi) {
            assert_eq!(a["name"], b["name"]);
            for k in ["size_pages", "leaf_pages"] {
                assert_eq!(a[k], b[k], "{} {} {k}", s["variant"], a["name"]);
            }
        }
    }
}

/// `history` as pg_dump prints it: no key (a heap), a secondary index, and optionally a
/// UNIQUE constraint over NOT NULL columns (on PostgreSQL just another index).
fn pg_history(unique: bool) -> String {
    let mut sql = "CREATE TABLE public.history (\n    h_c_id integer NOT NULL,\n    \
        h_d_id integer NOT NULL,\n    h_date timestamp(0) without time zone NOT NULL,\n    \
        h_data character varying(24) NOT NULL\n);\n\
        CREATE INDEX idx_c ON public.history USING btree (h_c_id);\n"
        .to_string();
    if unique {
        sql.push_str(
            "ALTER TABLE ONLY public.history\n    ADD CONSTRAINT uk UNIQUE (h_c_id, h_date);\n",
        );
    }
    sql
}

#[test]
fn a_postgres_table_without_a_key_runs_on_the_nbtree_model_as_a_heap() {
    let d = Dir::new();
    let run = advise(
        &d,
        &pg_history(false),
        &["--rows", "3000", "--keys", "auto-inc", "--format", "json"],
    );
    let r = json(&run.expect_code(0).stdout);
    assert_eq!(r["engine"]["model"], "postgres-15");
    let names: Vec<&str> = r["runs"][0]["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["idx_c"], "a heap: no key index");
    assert_eq!(r["runs"][0]["phases"][0]["key_type"], "none (a heap)");
    assert_eq!(r["runs"][1]["indexes"].as_array().unwrap().len(), 2, "keylab_id's, idx_c");
}

/// The nbtree model equals a private PostgreSQL 15 on leaf and total pages of every index
/// and on heap pages, for both tables and their candidates.
#[test]
fn nbtree_model_and_private_postgres_agree_on_tables_without_a_key() {
    if !keylab_pg_server::installed_or_skip(
        "nbtree_model_and_private_postgres_agree_on_tables_without_a_key",
    ) {
        return;
    }
    for unique in [false, true] {
        let d = Dir::new();
        let sql = pg_history(unique);
        let run = |engine: &str| {
            let args = [
                "--rows",
                "20000",
                "--keys",
                "auto-inc,uuid4:bin",
                "--engine",
                engine,
                "--format",
                "json",
            ];
            json(&advise(&d, &sql, &args).expect_code(0).stdout)["runs"].clone()
        };
        let (sim, server) = (run("sim"), run("postgres"));
        let (sim, server) = (sim.as_array().unwrap(), server.as_array().unwrap());
        assert_eq!((sim.len(), server.len()), (3, 3));
        for (s, m) in sim.iter().zip(server) {
            let (si, mi) = (s["indexes"].as_array().unwrap(), m["indexes"].as_array().unwrap());
            assert_eq!(si.len(), mi.len(), "{}", s["variant"]);
            for a in si {
                let b = mi.iter().find(|b| b["name"] == a["name"]).expect("same names");
                for k in ["size_pages", "leaf_pages"] {
                    assert_eq!(a[k], b[k], "unique {unique} {} {} {k}", s["variant"], a["name"]);
                }
            }
            assert_eq!(
                s["postgres"]["heap_pages"], m["postgres"]["heap_pages"],
                "{}",
                s["variant"]
            );
        }
    }
}

/// The corpus's tables without a PRIMARY KEY, advised on from their whole files (refused
/// before): on InnoDB with the clustered index named, and the PostgreSQL files' on the
/// nbtree model as heaps.
#[test]
fn the_corpus_tables_without_a_key_are_advised_on() {
    let Some(dir) =
        crate::util::shared_dir("corpus", "the_corpus_tables_without_a_key_are_advised_on")
    else {
        return;
    };
    let cases = [
        ("benchbase-tpcc-mysql.sql", "history", "hidden 6-byte row id", true),
        ("benchbase-epinions-mysql.sql", "review", "hidden 6-byte row id", true),
        ("benchbase-epinions-mysql.sql", "trust", "hidden 6-byte row id", true),
        ("benchbase-voter-mysql.sql", "votes", "hidden 6-byte row id", true),
        // The PostgreSQL file has `serial` columns elsewhere, not modelled yet.
        ("benchbase-wikipedia-mysql.sql", "watchlist", "UNIQUE KEY wl_user", false),
        ("benchbase-wikipedia-mysql.sql", "user_groups", "clustered on UNIQUE KEY", false),
    ];
    let d = Dir::new();
    for (file, table, clustered, also_pg) in cases {
        for pg in [false, true].into_iter().filter(|&pg| also_pg || !pg) {
            let file = if pg { file.replace("-mysql", "-postgres") } else { file.to_string() };
            let path = format!("{dir}/{file}");
            let mut args = vec!["advise", &path, "--table", table, "--rows", "1000"];
            args.extend(["--keys", "auto-inc", "--format", "json"]);
            if pg {
                args.extend(["--model", "postgres-15"]);
            }
            let r = json(&d.keylab(&args).expect_code(0).stdout);
            let n = notes(&r);
            assert!(n.contains("has no PRIMARY KEY"), "{file} {table}: {n}");
            if pg {
                assert_eq!(r["runs"][0]["phases"][0]["key_type"], "none (a heap)", "{file}");
            } else {
                assert!(n.contains(clustered), "{file} {table}: {n}");
            }
        }
    }
}
