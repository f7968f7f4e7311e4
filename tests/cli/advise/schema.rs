//! `keylab advise FILE.sql` without `--table` on a file of several tables: one summary of
//! every table (the report's `schema` section), ranked by bytes saved with children; refused
//! tables as lines with their place; exit 0 when one table was advised, 2 when none was.

use crate::util::{json, Dir, Run};

const SHOP: &str = include_str!("../../fixtures/advise/shop.sql");

fn advise(d: &Dir, sql: &str, extra: &[&str]) -> Run {
    std::fs::write(d.path("shop.sql"), sql).unwrap();
    let mut args = vec!["advise", "shop.sql"];
    args.extend_from_slice(extra);
    d.keylab(&args)
}

/// The JSON of `keylab advise shop.sql --rows 3000` is the report crate's golden fixture, so
/// its snapshots (text, Markdown, CSV, HTML, JSON) are what the command prints. Regenerate
/// it with `cd tests/fixtures/advise && keylab advise shop.sql --rows 3000 --format json >
/// ../../../crates/report/tests/fixtures/advise_schema.json`.
#[test]
fn the_summary_is_the_golden_fixture() {
    let d = Dir::new();
    let run = advise(&d, SHOP, &["--rows", "3000", "--format", "json"]).expect_code(0);
    let got = json(&run.stdout);
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/crates/report/tests/fixtures/advise_schema.json");
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(got, want, "regenerate the fixture (see this test's doc) and review the diff");
}

#[test]
fn every_table_is_ranked_with_its_children_and_the_refused_one_is_a_line() {
    let d = Dir::new();
    let run = advise(&d, SHOP, &["--rows", "2000", "--format", "json"]).expect_code(0);
    let r = json(&run.stdout);
    assert_eq!(r["runs"].as_array().unwrap().len(), 0);
    let s = &r["schema"];
    assert_eq!(s["rows_per_table"], 2000);
    assert_eq!(s["dialect"], "mysql");
    let tables = s["tables"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["table"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names.contains(&"audit_log"), "a table without a key is advised: {names:?}");
    // Ranked: bytes saved with children never rises down the list.
    let saved: Vec<i64> =
        tables.iter().map(|t| t["bytes_saved_with_children"].as_i64().unwrap()).collect();
    assert!(saved.windows(2).all(|w| w[0] >= w[1]), "{saved:?}");
    let customer = tables.iter().find(|t| t["table"] == "customer").unwrap();
    assert_eq!(customer["current_key"], "id BINARY(16)");
    let best_bytes = match customer["best_key_type"].as_str().unwrap() {
        "BIGINT" => 8,
        "BINARY(16)" => 16,
        other => panic!("{other}"),
    };
    let child = &customer["children"][0];
    assert_eq!(child["table"], "orders");
    assert_eq!(child["columns"], serde_json::json!(["customer_id"]));
    // customer_id is in the row and in ix_customer, not in ix_placed (which carries `id`).
    assert_eq!(child["records"], serde_json::json!(["PRIMARY", "ix_customer"]));
    assert_eq!(child["width_change_bytes"], best_bytes - 16);
    assert_eq!(child["bytes_added"], 2000 * (best_bytes - 16) * 2);
    let (now, best) =
        (customer["bytes_now"].as_i64().unwrap(), customer["bytes_best"].as_i64().unwrap());
    assert_eq!(customer["bytes_saved"], now - best);
    assert_eq!(
        customer["bytes_saved_with_children"],
        now - best - child["bytes_added"].as_i64().unwrap()
    );
    let refused = s["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0]["table"], "legacy_counter");
    assert_eq!(refused[0]["at"], "shop.sql:40:3");
    assert!(refused[0]["reason"]
        .as_str()
        .unwrap()
        .contains("ROW_FORMAT=COMPRESSED is not modelled"));

    let text = advise(&d, SHOP, &["--rows", "2000"]).expect_code(0).stdout;
    for want in [
        "2000 rows per table",
        "Tables, most bytes saved (children included) first",
        "Children:",
        "How child bytes are counted",
        "Refused tables:",
        "shop.sql:40:3",
        "ROW_FORMAT=COMPRESSED is not modelled",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
}

#[test]
fn the_default_is_a_hundred_thousand_rows_per_table() {
    let d = Dir::new();
    let sql = "CREATE TABLE a (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY);\n\
               CREATE TABLE b (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY);";
    let run = advise(&d, sql, &["--keys", "auto-inc", "--format", "json"]).expect_code(0);
    assert_eq!(json(&run.stdout)["schema"]["rows_per_table"], 100_000);
}

#[test]
fn no_table_advised_exits_2_with_every_reason() {
    let d = Dir::new();
    let sql = "CREATE TABLE a (x INT PRIMARY KEY) ROW_FORMAT=COMPRESSED;\n\
               CREATE TABLE b (y INT PRIMARY KEY) ROW_FORMAT=REDUNDANT;";
    let run = advise(&d, sql, &["--rows", "100"]).expect_code(2);
    for want in [
        "shop.sql:1:36: ROW_FORMAT=COMPRESSED is not modelled",
        "shop.sql:2:36: ROW_FORMAT=REDUNDANT",
    ] {
        assert!(run.stderr.contains(want), "{want}:\n{}", run.stderr);
    }
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn flags_of_one_table_are_refused_or_kept() {
    let d = Dir::new();
    let run = advise(&d, SHOP, &["--engine", "mariadb"]).expect_code(2);
    assert!(
        run.stderr.contains("--engine mariadb") && run.stderr.contains("--table"),
        "{}",
        run.stderr
    );
    let run = advise(&d, SHOP, &["--width", "nope=3"]).expect_code(2);
    assert!(run.stderr.contains("--width nope"), "{}", run.stderr);
    // --table keeps the one-table report: runs, no schema section.
    let run = advise(&d, SHOP, &["--table", "orders", "--rows", "500", "--format", "json"]);
    let r = json(&run.expect_code(0).stdout);
    assert_eq!(r["scenario"], "advise orders");
    assert!(r.get("schema").is_none());
    assert!(!r["runs"].as_array().unwrap().is_empty());
    let run = advise(&d, SHOP, &["--table", "legacy_counter"]).expect_code(2);
    assert!(
        run.stderr.contains("shop.sql:40:3: ROW_FORMAT=COMPRESSED is not modelled"),
        "{}",
        run.stderr
    );
}

#[test]
fn jobs_change_no_figure() {
    let d = Dir::new();
    let one = advise(&d, SHOP, &["--rows", "1500", "--jobs", "1", "--format", "json"]);
    let two = advise(&d, SHOP, &["--rows", "1500", "--jobs", "2", "--format", "json"]);
    assert_eq!(one.expect_code(0).stdout, two.expect_code(0).stdout);
}

/// Chinook in both dialects (eleven foreign keys: `CONSTRAINT ... FOREIGN KEY` in the MySQL
/// file, `ALTER TABLE ONLY ... ADD CONSTRAINT` in pg_dump's): every table advised, and every foreign key carried to its child, the same
/// parent-child links in both.
#[test]
fn chinook_foreign_keys_are_carried_in_both_dialects() {
    let Some(dir) =
        crate::util::shared_dir("corpus", "chinook_foreign_keys_are_carried_in_both_dialects")
    else {
        return;
    };
    let d = Dir::new();
    let mut links = Vec::new();
    for file in ["chinook-mysql.sql", "chinook-pg.sql"] {
        let path = format!("{dir}/{file}");
        let run = d.keylab(&["advise", &path, "--rows", "500", "--format", "json"]);
        let s = json(&run.expect_code(0).stdout)["schema"].clone();
        assert_eq!(s["tables"].as_array().unwrap().len(), 11, "{file}");
        assert!(s["refused"].as_array().unwrap().is_empty(), "{file}: {}", s["refused"]);
        let norm = |v: &serde_json::Value| v.as_str().unwrap().to_lowercase().replace('_', "");
        let mut pairs: Vec<(String, String, String)> = Vec::new();
        for t in s["tables"].as_array().unwrap() {
            for c in t["children"].as_array().unwrap() {
                pairs.push((norm(&t["table"]), norm(&c["table"]), norm(&c["columns"][0])));
                assert!(c["bytes_added"].is_i64(), "{file}: {c}");
            }
        }
        pairs.sort();
        assert_eq!(pairs.len(), 11, "{file}: {pairs:?}");
        links.push(pairs);
    }
    assert_eq!(links[0], links[1]);
}

/// A pg_dump schema: its tables on the nbtree model (heap tables), the foreign key added by
/// `ALTER TABLE ONLY`, the child's records a heap tuple and the indexes holding the column
/// (a heap's other indexes point at a TID, not at the key), each changing by its aligned
/// tuple bytes.
#[test]
fn a_postgres_child_counts_its_heap_tuple_and_its_own_indexes() {
    let sql = "CREATE TABLE public.parent (\n    id integer NOT NULL\n);\n\
               CREATE TABLE public.child (\n    id bigint NOT NULL,\n    parent_id integer,\n    \
               note character varying(20)\n);\n\
               ALTER TABLE ONLY public.parent ADD CONSTRAINT parent_pkey PRIMARY KEY (id);\n\
               ALTER TABLE ONLY public.child ADD CONSTRAINT child_pkey PRIMARY KEY (id);\n\
               CREATE INDEX child_parent_idx ON public.child USING btree (parent_id);\n\
               CREATE INDEX child_note_idx ON public.child USING btree (note);\n\
               ALTER TABLE ONLY public.child\n    ADD CONSTRAINT child_parent_fk FOREIGN KEY \
               (parent_id) REFERENCES public.parent(id);\n";
    let d = Dir::new();
    let run = advise(&d, sql, &["--rows", "1000", "--format", "json"]).expect_code(0);
    let r = json(&run.stdout);
    assert_eq!(r["engine"]["model"], "postgres-15");
    let s = &r["schema"];
    assert_eq!(s["dialect"], "postgres");
    let parent = s["tables"].as_array().unwrap().iter().find(|t| t["table"] == "parent").unwrap();
    assert_eq!(parent["current_key"], "id integer");
    let child = &parent["children"][0];
    assert_eq!(child["records"], serde_json::json!(["heap tuple", "child_parent_idx"]));
    let best = parent["best_key_type"].as_str().unwrap();
    assert_eq!(child["width_change_bytes"], if best == "bigint" { 4 } else { 12 }, "{best}");
    // Tuples are MAXALIGNed: an index tuple of one integer is 8 + 4 -> 16 bytes, of a bigint
    // 8 + 8 = 16 (no change), of a uuid 8 + 16 = 24; the heap tuple moves by whole 8s.
    let changes: Vec<i64> = child["record_change_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap())
        .collect();
    assert_eq!(changes[1], if best == "bigint" { 0 } else { 8 }, "{best}");
    assert_eq!(changes[0] % 8, 0, "{changes:?}");
    assert_eq!(child["bytes_added"], 1000 * changes.iter().sum::<i64>());
}
