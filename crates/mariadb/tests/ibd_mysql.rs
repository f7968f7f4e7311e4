//! The tablespace reader on MySQL's own files: the sakila `actor` and `language` tables as
//! MySQL 5.7, 8.0 and 8.4 wrote them (`../shared/fixtures/mysql-sakila/` beside the
//! repository, from innodb_ruby, with their licences; SKIPPED without it, except under `CI=true`).
//! Record counts equal the tables' rows on every version; on 8.0 and 8.4 the file's own
//! dictionary names the indexes and lists the columns; 5.7 files say they have none. Corrupt
//! copies of an 8.0 file never panic.

use keylab_mariadb::ibd::{read_tablespace, read_tablespace_from, TablespaceReport, NO_SDI_NOTE};
use std::path::PathBuf;

/// The sakila files' folder in `../shared`, or `None` after printing SKIPPED (a panic under
/// `CI=true`, where `../shared` is always beside the clone).
fn sakila(test: &str) -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/mysql-sakila");
    if dir.is_dir() {
        return Some(dir);
    }
    let why = format!("{test}: no {} (../shared beside the repository)", dir.display());
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("SKIPPED: {why}");
    None
}

fn fixture(dir: &std::path::Path, version: &str, table: &str) -> PathBuf {
    dir.join(version).join(format!("{table}.ibd"))
}

fn read(dir: &std::path::Path, version: &str, table: &str) -> TablespaceReport {
    let path = fixture(dir, version, table);
    read_tablespace(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (table, rows, index names in id order, columns as "name type").
const SAKILA: [(&str, u64, &[&str], &[&str]); 2] = [
    (
        "actor",
        200,
        &["PRIMARY", "idx_actor_last_name"],
        &[
            "actor_id smallint unsigned",
            "first_name varchar(45)",
            "last_name varchar(45)",
            "last_update timestamp",
        ],
    ),
    (
        "language",
        6,
        &["PRIMARY"],
        &["language_id tinyint unsigned", "name char(20)", "last_update timestamp"],
    ),
];

#[test]
fn record_counts_equal_the_tables_rows_on_every_version() {
    let Some(dir) = sakila("record_counts_equal_the_tables_rows_on_every_version") else { return };
    for version in ["5.7", "8.0", "8.4"] {
        for (table, rows, names, _) in SAKILA {
            let r = read(&dir, version, table);
            assert_eq!(r.page_size_bytes, 16384);
            assert_eq!(r.corrupt_index_pages, 0, "{version} {table}");
            assert_eq!(r.indexes.len(), names.len(), "{version} {table}");
            for ix in &r.indexes {
                assert_eq!(ix.leaf_records, rows, "{version} {table} index {}", ix.index_id);
            }
        }
    }
}

#[test]
fn mysql_8_files_name_their_indexes_and_columns() {
    let Some(dir) = sakila("mysql_8_files_name_their_indexes_and_columns") else { return };
    for (version, server) in [("8.0", "8.0.40"), ("8.4", "8.4.3")] {
        for (table, _, names, columns) in SAKILA {
            let r = read(&dir, version, table);
            assert!(r.notes.is_empty(), "{version} {table}: {:?}", r.notes);
            let got: Vec<_> =
                r.indexes.iter().map(|ix| ix.name.as_deref().unwrap_or("?")).collect();
            assert_eq!(got, names, "{version} {table}");
            let sdi = r.sdi.as_ref().expect("an SDI");
            assert_eq!(sdi.mysql_version.as_deref(), Some(server));
            assert_eq!(sdi.tables.len(), 1);
            let t = &sdi.tables[0];
            assert_eq!((t.schema.as_str(), t.name.as_str()), ("sakila", table));
            let cols: Vec<_> =
                t.columns.iter().map(|c| format!("{} {}", c.name, c.sql_type)).collect();
            assert_eq!(cols, columns, "{version} {table}");
            // Every id the pages carry is in the dictionary; PRIMARY's root is page 4, after
            // the SDI's root on page 3 (MySQL's file-per-table layout).
            let roots: Vec<_> = r
                .indexes
                .iter()
                .map(|ix| sdi.index(ix.index_id).expect("named").root_page)
                .collect();
            assert_eq!(roots[0], Some(4), "{version} {table}");
            assert!(roots.iter().all(|p| p.is_some_and(|p| p >= 4)), "{roots:?}");
        }
    }
}

#[test]
fn mysql_5_7_files_say_their_names_are_elsewhere() {
    let Some(dir) = sakila("mysql_5_7_files_say_their_names_are_elsewhere") else { return };
    for (table, ..) in SAKILA {
        let r = read(&dir, "5.7", table);
        assert_eq!(r.sdi, None);
        assert!(r.indexes.iter().all(|ix| ix.name.is_none()));
        assert_eq!(r.notes, [NO_SDI_NOTE]);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
    /// Edits aimed at page 0's SDI pointer (10505..10513), the SDI root (page 3) and
    /// anywhere else; the reader returns a report, an error or notes, never a panic.
    #[test]
    fn corrupt_mysql_8_files_never_panic(
        pointer in proptest::collection::vec((10505usize..10513, proptest::num::u8::ANY), 0..4),
        root in proptest::collection::vec((3 * 16384usize..4 * 16384, proptest::num::u8::ANY), 0..32),
        anywhere in proptest::collection::vec((0usize..8 * 16384, proptest::num::u8::ANY), 0..8),
    ) {
        let Some(dir) = sakila("corrupt_mysql_8_files_never_panic") else { return Ok(()) };
        let mut f = std::fs::read(fixture(&dir, "8.0", "actor")).unwrap();
        for (at, v) in pointer.into_iter().chain(root).chain(anywhere) {
            f[at] = v;
        }
        let _ = read_tablespace_from(&f[..]);
    }
}
