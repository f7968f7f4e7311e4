//! A file of migrations read in order: `ALTER TABLE`'s column, key and index changes, `RENAME
//! TABLE`, `DROP INDEX` and `DROP TABLE` applied to the tables read so far, so that a table is
//! advised on as it ends up. A change keylab cannot apply is named in a note on its table
//! (or refuses it when it is a column keylab cannot model); none is dropped silently.

use super::*;
use sqlparser::ast::{ColumnDef, ColumnOptionDef, ObjectType, RenameTableNameKind};

impl FileBuilder {
    /// `ALTER TABLE name operations...` in order; the first operation keylab cannot model
    /// refuses the table.
    pub(super) fn alter_table(
        &mut self,
        name: &str,
        operations: Vec<AlterTableOperation>,
        at: Position,
        parameters: Vec<ConstraintParameters>,
        fixes: &Fixes,
    ) {
        let user_types = self.user_types.clone();
        let mut renamed = None;
        let Some(t) = self.table_named(name) else {
            if !operations.iter().all(layout_neutral_op) {
                self.loose.push(Note {
                    at,
                    message: format!(
                        "ALTER TABLE {name} not applied: the file creates no table `{name}` \
                         before it"
                    ),
                });
            }
            return;
        };
        if t.refusal.is_some() {
            return;
        }
        for op in operations {
            if let AlterTableOperation::RenameTable { table_name } = &op {
                let (RenameTableNameKind::As(n) | RenameTableNameKind::To(n)) = table_name;
                renamed = Some(last_name(n));
                continue;
            }
            if let Err(r) = t.alter(op, at, fixes, &user_types) {
                t.refusal = Some(r);
                return;
            }
        }
        for p in parameters {
            if let Err(r) = t.constraint_parameters(p) {
                t.refusal = Some(r);
                return;
            }
        }
        if let Some(new) = renamed {
            t.table.name = new;
        }
    }

    /// Statements besides tables, indexes and user types: `DROP TABLE`, `DROP INDEX`,
    /// `RENAME TABLE`; anything else is counted as skipped.
    pub(super) fn migration(&mut self, s: Statement, at: Position) -> Option<String> {
        match s {
            Statement::Drop { object_type: ObjectType::Table, names, .. } => {
                for n in names {
                    let name = last_name(&n);
                    if let Some(t) = self.table_named(&name) {
                        t.notes.push(Note {
                            at,
                            message: format!(
                                "DROP TABLE {name} here; the table is advised as it was defined \
                                 before it"
                            ),
                        });
                    }
                }
                None
            }
            Statement::Drop { object_type: ObjectType::Index, names, table, .. } => {
                for n in names {
                    let index = last_name(&n);
                    let on = table.as_ref().map(last_name);
                    let owner = self.tables.iter_mut().rev().find(|t| {
                        on.as_ref().is_none_or(|o| t.table.name.eq_ignore_ascii_case(o))
                            && t.table.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&index))
                    });
                    match owner {
                        Some(t) => t.drop_index(&index),
                        None => self.loose.push(Note {
                            at,
                            message: format!(
                                "DROP INDEX {index} not applied: no index of that name was read"
                            ),
                        }),
                    }
                }
                None
            }
            Statement::RenameTable(renames) => {
                for r in renames {
                    let (old, new) = (last_name(&r.old_name), last_name(&r.new_name));
                    match self.table_named(&old) {
                        Some(t) => t.table.name = new,
                        None => self.loose.push(Note {
                            at,
                            message: format!(
                                "RENAME TABLE {old} not applied: the file creates no table \
                                 `{old}` before it"
                            ),
                        }),
                    }
                }
                None
            }
            _ => {
                self.skipped += 1;
                None
            }
        }
    }

    /// A statement keylab does not read (views, routines, grants, `SET`...): counted; DDL in
    /// a string of a `PREPARE ... FROM '...'` or of a `SET @s = '...'` (the migration idiom
    /// that prepares it next) is named, since it is not applied.
    pub(crate) fn other(&mut self, chunk: &[TokenWithSpan]) {
        self.skipped += 1;
        let words = crate::names::token_words(chunk);
        let first = words.first().map(|w| w.text.to_ascii_lowercase()).unwrap_or_default();
        if first != "prepare" && first != "set" {
            return;
        }
        for t in chunk {
            let Token::SingleQuotedString(text) = &t.token else { continue };
            let inner = crate::names::words(text);
            if let Some(table) = crate::names::named_table(&inner) {
                let note = Note {
                    at: t.span.start.into(),
                    message: format!(
                        "a statement on `{table}` in a string ({}) is not applied (keylab does \
                         not run prepared statements); the table is advised without it",
                        if first == "set" { "SET @... = '...'" } else { "PREPARE ... FROM '...'" }
                    ),
                };
                self.note_on(Some(&table), note);
            }
        }
    }
}

/// Operations that change no page of any index or heap (ownership, triggers, row security,
/// the next AUTO_INCREMENT value, how MySQL runs the ALTER).
fn layout_neutral_op(op: &AlterTableOperation) -> bool {
    use AlterTableOperation as O;
    matches!(
        op,
        O::OwnerTo { .. }
            | O::DisableTrigger { .. }
            | O::EnableTrigger { .. }
            | O::EnableAlwaysTrigger { .. }
            | O::EnableReplicaTrigger { .. }
            | O::DisableRule { .. }
            | O::EnableRule { .. }
            | O::EnableAlwaysRule { .. }
            | O::EnableReplicaRule { .. }
            | O::DisableRowLevelSecurity
            | O::EnableRowLevelSecurity
            | O::ReplicaIdentity { .. }
            | O::AutoIncrement { .. }
            | O::Algorithm { .. }
            | O::Lock { .. }
            | O::DropForeignKey { .. }
    )
}

impl TableBuilder {
    fn column_index(&self, name: &str) -> Option<usize> {
        self.table.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub(super) fn drop_index(&mut self, index: &str) {
        self.table.indexes.retain(|i| !i.name.eq_ignore_ascii_case(index));
        self.index_fill_factors
            .retain(|f| !f.index.as_ref().is_some_and(|n| n.eq_ignore_ascii_case(index)));
    }

    /// Column `i` removed: indexes on it go (as PostgreSQL drops them; MySQL drops the part,
    /// and the index when no part is left — a note says which), later positions move down.
    fn drop_column(&mut self, i: usize, at: Position) {
        let name = self.table.columns.remove(i).name;
        let on_it: Vec<String> = self
            .table
            .indexes
            .iter()
            .filter(|x| x.columns.contains(&i))
            .map(|x| x.name.clone())
            .collect();
        if !on_it.is_empty() {
            self.notes.push(Note {
                at,
                message: format!(
                    "column `{name}` dropped: the indexes on it ({}) are left out",
                    on_it.join(", ")
                ),
            });
        }
        self.table.indexes.retain(|x| !x.columns.contains(&i));
        let shift = |c: &mut usize| {
            if *c > i {
                *c -= 1;
            }
        };
        for x in &mut self.table.indexes {
            x.columns.iter_mut().for_each(shift);
        }
        if self.table.primary_key.contains(&i) {
            self.notes.push(Note {
                at,
                message: format!("column `{name}` dropped: it was in the primary key, which goes"),
            });
            self.table.primary_key.clear();
            self.table.auto_increment = false;
            self.has_pk = false;
        }
        self.table.primary_key.iter_mut().for_each(shift);
    }

    /// Column `old` made as `def` declares (MODIFY, CHANGE), in its place.
    fn replace_column(
        &mut self,
        old: &str,
        def: &ColumnDef,
        at: Position,
        fixes: &Fixes,
        user_types: &UserTypes,
    ) -> Result<(), Refusal> {
        let Some(i) = self.column_index(old) else {
            return Err((
                at,
                format!("ALTER TABLE changes column `{old}`, which the table does not have"),
            ));
        };
        let Some(read) = self.column(def, None, fixes, user_types)? else {
            self.drop_column(i, at);
            return Ok(());
        };
        let in_pk = self.table.primary_key.contains(&i);
        let mut column = read.column;
        // InnoDB keeps primary-key columns NOT NULL.
        column.nullable &= !in_pk;
        self.table.columns[i] = column;
        if read.identity {
            self.set_identity(&def.name.value);
        }
        if read.primary {
            self.set_pk(vec![i]);
        }
        Ok(())
    }

    pub(super) fn alter(
        &mut self,
        op: AlterTableOperation,
        at: Position,
        fixes: &Fixes,
        user_types: &UserTypes,
    ) -> Result<(), Refusal> {
        use AlterTableOperation as O;
        match op {
            O::AddConstraint { constraint, .. } => self.constraint(&constraint, at),
            O::AddColumn { column_def, if_not_exists, column_position, .. } => {
                if if_not_exists && self.column_index(&column_def.name.value).is_some() {
                    return Ok(());
                }
                let Some(read) = self.column(&column_def, None, fixes, user_types)? else {
                    return Ok(());
                };
                let cat = Position::from(column_def.name.span.start);
                self.check_new_column(&read.column.name, cat)?;
                if read.primary {
                    self.check_second_pk(cat)?;
                }
                if column_position.is_some() {
                    self.notes.push(Note {
                        at,
                        message: format!(
                            "column `{}` is added last, not where FIRST/AFTER puts it (on \
                             PostgreSQL a column's place can change its alignment padding)",
                            column_def.name.value
                        ),
                    });
                }
                let i = self.table.columns.len();
                self.table.columns.push(read.column);
                if read.identity {
                    self.set_identity(&column_def.name.value);
                }
                if read.primary {
                    self.set_pk(vec![i]);
                }
                if read.unique {
                    let name = column_def.name.value.clone();
                    self.table.indexes.push(Index::new(name, vec![i], true));
                }
                Ok(())
            }
            O::DropColumn { column_names, if_exists, .. } => {
                for c in column_names {
                    match self.column_index(&c.value) {
                        Some(i) => self.drop_column(i, at),
                        None if if_exists => {}
                        None => self.notes.push(Note {
                            at,
                            message: format!(
                                "DROP COLUMN {}: no such column; not applied",
                                c.value
                            ),
                        }),
                    }
                }
                Ok(())
            }
            O::ModifyColumn { col_name, data_type, options, .. } => {
                let def = column_def(col_name.clone(), data_type, options);
                self.replace_column(&col_name.value, &def, at, fixes, user_types)
            }
            O::ChangeColumn { old_name, new_name, data_type, options, .. } => {
                let def = column_def(new_name, data_type, options);
                self.replace_column(&old_name.value, &def, at, fixes, user_types)
            }
            O::RenameColumn { old_column_name, new_column_name } => {
                match self.column_index(&old_column_name.value) {
                    Some(i) => self.table.columns[i].name = new_column_name.value,
                    None => self.notes.push(Note {
                        at,
                        message: format!(
                            "RENAME COLUMN {old_column_name}: no such column; not applied"
                        ),
                    }),
                }
                Ok(())
            }
            O::AlterColumn { column_name, op } => {
                self.alter_column(&column_name.value, op, at, user_types)
            }
            O::DropPrimaryKey { .. } => {
                self.table.primary_key.clear();
                self.table.auto_increment = false;
                self.has_pk = false;
                Ok(())
            }
            O::DropIndex { name } => {
                self.drop_index(&name.value);
                Ok(())
            }
            O::DropConstraint { name, .. } => {
                if self.table.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name.value)) {
                    self.drop_index(&name.value);
                } else {
                    self.notes.push(Note {
                        at,
                        message: format!(
                            "DROP CONSTRAINT {name} not applied: no index of that name was read \
                             (a foreign key or check changes no page; a primary key keylab \
                             reads by its columns, not its name)"
                        ),
                    });
                }
                Ok(())
            }
            // `ALTER TABLE ... SET (fillfactor = N)`: the table's storage parameters.
            O::SetOptionsParens { options } => {
                let options = CreateTableOptions::With(options);
                self.options(&options, &[]).map(|_| ())
            }
            op if layout_neutral_op(&op) => Ok(()),
            other => {
                self.notes.push(Note {
                    at,
                    message: format!(
                        "`{other}` not applied: keylab applies column, key and index changes"
                    ),
                });
                Ok(())
            }
        }
    }

    fn alter_column(
        &mut self,
        column: &str,
        op: AlterColumnOperation,
        at: Position,
        user_types: &UserTypes,
    ) -> Result<(), Refusal> {
        let Some(i) = self.column_index(column) else {
            self.notes.push(Note {
                at,
                message: format!("ALTER COLUMN {column}: no such column; not applied"),
            });
            return Ok(());
        };
        match op {
            AlterColumnOperation::SetDefault { value } if is_nextval(&value) => {
                self.set_identity(column)
            }
            AlterColumnOperation::AddGenerated { .. } => self.set_identity(column),
            AlterColumnOperation::SetNotNull => self.table.columns[i].nullable = false,
            AlterColumnOperation::DropNotNull => {
                if !self.table.primary_key.contains(&i) {
                    self.table.columns[i].nullable = true;
                }
            }
            AlterColumnOperation::SetDataType { data_type, .. } => {
                let declared = user_types.resolve(&data_type);
                self.table.columns[i].labels = member_labels(&declared);
                self.table.columns[i].ty = match map_type(
                    &declared,
                    self.default_charset,
                    self.dialect == SourceDialect::Postgres,
                ) {
                    Ok(Mapped::Exact(t)) => t,
                    Ok(Mapped::Near(t, why)) => {
                        self.notes.push(Note { at, message: format!("column `{column}`: {why}") });
                        t
                    }
                    Err(why) => return Err((at, format!("column `{column}`: {why}"))),
                };
            }
            // Defaults change no stored byte of the rows keylab generates.
            AlterColumnOperation::SetDefault { .. } | AlterColumnOperation::DropDefault => {}
        }
        Ok(())
    }
}

fn column_def(
    name: sqlparser::ast::Ident,
    data_type: sqlparser::ast::DataType,
    options: Vec<ColumnOption>,
) -> ColumnDef {
    let options =
        options.into_iter().map(|option| ColumnOptionDef { name: None, option }).collect();
    ColumnDef { name, data_type, options }
}
