//! What the server of the file's dialect refuses in a table's definition itself, whatever
//! engine stores it: a second primary key, a column name given twice, a name too long or
//! holding a NUL, an ENUM past what MariaDB stores. Each refusal names the server's error
//! (number and text, as MariaDB 10.11.19 and PostgreSQL 15 give them); PostgreSQL's
//! truncation of a long name is a note, as the server's NOTICE is. Limits of a storage
//! engine (keys per table, columns, row and key lengths) are `keylab_schema::limits`' and
//! the advise command's, which know the engine.

use super::*;

/// MariaDB's longest identifier, in characters (`NAME_CHAR_LEN`; error 1059).
pub(crate) const MYSQL_MAX_NAME_CHARS: usize = 64;

/// PostgreSQL's longest identifier, in bytes (`NAMEDATALEN - 1`): a longer one is truncated
/// with a NOTICE (`truncate_identifier` in scan.l).
pub(crate) const PG_MAX_NAME_BYTES: usize = 63;

/// MariaDB's most ENUM or SET members, and the most bytes their labels may take with one
/// separator each: past either the table's definition does not fit its `.frm` header
/// (`pack_header` in sql/unireg.cc against 65,535 bytes: error 1117, measured on 10.11.19 for
/// 13,000 labels of 4 characters; the header's other parts make the real bound lower).
pub(crate) const MYSQL_MAX_MEMBER_BYTES: usize = 65_535;

impl TableBuilder {
    /// Refuses a name with a NUL (no server takes one) and, in MySQL DDL, one longer than
    /// 64 characters; notes PostgreSQL's truncation of one longer than 63 bytes.
    pub(super) fn check_name(
        &mut self,
        what: &str,
        name: &str,
        at: Position,
    ) -> Result<(), Refusal> {
        if name.contains('\0') {
            let server = match self.dialect {
                SourceDialect::Mysql => "MariaDB refuses it (error 1064, a syntax error)",
                SourceDialect::Postgres => {
                    "PostgreSQL cannot take it (a statement's text ends at a NUL byte)"
                }
            };
            return Err((
                at,
                format!("{what} name holds a NUL character: {server}; valid: a name without NUL"),
            ));
        }
        match self.dialect {
            SourceDialect::Mysql if name.chars().count() > MYSQL_MAX_NAME_CHARS => Err((
                at,
                format!(
                    "{what} name `{name}` has {} characters: MariaDB refuses it (error 1059: \
                     Identifier name is too long); valid: at most {MYSQL_MAX_NAME_CHARS} characters",
                    name.chars().count()
                ),
            )),
            SourceDialect::Postgres if name.len() > PG_MAX_NAME_BYTES => {
                let mut end = PG_MAX_NAME_BYTES;
                while !name.is_char_boundary(end) {
                    end -= 1;
                }
                self.notes.push(Note {
                    at,
                    message: format!(
                        "{what} name `{name}` has {} bytes: PostgreSQL truncates it to `{}` \
                         ({PG_MAX_NAME_BYTES} bytes, with a NOTICE)",
                        name.len(),
                        &name[..end]
                    ),
                });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Refuses column `name` when the table has a column of that name already (MariaDB
    /// compares names without case; PostgreSQL as read, its unquoted names folded by pg_dump).
    pub(super) fn check_new_column(&self, name: &str, at: Position) -> Result<(), Refusal> {
        let same = |c: &Column| match self.dialect {
            SourceDialect::Mysql => c.name.eq_ignore_ascii_case(name),
            SourceDialect::Postgres => c.name == name,
        };
        if !self.table.columns.iter().any(same) {
            return Ok(());
        }
        let server = match self.dialect {
            SourceDialect::Mysql => {
                format!("MariaDB refuses the table (error 1060: Duplicate column name '{name}')")
            }
            SourceDialect::Postgres => {
                format!("PostgreSQL refuses the table (column \"{name}\" specified more than once)")
            }
        };
        Err((
            at,
            format!("column `{name}` is defined twice: {server}; valid: one column of each name"),
        ))
    }

    /// Refuses a second primary key (`at`: where it is given) when the table has one.
    pub(super) fn check_second_pk(&self, at: Position) -> Result<(), Refusal> {
        if self.has_pk {
            return Err(self.second_pk(at));
        }
        Ok(())
    }

    /// The refusal of a second primary key given at `at`.
    pub(super) fn second_pk(&self, at: Position) -> Refusal {
        let server = match self.dialect {
            SourceDialect::Mysql => {
                "MariaDB refuses the table (error 1068: Multiple primary key defined)"
            }
            SourceDialect::Postgres => {
                "PostgreSQL refuses the table (multiple primary keys for table are not allowed)"
            }
        };
        (at, format!("a second PRIMARY KEY: {server}; valid: one primary key (list several columns in one PRIMARY KEY (a, b) for a composite key)"))
    }

    /// Refuses, in MySQL DDL, an ENUM or SET of column `name` whose members MariaDB cannot
    /// store.
    pub(super) fn check_members(
        &self,
        name: &str,
        labels: &[String],
        at: Position,
    ) -> Result<(), Refusal> {
        if self.dialect != SourceDialect::Mysql {
            return Ok(());
        }
        let bytes: usize = labels.iter().map(|l| l.len() + 1).sum();
        if labels.len() > MYSQL_MAX_MEMBER_BYTES || bytes > MYSQL_MAX_MEMBER_BYTES {
            return Err((
                at,
                format!(
                    "column `{name}` has {} members ({bytes} bytes with their separators): \
                     MariaDB refuses the table (error 1117: Table definition is too large; at \
                     most {MYSQL_MAX_MEMBER_BYTES} members, and their labels within the \
                     table definition's {MYSQL_MAX_MEMBER_BYTES} bytes); valid: fewer or \
                     shorter members, or a lookup table",
                    labels.len()
                ),
            ));
        }
        Ok(())
    }
}
