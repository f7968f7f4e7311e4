//! keylab-ddl: a user's table definitions (`CREATE TABLE`, `CREATE INDEX`,
//! `ALTER TABLE ... ADD CONSTRAINT`) read into keylab's [`Table`], for `keylab advise`.
//!
//! It reads MySQL/MariaDB DDL as `SHOW CREATE TABLE` and `mysqldump` print it, and PostgreSQL
//! DDL as `pg_dump --schema-only` prints it, with `sqlparser` (statement by statement, so a
//! dump's other statements neither stop nor change the reading). It keeps what changes the
//! InnoDB layout: columns, types, nullability, character sets and collations, the primary
//! key, every secondary index (composite, unique), `AUTO_INCREMENT`/identity, the row format
//! and `FILLFACTOR` (PostgreSQL's `fillfactor` of the table and of each index, with where it
//! was given, for the caller to apply or note). Whatever it cannot model is named at `file:line:column`: refused (a
//! generated column, partitioning, an unknown type, a row format the model lacks) or skipped
//! with a [`Note`] (a FULLTEXT/spatial, expression or partial index, a prefix of a TEXT or
//! BLOB column); a prefix key part of a CHAR/VARCHAR column is kept (`Index::prefix_chars`).
//!
//! It does no I/O and knows no engine: the caller reads the file and runs the table.
#![deny(missing_docs)]

mod build;
mod foreign;
mod storage;
mod types;

pub use foreign::ForeignKey;
use keylab_schema::Table;
use sqlparser::dialect::{Dialect as SqlDialect, MySqlDialect, PostgreSqlDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use std::fmt;

/// A place in the input, 1-based.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    /// Line.
    pub line: u64,
    /// Column.
    pub column: u64,
}

impl From<sqlparser::tokenizer::Location> for Position {
    fn from(l: sqlparser::tokenizer::Location) -> Self {
        Position { line: l.line.max(1), column: l.column.max(1) }
    }
}

/// Something read but not modelled as written, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Where.
    pub at: Position,
    /// What keylab did instead, and why.
    pub message: String,
}

/// Input keylab cannot model or read, with where it is: `keylab advise` exits 2 with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DdlError {
    /// The file's name as the user gave it.
    pub origin: String,
    /// Where.
    pub at: Position,
    /// What is wrong and what is valid.
    pub message: String,
}

impl fmt::Display for DdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.origin, self.at.line, self.at.column, self.message)
    }
}

impl std::error::Error for DdlError {}

/// Which dialect the file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceDialect {
    /// MySQL or MariaDB.
    Mysql,
    /// PostgreSQL.
    Postgres,
}

/// One table of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct DdlTable {
    /// The table as keylab models it (types mapped, skipped indexes left out).
    pub table: Table,
    /// Where its `CREATE TABLE` starts.
    pub at: Position,
    /// What was not modelled as written.
    pub notes: Vec<Note>,
    /// `FILLFACTOR` of the table, when given.
    pub fill_factor: Option<FillFactor>,
    /// PostgreSQL's `fillfactor` of the indexes that give one (`WITH (fillfactor = N)` of
    /// `CREATE INDEX` or of a primary-key or unique constraint), in file order.
    pub index_fill_factors: Vec<IndexFillFactor>,
    /// Its foreign keys as written (they change no layout; see `foreign.rs`).
    pub foreign_keys: Vec<ForeignKey>,
}

/// A `fillfactor` storage parameter and where it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillFactor {
    /// The percentage (10..=100).
    pub pct: u8,
    /// Where.
    pub at: Position,
}

/// An index's `fillfactor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFillFactor {
    /// The secondary index's name as in [`Table::indexes`]; `None` for the primary key.
    pub index: Option<String>,
    /// The value and where.
    pub fill_factor: FillFactor,
}

/// Every table of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct DdlFile {
    /// The dialect it was read in.
    pub dialect: SourceDialect,
    /// Tables in file order.
    pub tables: Vec<DdlTable>,
    /// Statements that were not read (neither tables nor indexes), counted.
    pub skipped_statements: usize,
}

impl DdlFile {
    /// The table named `name` (schema qualifiers and case ignored), or the only table.
    pub fn table(&self, name: Option<&str>) -> Result<&DdlTable, String> {
        let names = || self.tables.iter().map(|t| t.table.name.as_str()).collect::<Vec<_>>();
        match name {
            Some(n) => {
                let want = n.rsplit('.').next().unwrap_or(n);
                self.tables.iter().find(|t| t.table.name.eq_ignore_ascii_case(want)).ok_or_else(
                    || format!("no table `{n}` in the file; valid: {}", names().join(", ")),
                )
            }
            None => match self.tables.as_slice() {
                [one] => Ok(one),
                [] => Err("the file has no CREATE TABLE".into()),
                _ => Err(format!(
                    "the file has {} tables; name one with --table; valid: {}",
                    self.tables.len(),
                    names().join(", ")
                )),
            },
        }
    }
}

/// The dialect of `source`: PostgreSQL when it has a mark only `pg_dump` or PostgreSQL DDL
/// writes, else MySQL/MariaDB.
pub fn detect_dialect(source: &str) -> SourceDialect {
    let lower = source.to_ascii_lowercase();
    let pg_marks = [
        "pg_catalog",
        "::",
        "alter table only",
        "character varying",
        "using btree",
        "without time zone",
        "with time zone",
        "bigserial",
        " bytea",
        "generated by default as identity",
        "generated always as identity",
    ];
    if !source.contains('`') && pg_marks.iter().any(|m| lower.contains(m)) {
        SourceDialect::Postgres
    } else {
        SourceDialect::Mysql
    }
}

/// What a statement is, from its first words.
#[derive(Debug, PartialEq)]
enum Kind {
    CreateTable,
    CreateIndex,
    AlterTable,
    AlterIndex,
    Other,
}

fn kind_of(tokens: &[TokenWithSpan]) -> Kind {
    let words: Vec<String> = tokens
        .iter()
        .filter_map(|t| match &t.token {
            Token::Word(w) => Some(w.value.to_ascii_uppercase()),
            Token::Whitespace(_) => None,
            _ => Some(String::new()),
        })
        .take(4)
        .collect();
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["CREATE", "TABLE", ..] | ["CREATE", "UNLOGGED", "TABLE", ..] => Kind::CreateTable,
        ["CREATE", "INDEX", ..] | ["CREATE", "UNIQUE", "INDEX", ..] => Kind::CreateIndex,
        ["ALTER", "TABLE", ..] => Kind::AlterTable,
        ["ALTER", "INDEX", ..] => Kind::AlterIndex,
        _ => Kind::Other,
    }
}

/// Reads every table of `source` (`origin` names it in errors and notes).
pub fn parse(source: &str, origin: &str) -> Result<DdlFile, DdlError> {
    parse_as(source, origin, detect_dialect(source))
}

/// Reads every table of `source` in `dialect` (for text whose dialect is known, such as the
/// definition a `--url` reader wrote from a server's catalog).
pub fn parse_as(source: &str, origin: &str, dialect: SourceDialect) -> Result<DdlFile, DdlError> {
    let sql: Box<dyn SqlDialect> = match dialect {
        SourceDialect::Mysql => Box::new(MySqlDialect {}),
        SourceDialect::Postgres => Box::new(PostgreSqlDialect {}),
    };
    let err = |at: Position, message: String| DdlError { origin: origin.to_string(), at, message };
    let tokens = Tokenizer::new(sql.as_ref(), source).tokenize_with_location().map_err(|e| {
        err(Position { line: e.location.line, column: e.location.column }, e.message.clone())
    })?;
    let mut file = build::FileBuilder::new(dialect);
    let mut statement: Vec<TokenWithSpan> = Vec::new();
    let mut tokens = tokens.into_iter();
    loop {
        let next = tokens.next();
        let end = next.as_ref().is_none_or(|t| t.token == Token::SemiColon);
        if !end {
            statement.extend(next);
            continue;
        }
        let chunk = std::mem::take(&mut statement);
        let significant = chunk.iter().any(|t| !matches!(t.token, Token::Whitespace(_)));
        if significant {
            read_statement(sql.as_ref(), chunk, &mut file).map_err(|(at, m)| err(at, m))?;
        }
        if next.is_none() {
            break;
        }
    }
    Ok(file.finish())
}

/// The position of sqlparser's "... at Line: L, Column: C" message, and the message without it.
fn parser_error(message: &str, fallback: Position) -> (Position, String) {
    let Some((text, at)) = message.rsplit_once(" at Line: ") else {
        return (fallback, message.to_string());
    };
    let mut nums = at.split(", Column: ").map(|n| n.trim().parse::<u64>().ok());
    match (nums.next().flatten(), nums.next().flatten()) {
        (Some(line), Some(column)) => (Position { line, column }, text.to_string()),
        _ => (fallback, message.to_string()),
    }
}

fn read_statement(
    sql: &dyn SqlDialect,
    chunk: Vec<TokenWithSpan>,
    file: &mut build::FileBuilder,
) -> Result<(), (Position, String)> {
    let kind = kind_of(&chunk);
    if kind == Kind::Other {
        file.skipped += 1;
        return Ok(());
    }
    if kind == Kind::AlterIndex {
        // sqlparser reads only ALTER INDEX ... RENAME; SET (...) is read from the tokens.
        return file.alter_index(storage::alter_index(&chunk));
    }
    let first = chunk
        .iter()
        .find(|t| !matches!(t.token, Token::Whitespace(_)))
        .map(|t| Position::from(t.span.start))
        .unwrap_or_default();
    if kind == Kind::CreateTable {
        if let Some(at) = partition_clause(&chunk) {
            return Err((
                at,
                "partitioning is not modelled (keylab models one B-tree per index); remove the \
                 PARTITION BY clause to advise on one partition's shape"
                    .into(),
            ));
        }
    }
    // sqlparser reads no index parameters of a constraint: they are read apart.
    let constraints = matches!(kind, Kind::CreateTable | Kind::AlterTable);
    let (chunk, parameters) = if file.dialect() == SourceDialect::Postgres && constraints {
        storage::take_constraint_parameters(chunk, kind == Kind::CreateTable)
    } else {
        (chunk, Vec::new())
    };
    let chunk = without_display_words(chunk, &kind);
    file.set_words(&chunk);
    let saved = chunk.clone();
    let mut parser = Parser::new(sql).with_tokens_with_locations(chunk);
    let parsed = parser.parse_statement();
    // sqlparser stops where a statement it knows ends; what follows is named, not dropped.
    let rest = parser.peek_token();
    let unread = (parsed.is_ok() && rest.token != Token::EOF).then(|| {
        let from = rest.span.start;
        let text: String = saved
            .iter()
            .filter(|t| (t.span.start.line, t.span.start.column) >= (from.line, from.column))
            .map(|t| t.token.to_string())
            .collect();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let shown: String = text.chars().take(60).collect();
        let more = if shown.len() < text.len() { " ..." } else { "" };
        Note {
            at: from.into(),
            message: format!(
                "`{shown}{more}` not read (keylab's SQL parser does not know it); the statement \
                 is read without it"
            ),
        }
    });
    match parsed {
        Ok(statement) => {
            file.statement(statement, first, parameters)?;
            if let Some(note) = unread {
                file.note(kind == Kind::CreateTable, note);
            }
            Ok(())
        }
        Err(e) if kind == Kind::AlterTable => {
            // pg_dump's `ALTER COLUMN c ADD GENERATED ... AS IDENTITY (SEQUENCE NAME ...)` is
            // beyond sqlparser; it only makes the column an identity.
            if let Some(column) = identity_column(&saved) {
                file.identity(&saved, column);
                Ok(())
            } else {
                let (at, _) = parser_error(&e.to_string(), first);
                file.note_unread(at);
                Ok(())
            }
        }
        Err(e) => Err(parser_error(&e.to_string(), first)),
    }
}

/// `chunk` without the column attributes `SHOW CREATE TABLE` prints that sqlparser does not
/// read and that change nothing stored: `ZEROFILL` (display padding; the column is UNSIGNED,
/// which is also printed) and MariaDB's `INVISIBLE` (the column is stored as any other).
fn without_display_words(chunk: Vec<TokenWithSpan>, kind: &Kind) -> Vec<TokenWithSpan> {
    if !matches!(kind, Kind::CreateTable | Kind::AlterTable) {
        return chunk;
    }
    let display = |t: &TokenWithSpan| {
        matches!(&t.token, Token::Word(w) if w.quote_style.is_none()
            && (w.value.eq_ignore_ascii_case("zerofill") || w.value.eq_ignore_ascii_case("invisible")))
    };
    chunk.into_iter().filter(|t| !display(t)).collect()
}

/// Where `PARTITION BY` starts in a `CREATE TABLE`, if it has one.
fn partition_clause(chunk: &[TokenWithSpan]) -> Option<Position> {
    let words: Vec<&TokenWithSpan> =
        chunk.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))).collect();
    words.windows(2).find_map(|w| match (&w[0].token, &w[1].token) {
        (Token::Word(a), Token::Word(b))
            if a.value.eq_ignore_ascii_case("partition") && b.value.eq_ignore_ascii_case("by") =>
        {
            Some(w[0].span.start.into())
        }
        _ => None,
    })
}

/// The column of `ALTER TABLE t ALTER COLUMN c ADD GENERATED ... AS IDENTITY`.
fn identity_column(chunk: &[TokenWithSpan]) -> Option<String> {
    let words: Vec<String> = chunk
        .iter()
        .filter_map(|t| match &t.token {
            Token::Word(w) => Some(w.value.clone()),
            _ => None,
        })
        .collect();
    let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
    let i = upper.windows(2).position(|w| w[0] == "ALTER" && w[1] == "COLUMN")?;
    let generated = upper.iter().any(|w| w == "GENERATED") && upper.iter().any(|w| w == "IDENTITY");
    generated.then(|| words.get(i + 2).cloned()).flatten()
}

#[cfg(test)]
mod tests;
