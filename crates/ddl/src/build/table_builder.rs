//! One table being built: its columns, keys, indexes and options from the statements that
//! name it (`TableBuilder`'s methods, with the key-part helpers they use). It does not walk
//! the file or decide which statement goes to which table (`build.rs` does).

use super::*;

impl TableBuilder {
    pub(super) fn set_identity(&mut self, column: &str) {
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

    pub(super) fn set_pk(&mut self, cols: Vec<usize>) {
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
    pub(super) fn options(
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
                        let at = if l.key.span.start.line > 0 {
                            l.key.span.start.into()
                        } else {
                            // sqlparser gives the option no place: the statement's last ENGINE.
                            words
                                .iter()
                                .rev()
                                .find(|(w, _)| w == "ENGINE")
                                .map(|w| w.1)
                                .unwrap_or_default()
                        };
                        let message = crate::fixups::other_engine_note(&engine);
                        self.notes.push(Note { at, message });
                    }
                }
                _ => {}
            }
        }
        Ok(charset)
    }

    pub(super) fn constraint(&mut self, c: &TableConstraint, at: Position) -> Result<(), Refusal> {
        match c {
            TableConstraint::PrimaryKey { columns, .. } => {
                self.note_descending(columns, "PRIMARY");
                let (cols, prefixes, refused) = self.resolve(columns, "PRIMARY")?;
                if let Some(why) = refused {
                    return Err((at_of(columns, at), format!("the primary key: {why}")));
                }
                self.check_second_pk(at_of(columns, at))?;
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

    pub(super) fn auto_name(&self, columns: &[IndexColumn]) -> String {
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
    pub(super) fn resolve(
        &self,
        columns: &[IndexColumn],
        index: &str,
    ) -> Result<ResolvedParts, Refusal> {
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
                other if self.dialect == SourceDialect::Mysql => {
                    let why = format!(
                        "`{other}` is a functional key part (MySQL 8.0.13+); MariaDB 10.11, \
                         which keylab models, has no functional indexes"
                    );
                    return Ok((out, Vec::new(), Some(why)));
                }
                other => {
                    return Ok((
                        out,
                        Vec::new(),
                        Some(format!("`{other}` is an expression, not a column")),
                    ))
                }
            };
            if self.virtual_columns.iter().any(|v| v.eq_ignore_ascii_case(&name)) {
                let why = format!(
                    "`{name}` is a VIRTUAL generated column, whose values the server keeps in \
                     this index only; keylab does not model that"
                );
                return Ok((out, Vec::new(), Some(why)));
            }
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
    pub(super) fn add_index(
        &mut self,
        name: String,
        columns: &[IndexColumn],
        unique: bool,
        at: Position,
    ) -> bool {
        if let Err(r) = self.check_name("index", &name, at) {
            self.refusal.get_or_insert(r);
            return false;
        }
        // MariaDB's DESC key parts are modelled; PostgreSQL's are not (the nbtree model and
        // keylab's PostgreSQL DDL keep every index ascending).
        let mut descending: Vec<bool> =
            columns.iter().map(|c| c.column.options.asc == Some(false)).collect();
        if !descending.contains(&true) {
            descending.clear();
        } else if self.dialect == SourceDialect::Postgres {
            self.note_descending(columns, &name);
            descending.clear();
        }
        match self.resolve(columns, &name) {
            Ok((cols, prefix_chars, None)) => {
                self.table.indexes.push(Index {
                    name,
                    columns: cols,
                    unique,
                    prefix_chars,
                    descending,
                    key_fns: Vec::new(),
                    predicate: None,
                });
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

impl TableBuilder {
    /// A note for each `DESC` key part that is not modelled (of the primary key, or of a
    /// PostgreSQL index): advised ascending, while the server stores it in descending order
    /// (inserts in rising order then come at the index's left end).
    fn note_descending(&mut self, columns: &[IndexColumn], index: &str) {
        for c in columns.iter().filter(|c| c.column.options.asc == Some(false)) {
            self.notes.push(Note {
                at: pos_of(&c.column.expr),
                message: format!(
                    "index `{index}`: key part {} DESC is advised in ascending order \
                     (descending key parts are not modelled; the server's index would run the \
                     other way)",
                    c.column.expr
                ),
            });
        }
    }
}

/// An index's column positions, their prefix lengths (empty: none), and why it is skipped.
pub(super) type ResolvedParts = (Vec<usize>, Vec<Option<u32>>, Option<String>);

/// `col(N)`: a MySQL prefix key part, as sqlparser reads it (a call with one number).
pub(crate) fn prefix_len(f: &sqlparser::ast::Function) -> Option<u64> {
    let FunctionArguments::List(list) = &f.args else { return None };
    match list.args.as_slice() {
        [sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
            Expr::Value(v),
        ))] => v.to_string().parse().ok(),
        _ => None,
    }
}

pub(super) fn at_of(columns: &[IndexColumn], fallback: Position) -> Position {
    columns.first().map(|c| pos_of(&c.column.expr)).unwrap_or(fallback)
}
