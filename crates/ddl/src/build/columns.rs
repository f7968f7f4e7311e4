//! One column definition read into a [`Column`]: its type (through the file's user types and
//! `types.rs`), nullability, character set, and what its options make of it (an inline
//! key, an identity, a generated value). Used by `CREATE TABLE` and by `ALTER TABLE`'s ADD,
//! MODIFY and CHANGE.

use super::*;
use sqlparser::ast::{ColumnDef, GeneratedExpressionMode};

/// A column as read, with what its options say beyond the column itself.
pub(super) struct ReadColumn {
    pub column: Column,
    /// `PRIMARY KEY` inline.
    pub primary: bool,
    /// `UNIQUE` inline.
    pub unique: bool,
    /// `AUTO_INCREMENT`, an identity, a serial default.
    pub identity: bool,
}

impl TableBuilder {
    /// Reads `c` (`next`: where the next column starts, to find the rewrites of `fixes` that
    /// are in it); `None` for a column that stores nothing (a virtual generated column).
    pub(super) fn column(
        &mut self,
        c: &ColumnDef,
        next: Option<Position>,
        fixes: &Fixes,
        user_types: &UserTypes,
    ) -> Result<Option<ReadColumn>, Refusal> {
        let cat: Position = c.name.span.start.into();
        let name = &c.name.value;
        self.check_name("column", name, cat)?;
        let mut charset = self.default_charset;
        let mut out = ReadColumn {
            column: Column::new(name.clone(), ColumnType::Int, true),
            primary: false,
            unique: false,
            identity: false,
        };
        let mut generated = None;
        for o in &c.options {
            match &o.option {
                ColumnOption::NotNull => out.column.nullable = false,
                ColumnOption::Null => out.column.nullable = true,
                ColumnOption::Unique { is_primary: true, .. } => out.primary = true,
                ColumnOption::Unique { is_primary: false, .. } => out.unique = true,
                ColumnOption::CharacterSet(n) | ColumnOption::Collation(n) => {
                    let cs = last_name(n);
                    charset = charset_named(&cs).ok_or_else(|| {
                        (
                            pos_of(n),
                            format!(
                                "character set or collation `{cs}` is not modelled; valid: \
                                 utf8mb4, utf8mb3, latin1, ascii and their collations; \
                                 PostgreSQL's \"C\", \"POSIX\", \"default\""
                            ),
                        )
                    })?;
                }
                ColumnOption::DialectSpecific(tokens)
                    if tokens.iter().any(|t| {
                        matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("auto_increment"))
                    }) =>
                {
                    out.identity = true
                }
                ColumnOption::Identity(_) => out.identity = true,
                ColumnOption::Generated {
                    generation_expr: Some(_), generation_expr_mode, ..
                } => generated = Some(generation_expr_mode.clone()),
                ColumnOption::Generated { .. } => out.identity = true,
                ColumnOption::Default(e) if is_nextval(e) => out.identity = true,
                _ => {}
            }
        }
        if let Some(mode) = generated {
            // PostgreSQL 18 and MySQL (its default) store nothing for a VIRTUAL column: its
            // value is computed on read (an index on it is not modelled).
            let pg_virtual = Fixes::within(&fixes.virtual_at, cat, next);
            let virtual_column = pg_virtual
                || (self.dialect == SourceDialect::Mysql
                    && mode != Some(GeneratedExpressionMode::Stored));
            if virtual_column {
                self.notes.push(Note {
                    at: cat,
                    message: format!(
                        "column `{name}` is a VIRTUAL generated column: it stores nothing, so it \
                         is left out of the stored columns"
                    ),
                });
                self.virtual_columns.push(name.clone());
                return Ok(None);
            }
            self.notes.push(Note {
                at: cat,
                message: format!(
                    "column `{name}` is a STORED generated column: stored as a column of its \
                     type, its values generated like any other column's"
                ),
            });
        }
        if Fixes::within(&fixes.binary_at, cat, next) {
            // MySQL's `BINARY` attribute: the binary collation of the column's character set.
            charset = match charset {
                Charset::Utf8mb4 | Charset::Utf8mb4Bin => Charset::Utf8mb4Bin,
                other => {
                    self.notes.push(Note {
                        at: cat,
                        message: format!(
                            "column `{name}`: BINARY (the _bin collation) is modelled for \
                             utf8mb4 only; read with {other:?}'s default collation"
                        ),
                    });
                    other
                }
            };
        }
        let declared = user_types.resolve(&c.data_type);
        let pg = self.dialect == SourceDialect::Postgres;
        if serial_type(&declared, pg).is_some() {
            // An integer with its sequence: an identity (AUTO_INCREMENT) column. MySQL's
            // SERIAL is also NOT NULL and UNIQUE.
            out.identity = true;
            if !pg {
                out.column.nullable = false;
                out.unique = true;
            }
        }
        out.column.labels = member_labels(&declared);
        self.check_members(name, &out.column.labels, cat)?;
        out.column.ty = match map_type(&declared, charset, pg) {
            Ok(Mapped::Exact(t)) => t,
            Ok(Mapped::Near(t, why)) => {
                self.notes.push(Note { at: cat, message: format!("column `{name}`: {why}") });
                t
            }
            Err(why) => return Err((cat, format!("column `{name}`: {why}"))),
        };
        Ok(Some(out))
    }
}
