//! `keylab advise`: the user's PostgreSQL `fillfactor`s (of the table and of each index, as
//! `keylab-ddl` read them) turned into the [`FillFactors`] every candidate is created with,
//! and one note per value, with its place, saying whether it is applied and how. Applied on
//! the nbtree model of PostgreSQL 15 and on `--engine postgres`; InnoDB (the model or
//! `--engine mariadb`) has no per-table or per-index fillfactor, so there each value is
//! noted as not applied. MySQL input's `FILLFACTOR` is noted by `keylab-ddl` itself.

use keylab_core::FillFactors;
use keylab_ddl::{DdlTable, FillFactor, SourceDialect};

/// Where the candidates run, as far as fillfactors go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillFactorTarget {
    /// The nbtree model of PostgreSQL 15.
    NbtreeModel,
    /// A PostgreSQL server (`--engine postgres`).
    PostgresServer,
    /// InnoDB: the model or a MariaDB server.
    Innodb,
}

/// The fillfactors the candidates are created with (empty unless the input is PostgreSQL
/// and the target applies them), with a note per value given.
pub fn fill_factors(
    ddl: &DdlTable,
    dialect: SourceDialect,
    origin: &str,
    target: FillFactorTarget,
    notes: &mut Vec<String>,
) -> FillFactors {
    let mut out = FillFactors::default();
    if dialect != SourceDialect::Postgres {
        return out;
    }
    let mut note = |what: &str, f: &FillFactor, applied: &str| {
        notes.push(format!(
            "{origin}:{}:{}: fillfactor={} of {what} {}",
            f.at.line,
            f.at.column,
            f.pct,
            match target {
                FillFactorTarget::Innodb => "read but not applied: InnoDB has no per-table or \
                                             per-index fillfactor (innodb_fill_factor applies to \
                                             sorted index builds only)"
                    .to_string(),
                FillFactorTarget::NbtreeModel => format!("applied on the model: {applied}"),
                FillFactorTarget::PostgresServer => format!(
                    "applied: the server's {} created WITH (fillfactor = {}), as given",
                    if what == "the table" { "table is" } else { "index is" },
                    f.pct
                ),
            }
        ));
    };
    if let Some(f) = &ddl.fill_factor {
        // RelationGetBufferForTuple: an insert goes to a page only while the page keeps
        // the fillfactor's reserve free.
        note(
            "the table",
            f,
            &format!("each heap page takes inserts while {}% of it stays free", 100 - f.pct),
        );
        out.table_pct = Some(f.pct);
    }
    for ix in &ddl.index_fill_factors {
        let f = &ix.fill_factor;
        let what = match &ix.index {
            None => "the primary key".to_string(),
            Some(name) => format!("index `{name}`"),
        };
        // _bt_findsplitloc (BTGetFillFactor): a rightmost leaf split leaves the left page
        // this full; other leaf splits and internal pages (70%) are unaffected.
        note(
            &what,
            f,
            &format!(
                "a rightmost leaf split leaves the left leaf {}% full (other splits and \
                 internal pages as without it)",
                f.pct
            ),
        );
        match &ix.index {
            None => out.primary_key_pct = Some(f.pct),
            Some(name) => out.index_pct.push((name.clone(), f.pct)),
        }
    }
    if target == FillFactorTarget::Innodb {
        return FillFactors::default();
    }
    out
}
