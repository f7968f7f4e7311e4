//! `keylab advise` for PostgreSQL: a pg_dump file on the nbtree model and on a private
//! PostgreSQL (the same pages per index), `--url postgres://` reading a user's table
//! read-only (checked in the server's statement log), and bad URLs and tables refused with
//! exit 2. The server tests need PostgreSQL: without it they print SKIPPED, except under
//! `CI=true`, where that fails.

use crate::util::{json, Dir};
use keylab_pg_server::{installed_or_skip, PgInstance, PgSettings};

const USERS: &str = include_str!("../../fixtures/advise/pg_users.sql");

fn notes(r: &serde_json::Value) -> String {
    r["engine"]["settings"]["notes"].to_string()
}

#[test]
fn a_postgres_file_runs_on_the_nbtree_model_and_says_so() {
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), USERS).unwrap();
    let run = d
        .keylab(&[
            "advise",
            "u.sql",
            "--rows",
            "3000",
            "--keys",
            "auto-inc,uuid7:bin",
            "--format",
            "json",
        ])
        .expect_code(0);
    let r = json(&run.stdout);
    assert_eq!(r["engine"]["model"], "postgres-15");
    assert!(
        notes(&r).contains("prediction of the nbtree page model of PostgreSQL 15"),
        "{}",
        notes(&r)
    );
    let runs = r["runs"].as_array().unwrap();
    let adv = |i: usize| &runs[i]["phases"][0];
    // A heap table's secondary entries hold a TID, not the key.
    assert_eq!(adv(2)["secondary_entry_bytes_change"], 0);
    assert_eq!(adv(2)["key_type"], "uuid");
    assert_eq!(adv(1)["ids_from"], "the database (identity)");
    // uuid4 (the current key's strategy) scatters; uuid7 appends.
    assert!(adv(0)["insert_working_set_pages"]["PRIMARY"].as_u64() > Some(5));
    assert_eq!(adv(2)["insert_working_set_pages"]["PRIMARY"].as_u64(), Some(1));
    // --model mariadb-10.11 puts the same file on the InnoDB model.
    let run = d
        .keylab(&[
            "advise",
            "u.sql",
            "--rows",
            "500",
            "--keys",
            "uuid7:bin",
            "--model",
            "mariadb-10.11",
            "--format",
            "json",
        ])
        .expect_code(0);
    assert_eq!(json(&run.stdout)["engine"]["model"], "mariadb-10.11");
}

#[test]
fn a_composite_index_runs_on_the_nbtree_model() {
    let d = Dir::new();
    let sql = USERS.replace("btree (handle)", "btree (handle, created_at)");
    std::fs::write(d.path("u.sql"), sql).unwrap();
    let run = d
        .keylab(&["advise", "u.sql", "--rows", "500", "--keys", "uuid7:bin", "--format", "json"])
        .expect_code(0);
    let r = json(&run.stdout);
    assert_eq!(r["engine"]["model"], "postgres-15");
    let n = notes(&r);
    assert!(!n.contains("modelled as InnoDB"), "{n}");
}

#[test]
fn an_index_without_an_nbtree_key_type_falls_back_to_innodb_naming_the_type() {
    let d = Dir::new();
    let sql = USERS.replace("    bio text\n", "    bio text,\n    price numeric(10,2)\n")
        + "CREATE INDEX users_price ON public.users USING btree (price);\n";
    std::fs::write(d.path("u.sql"), sql).unwrap();
    let run = d
        .keylab(&["advise", "u.sql", "--rows", "500", "--keys", "uuid7:bin", "--format", "json"])
        .expect_code(0);
    let r = json(&run.stdout);
    assert_eq!(r["engine"]["model"], "mariadb-10.11");
    let n = notes(&r);
    assert!(n.contains("PostgreSQL input modelled as InnoDB"), "{n}");
    assert!(n.contains("no key type for DECIMAL(10,2)"), "{n}");
    // Asked for explicitly, the nbtree model is refused with the reason and the choices.
    let run =
        d.keylab(&["advise", "u.sql", "--rows", "500", "--model", "postgres-15"]).expect_code(2);
    assert!(run.stderr.contains("no key type for DECIMAL(10,2)"), "{}", run.stderr);
    assert!(run.stderr.contains("valid here: mariadb-10.11, mysql-8.0"), "{}", run.stderr);
    let run = d.keylab(&["advise", "u.sql", "--engine", "postgres", "--model", "postgres-15"]);
    assert!(run.expect_code(2).stderr.contains("needs --engine sim"));
}

/// `pg_users.sql` with the user's fillfactors: 80 on the table, 70 on the primary key
/// (pg_dump writes it on the constraint) and on `users_created`.
fn users_with_fill_factors() -> String {
    include_str!("../../fixtures/advise/pg_users_fillfactor.sql").to_string()
}

#[test]
fn fill_factors_are_applied_on_the_nbtree_model_and_noted_on_innodb() {
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), users_with_fill_factors()).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["advise", "u.sql", "--rows", "3000", "--keys", "auto-inc"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        json(&d.keylab(&args).expect_code(0).stdout)
    };
    let (ff, plain) = (run(&[]), {
        std::fs::write(d.path("u.sql"), USERS).unwrap();
        let r = run(&[]);
        std::fs::write(d.path("u.sql"), users_with_fill_factors()).unwrap();
        r
    });
    let n = notes(&ff);
    assert!(n.contains("u.sql:15:7: fillfactor=80 of the table applied on the model"), "{n}");
    assert!(n.contains("u.sql:18:54: fillfactor=70 of the primary key applied"), "{n}");
    assert!(n.contains("fillfactor=70 of index `users_created` applied"), "{n}");
    let settings = &ff["engine"]["settings"];
    assert_eq!(settings["table_fillfactor"], 80);
    assert_eq!(settings["index_fillfactor"], 90, "the others keep the default");
    assert_eq!(settings["index_fillfactor_by_index"]["PRIMARY"], 70);
    // Without fillfactors nothing of this shows.
    assert!(plain["engine"]["settings"].get("index_fillfactor_by_index").is_none());
    assert!(!notes(&plain).contains("fillfactor"), "{}", notes(&plain));
    // Ascending auto-inc keys: the primary key's leaves fill to 70 %, not 90 % (the last
    // leaf, partly filled, pulls both averages down), and the heap keeps 20 % of every page
    // free.
    let fill = |r: &serde_json::Value| r["runs"][1]["indexes"][0]["fill_pct"].as_f64().unwrap();
    let leaves = |r: &serde_json::Value| r["runs"][1]["indexes"][0]["leaf_pages"].as_f64().unwrap();
    assert!(fill(&ff) < 71.5 && fill(&plain) - fill(&ff) > 10.0, "{} {}", fill(&ff), fill(&plain));
    assert!(leaves(&ff) > 1.2 * leaves(&plain), "{} vs {}", leaves(&ff), leaves(&plain));
    let heap = |r: &serde_json::Value| r["runs"][1]["postgres"]["heap_pages"].as_u64().unwrap();
    assert!(heap(&ff) > heap(&plain), "{} vs {}", heap(&ff), heap(&plain));
    // On the InnoDB model each value is read and named, not applied.
    let innodb = run(&["--model", "mariadb-10.11"]);
    let n = notes(&innodb);
    assert!(n.contains("u.sql:15:7: fillfactor=80 of the table read but not applied"), "{n}");
    assert!(n.contains("of index `users_created` read but not applied: InnoDB"), "{n}");
    // A fillfactor that is no percentage is refused at its place.
    let bad = users_with_fill_factors().replace("fillfactor='80'", "fillfactor='5'");
    std::fs::write(d.path("u.sql"), bad).unwrap();
    let out = d.keylab(&["advise", "u.sql", "--rows", "10"]).expect_code(2);
    assert!(out.stderr.contains("u.sql:15:7: FILLFACTOR 5 is not a percentage"), "{}", out.stderr);
}

/// The user's fillfactors hold on both sides: 80 on the heap, 70 on the primary key and on
/// one secondary index give the same pages per index and heap pages on the nbtree model and
/// on a private PostgreSQL 15 that creates the tables WITH them (within 0.5%).
#[test]
fn nbtree_model_and_private_postgres_agree_under_the_users_fill_factors() {
    if !installed_or_skip("nbtree_model_and_private_postgres_agree_under_the_users_fill_factors") {
        return;
    }
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), users_with_fill_factors()).unwrap();
    let run = |engine: &str| {
        let out = d
            .keylab(&[
                "advise",
                "u.sql",
                "--rows",
                "20000",
                "--keys",
                "auto-inc,uuid7:bin,uuid4:bin",
                "--engine",
                engine,
                "--format",
                "json",
            ])
            .expect_code(0);
        json(&out.stdout)
    };
    let (sim, server) = (run("sim"), run("postgres"));
    assert_eq!(sim["engine"]["model"], "postgres-15");
    assert_eq!(server["engine"]["settings"]["table_fillfactor"], 80);
    assert_eq!(server["engine"]["settings"]["index_fillfactor_by_index"]["users_created"], 70);
    assert!(notes(&server).contains("the server's index is created WITH (fillfactor = 70)"));
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!((sim.len(), server.len()), (4, 4));
    for (s, m) in sim.iter().zip(server) {
        assert_same_pages(s, m);
    }
    // The primary key of ascending ids is at its fillfactor on the server too.
    let pk = &server[1]["indexes"][0];
    assert_eq!(pk["name"], "PRIMARY");
    assert!((69.0..=71.5).contains(&pk["fill_pct"].as_f64().unwrap()), "{pk}");
}

#[test]
fn bad_postgres_urls_and_tables_exit_2_without_the_password() {
    let d = Dir::new();
    let cases: [(&[&str], &str); 4] = [
        (&["--url", "postgres://me:pw-Pg7-secret@db:notaport/app", "--table", "a.b"], "--url"),
        (&["--url", "postgres://me:pw-Pg7-secret@db:5432", "--table", "a.b"], "name the database"),
        (&["--url", "postgres://me:pw-Pg7-secret@db/app", "--table", "a.b.c"], "SCHEMA.TABLE"),
        (&["--url", "http://me:pw-Pg7-secret@db/app", "--table", "t"], "postgres://USER"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["advise"];
        args.extend_from_slice(extra);
        let run = d.keylab(&args).expect_code(2);
        assert!(run.stderr.contains(want), "{extra:?}: {}", run.stderr);
        assert!(!run.stderr.contains("pw-Pg7-secret"), "{}", run.stderr);
    }
}

/// The nbtree model holds for a user's PostgreSQL table: a uuid key, a unique varchar key,
/// nullable columns and single-column indexes on a varchar and a timestamp give the same
/// pages per index on the model and on a private PostgreSQL 15, for every candidate (within
/// 0.5%; at this size they agree exactly).
#[test]
fn nbtree_model_and_private_postgres_agree_on_a_users_table() {
    if !installed_or_skip("nbtree_model_and_private_postgres_agree_on_a_users_table") {
        return;
    }
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), USERS).unwrap();
    let run = |engine: &str| {
        let out = d
            .keylab(&["advise", "u.sql", "--rows", "20000", "--engine", engine, "--format", "json"])
            .expect_code(0);
        json(&out.stdout)
    };
    let (sim, server) = (run("sim"), run("postgres"));
    assert_eq!(sim["engine"]["model"], "postgres-15");
    assert_eq!(server["engine"]["kind"], "postgres");
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!(sim.len(), 6);
    assert_eq!(server.len(), 6);
    for (s, m) in sim.iter().zip(server) {
        assert_eq!(s["indexes"].as_array().unwrap().len(), 4, "PRIMARY and 3 secondaries");
        assert_eq!(m["indexes"].as_array().unwrap().len(), 4);
        assert_same_pages(s, m);
    }
}

/// One candidate's run on the model (`sim`) and on the server: the same variant, the same
/// pages per index (size and leaves, within 0.5%) and the same heap pages.
pub(super) fn assert_same_pages(sim: &serde_json::Value, server: &serde_json::Value) {
    assert_eq!(sim["variant"], server["variant"]);
    for a in sim["indexes"].as_array().unwrap() {
        let b = server["indexes"].as_array().unwrap().iter().find(|b| b["name"] == a["name"]);
        let b = b.expect("same index names");
        for k in ["size_pages", "leaf_pages"] {
            let (x, y) = (a[k].as_f64().unwrap(), b[k].as_f64().unwrap());
            assert!(
                (x - y).abs() <= y * 0.005,
                "{} {} {k}: model {x}, server {y}",
                sim["variant"],
                a["name"]
            );
        }
    }
    assert_eq!(
        sim["postgres"]["heap_pages"], server["postgres"]["heap_pages"],
        "{}",
        sim["variant"]
    );
}

/// `--url postgres://... --table SCHEMA.TABLE` on a private instance holding the user's
/// table: the definition (identity key, unique key, a composite, a partial and an expression
/// index, all on the nbtree model), the row count and the sampled widths are read right, the password never shows,
/// and the server's statement log of keylab's role holds only reads.
#[test]
fn url_reads_a_postgres_users_table_read_only() {
    if !installed_or_skip("url_reads_a_postgres_users_table_read_only") {
        return;
    }
    let users = PgInstance::start(&PgSettings::default()).expect("user's server");
    let mut admin = users.config("postgres").connect(postgres::NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE app").unwrap();
    let mut app = users.config("app").connect(postgres::NoTls).unwrap();
    app.batch_execute(
        "CREATE SCHEMA shop; \
         CREATE TABLE shop.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY \
         WITH (fillfactor = 70), customer_id integer NOT NULL, email varchar(191) UNIQUE, \
         note text, created_at timestamp(0) NOT NULL DEFAULT now()) WITH (fillfactor = 90); \
         CREATE INDEX ix_customer_created ON shop.orders (customer_id, created_at) \
         WITH (fillfactor = 60); \
         CREATE INDEX ix_lower ON shop.orders (lower(email)); \
         CREATE INDEX ix_recent ON shop.orders (created_at) WHERE customer_id > 5; \
         INSERT INTO shop.orders (customer_id, email, note) SELECT i % 37, \
         'user' || lpad(i::text, 6, '0') || '@example.org', 'note-xy' \
         FROM generate_series(0, 499) AS i; \
         CREATE ROLE reader LOGIN PASSWORD 'pw-Rd42-secret'; \
         GRANT USAGE ON SCHEMA shop TO reader; GRANT SELECT ON shop.orders TO reader; \
         ALTER ROLE reader SET log_statement = 'all'",
    )
    .unwrap();
    let url = format!("postgres://reader:pw-Rd42-secret@127.0.0.1:{}/app", users.port());
    let d = Dir::new();
    let run = d
        .keylab(&[
            "advise",
            "--url",
            &url,
            "--table",
            "shop.orders",
            "--keys",
            "uuid7:bin",
            "--format",
            "json",
        ])
        .expect_code(0);
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains("pw-Rd42-secret"), "{text}");
    }
    let r = json(&run.stdout);
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["rows"], 500, "the table's row count");
    let names: Vec<&str> = runs[0]["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["PRIMARY", "orders_email_key", "ix_customer_created", "ix_lower", "ix_recent"]
    );
    // The composite index is within the nbtree model: PostgreSQL's own model, identity ids.
    assert_eq!(r["engine"]["model"], "postgres-15");
    assert_eq!(runs[0]["phases"][0]["ids_from"], "the database (identity)");
    let n = notes(&r);
    for want in [
        "500 rows counted",
        "email 22 bytes",
        "note 7 bytes",
        "auto-inc ids",
        "index `ix_lower` is on an expression",
        "fillfactor=90 of the table applied on the model",
        "fillfactor=70 of the primary key applied on the model",
        "fillfactor=60 of index `ix_customer_created` applied on the model",
    ] {
        assert!(n.contains(want), "{want}: {n}");
    }
    let settings = &r["engine"]["settings"];
    assert_eq!(settings["table_fillfactor"], 90);
    assert_eq!(settings["index_fillfactor_by_index"]["PRIMARY"], 70);
    assert_eq!(settings["index_fillfactor_by_index"]["ix_customer_created"], 60);
    let log = std::fs::read_to_string(users.dir().join("server.log")).unwrap();
    let statements: Vec<&str> = log
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("LOG:  ")?;
            let rest = rest.strip_prefix("statement: ").or_else(|| {
                rest.strip_prefix("execute ").and_then(|e| e.split_once(": ").map(|(_, s)| s))
            })?;
            Some(rest)
        })
        .collect();
    assert!(statements.iter().any(|s| s.starts_with("BEGIN READ ONLY")), "{statements:?}");
    assert!(statements.iter().any(|s| s.contains("pg_get_indexdef")), "{statements:?}");
    for s in &statements {
        let head = s.trim_start().to_ascii_uppercase();
        let read = ["SELECT", "SHOW", "BEGIN READ ONLY", "COMMIT", "SET "]
            .iter()
            .any(|r| head.starts_with(r));
        assert!(read, "a statement that is not a read: {s}");
    }
    let count: i64 = app.query_one("SELECT count(*) FROM shop.orders", &[]).unwrap().get(0);
    assert_eq!(count, 500);
    let relations: i64 = app
        .query_one("SELECT count(*) FROM pg_class WHERE relnamespace = 'shop'::regnamespace", &[])
        .unwrap()
        .get(0);
    assert_eq!(relations, 7, "the table, its sequence and 5 indexes: nothing added");
}

/// `--url postgres://... --table` naming what keylab cannot advise on (a view, a materialized
/// view, a partitioned table, a sequence, a table of pg_catalog or information_schema) is
/// refused with exit 2 naming the table and why, never a panic.
#[test]
fn url_refuses_postgres_views_and_system_tables() {
    if !installed_or_skip("url_refuses_postgres_views_and_system_tables") {
        return;
    }
    let users = PgInstance::start(&PgSettings::default()).expect("user's server");
    let mut admin = users.config("postgres").connect(postgres::NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE app").unwrap();
    let mut app = users.config("app").connect(postgres::NoTls).unwrap();
    app.batch_execute(
        "CREATE TABLE orders (id bigint PRIMARY KEY, note text); \
         CREATE VIEW recent AS SELECT id, note FROM orders; \
         CREATE MATERIALIZED VIEW frozen AS SELECT id, note FROM orders; \
         CREATE TABLE parts (id bigint, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at); \
         CREATE SEQUENCE counter; \
         CREATE ROLE reader LOGIN PASSWORD 'pw-Rd42-secret'; \
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader",
    )
    .unwrap();
    let url = format!("postgres://reader:pw-Rd42-secret@127.0.0.1:{}/app", users.port());
    super::assert_url_tables_refused(
        &url,
        "pw-Rd42-secret",
        &[
            ("recent", "a view: a view has no storage of its own"),
            ("public.frozen", "a materialized view"),
            ("parts", "a partitioned table"),
            ("counter", "a sequence"),
            ("pg_catalog.pg_class", "system schema"),
            ("information_schema.tables", "system schema"),
        ],
    );
}
