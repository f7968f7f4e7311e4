//! keylab-ddl: a user's DDL file read into keylab's [`Table`]s, for `keylab advise`.
//!
//! It reads MySQL/MariaDB DDL as `SHOW CREATE TABLE` and `mysqldump` print it, PostgreSQL DDL
//! as `pg_dump --schema-only` prints it, hand-written DDL and files of migrations. The file is
//! cut into statements by keylab's own scanner (`scanner.rs`: each dialect's comment rules,
//! `DELIMITER` blocks, dollar quotes), and each statement is tokenized and parsed with
//! `sqlparser` on its own, so one it rejects costs that statement only. Every table is judged
//! on its own: read into a [`DdlTable`], or refused ([`RefusedTable`]) at `file:line:column`
//! for the first thing of it keylab cannot model (an unknown type, partitioning, a row format
//! or engine the model lacks, a `CREATE TABLE` the parser rejects). It keeps what changes the
//! layout: columns, types (PostgreSQL enums and domains through `user_types.rs`),
//! nullability, character sets and collations, the primary key, every secondary index
//! (composite, unique), `AUTO_INCREMENT`/identity, the row format and `FILLFACTOR`
//! (PostgreSQL's `fillfactor` of the table and of each index, with where it was given, for the
//! caller to apply or note), with `ALTER TABLE`, `CREATE`/`DROP INDEX` and `RENAME TABLE`
//! applied in file order (`build/migrate.rs`). What it skips is a [`Note`] (a FULLTEXT/spatial,
//! expression or partial index, a prefix of a TEXT or BLOB column, a virtual column, a change
//! it cannot apply); a prefix key part of a CHAR/VARCHAR column is kept
//! (`Index::prefix_chars`). The dialect is detected from marks in the code (`dialect.rs`) or
//! given.
//!
//! It does no I/O and knows no engine: the caller reads the file and runs the table.
#![deny(missing_docs)]

mod build;
#[cfg(test)]
mod census;
mod dialect;
mod fixups;
mod foreign;
mod names;
mod partial;
mod partitions;
mod scanner;
mod storage;
mod types;
mod user_types;

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

/// A table of the file that keylab cannot model or read, with why and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedTable {
    /// Its name as written (without schema).
    pub name: String,
    /// Why, and where the thing refused is.
    pub error: DdlError,
}

/// Every table of a file: each read or refused on its own.
#[derive(Debug, Clone, PartialEq)]
pub struct DdlFile {
    /// The file's name as the user gave it.
    pub origin: String,
    /// The dialect it was read in.
    pub dialect: SourceDialect,
    /// Why that dialect ("PostgreSQL marks (`::` casts, ...)", "--dialect").
    pub dialect_reason: String,
    /// Tables read, in file order.
    pub tables: Vec<DdlTable>,
    /// Tables refused, in file order.
    pub refused: Vec<RefusedTable>,
    /// Notes about statements that belong to no table read (skipped statements the parser
    /// rejects, changes to tables the file does not create).
    pub notes: Vec<Note>,
    /// Statements that were not read (neither tables nor indexes), counted.
    pub skipped_statements: usize,
}

/// Why [`DdlFile::table`] gives no table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    /// The table is in the file and refused: why and where.
    Refused(DdlError),
    /// No such table (or none, or several and no name): what is valid.
    Missing(String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Refused(e) => e.fmt(f),
            TableError::Missing(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for TableError {}

/// A name without its schema, quotes and case.
fn bare(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name).trim_matches(['`', '"'])
}

impl DdlFile {
    /// The table named `name` (schema qualifiers and case ignored), or the only table; a
    /// refused table gives its refusal.
    pub fn table(&self, name: Option<&str>) -> Result<&DdlTable, TableError> {
        let refused =
            |want: &str| self.refused.iter().rev().find(|r| r.name.eq_ignore_ascii_case(want));
        let valid = || {
            let read: Vec<&str> = self.tables.iter().map(|t| t.table.name.as_str()).collect();
            let mut v = format!("valid: {}", read.join(", "));
            if !self.refused.is_empty() {
                let r: Vec<&str> = self.refused.iter().map(|t| t.name.as_str()).collect();
                v.push_str(&format!("; refused: {}", r.join(", ")));
            }
            v
        };
        let origin = &self.origin;
        match name {
            Some(n) => {
                // The name as given first (a quoted name may hold a dot), then without schema.
                for want in [n, bare(n)] {
                    let found =
                        self.tables.iter().find(|t| t.table.name.eq_ignore_ascii_case(want));
                    if let Some(t) = found {
                        return Ok(t);
                    }
                }
                match refused(n).or_else(|| refused(bare(n))) {
                    Some(r) => Err(TableError::Refused(r.error.clone())),
                    None => Err(TableError::Missing(format!(
                        "{origin}: no table `{n}` in the file; {}",
                        valid()
                    ))),
                }
            }
            None => match (self.tables.as_slice(), self.refused.as_slice()) {
                ([one], []) => Ok(one),
                ([], [one]) => Err(TableError::Refused(one.error.clone())),
                ([], []) => {
                    Err(TableError::Missing(format!("{origin}: the file has no CREATE TABLE")))
                }
                _ => Err(TableError::Missing(format!(
                    "{origin}: the file has {} tables; name one with --table; {}",
                    self.tables.len() + self.refused.len(),
                    valid()
                ))),
            },
        }
    }
}

/// The dialect of `source`: the side whose marks (outside comments and strings) are more;
/// MySQL/MariaDB when there are none.
pub fn detect_dialect(source: &str) -> SourceDialect {
    dialect::detect(source, "").0
}

/// What a statement is, from its first words.
#[derive(Debug, PartialEq)]
enum Kind {
    CreateTable,
    CreateIndex,
    AlterTable,
    AlterIndex,
    /// Read by sqlparser for the changes it makes (user types, drops, renames).
    Parsed,
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
        ["CREATE", "TABLE", ..] | ["CREATE", "UNLOGGED" | "TEMPORARY" | "TEMP", "TABLE", ..] => {
            Kind::CreateTable
        }
        ["CREATE", "INDEX", ..] | ["CREATE", "UNIQUE", "INDEX", ..] => Kind::CreateIndex,
        ["ALTER", "TABLE", ..] => Kind::AlterTable,
        ["ALTER", "INDEX", ..] => Kind::AlterIndex,
        ["CREATE", "TYPE", ..]
        | ["CREATE", "DOMAIN", ..]
        | ["DROP", "TABLE", ..]
        | ["DROP", "INDEX", ..]
        | ["RENAME", "TABLE", ..] => Kind::Parsed,
        _ => Kind::Other,
    }
}

/// Reads every table of `source` (`origin` names it in errors and notes), in the dialect
/// its marks say.
pub fn parse(source: &str, origin: &str) -> Result<DdlFile, DdlError> {
    let (dialect, why) = dialect::detect(source, origin);
    read(source, origin, dialect, why)
}

/// Reads every table of `source` in `dialect` (for text whose dialect is known: a `--dialect`
/// flag, or the definition a `--url` reader wrote from a server's catalog).
pub fn parse_as(source: &str, origin: &str, dialect: SourceDialect) -> Result<DdlFile, DdlError> {
    read(source, origin, dialect, "given".into())
}

/// `tokens` moved from their statement's own places to the file's (`at`: where its text
/// starts).
fn shift(tokens: &mut [TokenWithSpan], at: Position) {
    for t in tokens {
        shift_location(&mut t.span.start, at);
        shift_location(&mut t.span.end, at);
    }
}

/// `l`, a place in a statement whose text starts at `at`, as a place in the file.
fn shift_location(l: &mut sqlparser::tokenizer::Location, at: Position) {
    if l.line == 1 {
        l.column += at.column - 1;
    }
    l.line += at.line - 1;
}

fn read(
    source: &str,
    origin: &str,
    dialect: SourceDialect,
    why: String,
) -> Result<DdlFile, DdlError> {
    let sql: Box<dyn SqlDialect> = match dialect {
        SourceDialect::Mysql => Box::new(MySqlDialect {}),
        SourceDialect::Postgres => Box::new(PostgreSqlDialect {}),
    };
    let rules = scanner::Rules { mysql: dialect == SourceDialect::Mysql };
    let (pieces, _) = scanner::split(source, rules);
    let mut file = build::FileBuilder::new(dialect, origin);
    for piece in pieces {
        // Each statement is tokenized on its own: a token sqlparser cannot read costs that
        // statement only.
        match Tokenizer::new(sql.as_ref(), &piece.text).tokenize_with_location() {
            Ok(mut tokens) => {
                shift(&mut tokens, piece.at);
                read_statement(sql.as_ref(), &piece, tokens, &mut file);
            }
            Err(e) => {
                let mut l = e.location;
                shift_location(&mut l, piece.at);
                file.rejected(&piece, Position::from(l), e.message.clone());
            }
        }
    }
    let mut out = file.finish();
    out.dialect_reason = why;
    Ok(out)
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
    piece: &scanner::Piece,
    chunk: Vec<TokenWithSpan>,
    file: &mut build::FileBuilder,
) {
    let kind = kind_of(&chunk);
    let first = chunk
        .iter()
        .find(|t| !matches!(t.token, Token::Whitespace(_)))
        .map(|t| Position::from(t.span.start))
        .unwrap_or_default();
    match kind {
        Kind::Other => return file.other(&chunk),
        // sqlparser reads only ALTER INDEX ... RENAME; SET (...) is read from the tokens.
        Kind::AlterIndex => return file.alter_index(storage::alter_index(&chunk)),
        Kind::CreateTable => {
            if let Some(read) = partitions::read_partition_of(&chunk) {
                return match read {
                    Ok((parent, p)) => file.add_partition(&parent, p),
                    Err((at, why)) => file.rejected(piece, at, why),
                };
            }
        }
        Kind::AlterTable => {
            if let Some(read) = partitions::read_attach(&chunk) {
                return match read {
                    Ok((parent, p)) => file.add_partition(&parent, p),
                    Err((at, why)) => file.note_unread(&chunk, at, &why),
                };
            }
        }
        _ => {}
    }
    // `PARTITION BY ...` ends a CREATE TABLE; sqlparser reads none of it.
    let (chunk, partitioning) = match partitions::partition_by_at(&chunk) {
        Some(i) if kind == Kind::CreateTable => {
            let read = partitions::read_partition_by(
                &chunk[i..],
                file.dialect() == SourceDialect::Postgres,
            );
            match read {
                Ok(raw) => (chunk[..i].to_vec(), Some(raw)),
                Err((at, why)) => return file.rejected(piece, at, why),
            }
        }
        _ => (chunk, None),
    };
    // sqlparser reads no index parameters of a constraint: they are read apart.
    let constraints = matches!(kind, Kind::CreateTable | Kind::AlterTable);
    let (chunk, parameters) = if file.dialect() == SourceDialect::Postgres && constraints {
        storage::take_constraint_parameters(chunk, kind == Kind::CreateTable)
    } else {
        (chunk, Vec::new())
    };
    let (chunk, fixes) = fixups::apply(without_display_words(chunk, &kind), &kind);
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
            let table = file.statement(statement, first, parameters, &fixes);
            if let (Some(raw), Some(name)) = (partitioning, table.as_deref()) {
                file.set_partitioning(name, raw);
            }
            if let Some(note) = unread {
                file.note_on(table.as_deref(), note);
            }
        }
        Err(e) if kind == Kind::AlterTable => {
            // pg_dump's `ALTER COLUMN c ADD GENERATED ... AS IDENTITY (SEQUENCE NAME ...)` is
            // beyond sqlparser; it only makes the column an identity.
            if let Some(column) = identity_column(&saved) {
                file.identity(&saved, column);
            } else if let Some(engine) = fixups::engine_change(&saved) {
                file.engine_change(&saved, engine);
            } else {
                let (at, why) = parser_error(&e.to_string(), first);
                file.note_unread(&saved, at, &why);
            }
        }
        Err(e) => {
            let (at, why) = parser_error(&e.to_string(), first);
            file.rejected(piece, at, why);
        }
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

#[cfg(test)]
mod reader_tests;
