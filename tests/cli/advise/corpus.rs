//! The real-schema corpus (`../shared/corpus/`: public schema files in both dialects, see its
//! SOURCES.md) read whole: every table a file creates is found by name, read or refused on
//! its own (never a file-level failure), each file is read in its own dialect, and at least
//! as many tables are read as when this test was written. Prints a table per file.
//!
//! Without the corpus it prints SKIPPED (a failure under `CI=true`; `crate::util::shared_dir`).

use crate::util::{json, Dir};
use keylab_ddl::{SourceDialect, TableError};
use std::collections::BTreeMap;

/// Tables read (not refused) over the whole corpus when this floor was set; fewer is a
/// regression.
const READ_FLOOR: usize = 608;

/// The tables a file creates, read with a rule of this test's own (lines that start with
/// `CREATE [UNLOGGED] TABLE`, unindented: one indented is in a routine's body), not with the
/// reader under test.
fn created_tables(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in sql.lines().filter(|l| !l.starts_with(char::is_whitespace)) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
        let mut i = match upper.as_slice() {
            [c, t, ..] if c == "CREATE" && t == "TABLE" => 2,
            [c, m, t, ..] if c == "CREATE" && t == "TABLE" && m == "UNLOGGED" => 3,
            _ => continue,
        };
        if upper.get(i).is_some_and(|w| w == "IF") {
            i += 3;
        }
        let Some(name) = words.get(i) else { continue };
        // MediaWiki writes `/*_*/name` (its table prefix in a comment).
        let name = name.rsplit("*/").next().unwrap_or(name);
        let name = name.split('(').next().unwrap_or(name);
        let bare = name.rsplit('.').next().unwrap_or(name).trim_matches(['`', '"', ';']);
        if !bare.is_empty() && !out.iter().any(|n: &String| n.eq_ignore_ascii_case(bare)) {
            out.push(bare.to_string());
        }
    }
    out
}

fn dialect_of_name(file: &str) -> Option<SourceDialect> {
    if file.ends_with("-mysql.sql") {
        Some(SourceDialect::Mysql)
    } else if file.ends_with("-pg.sql") || file.ends_with("-postgres.sql") {
        Some(SourceDialect::Postgres)
    } else {
        None
    }
}

#[test]
fn every_table_of_the_corpus_is_read_or_refused_on_its_own() {
    let Some(dir) = crate::util::shared_dir("corpus", "corpus") else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    let (mut total, mut read, mut refused) = (0, 0, 0);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    println!("{:<42} {:>6} {:>5} {:>7}  dialect", "file", "tables", "read", "refused");
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let sql = std::fs::read_to_string(path).unwrap();
        let file = keylab_ddl::parse(&sql, &name).unwrap();
        let defined = created_tables(&sql);
        // A file with marks is read in its dialect; one without (portable SQL) is read as
        // MySQL by default, and read here as --dialect names it too.
        if let Some(want) = dialect_of_name(&name) {
            if !file.dialect_reason.starts_with("no mark") {
                assert_eq!(file.dialect, want, "{name}: {}", file.dialect_reason);
            }
            let flagged = keylab_ddl::parse_as(&sql, &name, want).unwrap();
            for t in &defined {
                if let Err(TableError::Missing(m)) = flagged.table(Some(t)) {
                    panic!("{name} as {want:?}: table `{t}` not found: {m}");
                }
            }
        }
        let (mut ok, mut no) = (0, 0);
        for t in &defined {
            match file.table(Some(t)) {
                Ok(_) => ok += 1,
                Err(TableError::Refused(e)) => {
                    no += 1;
                    // The reason without the column's name: `type `jsonb` is not modelled`.
                    let m = e.message.as_str();
                    let kind = match m.strip_prefix("column `") {
                        Some(rest) => rest.split_once("`: ").map_or(m, |(_, r)| r),
                        None => m,
                    };
                    let kind = kind.split("; valid").next().unwrap_or(kind);
                    *reasons.entry(kind.chars().take(70).collect()).or_default() += 1;
                }
                Err(TableError::Missing(m)) => panic!("{name}: table `{t}` not found: {m}"),
            }
        }
        println!("{name:<42} {:>6} {ok:>5} {no:>7}  {:?}", defined.len(), file.dialect);
        total += defined.len();
        read += ok;
        refused += no;
    }
    println!("{:<42} {total:>6} {read:>5} {refused:>7}", "total");
    let mut top: Vec<_> = reasons.into_iter().collect();
    top.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    for (why, n) in top.iter().take(12) {
        println!("{n:>5}  {why}");
    }
    assert!(read >= READ_FLOOR, "{read} tables read, fewer than the floor {READ_FLOOR}");
}

/// Tables of the corpus advised on the simulator from their whole file (the schema summary of
/// each file, 200 rows a table) when this floor was set: every table (pagila's partitioned
/// `payment` per partition).
const ADVISED_FLOOR: usize = 608;

/// Every table of every corpus file, advised on from its whole file on the simulator (the
/// schema summary: limits, types, keys and all): at least [`ADVISED_FLOOR`] are advised, and
/// every refusal names its place.
#[test]
fn every_table_of_the_corpus_is_advised_from_its_whole_file() {
    let Some(dir) = crate::util::shared_dir("corpus", "corpus") else { return };
    let d = Dir::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    let (mut advised, mut refused) = (0, Vec::new());
    for path in &files {
        let file = path.to_str().unwrap();
        let args = ["advise", file, "--rows", "200", "--keys", "auto-inc", "--format", "json"];
        let run = d.keylab(&args).expect_code(0);
        let r = json(&run.stdout);
        match r.get("schema") {
            Some(s) => {
                advised += s["tables"].as_array().unwrap().len();
                for t in s["refused"].as_array().unwrap() {
                    assert!(t["at"].as_str().unwrap().contains(".sql:"), "{t}");
                    refused.push(format!("{}: {}", t["at"], t["reason"]));
                }
            }
            None => advised += 1,
        }
    }
    println!("{advised} tables advised, {} refused: {refused:#?}", refused.len());
    assert!(
        advised >= ADVISED_FLOOR,
        "{advised} advised, fewer than {ADVISED_FLOOR}: {refused:#?}"
    );
}
