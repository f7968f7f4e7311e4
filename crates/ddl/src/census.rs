//! A census of the declared column types of the schema corpus (`../shared/corpus` beside the
//! repository): how many columns map exactly, how many are built as another type (a
//! [`Mapped::Near`] note) and how many are refused (none may be). Prints its figures; run
//! with `cargo test -p keylab-ddl census -- --nocapture`. Without the corpus it prints
//! SKIPPED, except under `CI=true`, where that fails.

use crate::types::{map_type, Mapped};
use crate::{detect_dialect, SourceDialect};
use keylab_schema::Charset;
use sqlparser::ast::Statement;
use sqlparser::dialect::{Dialect as SqlDialect, MySqlDialect, PostgreSqlDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Default)]
struct Census {
    exact: usize,
    near: BTreeMap<String, usize>,
    refused: BTreeMap<String, usize>,
}

/// `../shared/corpus` beside the repository, or the `corpus` of `KEYLAB_SHARED` (a git
/// worktree lives elsewhere than its repository), as the CLI tests find it.
fn corpus_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("KEYLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("corpus");
    dir.is_dir().then_some(dir)
}

fn count_file(source: &str, census: &mut Census) {
    let dialect = detect_dialect(source);
    let pg = dialect == SourceDialect::Postgres;
    let sql: Box<dyn SqlDialect> = match dialect {
        SourceDialect::Mysql => Box::new(MySqlDialect {}),
        SourceDialect::Postgres => Box::new(PostgreSqlDialect {}),
    };
    let Ok(tokens) = Tokenizer::new(sql.as_ref(), source).tokenize() else { return };
    for chunk in tokens.split(|t| *t == Token::SemiColon) {
        let Ok(s) = Parser::new(sql.as_ref()).with_tokens(chunk.to_vec()).parse_statement() else {
            continue;
        };
        let Statement::CreateTable(ct) = s else { continue };
        for c in &ct.columns {
            let declared = c.data_type.to_string().to_ascii_lowercase();
            let family = declared.split('(').next().unwrap_or("").trim().to_string();
            match map_type(&c.data_type, Charset::Utf8mb4, pg) {
                Ok(Mapped::Exact(_)) => census.exact += 1,
                Ok(Mapped::Near(..)) => *census.near.entry(family).or_default() += 1,
                Err(_) => *census.refused.entry(family).or_default() += 1,
            }
        }
    }
}

#[test]
fn census_of_the_corpus() {
    let Some(dir) = corpus_dir() else {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "../shared/corpus is missing");
        eprintln!("SKIPPED: no ../shared/corpus");
        return;
    };
    let mut census = Census::default();
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "sql")) {
        count_file(&std::fs::read_to_string(f).unwrap_or_default(), &mut census);
    }
    let near: usize = census.near.values().sum();
    let refused: usize = census.refused.values().sum();
    eprintln!("columns: exact {}, near {near}, refused {refused}", census.exact);
    eprintln!("near by declared type: {:?}", census.near);
    eprintln!("refused by declared type: {:?}", census.refused);
    assert!(census.exact > 0);
    // Every declared type of the corpus is read; what is still built as another type is a
    // type the census cannot resolve (a CREATE TYPE enum, read by the whole-file reader) or
    // an extension's type, noted.
    assert_eq!(refused, 0, "{:?}", census.refused);
}
