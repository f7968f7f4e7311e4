//! From parsed statements to [`DdlTable`]s: columns with their types and character sets, the
//! primary key, secondary indexes from `CREATE TABLE`, `CREATE INDEX` and `ALTER TABLE ... ADD
//! CONSTRAINT`, identity columns and table options. Refusals carry their position; skips
//! become notes.

mod parameters;

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
        }
    }

    pub(crate) fn finish(self) -> DdlFile {
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
                for p in parameters {
                    t.constraint_parameters(p)?;
                }
                self.tables.push(t);
                Ok(())
            }
            Statement::CreateIndex(ci) => self.create_index(&ci, at),
            Statement::AlterTable { name, operations, .. } => {
                let Some(t) = self.table_mut(&name) else { return Ok(()) };
                for op in operations {
                    t.alter(op, at)?;
                }
                for p in parameters {
                    t.constraint_parameters(p)?;
                }
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
            b.table.indexes.push(Index {
                name,
                columns: vec![i],
                unique: true,
                prefix_chars: Vec::new(),
            });
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

fn is_nextval(e: &Expr) -> bool {
    e.to_string().to_ascii_lowercase().contains("nextval(")
}

impl TableBuilder {
    fn set_identity(&mut self, column: &str) {
        if let Some(i) = self.table.columns.iter().position(|c| c.name.eq_ignore_ascii_case(column))
        {
            if self.table.primary_key.is_empty() || self.table.primary_key == [i] {
                self.table.auto_increment = true;
                if self.table.primary_key.is_empty() {
                    // Decided when the primary key is known (pg_dump adds it later).
                    self.table.primary_key = vec![i];
                }
            }
        }
    }

    fn set_pk(&mut self, cols: Vec<usize>) {
        let auto_col = self.table.auto_increment.then(|| self.table.primary_key.clone());
        for &c in &cols {
            // InnoDB makes primary-key columns NOT NULL.
            self.table.columns[c].nullable = false;
        }
        self.table.auto_increment = auto_col.is_some_and(|a| a == cols);
        self.table.primary_key = cols;
        self.has_pk = true;
    }

    /// Table options; returns the default character set.
    fn options(
        &mut self,
        opts: &CreateTableOptions,
        words: &[(String, Position)],
    ) -> Result<Charset, Refusal> {
        let list: &[SqlOption] = match opts {
            CreateTableOptions::None => &[],
            CreateTableOptions::With(v)
            | CreateTableOptions::Options(v)
            | CreateTableOptions::Plain(v)
            | CreateTableOptions::TableProperties(v) => v,
        };
        let mut charset = Charset::Utf8mb4;
        for o in list {
            match o {
                SqlOption::KeyValue { key, value } => {
                    let k = key.value.to_ascii_uppercase();
                    let v = value.to_string().trim_matches(['\'', '"', '`']).to_string();
                    let at: Position = if key.span.start.line > 0 {
                        key.span.start.into()
                    } else {
                        // The last word of that name: table options follow the columns.
                        let first = k.split(' ').next().unwrap_or_default();
                        words
                            .iter()
                            .rev()
                            .find(|(w, _)| w == first)
                            .map(|w| w.1)
                            .unwrap_or_default()
                    };
                    match k.as_str() {
                        "ROW_FORMAT" => {
                            self.table.row_format = match v.to_ascii_uppercase().as_str() {
                                "DYNAMIC" | "DEFAULT" => RowFormat::Dynamic,
                                "COMPACT" => RowFormat::Compact,
                                other => {
                                    return Err((
                                        at,
                                        format!(
                                            "ROW_FORMAT={other} is not modelled; valid: \
                                             DYNAMIC, COMPACT"
                                        ),
                                    ))
                                }
                            }
                        }
                        "KEY_BLOCK_SIZE" => {
                            return Err((
                                at,
                                "KEY_BLOCK_SIZE (compressed pages) is not modelled; valid: \
                                 ROW_FORMAT=DYNAMIC or COMPACT without it"
                                    .into(),
                            ))
                        }
                        "DEFAULT CHARSET"
                        | "CHARSET"
                        | "CHARACTER SET"
                        | "DEFAULT CHARACTER SET"
                        | "COLLATE"
                        | "DEFAULT COLLATE" => {
                            let cs = charset_named(&v).ok_or_else(|| {
                                (
                                    at,
                                    format!(
                                        "character set or collation `{v}` is not modelled; \
                                         valid: utf8mb4, utf8mb3, latin1, ascii"
                                    ),
                                )
                            })?;
                            // COLLATE refines the character set (`utf8mb4_bin`).
                            if k.contains("COLLATE") || charset == Charset::Utf8mb4 {
                                charset = cs;
                            }
                        }
                        "FILLFACTOR" => {
                            let ff: u8 =
                                v.parse().ok().filter(|f| (10..=100).contains(f)).ok_or_else(
                                    || {
                                        (
                                            at,
                                            format!(
                                            "FILLFACTOR {v} is not a percentage; valid: 10..=100"
                                        ),
                                        )
                                    },
                                )?;
                            self.fill_factor = Some(FillFactor { pct: ff, at });
                            if self.dialect == SourceDialect::Postgres {
                                // The heap's fillfactor: the caller applies or notes it.
                                continue;
                            }
                            self.notes.push(Note {
                                at,
                                message: format!(
                                    "FILLFACTOR={ff} read; InnoDB's inserts fill pages by its \
                                     split rules, not a fill factor (innodb_fill_factor applies \
                                     to sorted index builds only), so the model does not use it"
                                ),
                            });
                        }
                        _ if layout_neutral(&k) => {}
                        _ => self.notes.push(Note {
                            at,
                            message: format!(
                                "table option {k}={v} is not modelled; the table is advised as \
                                 if it were not given"
                            ),
                        }),
                    }
                }
                SqlOption::NamedParenthesizedList(l)
                    if l.key.value.eq_ignore_ascii_case("engine") =>
                {
                    let engine = l.name.as_ref().map(|n| n.value.clone()).unwrap_or_default();
                    if !engine.eq_ignore_ascii_case("innodb") {
                        return Err((
                            l.key.span.start.into(),
                            format!("ENGINE={engine} is not modelled; valid: InnoDB"),
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(charset)
    }

    fn constraint(&mut self, c: &TableConstraint, at: Position) -> Result<(), Refusal> {
        match c {
            TableConstraint::PrimaryKey { columns, .. } => {
                let (cols, prefixes, refused) = self.resolve(columns, "PRIMARY")?;
                if let Some(why) = refused {
                    return Err((at_of(columns, at), format!("the primary key: {why}")));
                }
                if !prefixes.is_empty() {
                    return Err((
                        at_of(columns, at),
                        "the primary key has a prefix key part, which keylab does not model; \
                         valid: whole columns"
                            .into(),
                    ));
                }
                self.set_pk(cols);
            }
            TableConstraint::Unique { name, index_name, columns, .. } => {
                let n = index_name.as_ref().or(name.as_ref()).map(|i| i.value.clone());
                let n = n.unwrap_or_else(|| self.auto_name(columns));
                self.add_index(n, columns, true, at_of(columns, at));
            }
            TableConstraint::Index { name, columns, .. } => {
                let n = name.as_ref().map(|i| i.value.clone());
                let n = n.unwrap_or_else(|| self.auto_name(columns));
                self.add_index(n, columns, false, at_of(columns, at));
            }
            TableConstraint::FulltextOrSpatial { fulltext, opt_index_name, columns, .. } => {
                let kind = if *fulltext { "FULLTEXT" } else { "SPATIAL" };
                let n = opt_index_name.as_ref().map(|i| i.value.clone()).unwrap_or_default();
                self.notes.push(Note {
                    at: at_of(columns, at),
                    message: format!(
                        "{kind} index `{n}` skipped: not a B-tree keylab models (its pages are \
                         not counted)"
                    ),
                });
            }
            // Foreign keys need an index on their columns, which SHOW CREATE TABLE prints as
            // a KEY of its own; checks change no layout.
            TableConstraint::ForeignKey { .. } | TableConstraint::Check { .. } => {}
        }
        Ok(())
    }

    fn alter(&mut self, op: AlterTableOperation, at: Position) -> Result<(), Refusal> {
        match op {
            AlterTableOperation::AddConstraint { constraint, .. } => {
                self.constraint(&constraint, at)
            }
            AlterTableOperation::AlterColumn { column_name, op } => {
                match op {
                    AlterColumnOperation::SetDefault { value } if is_nextval(&value) => {
                        self.set_identity(&column_name.value)
                    }
                    AlterColumnOperation::AddGenerated { .. } => {
                        self.set_identity(&column_name.value)
                    }
                    _ => {}
                }
                Ok(())
            }
            AlterTableOperation::OwnerTo { .. } => Ok(()),
            // `ALTER TABLE ... SET (fillfactor = N)`: the table's storage parameters.
            AlterTableOperation::SetOptionsParens { options } => {
                let options = CreateTableOptions::With(options);
                self.options(&options, &[]).map(|_| ())
            }
            other => {
                self.notes.push(Note {
                    at,
                    message: format!(
                        "`{other}` not applied: keylab reads a table's CREATE TABLE, its \
                         indexes and constraints"
                    ),
                });
                Ok(())
            }
        }
    }

    fn auto_name(&self, columns: &[IndexColumn]) -> String {
        let first = columns.first().map(|c| c.column.expr.to_string()).unwrap_or_default();
        let base = first.trim_matches(['`', '"']).to_string();
        let mut name = base.clone();
        let mut k = 2;
        while self.table.indexes.iter().any(|i| i.name == name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        name
    }

    /// Column positions of an index's parts and their prefix lengths (`c(10)`: 10
    /// characters, CHAR/VARCHAR only); `Some(why)` when a part is neither a column nor such
    /// a prefix (an expression, a prefix of another type).
    fn resolve(&self, columns: &[IndexColumn], index: &str) -> Result<ResolvedParts, Refusal> {
        let mut out = Vec::new();
        let mut prefix_chars = Vec::new();
        for c in columns {
            let at = pos_of(&c.column.expr);
            let mut prefix = None;
            let name = match &c.column.expr {
                Expr::Identifier(i) => i.value.clone(),
                Expr::CompoundIdentifier(parts) => {
                    parts.last().map(|i| i.value.clone()).unwrap_or_default()
                }
                Expr::Function(f) if prefix_len(f).is_some() => {
                    prefix = prefix_len(f);
                    last_name(&f.name)
                }
                other => {
                    return Ok((
                        out,
                        Vec::new(),
                        Some(format!("`{other}` is an expression, not a column")),
                    ))
                }
            };
            let pos = self
                .table
                .columns
                .iter()
                .position(|col| col.name.eq_ignore_ascii_case(&name))
                .ok_or_else(|| {
                    (
                        at,
                        format!(
                            "index `{index}` names column `{name}`, which the table does not \
                             have; valid: {}",
                            self.table
                                .columns
                                .iter()
                                .map(|c| c.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
            if let Some(n) = prefix {
                let col = &self.table.columns[pos];
                let chars = match col.ty {
                    ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } => chars,
                    _ => {
                        let why = format!(
                            "`{}({n})` is a prefix key part of a {} column, which keylab \
                             does not model (prefixes of CHAR/VARCHAR columns are)",
                            col.name,
                            col.ty.sql(keylab_schema::Dialect::Mariadb)
                        );
                        return Ok((out, Vec::new(), Some(why)));
                    }
                };
                // A prefix as long as the column keeps all of it (MariaDB stores it whole).
                let n = u32::try_from(n).unwrap_or(u32::MAX);
                prefix_chars.push((n < chars).then_some(n));
            } else {
                prefix_chars.push(None);
            }
            out.push(pos);
        }
        if prefix_chars.iter().all(Option::is_none) {
            prefix_chars.clear();
        }
        Ok((out, prefix_chars, None))
    }

    /// Adds the index; false when it is skipped (with a note).
    fn add_index(
        &mut self,
        name: String,
        columns: &[IndexColumn],
        unique: bool,
        at: Position,
    ) -> bool {
        match self.resolve(columns, &name) {
            Ok((cols, prefix_chars, None)) => {
                self.table.indexes.push(Index { name, columns: cols, unique, prefix_chars });
                return true;
            }
            Ok((_, _, Some(why))) => self.notes.push(Note {
                at,
                message: format!("index `{name}` skipped: {why} (its pages are not counted)"),
            }),
            Err((at, why)) => self.notes.push(Note { at, message: format!("{why}; skipped") }),
        }
        false
    }
}

/// An index's column positions, their prefix lengths (empty: none), and why it is skipped.
type ResolvedParts = (Vec<usize>, Vec<Option<u32>>, Option<String>);

/// `col(N)`: a MySQL prefix key part, as sqlparser reads it (a call with one number).
fn prefix_len(f: &sqlparser::ast::Function) -> Option<u64> {
    let FunctionArguments::List(list) = &f.args else { return None };
    match list.args.as_slice() {
        [sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
            Expr::Value(v),
        ))] => v.to_string().parse().ok(),
        _ => None,
    }
}

fn at_of(columns: &[IndexColumn], fallback: Position) -> Position {
    columns.first().map(|c| pos_of(&c.column.expr)).unwrap_or(fallback)
}
