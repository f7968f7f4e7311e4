//! A table definition: columns, the clustered primary key and secondary indexes.

use crate::{Column, Dialect, KeyFn, Partitioning, Predicate};
use serde::{Deserialize, Serialize};

/// InnoDB row format (the record layout of every index of the table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowFormat {
    /// `ROW_FORMAT=DYNAMIC`, the default: long columns move wholly off-page.
    #[default]
    Dynamic,
    /// `ROW_FORMAT=COMPACT`: long columns keep a 768-byte prefix in the record.
    Compact,
    /// `ROW_FORMAT=COMPRESSED` (the server's default `KEY_BLOCK_SIZE`, half the page): DYNAMIC
    /// records on zlib-compressed pages. The DDL rules know it (no instant column change);
    /// the InnoDB model does not model compressed pages and refuses to load such a table.
    Compressed,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Index {
    /// Index name.
    pub name: String,
    /// Indexed columns, as positions in [`Table::columns`], in index order.
    pub columns: Vec<usize>,
    /// `UNIQUE KEY` when true, `KEY` otherwise.
    pub unique: bool,
    /// Per entry of `columns`, the characters a prefix key part keeps (`KEY ix (c(10))`,
    /// CHAR/VARCHAR only), `None` for a whole column; empty when no part is a prefix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefix_chars: Vec<Option<u32>>,
    /// Per entry of `columns`, true for a part declared `DESC` (stored in descending order,
    /// MariaDB >= 10.8, MySQL 8.0); empty when every part is ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub descending: Vec<bool>,
    /// Per entry of `columns`, the function of an expression key part (`lower(col)`), `None`
    /// for the column itself; empty when no part is an expression.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_fns: Vec<Option<KeyFn>>,
    /// A partial index's predicate (PostgreSQL `WHERE`): it holds only the rows matching.
    #[serde(skip)]
    pub predicate: Option<Predicate>,
}

impl Index {
    /// An index on whole columns.
    pub fn new(name: impl Into<String>, columns: Vec<usize>, unique: bool) -> Index {
        Index {
            name: name.into(),
            columns,
            unique,
            prefix_chars: Vec::new(),
            descending: Vec::new(),
            key_fns: Vec::new(),
            predicate: None,
        }
    }

    /// The prefix length, in characters, of the part at `position` of `columns`.
    pub fn prefix_at(&self, position: usize) -> Option<u32> {
        self.prefix_chars.get(position).copied().flatten()
    }

    /// The function of the key part at `position` of `columns`, if it is an expression.
    pub fn key_fn_at(&self, position: usize) -> Option<KeyFn> {
        self.key_fns.get(position).copied().flatten()
    }

    /// True when the part at `position` of `columns` is declared `DESC`.
    pub fn descending_at(&self, position: usize) -> bool {
        self.descending.get(position).copied().unwrap_or(false)
    }
}

/// A table as keylab creates it on every engine.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Table {
    /// Table name.
    pub name: String,
    /// Columns in table order.
    pub columns: Vec<Column>,
    /// Primary-key columns, as positions in `columns`, in key order.
    pub primary_key: Vec<usize>,
    /// True when the (single) primary-key column is `AUTO_INCREMENT`.
    pub auto_increment: bool,
    /// Secondary indexes.
    pub indexes: Vec<Index>,
    /// Row format.
    pub row_format: RowFormat,
    /// Partitioning, for a partitioned table (each partition its own trees); results carry
    /// the figures, so it is not serialized.
    #[serde(skip)]
    pub partitioning: Option<Partitioning>,
}

impl Table {
    /// The name of partition `k` of this table on PostgreSQL (a relation of its own, named
    /// after the table so that candidates' partitions do not collide).
    pub fn partition_name(&self, k: usize) -> String {
        format!("{}_p{k}", self.name)
    }

    /// Partition `k` as a table of its own: this table's columns, keys and indexes under
    /// [`Table::partition_name`], not partitioned.
    pub fn partition_table(&self, k: usize) -> Table {
        Table { name: self.partition_name(k), partitioning: None, ..self.clone() }
    }

    /// `CREATE TABLE` for `dialect` (PostgreSQL gets `BIGSERIAL`-free plain DDL plus identity).
    pub fn create_sql(&self, dialect: Dialect) -> String {
        let mut parts: Vec<String> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut s = c.sql(dialect);
                if self.auto_increment && self.primary_key == [i] {
                    s.push_str(match dialect {
                        Dialect::Postgres => " GENERATED BY DEFAULT AS IDENTITY",
                        _ => " AUTO_INCREMENT",
                    });
                }
                s
            })
            .collect();
        let names = |cols: &[usize]| {
            cols.iter().map(|&i| self.columns[i].name.as_str()).collect::<Vec<_>>().join(", ")
        };
        if !self.primary_key.is_empty() {
            parts.push(format!("PRIMARY KEY ({})", names(&self.primary_key)));
        }
        if dialect != Dialect::Postgres {
            for ix in &self.indexes {
                let kind = if ix.unique { "UNIQUE KEY" } else { "KEY" };
                let cols: Vec<String> = ix
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(k, &c)| {
                        let part = match ix.prefix_at(k) {
                            Some(n) => format!("{}({n})", self.columns[c].name),
                            None => self.columns[c].name.clone(),
                        };
                        if ix.descending_at(k) {
                            part + " DESC"
                        } else {
                            part
                        }
                    })
                    .collect();
                parts.push(format!("{kind} {} ({})", ix.name, cols.join(", ")));
            }
        }
        let mut sql = format!("CREATE TABLE {} (\n  {}\n)", self.name, parts.join(",\n  "));
        match dialect {
            Dialect::Postgres => {
                if let Some(p) = &self.partitioning {
                    sql.push_str(&format!(" {}", p.postgres_clause(&self.columns)));
                    for (k, part) in p.partitions.iter().enumerate() {
                        sql.push_str(&format!(
                            ";\nCREATE TABLE {} PARTITION OF {} {}",
                            self.partition_name(k),
                            self.name,
                            p.postgres_bound(part, &self.columns)
                        ));
                    }
                }
                for ix in &self.indexes {
                    let kind = if ix.unique { "UNIQUE INDEX" } else { "INDEX" };
                    sql.push_str(&format!(
                        ";\nCREATE {kind} {}_{} ON {} ({})",
                        self.name,
                        ix.name,
                        self.name,
                        names(&ix.columns)
                    ));
                }
            }
            _ => {
                let rf = match self.row_format {
                    RowFormat::Dynamic => "DYNAMIC",
                    RowFormat::Compact => "COMPACT",
                    RowFormat::Compressed => "COMPRESSED",
                };
                sql.push_str(&format!(" ENGINE=InnoDB ROW_FORMAT={rf}"));
                if let Some(p) = &self.partitioning {
                    sql.push_str(&format!("\n{}", p.mysql_clause(&self.columns)));
                }
            }
        }
        sql
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Charset, ColumnType};

    #[test]
    fn create_table_mariadb() {
        let t = Table {
            name: "t".into(),
            columns: vec![
                Column::new("pk", ColumnType::BigInt { unsigned: false }, false),
                Column::new("id", ColumnType::Binary { bytes: 16 }, false),
                Column::new(
                    "data",
                    ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 },
                    true,
                ),
            ],
            primary_key: vec![0],
            auto_increment: true,
            indexes: vec![Index::new("k_id", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        };
        let sql = t.create_sql(Dialect::Mariadb);
        assert!(sql.contains("pk BIGINT NOT NULL AUTO_INCREMENT"), "{sql}");
        assert!(sql.contains("KEY k_id (id)"), "{sql}");
        assert!(sql.ends_with("ENGINE=InnoDB ROW_FORMAT=DYNAMIC"), "{sql}");
    }
}
