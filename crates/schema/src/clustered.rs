//! Which index InnoDB clusters a table on when it has no PRIMARY KEY, and the table the
//! InnoDB model builds for it (that index as its primary key).
//!
//! MariaDB takes the first UNIQUE key whose parts are all NOT NULL whole columns as the
//! primary key (`sort_keys` in `sql/sql_table.cc` puts such keys first, in declaration
//! order; `TABLE_SHARE::init_from_binary_frm_image` in `sql/table.cc` promotes the first one
//! with no nullable or prefix part), and InnoDB clusters on it under its own name. With none,
//! `create_table_info_t::create_table` (`handler/ha_innodb.cc`) adds `GEN_CLUST_INDEX` on a
//! hidden 6-byte `DB_ROW_ID`, assigned in insert order (`row_ins_alloc_row_id_step`, from
//! `dict_sys.get_new_row_id`), which every secondary index then carries as its key part.

use crate::{Column, ColumnType, Table};

/// The name InnoDB gives the clustered index on the hidden row id.
pub const ROW_ID_INDEX: &str = "GEN_CLUST_INDEX";
/// The hidden row id column (`DATA_ROW_ID`).
pub const ROW_ID_COLUMN: &str = "DB_ROW_ID";
/// Bytes of the hidden row id (`DATA_ROW_ID_LEN`).
pub const ROW_ID_BYTES: u32 = 6;

/// The index InnoDB clusters a table on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clustered {
    /// The declared PRIMARY KEY.
    PrimaryKey,
    /// No PRIMARY KEY: the secondary index at this position in `Table::indexes`, the first
    /// UNIQUE one over NOT NULL whole columns.
    Unique(usize),
    /// No PRIMARY KEY and no such UNIQUE index: the hidden 6-byte `DB_ROW_ID`.
    RowId,
}

impl Table {
    /// The index InnoDB clusters this table on.
    pub fn innodb_clustered(&self) -> Clustered {
        if !self.primary_key.is_empty() {
            return Clustered::PrimaryKey;
        }
        let promotable = |ix: &crate::Index| {
            ix.unique
                && ix.columns.iter().all(|&c| !self.columns[c].nullable)
                && ix.prefix_chars.iter().all(Option::is_none)
        };
        match self.indexes.iter().position(promotable) {
            Some(i) => Clustered::Unique(i),
            None => Clustered::RowId,
        }
    }

    /// The table as InnoDB stores it, its clustered index as the primary key: the promoted
    /// UNIQUE index moved to `primary_key`, or a last column [`ROW_ID_COLUMN`] of
    /// [`ROW_ID_BYTES`] binary bytes (rows must then carry its value last). Unchanged with a
    /// PRIMARY KEY.
    pub fn innodb_clustered_form(&self) -> Table {
        let mut t = self.clone();
        match self.innodb_clustered() {
            Clustered::PrimaryKey => {}
            Clustered::Unique(i) => {
                let ix = t.indexes.remove(i);
                t.primary_key = ix.columns;
            }
            Clustered::RowId => {
                let ty = ColumnType::Binary { bytes: ROW_ID_BYTES };
                t.columns.push(Column::new(ROW_ID_COLUMN, ty, false));
                t.primary_key = vec![t.columns.len() - 1];
            }
        }
        t
    }

    /// How the clustered index is described to the user: `PRIMARY KEY (a)`,
    /// `UNIQUE KEY uk (a, b)`, or the hidden row id.
    pub fn innodb_clustered_text(&self) -> String {
        let names = |cols: &[usize]| {
            cols.iter().map(|&c| self.columns[c].name.as_str()).collect::<Vec<_>>().join(", ")
        };
        match self.innodb_clustered() {
            Clustered::PrimaryKey => format!("PRIMARY KEY ({})", names(&self.primary_key)),
            Clustered::Unique(i) => format!(
                "UNIQUE KEY {} ({}): InnoDB uses the first UNIQUE index over NOT NULL columns",
                self.indexes[i].name,
                names(&self.indexes[i].columns)
            ),
            Clustered::RowId => format!(
                "the hidden {ROW_ID_BYTES}-byte row id ({ROW_ID_INDEX} on {ROW_ID_COLUMN}, in \
                 insert order): no UNIQUE index over NOT NULL columns"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Index, RowFormat};

    fn table(indexes: Vec<Index>, nullable_b: bool) -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("a", ColumnType::Int, false),
                Column::new("b", ColumnType::Int, nullable_b),
            ],
            primary_key: Vec::new(),
            auto_increment: false,
            indexes,
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    #[test]
    fn the_first_unique_not_null_index_is_clustered_else_the_row_id() {
        let t =
            table(vec![Index::new("k", vec![0], false), Index::new("u", vec![0, 1], true)], false);
        assert_eq!(t.innodb_clustered(), Clustered::Unique(1));
        let f = t.innodb_clustered_form();
        assert_eq!((f.primary_key.clone(), f.indexes.len()), (vec![0, 1], 1));
        assert!(t.innodb_clustered_text().starts_with("UNIQUE KEY u (a, b)"));
        // A nullable part disqualifies it: the hidden row id, a 6-byte last column.
        let t = table(vec![Index::new("u", vec![0, 1], true)], true);
        assert_eq!(t.innodb_clustered(), Clustered::RowId);
        let f = t.innodb_clustered_form();
        assert_eq!(f.primary_key, vec![2]);
        assert_eq!(f.columns[2].ty, ColumnType::Binary { bytes: 6 });
        assert_eq!(f.indexes.len(), 1);
        // A prefix part too.
        let mut u = Index::new("u", vec![0], true);
        u.prefix_chars = vec![Some(3)];
        assert_eq!(table(vec![u], false).innodb_clustered(), Clustered::RowId);
    }
}
