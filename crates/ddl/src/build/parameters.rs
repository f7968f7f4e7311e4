//! Storage parameters applied to the tables being built: a constraint's or an index's
//! `WITH (...)` (`fillfactor` kept for the caller, anything else noted), `ALTER INDEX ... SET
//! (...)`, and which table options change no page (said nothing of).

use super::{FileBuilder, Refusal, TableBuilder};
use crate::storage::{self, AlterIndex, ConstraintParameters, Owner, StorageOption};
use crate::{FillFactor, IndexFillFactor, Note, SourceDialect};

impl FileBuilder {
    /// `ALTER INDEX`: `SET (...)` of a secondary index keylab read is applied like the same
    /// parameters in its `CREATE INDEX`; anything else is noted.
    pub(crate) fn alter_index(&mut self, alter: AlterIndex) {
        let (index, options) = match alter {
            AlterIndex::Set { index, options } => (index, options),
            AlterIndex::Other(at) => {
                self.loose.push(Note {
                    at,
                    message: "ALTER INDEX statement not read (keylab reads its SET (...) \
                              storage parameters); the index is advised as created"
                        .into(),
                });
                return;
            }
        };
        let owner = self
            .tables
            .iter_mut()
            .find(|t| t.table.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&index)));
        match owner {
            Some(t) => {
                let name = t.table.indexes.iter().find(|i| i.name.eq_ignore_ascii_case(&index));
                let name = name.map(|i| i.name.clone());
                if let Err(r) = t.index_parameters(name, &options) {
                    t.refusal.get_or_insert(r);
                }
            }
            None => {
                let at = options.first().map(|o| o.at).unwrap_or_default();
                self.loose.push(Note {
                    at,
                    message: format!(
                        "ALTER INDEX {index} SET (...) not applied: no index of that name was \
                         read (a primary key's or unique constraint's parameters go in its \
                         WITH (...))"
                    ),
                });
            }
        }
    }
}

impl TableBuilder {
    /// A constraint's index parameters: its index is the primary key or the unique index of
    /// that name.
    pub(super) fn constraint_parameters(&mut self, p: ConstraintParameters) -> Result<(), Refusal> {
        let index = match p.owner {
            Owner::PrimaryKey => None,
            Owner::Unique(Some(name))
                if self.table.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name)) =>
            {
                Some(name)
            }
            Owner::Unique(_) | Owner::Other => {
                self.notes.push(Note {
                    at: p.at,
                    message: "index parameters (WITH) of a constraint keylab does not model as \
                              a named index are not applied; name the UNIQUE constraint \
                              (CONSTRAINT name UNIQUE ...) to have them read"
                        .into(),
                });
                return Ok(());
            }
        };
        self.index_parameters(index, &p.options)
    }

    /// An index's storage parameters (`index` `None`: the primary key): `fillfactor` is kept
    /// for the caller to apply; any other parameter is noted as not modelled.
    pub(super) fn index_parameters(
        &mut self,
        index: Option<String>,
        options: &[StorageOption],
    ) -> Result<(), Refusal> {
        let shown = index.clone().map_or("the primary key".to_string(), |n| format!("`{n}`"));
        for o in options {
            if o.key == "fillfactor" && self.dialect == SourceDialect::Postgres {
                let pct = storage::fill_factor_pct(o)?;
                self.index_fill_factors.retain(|f| f.index != index);
                self.index_fill_factors.push(IndexFillFactor {
                    index: index.clone(),
                    fill_factor: FillFactor { pct, at: o.at },
                });
            } else {
                self.notes.push(Note {
                    at: o.at,
                    message: format!(
                        "index {shown}: storage parameter {}={} is not modelled; the index is \
                         advised as if it were not given",
                        o.key, o.value
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Table options that change no page of the table's indexes or heap under an insert load
/// (statistics, comments, the next AUTO_INCREMENT value, MyISAM hints, autovacuum).
pub(super) fn layout_neutral(key: &str) -> bool {
    const NEUTRAL: [&str; 14] = [
        "AUTO_INCREMENT",
        "COMMENT",
        "STATS_PERSISTENT",
        "STATS_AUTO_RECALC",
        "STATS_SAMPLE_PAGES",
        "CHECKSUM",
        "PAGE_CHECKSUM",
        "PACK_KEYS",
        "DELAY_KEY_WRITE",
        "AVG_ROW_LENGTH",
        "MAX_ROWS",
        "MIN_ROWS",
        "PARALLEL_WORKERS",
        "LOG_AUTOVACUUM_MIN_DURATION",
    ];
    NEUTRAL.contains(&key)
        || key.starts_with("AUTOVACUUM_")
        || key.starts_with("TOAST.AUTOVACUUM_")
        || key.starts_with("VACUUM_")
}
