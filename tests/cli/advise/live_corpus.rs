//! Issue 31's fidelity check on the real corpus: for tables of `../shared/corpus/` chosen to
//! cover every type family, the no-key rules and foreign keys, `keylab advise FILE --table T`
//! gives the same leaf and total pages for every index of every candidate on the model and on
//! a private server (MariaDB 10.11 for the MySQL files, PostgreSQL 15 for the PostgreSQL
//! ones), with the same rows (same seed); on PostgreSQL the heap pages too. Each run prints
//! a line per table (`--nocapture` shows them).
//!
//! The corpus has no MySQL BIT, JSON or fractional-second times and no PostgreSQL money,
//! macaddr or cidr: `types.rs` checks those on fixtures of its own. Without the corpus or a
//! server each test prints SKIPPED (a failure under `CI=true`).
//!
//! Partitions and partial indexes: pagila's `payment` (PARTITION BY RANGE on payment_date,
//! 55 monthly partitions) and osm's `notes` (`WHERE (user_id IS NOT NULL)`) are here; the
//! corpus has no MySQL `PARTITION BY` table, so `partitions.rs` checks those on fixtures.

use crate::util::{json, shared_dir, Dir};
use serde_json::Value;

/// One corpus table and what it brings to the check.
struct Case {
    file: &'static str,
    table: &'static str,
    /// Rows per candidate: small enough for a key type's range (a TINYINT UNSIGNED
    /// AUTO_INCREMENT key holds 255) and for a few minutes in all, large enough for
    /// several leaf pages of every index.
    rows: u32,
    covers: &'static str,
}

const fn case(file: &'static str, table: &'static str, rows: u32, covers: &'static str) -> Case {
    Case { file, table, rows, covers }
}

/// MySQL-dialect tables, run on the InnoDB model and on a private MariaDB.
const MYSQL: &[Case] = &[
    case(
        "sakila-mysql.sql",
        "film",
        3000,
        "YEAR, ENUM, SET, TINYINT/SMALLINT UNSIGNED, DECIMAL, TEXT, FK",
    ),
    case("sakila-mysql.sql", "rental", 3000, "DATETIME, MEDIUMINT UNSIGNED, composite UNIQUE, FK"),
    case("sakila-mysql.sql", "staff", 250, "BLOB, VARCHAR BINARY, BOOLEAN, TINYINT key"),
    case("sakila-mysql.sql", "film_text", 3000, "MyISAM table advised as InnoDB, FULLTEXT"),
    case("sakila-mysql.sql", "film_actor", 3000, "composite key of SMALLINT UNSIGNED"),
    case("employees-mysql.sql", "employees", 3000, "ENUM, DATE"),
    case("employees-mysql.sql", "dept_emp", 3000, "composite key INT + CHAR(4), FK"),
    case("employees-mysql.sql", "salaries", 3000, "composite key INT + DATE"),
    case("chinook-mysql.sql", "Track", 3000, "NUMERIC(10,2), NVARCHAR, FK"),
    case("mediawiki-mysql.sql", "page", 3000, "VARBINARY, BINARY(14), DOUBLE, INT UNSIGNED"),
    case("mediawiki-mysql.sql", "revision", 3000, "BIGINT UNSIGNED, TINYINT UNSIGNED"),
    case("mediawiki-mysql.sql", "user", 3000, "BLOB, VARBINARY unique key"),
    case("benchbase-tatp-mysql.sql", "subscriber", 3000, "many TINYINT, VARCHAR UNIQUE"),
    case("benchbase-tpcc-mysql.sql", "customer", 3000, "3-column key, DECIMAL, FLOAT"),
    case("benchbase-tpcc-mysql.sql", "history", 3000, "no key: hidden 6-byte row id"),
    case("benchbase-wikipedia-mysql.sql", "watchlist", 3000, "no key: UNIQUE NOT NULL clustered"),
    case("benchbase-auctionmark-mysql.sql", "item", 3000, "FLOAT, VARCHAR, composite"),
    case("benchbase-tpcds-mysql.sql", "item", 3000, "CHAR(16) text key, DECIMAL"),
];

/// PostgreSQL-dialect tables, run on the nbtree model and on a private PostgreSQL.
const POSTGRES: &[Case] = &[
    case(
        "pagila-schema-pg.sql",
        "film",
        3000,
        "enum, domain, tsvector, text[], numeric(4,2), smallint",
    ),
    case("pagila-schema-pg.sql", "customer", 3000, "boolean, date, text, FK"),
    case("pagila-schema-pg.sql", "staff", 250, "bytea, boolean"),
    case("pagila-schema-pg.sql", "rental", 3000, "timestamptz, composite UNIQUE"),
    case("pagila-schema-pg.sql", "film_actor", 3000, "composite key of smallint"),
    case("pagila-schema-pg.sql", "payment", 3000, "55 RANGE partitions by month, numeric"),
    case("sakila-jooq-pg.sql", "film", 3000, "enum, domain, tsvector, text[]"),
    case("osm-structure-pg.sql", "notes", 3000, "inet, enum, timestamp, a partial index"),
    case("osm-structure-pg.sql", "acls", 3000, "inet, character varying"),
    case("osm-structure-pg.sql", "current_relation_members", 3000, "enum in a composite key"),
    case("osm-structure-pg.sql", "noticed_events", 3000, "jsonb"),
    case("gitlab-structure-extract-pg.sql", "namespaces", 3000, "bigint[], text, smallint"),
    case("gitlab-structure-extract-pg.sql", "events", 3000, "bytea, character varying"),
    case("gitlab-ci_structure-pg.sql", "ci_build_report_results", 3000, "jsonb"),
    case("gitlab-ci_structure-pg.sql", "ci_build_trace_chunks", 3000, "bytea"),
    case("mediawiki-pg.sql", "page", 3000, "serial, text keys, float8"),
    case("mediawiki-pg.sql", "revision", 3000, "bigserial"),
    case("mediawiki-pg.sql", "filetypes", 3000, "smallserial, 3-text UNIQUE"),
    case("mediawiki-pg.sql", "uploadstash", 3000, "enum, varchar UNIQUE, timestamptz"),
    case("chinook-pg.sql", "track", 3000, "identity, numeric(10,2)"),
    case("benchbase-twitter-postgres.sql", "tweets", 3000, "serial"),
    case("benchbase-tpcc-postgres.sql", "history", 3000, "no key: a heap"),
];

const SEED: &str = "31";

/// Every candidate's runs of `case` on `engine` (`sim` or a server).
fn runs(d: &Dir, dir: &str, c: &Case, engine: &str) -> Vec<Value> {
    let path = format!("{dir}/{}", c.file);
    let rows = c.rows.to_string();
    let args = [
        "advise", &path, "--table", c.table, "--rows", &rows, "--seed", SEED, "--engine", engine,
        "--format", "json",
    ];
    let out = d.keylab(&args);
    assert_eq!(out.code, 0, "{} {} on {engine}: {}", c.file, c.table, out.stderr);
    let r = json(&out.stdout);
    if engine == "sim" && (c.file.contains("-pg") || c.file.contains("-postgres")) {
        // A PostgreSQL table on its own model, not on the InnoDB fallback.
        assert_eq!(r["engine"]["model"], "postgres-15", "{} {}", c.file, c.table);
    }
    r["runs"].as_array().expect("runs").clone()
}

/// Compares model and server run by run and index by index; returns (candidates, index
/// figures compared) or the differences.
fn compare(c: &Case, sim: &[Value], server: &[Value]) -> Result<(usize, usize), Vec<String>> {
    let mut diffs = Vec::new();
    let mut figures = 0;
    if sim.len() != server.len() {
        return Err(vec![format!(
            "{} candidates on the model, {} on the server",
            sim.len(),
            server.len()
        )]);
    }
    for (s, m) in sim.iter().zip(server) {
        let v = s["variant"].as_str().unwrap_or("?");
        assert_eq!(s["variant"], m["variant"], "{} {}", c.file, c.table);
        let (si, mi) = (s["indexes"].as_array().unwrap(), m["indexes"].as_array().unwrap());
        // The same indexes (the server lists them by name, the model in declared order).
        let names = |x: &[Value]| {
            let mut n = x.iter().map(|i| i["name"].to_string()).collect::<Vec<_>>();
            n.sort();
            n
        };
        if names(si) != names(mi) {
            diffs.push(format!(
                "{v}: indexes {:?} on the model, {:?} on the server",
                names(si),
                names(mi)
            ));
            continue;
        }
        for a in si {
            let b = mi.iter().find(|b| b["name"] == a["name"]).expect("same names");
            for k in ["leaf_pages", "size_pages"] {
                figures += 1;
                if a[k] != b[k] {
                    diffs.push(format!("{v} {} {k}: model {}, server {}", a["name"], a[k], b[k]));
                }
            }
        }
        if s["postgres"]["heap_pages"] != m["postgres"]["heap_pages"] {
            diffs.push(format!(
                "{v} heap_pages: model {}, server {}",
                s["postgres"]["heap_pages"], m["postgres"]["heap_pages"]
            ));
        }
    }
    if diffs.is_empty() {
        Ok((sim.len(), figures))
    } else {
        Err(diffs)
    }
}

/// Runs every case on the model and on `engine`, prints a line per table, and fails naming
/// every difference.
fn model_equals_server(cases: &[Case], engine: &str, test: &str) {
    let Some(dir) = shared_dir("corpus", test) else { return };
    let d = Dir::new();
    let mut failed = Vec::new();
    let (mut candidates, mut figures) = (0, 0);
    // One print at the end: the two engines' tests run side by side.
    let mut table = format!(
        "{:<34} {:<26} {:>5} {:>5} {:>7}  covers\n",
        "file", "table", "rows", "cands", "figures"
    );
    for c in cases {
        let (sim, server) = (runs(&d, &dir, c, "sim"), runs(&d, &dir, c, engine));
        let line = match compare(c, &sim, &server) {
            Ok((n, f)) => {
                candidates += n;
                figures += f;
                format!("{:<34} {:<26} {:>5} {n:>5} {f:>7}  {}", c.file, c.table, c.rows, c.covers)
            }
            Err(diffs) => {
                failed.push(format!("{} {}: {diffs:#?}", c.file, c.table));
                format!("{:<34} {:<26} DIFFERS: {diffs:?}", c.file, c.table)
            }
        };
        table.push_str(&line);
        table.push('\n');
    }
    println!(
        "{table}{} tables, {candidates} candidates, {figures} index figures (leaf and total \
         pages; heap pages too on PostgreSQL): model = {engine}",
        cases.len()
    );
    assert!(failed.is_empty(), "model and {engine} differ:\n{}", failed.join("\n"));
}

#[test]
fn the_innodb_model_equals_private_mariadb_on_corpus_tables() {
    let test = "the_innodb_model_equals_private_mariadb_on_corpus_tables";
    if !crate::util::server_installed(test) {
        return;
    }
    model_equals_server(MYSQL, "mariadb", test);
}

#[test]
fn the_nbtree_model_equals_private_postgres_on_corpus_tables() {
    let test = "the_nbtree_model_equals_private_postgres_on_corpus_tables";
    if !keylab_pg_server::installed_or_skip(test) {
        return;
    }
    model_equals_server(POSTGRES, "postgres", test);
}
