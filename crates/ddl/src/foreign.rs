//! Foreign keys of a table, as written: `FOREIGN KEY (...) REFERENCES p (...)` of a `CREATE
//! TABLE` or of an `ALTER TABLE ... ADD CONSTRAINT`, and a column's own `REFERENCES p (...)`.
//!
//! They change no layout of the table that declares them (an InnoDB foreign key needs an
//! index on its columns, which `SHOW CREATE TABLE` prints as a KEY of its own), so the table
//! builder ignores them; `keylab advise`'s schema summary reads them to carry a parent's key
//! change to the referencing columns of its children. Names are kept as written (the last
//! part of a qualified name, quotes removed); resolving them is the caller's.

use crate::build::last_name;
use crate::Position;
use sqlparser::ast::{AlterTableOperation, ColumnOption, CreateTable, Spanned, TableConstraint};

/// One foreign key: the referencing columns of its table and the columns they refer to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    /// The referencing columns, in order.
    pub columns: Vec<String>,
    /// The referenced (parent) table.
    pub parent: String,
    /// The referenced columns; empty when not written (then the parent's primary key).
    pub parent_columns: Vec<String>,
    /// Where it was declared.
    pub at: Position,
}

fn from_constraint(c: &TableConstraint, at: Position) -> Option<ForeignKey> {
    let TableConstraint::ForeignKey { columns, foreign_table, referred_columns, .. } = c else {
        return None;
    };
    let start = c.span().start;
    Some(ForeignKey {
        columns: columns.iter().map(|i| i.value.clone()).collect(),
        parent: last_name(foreign_table),
        parent_columns: referred_columns.iter().map(|i| i.value.clone()).collect(),
        at: if start.line > 0 { start.into() } else { at },
    })
}

/// The foreign keys a `CREATE TABLE` declares (column `REFERENCES` first, in column order,
/// then table constraints in order).
pub(crate) fn of_create_table(ct: &CreateTable, at: Position) -> Vec<ForeignKey> {
    let mut out = Vec::new();
    for c in &ct.columns {
        for o in &c.options {
            if let ColumnOption::ForeignKey { foreign_table, referred_columns, .. } = &o.option {
                let start = c.name.span.start;
                out.push(ForeignKey {
                    columns: vec![c.name.value.clone()],
                    parent: last_name(foreign_table),
                    parent_columns: referred_columns.iter().map(|i| i.value.clone()).collect(),
                    at: if start.line > 0 { start.into() } else { at },
                });
            }
        }
    }
    out.extend(ct.constraints.iter().filter_map(|c| from_constraint(c, at)));
    out
}

/// The foreign keys an `ALTER TABLE`'s operations add.
pub(crate) fn of_alter(operations: &[AlterTableOperation], at: Position) -> Vec<ForeignKey> {
    operations
        .iter()
        .filter_map(|op| match op {
            AlterTableOperation::AddConstraint { constraint, .. } => {
                from_constraint(constraint, at)
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::{parse, ForeignKey};
    use proptest::prelude::*;

    proptest! {
        /// Every foreign key written (as a constraint, a column's REFERENCES or an ALTER
        /// TABLE, names quoted or not) is read back with its columns and parent, in order.
        #[test]
        fn written_foreign_keys_read_back(
            names in proptest::collection::vec("[a-z][a-z0-9_]{0,8}", 1..5),
            how in proptest::collection::vec(0u8..3, 1..5),
            quoted in any::<bool>(),
        ) {
            let q = |n: &str| if quoted { format!("`{n}`") } else { n.to_string() };
            let n = names.len().min(how.len());
            let mut cols = vec!["id BIGINT NOT NULL".to_string()];
            let mut cons = vec!["PRIMARY KEY (id)".to_string()];
            let mut alters = Vec::new();
            let mut want = Vec::new();
            for (i, (name, how)) in names.iter().zip(&how).take(n).enumerate() {
                let col = format!("c{i}_{name}");
                let parent = format!("p_{name}");
                match how {
                    0 => cols.push(format!("{} BIGINT REFERENCES {} (id)", q(&col), q(&parent))),
                    1 => {
                        cols.push(format!("{} BIGINT", q(&col)));
                        cons.push(format!("FOREIGN KEY ({}) REFERENCES {} (id)", q(&col), q(&parent)));
                    }
                    _ => {
                        cols.push(format!("{} BIGINT", q(&col)));
                        alters.push(format!(
                            "ALTER TABLE c ADD CONSTRAINT fk{i} FOREIGN KEY ({}) REFERENCES {} (id);",
                            q(&col), q(&parent)
                        ));
                    }
                }
                want.push((*how, col, parent));
            }
            cols.extend(cons);
            let sql = format!("CREATE TABLE c ({});\n{}", cols.join(", "), alters.join("\n"));
            let f = parse(&sql, "p.sql").unwrap();
            let got: Vec<(String, String)> = f.tables[0]
                .foreign_keys
                .iter()
                .map(|k| (k.columns.join(","), k.parent.clone()))
                .collect();
            // Column REFERENCES first, then constraints, then ALTER TABLEs (file order).
            let mut expected: Vec<(u8, String, String)> = want;
            expected.sort_by_key(|(how, _, _)| *how);
            let expected: Vec<(String, String)> =
                expected.into_iter().map(|(_, c, p)| (c, p)).collect();
            prop_assert_eq!(got, expected, "{}", sql);
        }
    }

    fn keys(sql: &str, table: &str) -> Vec<ForeignKey> {
        let file = parse(sql, "t.sql").unwrap();
        file.table(Some(table)).unwrap().foreign_keys.clone()
    }

    #[test]
    fn table_constraint_column_references_and_alter_are_read() {
        let sql = "CREATE TABLE p (id BIGINT NOT NULL AUTO_INCREMENT, PRIMARY KEY (id));\n\
                   CREATE TABLE c (id INT NOT NULL, p_id BIGINT NOT NULL REFERENCES p (id),\n\
                   q BIGINT, r BIGINT, PRIMARY KEY (id), KEY ix_q (q),\n\
                   CONSTRAINT fk_q FOREIGN KEY (q) REFERENCES `db`.`p` (`id`));\n\
                   ALTER TABLE c ADD CONSTRAINT fk_r FOREIGN KEY (r) REFERENCES p;";
        let fks = keys(sql, "c");
        let got: Vec<(Vec<&str>, &str, Vec<&str>)> = fks
            .iter()
            .map(|f| {
                let cols = f.columns.iter().map(String::as_str).collect();
                let refs = f.parent_columns.iter().map(String::as_str).collect();
                (cols, f.parent.as_str(), refs)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (vec!["p_id"], "p", vec!["id"]),
                (vec!["q"], "p", vec!["id"]),
                (vec!["r"], "p", vec![]),
            ]
        );
        assert_eq!(fks[0].at.line, 2);
        assert_eq!(fks[2].at.line, 5);
        assert!(keys(sql, "p").is_empty());
    }

    #[test]
    fn postgres_alter_only_add_constraint_is_read() {
        let sql = "CREATE TABLE public.p (id bigint NOT NULL);\n\
                   CREATE TABLE public.c (id bigint NOT NULL, p_id bigint);\n\
                   ALTER TABLE ONLY public.p ADD CONSTRAINT p_pkey PRIMARY KEY (id);\n\
                   ALTER TABLE ONLY public.c ADD CONSTRAINT c_pkey PRIMARY KEY (id);\n\
                   ALTER TABLE ONLY public.c\n    ADD CONSTRAINT c_p_fk FOREIGN KEY (p_id) \
                   REFERENCES public.p(id) ON DELETE CASCADE;";
        let fks = keys(sql, "c");
        assert_eq!(fks.len(), 1);
        assert_eq!((fks[0].parent.as_str(), fks[0].columns[0].as_str()), ("p", "p_id"));
    }
}
