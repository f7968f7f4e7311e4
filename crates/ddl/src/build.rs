//! From parsed statements to [`DdlTable`]s: columns with their types and character sets, the
//! primary key, secondary indexes from `CREATE TABLE`, `CREATE INDEX` and `ALTER TABLE ... ADD
//! CONSTRAINT`, identity columns and table options. Refusals carry their position; skips
//! become notes.

mod parameters;
mod table_builder;

use parameters::layout_neutral;

use crate::storage::{ConstraintParameters, StorageOption};
use crate::types::{charset_named, map_type, Mapped};
use crate::{DdlFile, DdlTable, FillFactor, IndexFillFactor, Note, Position, SourceDialect};
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table};
use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, ColumnOption, CreateIndex, CreateTable, Expr,
    FunctionArguments, IndexColumn, IndexType, ObjectName, SqlOption, Statement, TableConstraint,
};
use sqlparser::ast::{CreateTableOptions, Spanned};
use sqlparser::tokenizer::{Token, TokenWithSpan};

type Refusal = (Position, String);

struct TableBuilder {
    table: Table,
    at: Position,
    notes: Vec<Note>,
    fill_factor: Option<FillFactor>,
    index_fill_factors: Vec<IndexFillFactor>,
    dialect: SourceDialect,
    has_pk: bool,
}

pub(crate) struct FileBuilder {
    dialect: SourceDialect,
    tables: Vec<TableBuilder>,
    pub(crate) skipped: usize,
    /// Notes for statements that name no table keylab read.
    loose: Vec<Note>,
    /// The words of the statement being read, upper case, with their places (sqlparser
    /// gives MySQL table options no place of their own).
    words: Vec<(String, Position)>,
    /// Foreign keys read, by the name of their table (attached at `finish`).
    foreign_keys: Vec<(String, crate::ForeignKey)>,
}

fn last_name(name: &ObjectName) -> String {
    name.0.last().map(|p| p.to_string().trim_matches(['`', '"']).to_string()).unwrap_or_default()
}

fn pos_of(s: &impl Spanned) -> Position {
    s.span().start.into()
}

impl FileBuilder {
    pub(crate) fn new(dialect: SourceDialect) -> Self {
        FileBuilder {
            dialect,
            tables: Vec::new(),
            skipped: 0,
            loose: Vec::new(),
            words: Vec::new(),
            foreign_keys: Vec::new(),
        }
    }

    pub(crate) fn finish(self) -> DdlFile {
        let mut foreign_keys = self.foreign_keys;
        let mut tables: Vec<DdlTable> = self
            .tables
            .into_iter()
            .map(|mut b| {
                if !b.has_pk {
                    // An identity alone is no primary key: InnoDB would add a hidden row id.
                    b.table.primary_key.clear();
                    b.table.auto_increment = false;
                }
                b
            })
            .map(|b| DdlTable {
                foreign_keys: take_foreign_keys(&mut foreign_keys, &b.table.name),
                table: b.table,
                at: b.at,
                notes: b.notes,
                fill_factor: b.fill_factor,
                index_fill_factors: b.index_fill_factors,
            })
            .collect();
        if let Some(first) = tables.first_mut() {
            first.notes.extend(self.loose);
        }
        DdlFile { dialect: self.dialect, tables, skipped_statements: self.skipped }
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

    /// A note on the table just created (`on_last`), else on the file's first table.
    pub(crate) fn note(&mut self, on_last: bool, note: Note) {
        match self.tables.last_mut().filter(|_| on_last) {
            Some(t) => t.notes.push(note),
            None => self.loose.push(note),
        }
    }

    pub(crate) fn note_unread(&mut self, at: Position) {
        self.loose.push(Note {
            at,
            message: "ALTER TABLE statement not read (keylab reads ADD CONSTRAINT, identity and \
                      defaults); the table is advised as its CREATE TABLE defines it"
                .into(),
        });
    }

    /// pg_dump's identity `ALTER TABLE ... ALTER COLUMN c ADD GENERATED ...`.
    pub(crate) fn identity(&mut self, chunk: &[TokenWithSpan], column: String) {
        let words: Vec<&str> = chunk
            .iter()
            .filter_map(|t| match &t.token {
                Token::Word(w) => Some(w.value.as_str()),
                _ => None,
            })
            .collect();
        // ALTER TABLE [ONLY] name: the table is the word after TABLE (and ONLY).
        let mut name = words.get(2).copied().unwrap_or("");
        if name.eq_ignore_ascii_case("only") {
            name = words.get(3).copied().unwrap_or("");
        }
        // A qualified name comes as several words; the table's is the last before ALTER.
        let alter = words.iter().rposition(|w| w.eq_ignore_ascii_case("alter")).unwrap_or(0);
        if alter > 2 {
            name = words[alter - 1];
        }
        let n = name.to_string();
        if let Some(t) = self.tables.iter_mut().find(|t| t.table.name.eq_ignore_ascii_case(&n)) {
            t.set_identity(&column);
        }
    }

    /// Reads statement `s`; `parameters` are its constraints' index parameters, taken out
    /// of it before it was parsed.
    pub(crate) fn statement(
        &mut self,
        s: Statement,
        at: Position,
        parameters: Vec<ConstraintParameters>,
    ) -> Result<(), Refusal> {
        match s {
            Statement::CreateTable(ct) => {
                let mut t = self.create_table(&ct, at)?;
                let fks = crate::foreign::of_create_table(&ct, at);
                self.foreign_keys.extend(fks.into_iter().map(|f| (t.table.name.clone(), f)));
                for p in parameters {
                    t.constraint_parameters(p)?;
                }
                self.tables.push(t);
                Ok(())
            }
            Statement::CreateIndex(ci) => self.create_index(&ci, at),
            Statement::AlterTable { name, operations, .. } => {
                let fks = crate::foreign::of_alter(&operations, at);
                let Some(t) = self.table_mut(&name) else { return Ok(()) };
                let table = t.table.name.clone();
                for op in operations {
                    t.alter(op, at)?;
                }
                for p in parameters {
                    t.constraint_parameters(p)?;
                }
                self.foreign_keys.extend(fks.into_iter().map(|f| (table.clone(), f)));
                Ok(())
            }
            _ => {
                self.skipped += 1;
                Ok(())
            }
        }
    }

    fn create_table(&self, ct: &CreateTable, at: Position) -> Result<TableBuilder, Refusal> {
        let mut b = TableBuilder {
            table: Table {
                name: last_name(&ct.name),
                columns: Vec::new(),
                primary_key: Vec::new(),
                auto_increment: false,
                indexes: Vec::new(),
                row_format: RowFormat::Dynamic,
            },
            at,
            notes: Vec::new(),
            fill_factor: None,
            index_fill_factors: Vec::new(),
            dialect: self.dialect,
            has_pk: false,
        };
        if ct.query.is_some() || ct.like.is_some() {
            return Err((at, "CREATE TABLE ... AS/LIKE has no columns to read; give the table's own definition (SHOW CREATE TABLE)".into()));
        }
        let default_charset = b.options(&ct.table_options, &self.words)?;
        let mut pk_inline = Vec::new();
        let mut unique_inline = Vec::new();
        for (i, c) in ct.columns.iter().enumerate() {
            let cat: Position = c.name.span.start.into();
            let mut charset = default_charset;
            let mut nullable = true;
            let mut auto = false;
            for o in &c.options {
                match &o.option {
                    ColumnOption::NotNull => nullable = false,
                    ColumnOption::Null => nullable = true,
                    ColumnOption::Unique { is_primary: true, .. } => pk_inline.push(i),
                    ColumnOption::Unique { is_primary: false, .. } => unique_inline.push(i),
                    ColumnOption::CharacterSet(n) | ColumnOption::Collation(n) => {
                        let name = last_name(n);
                        charset = charset_named(&name).ok_or_else(|| {
                            (
                                pos_of(n),
                                format!(
                                    "character set or collation `{name}` is not modelled; \
                                     valid: utf8mb4, utf8mb3, latin1, ascii and their \
                                     collations; PostgreSQL's \"C\", \"POSIX\", \"default\""
                                ),
                            )
                        })?;
                    }
                    ColumnOption::DialectSpecific(tokens)
                        if tokens.iter().any(|t| {
                            matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("auto_increment"))
                        }) =>
                    {
                        auto = true
                    }
                    ColumnOption::Identity(_) => auto = true,
                    ColumnOption::Generated { generation_expr: Some(_), .. } => {
                        return Err((
                            cat,
                            format!(
                                "column `{}` is a generated column, which keylab does not \
                                 model; drop it from the definition (or make it a plain \
                                 column of its type) to advise",
                                c.name.value
                            ),
                        ))
                    }
                    ColumnOption::Generated { .. } => auto = true,
                    ColumnOption::Default(e) if is_nextval(e) => auto = true,
                    _ => {}
                }
            }
            let ty = match map_type(&c.data_type, charset) {
                Ok(Mapped::Exact(t)) => t,
                Ok(Mapped::Near(t, why)) => {
                    b.notes.push(Note {
                        at: cat,
                        message: format!("column `{}`: {why}", c.name.value),
                    });
                    t
                }
                Err(why) => return Err((cat, format!("column `{}`: {why}", c.name.value))),
            };
            b.table.columns.push(Column::new(c.name.value.clone(), ty, nullable));
            if auto {
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
        Ok(b)
    }

    fn create_index(&mut self, ci: &CreateIndex, at: Position) -> Result<(), Refusal> {
        let Some(t) = self.table_mut(&ci.table_name) else { return Ok(()) };
        let name = ci.name.as_ref().map(last_name).unwrap_or_else(|| format!("idx{}", at.line));
        let skip = |why: &str| Note { at, message: format!("index `{name}` skipped: {why}") };
        if let Some(u) = &ci.using {
            if !matches!(u, IndexType::BTree) {
                t.notes.push(skip(&format!("a {u} index is not a B-tree")));
                return Ok(());
            }
        }
        if ci.predicate.is_some() {
            t.notes.push(skip("a partial index (WHERE) holds only some rows"));
            return Ok(());
        }
        if !ci.include.is_empty() {
            t.notes.push(skip("INCLUDE columns are not modelled"));
            return Ok(());
        }
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
        let added = t.add_index(name.clone(), &ci.columns, ci.unique, at);
        if added && !options.is_empty() {
            t.index_parameters(Some(name), &options)?;
        }
        Ok(())
    }
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
