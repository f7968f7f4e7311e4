//! `keylab advise FILE.sql`: a user's table under candidate keys. Bad input exits 2 naming
//! file:line:column or the flag with the valid choices; a run gives every candidate's advice
//! figures, labelled predictions on the simulator.

// The same on PostgreSQL tables and servers.
mod pg;
// PostgreSQL's own limits, text, date and wide keys on the nbtree model.
mod pg_keys;
// Tables without a PRIMARY KEY.
mod nopk;

// The real-schema corpus read whole.
mod corpus;
// The model against private servers on real corpus tables.
mod live_corpus;

// A file of migrations against the server's end state.
mod migrations;

// Every declared type built as declared; code tables.
mod types;

// Every table of a schema file at once.
mod schema;

// Partitioned tables, partial and expression indexes.
mod partitions;

// What the server of the file's dialect refuses.
mod server_refusals;

use crate::util::{server_installed, users_server, Dir, Run};

const ORDERS: &str = include_str!("../../fixtures/advise/orders.sql");

fn advise(d: &Dir, sql: &str, extra: &[&str]) -> Run {
    std::fs::write(d.path("t.sql"), sql).unwrap();
    let mut args = vec!["advise", "t.sql"];
    args.extend_from_slice(extra);
    d.keylab(&args)
}

#[track_caller]
fn refused(sql: &str, extra: &[&str], parts: &[&str]) {
    let d = Dir::new();
    let run = advise(&d, sql, extra).expect_code(2);
    for p in parts {
        assert!(run.stderr.contains(p), "stderr lacks {p:?}:\n{}", run.stderr);
    }
}

#[test]
fn what_cannot_be_modelled_is_refused_at_its_place() {
    // At its own statement, refusing its table only.
    let two = "CREATE TABLE a (id INT PRIMARY KEY);\n\
               CREATE TABLE t (id INT PRIMARY KEY) ROW_FORMAT=COMPRESSED;";
    refused(two, &["--table", "t"], &["t.sql:2:37: ROW_FORMAT=COMPRESSED is not modelled"]);
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY)\nPARTITION BY LINEAR HASH (id) PARTITIONS 4;",
        &[],
        &["t.sql:2:14: PARTITION BY LINEAR HASH/KEY is not modelled", "valid: RANGE, LIST"],
    );
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY) ROW_FORMAT=COMPRESSED;",
        &[],
        &["t.sql:1:37: ROW_FORMAT=COMPRESSED is not modelled", "valid: DYNAMIC, COMPACT"],
    );
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY)\n  ENGINE=InnoDB ROW_FORMAT=REDUNDANT;",
        &[],
        &["t.sql:2:17: ROW_FORMAT=REDUNDANT is not modelled", "valid: DYNAMIC, COMPACT"],
    );
    refused(
        "CREATE TABLE t (id INT PRIMARY KEY) KEY_BLOCK_SIZE=8;",
        &[],
        &["t.sql:1:37: KEY_BLOCK_SIZE (compressed pages) is not modelled"],
    );
    refused("CREATE TABLE t (id INT,, x INT);", &[], &["t.sql:1:"]);
    // InnoDB's key-part limit in COMPACT (error 1709 on MariaDB 10.11.19 for this table).
    refused(
        "\nCREATE TABLE t (\n  id BIGINT PRIMARY KEY,\n  title VARCHAR(255) NOT NULL,\n  KEY \
         ix_title (title)\n) DEFAULT CHARSET=utf8mb4 ROW_FORMAT=COMPACT;",
        &[],
        &[
            "t.sql:2:1: table `t`, candidate current: key `ix_title` has a part of 1020 bytes",
            "error 1709",
            "valid: ROW_FORMAT=DYNAMIC, or a prefix of at most 191 characters",
        ],
    );
}

/// Table options InnoDB would store differently and keylab does not model are named with
/// their place in the notes, as is text the SQL parser stops before; ROW_FORMAT=COMPACT is
/// modelled and says nothing.
#[test]
fn unmodelled_table_options_are_noted_at_their_place() {
    let d = Dir::new();
    let sql = "CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(20))\n  ENGINE=InnoDB \
               ROW_FORMAT=COMPACT COMPRESSION='zlib' FILLFACTOR=80 STATS_PERSISTENT=1;";
    let run = advise(&d, sql, &["--rows", "200", "--keys", "auto-inc", "--format", "json"]);
    let r: serde_json::Value = serde_json::from_str(&run.expect_code(0).stdout).unwrap();
    let notes = r["engine"]["settings"]["notes"].to_string();
    assert!(notes.contains("t.sql:2:36: table option COMPRESSION=zlib is not modelled"), "{notes}");
    // No MySQL option and unknown to the SQL parser: what it stops before is named.
    assert!(notes.contains("t.sql:2:55: `FILLFACTOR=80 STATS_PERSISTENT=1` not read"), "{notes}");
    assert!(!notes.contains("ROW_FORMAT"), "{notes}");
}

#[test]
fn table_and_width_flags_name_the_valid_choices() {
    refused(
        "CREATE TABLE a (x INT PRIMARY KEY); CREATE TABLE b (y INT PRIMARY KEY);",
        &["--table", "c"],
        &["no table `c`", "--table", "valid: a, b"],
    );
    refused(ORDERS, &["--table", "nope"], &["no table `nope`", "valid: orders"]);
    refused(ORDERS, &["--width", "nope=3"], &["--width nope=3", "valid: id, status, email"]);
    refused(ORDERS, &["--width", "total=3"], &["fixed-length", "valid: id, status, email"]);
    refused(ORDERS, &["--width", "status=300"], &["at most 80 bytes", "valid: 0..=80"]);
    refused(ORDERS, &["--width", "status"], &["COLUMN=BYTES"]);
    refused(ORDERS, &["--keys", "uuid9"], &["uuid9"]);
    let d = Dir::new();
    let run = d.keylab(&["advise", "missing.sql"]).expect_code(2);
    assert!(run.stderr.contains("missing.sql: cannot read the DDL file"), "{}", run.stderr);
}

#[test]
fn help_says_nothing_of_the_users_is_changed() {
    let run = Dir::new().keylab(&["advise", "--help"]).expect_code(0);
    let text = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "From a file, no server of yours is contacted",
        "your server is only read",
        "Nothing is created, changed or locked",
    ] {
        assert!(text.contains(want), "{want}: {}", run.stdout);
    }
}

#[test]
fn every_candidate_is_advised_on_as_a_prediction() {
    let d = Dir::new();
    let sql = format!("{ORDERS}\n");
    let sql = sql.replace(
        "KEY `ix_created` (`created_at`)",
        "KEY `ix_created` (`created_at`),\n  FULLTEXT KEY `ft` (`email`)",
    );
    let run = advise(&d, &sql, &["--rows", "3000", "--format", "json"]).expect_code(0);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let runs = json["runs"].as_array().unwrap();
    let labels: Vec<&str> = runs.iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(labels, ["current", "auto-inc", "uuid4:bin", "uuid7:bin", "ulid:bin", "snowflake"]);
    for r in runs {
        assert_eq!(r["indexes"].as_array().unwrap().len(), 5, "PRIMARY and 4 secondaries");
        let advice =
            r["phases"].as_array().unwrap().iter().find(|p| p["kind"] == "advice").unwrap();
        assert!(advice["total_bytes"].as_u64().unwrap() > 0);
        assert!(advice["insert_working_set_pages"]["PRIMARY"].as_u64().unwrap() >= 1);
    }
    let adv = |i: usize, k: &str| runs[i]["phases"][0][k].clone();
    // uuid4 scatters PRIMARY inserts; uuid7 appends.
    assert!(adv(2, "insert_working_set_pages")["PRIMARY"].as_u64() > Some(20));
    assert_eq!(adv(3, "insert_working_set_pages")["PRIMARY"].as_u64(), Some(1));
    // CHAR(36) ascii to BINARY(16): 20 bytes less in every secondary entry.
    assert_eq!(adv(3, "secondary_entry_bytes_change").as_i64(), Some(-20));
    assert!(adv(3, "total_bytes_change_pct").as_f64().unwrap() < 0.0);
    let notes = json["engine"]["settings"]["notes"].to_string();
    for want in ["prediction", "t.sql:13:", "FULLTEXT index `ft` skipped", "Recommendation:"] {
        assert!(notes.contains(want), "{want}: {notes}");
    }
    assert_eq!(json["engine"]["settings"]["figures"], "simulated");
}

#[test]
fn the_same_seed_gives_the_same_advice() {
    let d = Dir::new();
    let a = advise(&d, ORDERS, &["--rows", "2000", "--keys", "uuid7:bin", "--format", "csv"])
        .expect_code(0);
    let b = advise(&d, ORDERS, &["--rows", "2000", "--keys", "uuid7:bin", "--format", "csv"])
        .expect_code(0);
    assert_eq!(a.stdout, b.stdout);
}

/// The model holds for a user's table, not only the built-in ones: a VARCHAR key, nullable
/// columns, a composite unique key, a unique key, a composite key and a key on a nullable
/// column give the same pages per index on the simulator and on a private MariaDB, for
/// every candidate (within 0.5%; at this size they agree exactly).
#[test]
fn simulator_and_private_mariadb_agree_on_a_users_table() {
    if !server_installed("simulator_and_private_mariadb_agree_on_a_users_table") {
        return;
    }
    let sql = include_str!("../../fixtures/advise/accounts.sql");
    // PRIMARY and 4 secondaries.
    let (sim, server) = simulator_agrees_with_private_mariadb(sql, &["--rows", "20000"], 5);
    assert_eq!((sim.len(), server.len()), (6, 6));
    for m in &server {
        // Measured, so no working set (a server does not say which page an insert went to).
        let advice =
            m["phases"].as_array().unwrap().iter().find(|p| p["kind"] == "advice").unwrap();
        assert!(advice["insert_working_set_pool_bytes"].is_null());
    }
}

/// Prefix key parts (`KEY ix (name(10))`, utf8mb4 and latin1, alone and first in a
/// composite key) are stored as the server stores them: the same pages per index on the
/// simulator and on a private MariaDB for every candidate (within 0.5%; exact at this size),
/// and far fewer leaves than the whole columns would take.
#[test]
fn simulator_and_private_mariadb_agree_on_prefix_key_parts() {
    if !server_installed("simulator_and_private_mariadb_agree_on_prefix_key_parts") {
        return;
    }
    let sql = include_str!("../../fixtures/advise/prefix.sql");
    // PRIMARY and 3 prefix indexes.
    let (sim, _) = simulator_agrees_with_private_mariadb(sql, &["--rows", "20000"], 4);
    assert_eq!(sim.len(), 6);
    let whole_sql = sql.replace("`name`(10)", "`name`");
    let whole =
        advise(&Dir::new(), &whole_sql, &["--rows", "20000", "--format", "json"]).expect_code(0);
    let whole: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
    let ix_name_leaves =
        |run: &serde_json::Value| run["indexes"][1]["leaf_pages"].as_u64().unwrap();
    assert!(
        ix_name_leaves(&sim[0]) * 2 < ix_name_leaves(&whole["runs"][0]),
        "the prefix is stored"
    );
}

/// `keylab advise FILE extra --format json` on the simulator and on a private MariaDB: every
/// candidate's `size_pages` and `leaf_pages` per index within 0.5% of the server's, and each
/// candidate with `n_indexes` indexes. Returns the simulator's runs and the server's.
fn simulator_agrees_with_private_mariadb(
    sql: &str,
    extra: &[&str],
    n_indexes: usize,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let d = Dir::new();
    let run = |engine: &str| {
        let mut args = vec!["--engine", engine, "--format", "json"];
        args.extend_from_slice(extra);
        let out = advise(&d, sql, &args).expect_code(0);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        if engine == "mariadb" {
            assert_eq!(v["engine"]["kind"], "mariadb", "measured on the server");
        }
        v["runs"].as_array().unwrap().clone()
    };
    let (sim, server) = (run("sim"), run("mariadb"));
    assert_eq!(sim.len(), server.len());
    for (s, m) in sim.iter().zip(&server) {
        assert_eq!(s["variant"], m["variant"]);
        let (si, mi) = (s["indexes"].as_array().unwrap(), m["indexes"].as_array().unwrap());
        assert_eq!((si.len(), mi.len()), (n_indexes, n_indexes));
        for (a, b) in si.iter().zip(mi) {
            assert_eq!(a["name"], b["name"]);
            for k in ["size_pages", "leaf_pages"] {
                let (x, y) = (a[k].as_f64().unwrap(), b[k].as_f64().unwrap());
                assert!(
                    (x - y).abs() <= y * 0.005,
                    "{} {} {k}: sim {x}, server {y}",
                    s["variant"],
                    a["name"]
                );
            }
        }
    }
    (sim, server)
}

/// TIME, YEAR, BIT, SET, INET6, JSON (read as the modelled type of the same stored bytes),
/// unsigned integers, a nullable composite key and a binary-collated unique key: the same
/// pages per index on the simulator and on a private MariaDB for every candidate (exact at
/// this size). These types were refused on every engine before.
#[test]
fn simulator_and_private_mariadb_agree_on_mariadb_types() {
    if !server_installed("simulator_and_private_mariadb_agree_on_mariadb_types") {
        return;
    }
    let sql = include_str!("../../fixtures/advise/types.sql");
    let (sim, _) = simulator_agrees_with_private_mariadb(sql, &["--rows", "20000"], 6);
    assert_eq!(sim.len(), 6);
}

/// Long values that go off-page (DYNAMIC): PRIMARY's leaf pages count the BLOB pages on both
/// engines (the contract's `leaf_pages`; the server's figure counted B-tree leaves only, 751
/// against the simulator's 3,751 for the current key).
#[test]
fn simulator_and_private_mariadb_agree_on_off_page_columns() {
    if !server_installed("simulator_and_private_mariadb_agree_on_off_page_columns") {
        return;
    }
    let sql = include_str!("../../fixtures/advise/offpage.sql");
    let extra = ["--rows", "3000", "--keys", "uuid4:bin", "--width", "body=12000"];
    let (sim, _) = simulator_agrees_with_private_mariadb(
        sql,
        &[&extra[..], &["--width", "summary=3000"]].concat(),
        4,
    );
    let primary = &sim[0]["indexes"][0];
    // One BLOB page per 12,000-byte body: most of PRIMARY's leaf pages.
    assert!(primary["leaf_pages"].as_u64().unwrap() > 3000, "{primary}");
}

/// DESC key parts (MariaDB >= 10.8 stores them in descending order): the same pages per
/// index on both engines; ascending, the simulator's `ix_kind_desc` had 66 leaves against the
/// server's 68.
#[test]
fn simulator_and_private_mariadb_agree_on_descending_key_parts() {
    if !server_installed("simulator_and_private_mariadb_agree_on_descending_key_parts") {
        return;
    }
    let sql = include_str!("../../fixtures/advise/descending.sql");
    simulator_agrees_with_private_mariadb(sql, &["--rows", "20000", "--keys", "uuid4:bin"], 5);
}

/// `--url ... --table DB.TABLE` on a private server holding the user's table: the definition,
/// the row count and the sampled widths are read right, the password never shows, and the
/// server's general log holds only reads from keylab's connection.
#[test]
fn url_reads_a_users_table_read_only() {
    use mysql::prelude::Queryable;
    if !server_installed("url_reads_a_users_table_read_only") {
        return;
    }
    let (users_server, mut admin) = users_server();
    admin
        .query_drop(
            "CREATE DATABASE app; \
             CREATE TABLE app.orders (id BIGINT NOT NULL AUTO_INCREMENT, customer_id INT NOT \
             NULL, email VARCHAR(191) DEFAULT NULL, note TEXT, PRIMARY KEY (id), UNIQUE KEY \
             uk_email (email), KEY ix_customer (customer_id)) ENGINE=InnoDB; \
             CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY 'pw-Rd42-secret'; \
             GRANT SELECT ON *.* TO 'reader'@'127.0.0.1'",
        )
        .unwrap();
    for i in 0..500 {
        // email: 22 bytes; note: 7 bytes.
        admin
            .exec_drop(
                "INSERT INTO app.orders (customer_id, email, note) VALUES (?, ?, 'note-xy')",
                (i % 37, format!("user{i:06}@example.org")),
            )
            .unwrap();
    }
    admin.query_drop("SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = ON").unwrap();
    let url = format!("mysql://reader:pw-Rd42-secret@127.0.0.1:{}", users_server.port());
    let d = Dir::new();
    let run = d
        .keylab(&[
            "advise",
            "--url",
            &url,
            "--table",
            "app.orders",
            "--keys",
            "uuid7:bin",
            "--format",
            "json",
        ])
        .expect_code(0);
    admin.query_drop("SET GLOBAL general_log = OFF").unwrap();
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains("pw-Rd42-secret"), "{text}");
    }
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["rows"], 500, "the table's row count");
    let names: Vec<&str> = runs[0]["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["PRIMARY", "uk_email", "ix_customer"]);
    let notes = json["engine"]["settings"]["notes"].to_string();
    for want in ["500 rows counted", "email 22 bytes", "note 7 bytes", "auto-inc ids"] {
        assert!(notes.contains(want), "{want}: {notes}");
    }
    let statements: Vec<String> = admin
        .query(
            "SELECT CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE command_type = \
             'Query' AND user_host LIKE 'reader%'",
        )
        .unwrap();
    assert!(statements.iter().any(|s| s.starts_with("SHOW CREATE TABLE")), "{statements:?}");
    for s in &statements {
        let head = s.trim_start().to_ascii_uppercase();
        let read = ["SELECT", "SHOW", "START TRANSACTION READ ONLY", "COMMIT", "SET NAMES"]
            .iter()
            .any(|r| head.starts_with(r));
        assert!(read, "a statement that is not a read: {s}");
    }
    let count: Vec<u64> = admin.query("SELECT COUNT(*) FROM app.orders").unwrap();
    assert_eq!(count, vec![500]);
}

#[test]
fn a_bad_url_is_a_usage_error_and_never_shows_the_password() {
    let d = Dir::new();
    let run = d
        .keylab(&["advise", "--url", "mysql://me:pw-Bad9-secret@db:notaport", "--table", "a.b"])
        .expect_code(2);
    assert!(run.stderr.contains("--url"), "{}", run.stderr);
    assert!(!run.stderr.contains("pw-Bad9-secret"), "{}", run.stderr);
    let run = d.keylab(&["advise", "--url", "mysql://me@db"]).expect_code(2);
    assert!(run.stderr.contains("--table"), "{}", run.stderr);
    let run =
        d.keylab(&["advise", "--url", "mysql://me@db:3306", "--table", "orders"]).expect_code(2);
    assert!(run.stderr.contains("DATABASE.TABLE"), "{}", run.stderr);
    d.keylab(&["advise"]).expect_code(2);
}

/// The runs and notes of `advise --format json` on `sql`, with `extra` flags.
fn advise_json(d: &Dir, sql: &str, extra: &[&str]) -> (serde_json::Value, Vec<String>) {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let run = advise(d, sql, &args).expect_code(0);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let notes = json["engine"]["settings"]["notes"].as_array().unwrap();
    let notes = notes.iter().map(|n| n.as_str().unwrap().to_string()).collect();
    (json, notes)
}

/// Candidates that build the same trees are built once (ulid:bin takes uuid7:bin's trees,
/// snowflake auto-inc's), and the report is the one of building each on its own but for the
/// note saying so; candidates whose keys are not both ascending are built each.
#[test]
fn candidates_with_the_same_trees_are_built_once_with_the_same_figures() {
    let d = Dir::new();
    let keys = ["--rows", "100000", "--keys", "auto-inc,uuid4:bin,uuid7:bin,ulid:bin,snowflake"];
    let (shared, shared_notes) = advise_json(&d, ORDERS, &keys);
    let mut own_args = keys.to_vec();
    own_args.push("--no-shared-builds");
    let (own, own_notes) = advise_json(&d, ORDERS, &own_args);
    assert_eq!(shared["runs"], own["runs"]);
    let (built_once, other_notes): (Vec<String>, Vec<String>) =
        shared_notes.into_iter().partition(|n| n.ends_with("built once"));
    assert_eq!(other_notes, own_notes);
    assert_eq!(
        built_once,
        [
            "ulid:bin: the same trees as uuid7:bin (both BINARY(16), both ascending in every \
             insert): built once",
            "snowflake: the same trees as auto-inc (both BIGINT, both ascending in every \
             insert): built once"
        ]
    );
    let mut shared = shared;
    shared["engine"]["settings"]["notes"] = serde_json::json!(other_notes);
    assert_eq!(shared, own);
}

/// `--url ... --table` naming what keylab cannot advise on (a view, a table of the `mysql`
/// system schema, an Aria or MyISAM table) is refused with exit 2 naming the table and why,
/// never a panic.
#[test]
fn url_refuses_views_system_and_non_innodb_tables() {
    use mysql::prelude::Queryable;
    if !server_installed("url_refuses_views_system_and_non_innodb_tables") {
        return;
    }
    let (users_server, mut admin) = users_server();
    admin
        .query_drop(
            "CREATE DATABASE app; \
             CREATE TABLE app.orders (id BIGINT NOT NULL PRIMARY KEY, note TEXT) ENGINE=InnoDB; \
             CREATE VIEW app.recent AS SELECT id, note FROM app.orders; \
             CREATE TABLE app.old (id INT NOT NULL PRIMARY KEY) ENGINE=MyISAM; \
             CREATE TABLE app.logs (id INT NOT NULL PRIMARY KEY) ENGINE=Aria; \
             CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY 'pw-Rd42-secret'; \
             GRANT SELECT, SHOW VIEW ON *.* TO 'reader'@'127.0.0.1'",
        )
        .unwrap();
    let url = format!("mysql://reader:pw-Rd42-secret@127.0.0.1:{}", users_server.port());
    assert_url_tables_refused(
        &url,
        "pw-Rd42-secret",
        &[
            ("app.recent", "a view"),
            ("mysql.user", "system schema"),
            ("mysql.db", "system schema"),
            ("information_schema.TABLES", "system schema"),
            ("app.old", "a MyISAM table, not InnoDB"),
            ("app.logs", "an Aria table, not InnoDB"),
        ],
    );
}

/// `advise --url URL --table T` exits 2 for each `(T, why)`, naming `--table T` and `why`,
/// with no panic and without `password` (both servers' refusal tests).
pub(super) fn assert_url_tables_refused(url: &str, password: &str, cases: &[(&str, &str)]) {
    let d = Dir::new();
    for (table, why) in cases {
        let run = d.keylab(&["advise", "--url", url, "--table", table]);
        assert_eq!(run.code, 2, "{table}: {}", run.stderr);
        assert!(run.stderr.contains(&format!("--table {table}")), "{table}: {}", run.stderr);
        assert!(run.stderr.contains(why), "{table} ({why}): {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(!run.stderr.contains(password), "{}", run.stderr);
    }
}

/// One table keylab cannot model refuses only itself: `--table` of another table of the file
/// answers, saying which dialect the file was read in and why; `--dialect` overrides it.
#[test]
fn each_table_of_a_file_is_judged_on_its_own() {
    let d = Dir::new();
    let sql = "CREATE TABLE good (id bigint PRIMARY KEY, at timestamptz);\n\
               CREATE TABLE bad (id bigint PRIMARY KEY) PARTITION BY RANGE (id);";
    let args = ["--table", "good", "--rows", "200", "--keys", "auto-inc", "--format", "json"];
    let run = advise(&d, sql, &args).expect_code(0);
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let notes = r["engine"]["settings"]["notes"].to_string();
    assert!(
        notes.contains("t.sql: read as PostgreSQL: PostgreSQL marks (`timestamptz`)"),
        "{notes}"
    );
    assert!(notes.contains("0 other table(s) read, 1 refused"), "{notes}");
    refused(sql, &["--table", "bad"], &["t.sql:2:42: a partitioned table without partitions"]);
    refused(sql, &["--table", "nope"], &["valid: good; refused: bad"]);
    let mut flagged = args.to_vec();
    flagged.extend(["--dialect", "mysql"]);
    let run = advise(&d, "CREATE TABLE good (id bigint PRIMARY KEY);", &flagged).expect_code(0);
    assert!(run.stdout.contains("read as MySQL: --dialect"), "{}", run.stdout);
    refused(sql, &["--dialect", "oracle"], &["--dialect", "mysql, postgres"]);
}

// A workload of reads and inserts weighed per candidate (issue 28).
mod workload;
