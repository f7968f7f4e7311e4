//! Partial and expression indexes read from sqlparser's expressions: a `WHERE` keylab can
//! evaluate on its generated rows ([`Predicate`]: `IS [NOT] NULL`, a column compared with
//! constants, `[NOT] IN (...)`, a boolean column, `AND`; pg_dump's casts of a column to
//! `text` and of constants are looked through), and key parts `lower(col)`, `upper(col)`,
//! `col::text` ([`KeyFn`]). Anything else is an `Err` with why, for the caller's note.

use crate::SourceDialect;
use keylab_schema::{parse_time_text, CmpOp, Column, ColumnType, KeyFn, Predicate, Value};
use sqlparser::ast::{
    BinaryOperator, DataType, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, IndexColumn,
    UnaryOperator,
};

fn is_int(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int | ColumnType::BigInt { .. } | ColumnType::Integer { .. } | ColumnType::Bool
    )
}

/// `e` without parentheses.
fn bare(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => bare(inner),
        other => other,
    }
}

/// True for a cast to a text type (`::text`, `::character varying`).
fn text_cast(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Text
            | DataType::Varchar(_)
            | DataType::CharacterVarying(_)
            | DataType::Char(_)
            | DataType::Character(_)
    )
}

/// The column `e` names (through a cast of a character column to text).
fn column_of(e: &Expr, columns: &[Column]) -> Result<usize, String> {
    let name = match bare(e) {
        Expr::Identifier(i) => i.value.clone(),
        Expr::CompoundIdentifier(parts) => {
            parts.last().map(|i| i.value.clone()).unwrap_or_default()
        }
        Expr::Cast { expr, data_type, .. } if text_cast(data_type) => {
            let c = column_of(expr, columns)?;
            return if columns[c].ty.is_character() {
                Ok(c)
            } else {
                Err(format!("`{e}` casts a column to another type"))
            };
        }
        other => return Err(format!("`{other}` is not a column")),
    };
    columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(&name))
        .ok_or_else(|| format!("`{name}` is not a column of the table"))
}

/// Constant `e` as a value of column `col` (casts looked through).
fn constant(e: &Expr, col: &Column) -> Result<Value, String> {
    use sqlparser::ast::Value as V;
    let e = match bare(e) {
        Expr::Cast { expr, .. } => bare(expr),
        other => other,
    };
    let (neg, e) = match e {
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => (true, bare(expr)),
        other => (false, other),
    };
    let Expr::Value(v) = e else { return Err(format!("`{e}` is not a constant")) };
    let bad = || format!("constant `{e}` does not suit column `{}`", col.name);
    Ok(match &v.value {
        V::Null => Value::Null,
        V::Boolean(b) if col.ty == ColumnType::Bool => Value::Int(i64::from(*b)),
        V::Number(n, _) if is_int(&col.ty) => {
            let n: i64 = n.parse().map_err(|_| bad())?;
            Value::Int(if neg { -n } else { n })
        }
        V::SingleQuotedString(s) if is_int(&col.ty) => Value::Int(s.parse().map_err(|_| bad())?),
        V::SingleQuotedString(s) if col.ty.is_date_or_datetime() => {
            Value::Time(parse_time_text(s).ok_or_else(bad)?)
        }
        V::SingleQuotedString(s) if col.ty.is_character() => Value::Bytes(s.as_bytes().to_vec()),
        _ => return Err(bad()),
    })
}

fn cmp_op(op: &BinaryOperator) -> Option<CmpOp> {
    Some(match op {
        BinaryOperator::Eq => CmpOp::Eq,
        BinaryOperator::NotEq => CmpOp::Ne,
        BinaryOperator::Lt => CmpOp::Lt,
        BinaryOperator::LtEq => CmpOp::Le,
        BinaryOperator::Gt => CmpOp::Gt,
        BinaryOperator::GtEq => CmpOp::Ge,
        _ => return None,
    })
}

/// The mirrored comparison (`5 < c` is `c > 5`).
fn flipped(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// A partial index's `WHERE` as a predicate over `columns`, or why keylab cannot evaluate it.
pub(crate) fn predicate(e: &Expr, columns: &[Column]) -> Result<Predicate, String> {
    match bare(e) {
        Expr::IsNull(x) => Ok(Predicate::IsNull(column_of(x, columns)?)),
        Expr::IsNotNull(x) => Ok(Predicate::IsNotNull(column_of(x, columns)?)),
        Expr::IsTrue(x) => Ok(Predicate::Bool(column_of(x, columns)?, true)),
        Expr::IsFalse(x) => Ok(Predicate::Bool(column_of(x, columns)?, false)),
        Expr::UnaryOp { op: UnaryOperator::Not, expr } => {
            let c = column_of(expr, columns)?;
            if columns[c].ty != ColumnType::Bool {
                return Err(format!("NOT of `{expr}`, which is not a boolean column"));
            }
            Ok(Predicate::Bool(c, false))
        }
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => {
            let mut all = Vec::new();
            for side in [left, right] {
                match predicate(side, columns)? {
                    Predicate::And(more) => all.extend(more),
                    p => all.push(p),
                }
            }
            Ok(Predicate::And(all))
        }
        Expr::BinaryOp { left, op, right } => {
            let op = cmp_op(op).ok_or_else(|| format!("operator `{op}` is not evaluated"))?;
            let (c, k, op) = match column_of(left, columns) {
                Ok(c) => (c, right, op),
                Err(_) => (column_of(right, columns)?, left, flipped(op)),
            };
            Ok(Predicate::Cmp(c, op, constant(k, &columns[c])?))
        }
        Expr::InList { expr, list, negated } => {
            let c = column_of(expr, columns)?;
            let values = list.iter().map(|v| constant(v, &columns[c])).collect::<Result<_, _>>()?;
            Ok(Predicate::In(c, values, *negated))
        }
        // `c = ANY (ARRAY[...])`: pg_dump's form of IN.
        Expr::AnyOp { left, compare_op: BinaryOperator::Eq, right, .. } => {
            let c = column_of(left, columns)?;
            let list = match bare(right) {
                Expr::Array(a) => &a.elem,
                Expr::Cast { expr, .. } => match bare(expr) {
                    Expr::Array(a) => &a.elem,
                    other => return Err(format!("`{other}` is not a list of constants")),
                },
                other => return Err(format!("`{other}` is not a list of constants")),
            };
            let values = list.iter().map(|v| constant(v, &columns[c])).collect::<Result<_, _>>()?;
            Ok(Predicate::In(c, values, false))
        }
        other => match column_of(other, columns) {
            Ok(c) if columns[c].ty == ColumnType::Bool => Ok(Predicate::Bool(c, true)),
            _ => Err(format!("`{other}` is not a condition keylab evaluates")),
        },
    }
}

/// An index's key parts with each expression keylab models replaced by its column: the
/// function of each part (`None` for a column), or why the index is skipped (MySQL's
/// functional key parts, which MariaDB 10.11 lacks; an expression keylab does not model).
pub(crate) fn key_parts(
    parts: &mut [IndexColumn],
    columns: &[Column],
    dialect: SourceDialect,
) -> Result<Vec<Option<KeyFn>>, String> {
    let mut key_fns = Vec::new();
    for part in parts {
        let e = &part.column.expr;
        let plain = matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
            || matches!(e, Expr::Function(f) if crate::build::prefix_len(f).is_some());
        if plain {
            key_fns.push(None);
            continue;
        }
        if dialect == SourceDialect::Mysql {
            return Err(format!(
                "`{e}` is a functional key part (MySQL 8.0.13+); MariaDB 10.11, which keylab \
                 models, has no functional indexes"
            ));
        }
        let (c, f) = key_part(e, columns).map_err(|why| format!("an expression index: {why}"))?;
        key_fns.push(Some(f));
        part.column.expr = Expr::Identifier(columns[c].name.as_str().into());
    }
    Ok(key_fns)
}

/// An expression key part keylab models: the column and its function, or why not.
fn key_part(e: &Expr, columns: &[Column]) -> Result<(usize, KeyFn), String> {
    match bare(e) {
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            let func = match name.rsplit('.').next() {
                Some("lower") => KeyFn::Lower,
                Some("upper") => KeyFn::Upper,
                _ => {
                    return Err(format!(
                        "`{e}`: only lower(col), upper(col) and col::text are modelled"
                    ))
                }
            };
            let FunctionArguments::List(list) = &f.args else {
                return Err(format!("`{e}` has no argument list"));
            };
            let [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] = list.args.as_slice() else {
                return Err(format!("`{e}` takes one column"));
            };
            let c = column_of(arg, columns)?;
            if !columns[c].ty.is_character() {
                return Err(format!("`{e}` of a column that is not text"));
            }
            Ok((c, func))
        }
        Expr::Cast { expr, data_type, .. } if text_cast(data_type) => {
            let c = column_of(expr, columns)?;
            Ok((c, KeyFn::Text))
        }
        other => Err(format!("`{other}`: only lower(col), upper(col) and col::text are modelled")),
    }
}
