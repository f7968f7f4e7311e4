//! The DDL file read for `keylab advise`: in the dialect given (`--dialect`, or the server's
//! for `--url`) or detected, the table asked for picked out (its refusal, or what is valid,
//! exit 2), and the notes on the reading: which dialect and why, the table's own notes, and
//! a count of what the file holds besides it (other tables' notes are not shown).

use crate::UsageError;
use anyhow::Result;
use keylab_ddl::{DdlFile, DdlTable, SourceDialect, TableError};

/// `source` read in `dialect`, else in the dialect its marks say.
pub(super) fn read_file(
    source: &str,
    origin: &str,
    dialect: Option<SourceDialect>,
) -> Result<DdlFile> {
    let file = match dialect {
        Some(d) => keylab_ddl::parse_as(source, origin, d),
        None => keylab_ddl::parse(source, origin),
    };
    Ok(file.map_err(|e| UsageError(e.to_string()))?)
}

/// The table named (or the only one); a refused table gives its refusal at its place.
pub(super) fn pick<'a>(file: &'a DdlFile, name: Option<&str>) -> Result<&'a DdlTable> {
    file.table(name).map_err(|e| {
        match e {
            TableError::Refused(e) => UsageError(e.to_string()),
            TableError::Missing(m) => UsageError(format!("{m} (--table)")),
        }
        .into()
    })
}

/// The notes on reading `ddl` from `file`: the dialect and why (for a file; `flagged`: set
/// by --dialect), the table's notes, and what else the file holds, counted.
pub(super) fn reading_notes(
    file: &DdlFile,
    ddl: &DdlTable,
    from_file: bool,
    flagged: bool,
) -> Vec<String> {
    let origin = &file.origin;
    let mut notes = Vec::new();
    if from_file {
        let shown = match file.dialect {
            SourceDialect::Mysql => "MySQL",
            SourceDialect::Postgres => "PostgreSQL",
        };
        let why = if flagged { "--dialect" } else { file.dialect_reason.as_str() };
        notes.push(format!("{origin}: read as {shown}: {why}"));
    }
    notes.extend(
        ddl.notes.iter().map(|n| format!("{origin}:{}:{}: {}", n.at.line, n.at.column, n.message)),
    );
    let others: Vec<&DdlTable> =
        file.tables.iter().filter(|t| t.table.name != ddl.table.name).collect();
    let other_notes = file.notes.len() + others.iter().map(|t| t.notes.len()).sum::<usize>();
    if !others.is_empty() || !file.refused.is_empty() {
        notes.push(format!(
            "{origin}: {} other table(s) read, {} refused, {} skipped statement(s); {other_notes} \
             note(s) about other tables and statements are not shown",
            others.len(),
            file.refused.len(),
            file.skipped_statements
        ));
    }
    notes
}
