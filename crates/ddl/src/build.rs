//! From parsed statements to [`DdlTable`]s: columns with their types and character sets, the
//! primary key, secondary indexes from `CREATE TABLE`, `CREATE INDEX` and `ALTER TABLE ... ADD
//! CONSTRAINT`, identity columns and table options. Refusals carry their position; skips
//! become notes.

mod columns;
mod migrate;
mod parameters;
mod partitioned;
mod server_rules;
mod table_builder;

use parameters::layout_neutral;
pub(crate) use table_builder::prefix_len;

use crate::fixups::{EngineChange, Fixes};
use crate::storage::{ConstraintParameters, StorageOption};
use crate::types::{charset_named, map_type, member_labels, serial_type, Mapped};
use crate::user_types::UserTypes;
use crate::{
    DdlError, DdlFile, DdlTable, FillFactor, IndexFillFactor, Note, Position, RefusedTable,
    SourceDialect,
};
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table};
use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, ColumnOption, CreateIndex, CreateTable,
    CreateTableLikeKind, Expr, FunctionArguments, IndexColumn, IndexType, ObjectName, SqlOption,
    Statement, TableConstraint, UserDefinedTypeRepresentation,
};
use sqlparser::ast::{CreateTableOptions, Spanned};
use sqlparser::tokenizer::{Token, TokenWithSpan};

type Refusal = (Position, String);

#[derive(Clone)]
struct TableBuilder {
    table: Table,
    /// Why the table is refused (the first thing keylab cannot model in it), once it is.
    refusal: Option<Refusal>,
    at: Position,
    notes: Vec<Note>,
    fill_factor: Option<FillFactor>,
    index_fill_factors: Vec<IndexFillFactor>,
    dialect: SourceDialect,
    has_pk: bool,
    /// VIRTUAL generated columns, left out of the stored columns.
    virtual_columns: Vec<String>,
    /// The table's character set, for columns added later.
    default_charset: Charset,
    /// `PARTITION BY` as written (resolved against the columns at the end), with the
    /// partitions attached to it since.
    partitioning: Option<crate::partitions::RawPartitioning>,
}

impl TableBuilder {
    fn new(name: String, at: Position, dialect: SourceDialect) -> Self {
        TableBuilder {
            table: Table {
                name,
                columns: Vec::new(),
                primary_key: Vec::new(),
                auto_increment: false,
                indexes: Vec::new(),
                row_format: RowFormat::Dynamic,
                partitioning: None,
            },
            refusal: None,
            at,
            notes: Vec::new(),
            fill_factor: None,
            index_fill_factors: Vec::new(),
            dialect,
            has_pk: false,
            virtual_columns: Vec::new(),
            default_charset: Charset::Utf8mb4,
            partitioning: None,
        }
    }
}

pub(crate) struct FileBuilder {
    dialect: SourceDialect,
    origin: String,
    tables: Vec<TableBuilder>,
    pub(crate) skipped: usize,
    /// Notes for statements that name no table keylab read.
    loose: Vec<Note>,
    /// `CREATE TYPE ... AS ENUM` and `CREATE DOMAIN` read so far.
    user_types: UserTypes,
    /// The words of the statement being read, upper case, with their places (sqlparser
    /// gives MySQL table options no place of their own).
    words: Vec<(String, Position)>,
    /// Foreign keys read, by the name of their table (attached at `finish`).
    foreign_keys: Vec<(String, crate::ForeignKey)>,
}

/// The last part of a qualified name, without its quotes (`schema."T"` is `T`).
pub(crate) fn last_name(name: &ObjectName) -> String {
    name.0.last().map(|p| p.to_string().trim_matches(['`', '"']).to_string()).unwrap_or_default()
}

fn pos_of(s: &impl Spanned) -> Position {
    s.span().start.into()
}

impl FileBuilder {
    pub(crate) fn new(dialect: SourceDialect, origin: &str) -> Self {
        FileBuilder {
            dialect,
            origin: origin.to_string(),
            tables: Vec::new(),
            skipped: 0,
            loose: Vec::new(),
            user_types: UserTypes::default(),
            words: Vec::new(),
            foreign_keys: Vec::new(),
        }
    }

    pub(crate) fn finish(self) -> DdlFile {
        let origin = self.origin;
        let mut foreign_keys = self.foreign_keys;
        let mut tables = Vec::new();
        let mut refused = Vec::new();
        for mut b in self.tables {
            if let Some((at, message)) = b.refusal {
                let error = DdlError { origin: origin.clone(), at, message };
                refused.push(RefusedTable { name: b.table.name, error });
                continue;
            }
            if let Some(raw) = &b.partitioning {
                match crate::partitions::resolve(raw, &b.table.columns) {
                    Ok(p) => b.table.partitioning = Some(p),
                    Err((at, message)) => {
                        let error = DdlError { origin: origin.clone(), at, message };
                        refused.push(RefusedTable { name: b.table.name, error });
                        continue;
                    }
                }
            }
            if !b.has_pk {
                // An identity alone is no primary key: InnoDB would add a hidden row id.
                b.table.primary_key.clear();
                b.table.auto_increment = false;
            }
            tables.push(DdlTable {
                foreign_keys: take_foreign_keys(&mut foreign_keys, &b.table.name),
                table: b.table,
                at: b.at,
                notes: b.notes,
                fill_factor: b.fill_factor,
                index_fill_factors: b.index_fill_factors,
            });
        }
        DdlFile {
            origin,
            dialect: self.dialect,
            dialect_reason: String::new(),
            tables,
            refused,
            notes: self.loose,
            skipped_statements: self.skipped,
        }
    }

    pub(crate) fn dialect(&self) -> SourceDialect {
        self.dialect
    }

    /// The statement about to be read, for the places of its words.
    pub(crate) fn set_words(&mut self, tokens: &[TokenWithSpan]) {
        self.words = tokens
            .iter()
            .filter_map(|t| match &t.token {
                Token::Word(w) => Some((w.value.to_ascii_uppercase(), t.span.start.into())),
                _ => None,
            })
            .collect();
    }

    fn table_mut(&mut self, name: &ObjectName) -> Option<&mut TableBuilder> {
        let n = last_name(name);
        self.tables.iter_mut().find(|t| t.table.name.eq_ignore_ascii_case(&n))
    }

    fn table_named(&mut self, name: &str) -> Option<&mut TableBuilder> {
        let n = crate::bare(name);
        self.tables.iter_mut().rev().find(|t| t.table.name.eq_ignore_ascii_case(n))
    }

    /// A note on table `table` when the file has it, else on the file.
    pub(crate) fn note_on(&mut self, table: Option<&str>, note: Note) {
        match table.and_then(|n| self.table_named(n)) {
            Some(t) => t.notes.push(note),
            None => self.loose.push(note),
        }
    }

    /// `ALTER TABLE ... ENGINE=x`: to another engine than InnoDB a note on the table (it is
    /// advised as InnoDB); `ENGINE=InnoDB` alone (a rebuild) changes nothing modelled.
    pub(crate) fn engine_change(&mut self, chunk: &[TokenWithSpan], change: EngineChange) {
        if let (Some(name), EngineChange::Other(at, message)) =
            (crate::names::statement_table(chunk), change)
        {
            self.note_on(Some(&name), Note { at, message });
        }
    }

    /// An `ALTER TABLE` sqlparser rejects: named on its table, never applied silently.
    pub(crate) fn note_unread(&mut self, chunk: &[TokenWithSpan], at: Position, why: &str) {
        let name = crate::names::statement_table(chunk);
        let note = Note {
            at,
            message: format!(
                "ALTER TABLE statement not applied (keylab's SQL parser rejects it: {why}); the \
                 table is advised without this change"
            ),
        };
        self.note_on(name.as_deref(), note);
    }

    /// A statement sqlparser (or its tokenizer) rejects: a `CREATE TABLE` whose name can be
    /// read refuses that table; anything else is skipped with a note on the table it names,
    /// else on the file.
    pub(crate) fn rejected(&mut self, piece: &crate::scanner::Piece, at: Position, why: String) {
        let words = crate::names::words(&piece.text);
        if let Some(name) = crate::names::created_table(&words) {
            let b = TableBuilder::new(name, piece_start(piece), self.dialect);
            self.push_table(b, false, Some((at, why)));
            return;
        }
        self.skipped += 1;
        let first = words.first().map(|w| w.text.to_ascii_uppercase()).unwrap_or_default();
        let note = Note { at, message: format!("{first} statement skipped: {why}") };
        let table = crate::names::named_table(&words);
        self.note_on(table.as_deref(), note);
    }

    /// Adds table `b` (refused when `refusal` is given); a table of the same name read
    /// before is replaced, unless the new one says IF NOT EXISTS.
    fn push_table(&mut self, mut b: TableBuilder, if_not_exists: bool, refusal: Option<Refusal>) {
        b.refusal = b.refusal.or(refusal);
        let name = b.table.name.clone();
        if let Some(i) = self.tables.iter().position(|t| t.table.name.eq_ignore_ascii_case(&name)) {
            if if_not_exists {
                return;
            }
            let before = self.tables.remove(i).at;
            b.notes.push(Note {
                at: b.at,
                message: format!(
                    "table `{name}` is created again here (first at {}:{}); the last definition \
                     is read",
                    before.line, before.column
                ),
            });
        }
        self.tables.push(b);
    }

    /// Refuses table `name` with `why` (the first refusal stays).
    fn refuse(&mut self, name: &str, why: Refusal) {
        if let Some(t) = self.table_named(name) {
            t.refusal.get_or_insert(why);
        }
    }

    /// pg_dump's identity `ALTER TABLE ... ALTER COLUMN c ADD GENERATED ...`.
    pub(crate) fn identity(&mut self, chunk: &[TokenWithSpan], column: String) {
        let table = crate::names::statement_table(chunk);
        if let Some(t) = table.and_then(|n| self.table_named(&n)) {
            t.set_identity(&column);
        }
    }

    /// Reads statement `s`; `parameters` are its constraints' index parameters, taken out
    /// of it before it was parsed, `fixes` the rewrites made to its tokens. Gives the name of
    /// the table it concerns, if any.
    pub(crate) fn statement(
        &mut self,
        s: Statement,
        at: Position,
        parameters: Vec<ConstraintParameters>,
        fixes: &Fixes,
    ) -> Option<String> {
        match s {
            Statement::CreateTable(ct) => {
                let name = last_name(&ct.name);
                let mut b = self.create_table(&ct, at, fixes);
                let fks = crate::foreign::of_create_table(&ct, at);
                self.foreign_keys.extend(fks.into_iter().map(|f| (b.table.name.clone(), f)));
                if b.refusal.is_none() {
                    for p in parameters {
                        if let Err(r) = b.constraint_parameters(p) {
                            b.refusal = Some(r);
                            break;
                        }
                    }
                }
                self.push_table(b, ct.if_not_exists, None);
                Some(name)
            }
            Statement::CreateIndex(ci) => {
                let name = last_name(&ci.table_name);
                if let Err(r) = self.create_index(&ci, at) {
                    self.refuse(&name, r);
                }
                Some(name)
            }
            Statement::AlterTable { name, operations, .. } => {
                let name = last_name(&name);
                let fks = crate::foreign::of_alter(&operations, at);
                let table =
                    self.table_named(&name).map_or_else(|| name.clone(), |t| t.table.name.clone());
                self.foreign_keys.extend(fks.into_iter().map(|f| (table.clone(), f)));
                self.alter_table(&name, operations, at, parameters, fixes);
                Some(name)
            }
            Statement::CreateType {
                name,
                representation: UserDefinedTypeRepresentation::Enum { labels },
            } => {
                let labels = labels.into_iter().map(|l| l.value).collect();
                self.user_types.define(&name, crate::user_types::UserType::Enum(labels));
                None
            }
            Statement::CreateDomain(d) => {
                let base = self.user_types.resolve(&d.data_type);
                self.user_types.define(&d.name, crate::user_types::UserType::Domain(base));
                None
            }
            other => self.migration(other, at),
        }
    }

    fn create_table(&self, ct: &CreateTable, at: Position, fixes: &Fixes) -> TableBuilder {
        let mut b = TableBuilder::new(last_name(&ct.name), at, self.dialect);
        let name = b.table.name.clone();
        if let Err(r) = b.check_name("table", &name, at) {
            b.refusal = Some(r);
            return b;
        }
        if ct.query.is_some() {
            let why = "CREATE TABLE ... AS SELECT takes its columns from a query, which keylab \
                       does not run; give the table's own definition (SHOW CREATE TABLE, pg_dump)";
            b.refusal = Some((at, why.into()));
            return b;
        }
        if let Some(CreateTableLikeKind::Plain(like) | CreateTableLikeKind::Parenthesized(like)) =
            &ct.like
        {
            // CREATE TABLE x LIKE y: y's columns, keys and indexes under a new name.
            let source = last_name(&like.name);
            let found =
                self.tables.iter().rev().find(|t| t.table.name.eq_ignore_ascii_case(&source));
            let Some(source_table) = found else {
                let why = format!(
                    "CREATE TABLE ... LIKE `{source}`: the file defines no table `{source}` \
                     before this statement"
                );
                b.refusal = Some((at, why));
                return b;
            };
            let mut copy = source_table.clone();
            copy.table.name = b.table.name.clone();
            copy.at = at;
            copy.notes.push(Note {
                at,
                message: format!("defined LIKE `{}`: its columns, keys and indexes", source),
            });
            return copy;
        }
        if ct.temporary {
            b.notes.push(Note {
                at,
                message: "CREATE TEMPORARY TABLE: read as a table (the server keeps a temporary \
                          table for its session only, in its temporary tablespace; its pages and \
                          splits are a table's)"
                    .into(),
            });
        }
        if let Err(r) = self.read_columns(&mut b, ct, at, fixes) {
            b.refusal = Some(r);
        }
        b
    }

    fn read_columns(
        &self,
        b: &mut TableBuilder,
        ct: &CreateTable,
        at: Position,
        fixes: &Fixes,
    ) -> Result<(), Refusal> {
        let default_charset = b.options(&ct.table_options, &self.words)?;
        b.default_charset = default_charset;
        let mut pk_inline = Vec::new();
        let mut unique_inline = Vec::new();
        for (k, c) in ct.columns.iter().enumerate() {
            let next = ct.columns.get(k + 1).map(|n| Position::from(n.name.span.start));
            let read = b.column(c, next, fixes, &self.user_types)?;
            let Some(read) = read else { continue };
            let cat = Position::from(c.name.span.start);
            b.check_new_column(&read.column.name, cat)?;
            let i = b.table.columns.len();
            b.table.columns.push(read.column);
            if read.primary {
                if !pk_inline.is_empty() {
                    return Err(b.second_pk(cat));
                }
                pk_inline.push(i);
            }
            if read.unique {
                unique_inline.push(i);
            }
            if read.identity {
                b.set_identity(&c.name.value);
            }
        }
        if !pk_inline.is_empty() {
            b.set_pk(pk_inline);
        }
        for i in unique_inline {
            let name = b.table.columns[i].name.clone();
            b.table.indexes.push(Index::new(name, vec![i], true));
        }
        for c in &ct.constraints {
            b.constraint(c, at)?;
        }
        Ok(())
    }

    fn create_index(&mut self, ci: &CreateIndex, at: Position) -> Result<(), Refusal> {
        let Some(t) = self.table_mut(&ci.table_name) else {
            let table = last_name(&ci.table_name);
            self.loose.push(Note {
                at,
                message: format!(
                    "CREATE INDEX on `{table}` not applied: the file creates no table `{table}` \
                     before it"
                ),
            });
            return Ok(());
        };
        if t.refusal.is_some() {
            return Ok(());
        }
        let name = ci.name.as_ref().map(last_name).unwrap_or_else(|| format!("idx{}", at.line));
        let skip = |why: &str| Note { at, message: format!("index `{name}` skipped: {why}") };
        if let Some(u) = &ci.using {
            if !matches!(u, IndexType::BTree) {
                t.notes.push(skip(&format!("a {u} index is not a B-tree")));
                return Ok(());
            }
        }
        let predicate = match &ci.predicate {
            None => None,
            Some(e) => match crate::partial::predicate(e, &t.table.columns) {
                Ok(p) => Some(p),
                Err(why) => {
                    t.notes.push(skip(&format!(
                        "a partial index (WHERE) whose condition keylab does not evaluate on its \
                         rows: {why}"
                    )));
                    return Ok(());
                }
            },
        };
        if !ci.include.is_empty() {
            t.notes.push(skip("INCLUDE columns are not modelled"));
            return Ok(());
        }
        // Expression key parts keylab models are read as their column, with the function.
        let mut columns = ci.columns.clone();
        let key_fns = match crate::partial::key_parts(&mut columns, &t.table.columns, t.dialect) {
            Ok(f) => f,
            Err(why) => {
                t.notes.push(skip(&why));
                return Ok(());
            }
        };
        let options: Vec<StorageOption> = ci
            .with
            .iter()
            .map(|e| {
                let text = e.to_string();
                let (key, value) = text.split_once('=').unwrap_or((text.as_str(), "true"));
                StorageOption {
                    key: key.trim().trim_matches('"').to_ascii_lowercase(),
                    value: value.trim().trim_matches(['\'', '"']).to_string(),
                    at: if e.span().start.line > 0 { pos_of(e) } else { at },
                }
            })
            .collect();
        let added = t.add_index(name.clone(), &columns, ci.unique, at);
        if added {
            let ix = t.table.indexes.last_mut().expect("the index just added");
            if key_fns.iter().any(Option::is_some) {
                ix.key_fns = key_fns;
            }
            ix.predicate = predicate;
        }
        if added && !options.is_empty() {
            t.index_parameters(Some(name), &options)?;
        }
        Ok(())
    }
}

/// Where the statement of `piece` starts (its first character that is not blank).
fn piece_start(piece: &crate::scanner::Piece) -> Position {
    let mut at = piece.at;
    for ch in piece.text.chars() {
        match ch {
            '\n' => {
                at.line += 1;
                at.column = 1;
            }
            c if c.is_whitespace() => at.column += 1,
            _ => break,
        }
    }
    at
}

/// The foreign keys of table `name`, taken out of `all`.
fn take_foreign_keys(
    all: &mut Vec<(String, crate::ForeignKey)>,
    name: &str,
) -> Vec<crate::ForeignKey> {
    let (mine, rest) = std::mem::take(all).into_iter().partition(|(t, _)| t == name);
    *all = rest;
    mine.into_iter().map(|(_, f)| f).collect()
}

fn is_nextval(e: &Expr) -> bool {
    e.to_string().to_ascii_lowercase().contains("nextval(")
}
