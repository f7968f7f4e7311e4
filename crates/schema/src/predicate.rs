//! What a partial index holds (PostgreSQL `CREATE INDEX ... WHERE`), and the key functions
//! of an expression index that keylab models: the predicates it can evaluate on a row
//! (`IS [NOT] NULL`, a column compared with constants, `IN (...)`, a boolean column, `AND`
//! of these), written back as PostgreSQL reads them. It does not parse SQL (keylab-ddl does).

use crate::{Column, Value};
use std::cmp::Ordering;

/// A comparison with a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `=`.
    Eq,
    /// `<>` / `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpOp {
    fn sql(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    fn holds(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }
}

/// A partial index's predicate over a row's columns (positions in the table's columns).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// `col IS NULL`.
    IsNull(usize),
    /// `col IS NOT NULL`.
    IsNotNull(usize),
    /// `col <op> constant`.
    Cmp(usize, CmpOp, Value),
    /// `col [NOT] IN (constants)`; `true` for NOT IN.
    In(usize, Vec<Value>, bool),
    /// A boolean column (`WHERE active`), or its negation when `false` (`WHERE NOT active`).
    Bool(usize, bool),
    /// Every one holds.
    And(Vec<Predicate>),
}

/// SQL's three-valued comparison of two non-null values (integers across signedness).
fn compare(a: &Value, b: &Value) -> Ordering {
    let int = |v: &Value| match *v {
        Value::Int(n) | Value::Time(n) => Some(i128::from(n)),
        Value::UInt(n) => Some(i128::from(n)),
        _ => None,
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

/// True for a boolean value that is true (keylab's rows give booleans as integers).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Int(n) | Value::Time(n) => *n != 0,
        Value::UInt(n) => *n != 0,
        Value::Bytes(b) => matches!(b.as_slice(), b"t" | b"true" | b"1"),
        Value::Null => false,
    }
}

impl Predicate {
    /// True when the row goes into the index (a comparison with NULL is not true).
    pub fn holds(&self, row: &[Value]) -> bool {
        match self {
            Predicate::IsNull(c) => row[*c].is_null(),
            Predicate::IsNotNull(c) => !row[*c].is_null(),
            Predicate::Cmp(c, op, v) => !row[*c].is_null() && op.holds(compare(&row[*c], v)),
            Predicate::In(c, list, negated) => {
                !row[*c].is_null()
                    && list.iter().any(|v| compare(&row[*c], v) == Ordering::Equal) != *negated
            }
            Predicate::Bool(c, want) => !row[*c].is_null() && truthy(&row[*c]) == *want,
            Predicate::And(all) => all.iter().all(|p| p.holds(row)),
        }
    }

    /// The columns it reads.
    pub fn columns(&self) -> Vec<usize> {
        match self {
            Predicate::IsNull(c)
            | Predicate::IsNotNull(c)
            | Predicate::Cmp(c, ..)
            | Predicate::In(c, ..)
            | Predicate::Bool(c, _) => vec![*c],
            Predicate::And(all) => all.iter().flat_map(Predicate::columns).collect(),
        }
    }

    /// The predicate as PostgreSQL reads it, the columns named by `name`.
    pub fn sql(&self, columns: &[Column], name: &dyn Fn(&str) -> String) -> String {
        let col = |c: &usize| name(&columns[*c].name);
        match self {
            Predicate::IsNull(c) => format!("{} IS NULL", col(c)),
            Predicate::IsNotNull(c) => format!("{} IS NOT NULL", col(c)),
            Predicate::Cmp(c, op, v) => {
                format!("{} {} {}", col(c), op.sql(), literal(v, &columns[*c]))
            }
            Predicate::In(c, list, negated) => {
                let values: Vec<String> = list.iter().map(|v| literal(v, &columns[*c])).collect();
                let not = if *negated { "NOT " } else { "" };
                format!("{} {not}IN ({})", col(c), values.join(", "))
            }
            Predicate::Bool(c, true) => col(c),
            Predicate::Bool(c, false) => format!("NOT {}", col(c)),
            Predicate::And(all) => {
                let parts: Vec<String> =
                    all.iter().map(|p| format!("({})", p.sql(columns, name))).collect();
                parts.join(" AND ")
            }
        }
    }
}

/// A constant as a SQL literal for column `col`.
fn literal(v: &Value, col: &Column) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(n) => n.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Time(s) => {
            let text = match col.ty {
                crate::ColumnType::Date => crate::date_text(*s),
                crate::ColumnType::Temporal { kind: crate::TemporalKind::TimestampTz, .. } => {
                    crate::datetime_text(*s).map(|t| t + "+00")
                }
                _ => crate::datetime_text(*s),
            };
            format!("'{}'", text.unwrap_or_default())
        }
        Value::Bytes(b) => format!("'{}'", String::from_utf8_lossy(b).replace('\'', "''")),
    }
}

/// The function of an expression index's key part that keylab models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyFn {
    /// `lower(col)`.
    Lower,
    /// `upper(col)`.
    Upper,
    /// `col::text` of a character column (the same bytes).
    Text,
}

impl KeyFn {
    /// The key part as PostgreSQL reads it.
    pub fn sql(self, column: &str) -> String {
        match self {
            KeyFn::Lower => format!("lower({column})"),
            KeyFn::Upper => format!("upper({column})"),
            KeyFn::Text => format!("({column}::text)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_hold_as_sql_says() {
        let row = [Value::Int(3), Value::Null, Value::Bytes(b"ab".to_vec())];
        assert!(Predicate::IsNull(1).holds(&row));
        assert!(!Predicate::IsNotNull(1).holds(&row));
        assert!(Predicate::Cmp(0, CmpOp::Ge, Value::Int(3)).holds(&row));
        assert!(!Predicate::Cmp(1, CmpOp::Ne, Value::Int(3)).holds(&row));
        assert!(Predicate::In(2, vec![Value::Bytes(b"ab".to_vec())], false).holds(&row));
        assert!(Predicate::And(vec![Predicate::Bool(0, true), Predicate::IsNotNull(2)]).holds(&row));
    }
}
