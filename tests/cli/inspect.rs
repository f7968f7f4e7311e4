//! `keylab inspect` on real tablespace files: MariaDB 10.11's (`tests/fixtures/ulid-2000.ibd`),
//! MySQL's own (`../shared/fixtures/mysql-sakila/` beside the repository, from innodb_ruby:
//! 5.7, 8.0 and 8.4 sakila tables, with index names and columns from 8.0+ files' dictionary;
//! SKIPPED without it, except under `CI=true`), and what is not one.

use crate::util::{json, Dir};
use serde_json::Value;

/// `tests/fixtures/ulid-2000.ibd`: MariaDB 10.11's file for 2,000 ULID rows (E1's table),
/// copied after `FLUSH TABLES t FOR EXPORT`.
#[test]
fn inspect_reads_a_real_tablespace() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ulid-2000.ibd");
    let d = Dir::new();
    let v = json(&d.keylab(&["inspect", fixture, "--json"]).expect_code(0).stdout);
    assert_eq!(v["page_size_bytes"], 16384);
    let ix = &v["indexes"][0];
    assert_eq!(ix["height"], 2);
    assert_eq!(ix["pages_per_level"], serde_json::json!([8, 1]));
    assert_eq!(ix["leaf_records"], 2000);
    let table = d.keylab(&["inspect", fixture]).expect_code(0);
    assert!(table.stdout.contains("8 / 1"), "{}", table.stdout);
}

#[test]
fn inspect_rejects_what_is_not_a_tablespace() {
    let d = Dir::new();
    std::fs::write(d.path("junk.ibd"), vec![7u8; 40_000]).unwrap();
    let run = d.keylab(&["inspect", "junk.ibd"]).expect_code(2);
    assert!(run.stderr.contains("junk.ibd"), "{}", run.stderr);
    d.keylab(&["inspect", "missing.ibd"]).expect_code(2);
}

fn fixture(dir: &str, version: &str, table: &str) -> String {
    format!("{dir}/{version}/{table}.ibd")
}

#[test]
fn inspect_names_the_indexes_of_mysql_8_files() {
    let Some(dir) = crate::util::shared_dir(
        "fixtures/mysql-sakila",
        "inspect_names_the_indexes_of_mysql_8_files",
    ) else {
        return;
    };
    let d = Dir::new();
    for (version, server) in [("8.0", "8.0.40"), ("8.4", "8.4.3")] {
        let text = d.keylab(&["inspect", &fixture(&dir, version, "actor")]).expect_code(0).stdout;
        let header =
            format!("table sakila.actor (from the file's dictionary, written by MySQL {server})");
        assert!(text.contains(&header), "{text}");
        assert!(
            text.contains("columns (4): actor_id smallint unsigned, first_name varchar(45)"),
            "{text}"
        );
        for name in ["PRIMARY", "idx_actor_last_name"] {
            assert!(text.contains(name), "{text}");
        }
        assert!(!text.contains("note:"), "{text}");

        let run = d.keylab(&["inspect", &fixture(&dir, version, "actor"), "--json"]).expect_code(0);
        let v: Value = serde_json::from_str(&run.stdout).unwrap();
        let names: Vec<&str> =
            v["indexes"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["PRIMARY", "idx_actor_last_name"]);
        assert_eq!(v["indexes"][1]["leaf_records"], 200);
        assert_eq!(v["sdi"]["tables"][0]["columns"][3]["sql_type"], "timestamp");
        assert_eq!(v["notes"], serde_json::json!([]));
    }
}

#[test]
fn inspect_says_mysql_5_7_files_keep_no_names() {
    let Some(dir) = crate::util::shared_dir(
        "fixtures/mysql-sakila",
        "inspect_says_mysql_5_7_files_keep_no_names",
    ) else {
        return;
    };
    let d = Dir::new();
    let text = d.keylab(&["inspect", &fixture(&dir, "5.7", "language")]).expect_code(0).stdout;
    assert!(text.contains("note: index names not in the file (MySQL 5.7 / MariaDB"), "{text}");
    let v: Value = serde_json::from_str(
        &d.keylab(&["inspect", &fixture(&dir, "5.7", "language"), "--json"]).expect_code(0).stdout,
    )
    .unwrap();
    assert_eq!(v["indexes"][0]["leaf_records"], 6);
    assert_eq!(v["indexes"][0]["name"], Value::Null);
    assert_eq!(v["sdi"], Value::Null);
}

/// A damaged dictionary costs the names, not the page figures.
#[test]
fn inspect_reads_the_pages_of_a_file_with_a_corrupt_dictionary() {
    let Some(dir) = crate::util::shared_dir(
        "fixtures/mysql-sakila",
        "inspect_reads_the_pages_of_a_file_with_a_corrupt_dictionary",
    ) else {
        return;
    };
    let d = Dir::new();
    let mut f = std::fs::read(fixture(&dir, "8.0", "language")).unwrap();
    f[3 * 16384 + 24] = 0; // the SDI root's page type
    std::fs::write(d.path("language.ibd"), f).unwrap();
    let text = d.keylab(&["inspect", "language.ibd"]).expect_code(0).stdout;
    assert!(text.contains("note: SDI: page 3 is not an SDI page"), "{text}");
    assert!(text.contains("6.0"), "records per leaf still shown: {text}");
}

/// A copy extended by a sparse tail, and one with a damaged page, are warned of with counts
/// (on standard error, in the text and in the JSON's `warnings`); the clean file has none.
/// The tail is 100 GiB of holes, counted from the file's length, not read.
#[test]
fn inspect_warns_of_a_sparse_tail_and_of_pages_failing_their_checksum() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ulid-2000.ibd");
    let d = Dir::new();
    let clean = d.keylab(&["inspect", fixture, "--json"]).expect_code(0);
    assert!(!clean.stderr.contains("warning"), "{}", clean.stderr);
    let v = json(&clean.stdout);
    assert!(v.get("warnings").is_none() && v.get("checksum_failed_pages").is_none(), "{v}");
    let pages = v["file_pages"].as_u64().unwrap();

    std::fs::copy(fixture, d.path("sparse.ibd")).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(d.path("sparse.ibd")).unwrap();
    f.set_len(f.metadata().unwrap().len() + (100 << 30)).unwrap();
    let start = std::time::Instant::now();
    let run = d.keylab(&["inspect", "sparse.ibd", "--json"]).expect_code(0);
    assert!(start.elapsed().as_secs() < 30, "the holes were read: {:?}", start.elapsed());
    let tail = (100u64 << 30) / 16384;
    let want = format!("sparse.ibd: {tail} pages (102400.0 MiB) lie past the");
    assert!(run.stderr.contains(&want), "{}", run.stderr);
    let v = json(&run.stdout);
    assert_eq!(v["tail_pages"], tail);
    assert_eq!(v["tail_zero_pages"], tail);
    assert_eq!(v["file_pages"], pages + tail);
    assert!(v["warnings"][0].as_str().unwrap().contains("all zero"), "{v}");
    // The figures are the file's own.
    assert_eq!(v["indexes"], json(&clean.stdout)["indexes"]);

    // A tail of written zeros (not holes) is read and told the same way.
    let mut bytes = std::fs::read(fixture).unwrap();
    bytes.extend(std::iter::repeat_n(0u8, 4 * 16384));
    std::fs::write(d.path("zeros.ibd"), &bytes).unwrap();
    let v = json(&d.keylab(&["inspect", "zeros.ibd", "--json"]).expect_code(0).stdout);
    assert_eq!((v["tail_pages"].as_u64(), v["tail_zero_pages"].as_u64()), (Some(4), Some(4)));

    // One damaged byte in page 3 (the index root): its checksum fails.
    let mut bytes = std::fs::read(fixture).unwrap();
    bytes[3 * 16384 + 16000] ^= 0xff;
    std::fs::write(d.path("damaged.ibd"), &bytes).unwrap();
    let run = d.keylab(&["inspect", "damaged.ibd"]).expect_code(0);
    let want = format!("damaged.ibd: 1 of {pages} pages fail their checksum");
    assert!(run.stderr.contains(&want), "{}", run.stderr);
    assert!(run.stdout.contains("warning: 1 of"), "{}", run.stdout);
    let v = json(&d.keylab(&["inspect", "damaged.ibd", "--json"]).expect_code(0).stdout);
    assert_eq!(v["checksum_failed_pages"], 1);
}

/// MySQL's own files pass their checksums: no warning on any sakila fixture.
#[test]
fn inspect_finds_mysqls_own_files_sound() {
    let Some(dir) =
        crate::util::shared_dir("fixtures/mysql-sakila", "inspect_finds_mysqls_own_files_sound")
    else {
        return;
    };
    let d = Dir::new();
    for version in ["5.7", "8.0", "8.4"] {
        for table in ["actor", "language"] {
            let run = d.keylab(&["inspect", &fixture(&dir, version, table)]).expect_code(0);
            assert!(!run.stderr.contains("warning"), "{version} {table}: {}", run.stderr);
        }
    }
}
