//! One table of `keylab advise` made ready to run: its candidates (the current key and each
//! candidate key in its place), the model they run on, the fill factors applied, the limits
//! checked; the notes it adds. Shared by the one-table report and the schema summary.

use super::rows::plan_columns;
use super::sim::choose_model;
use super::storage::{fill_factors, FillFactorTarget};
use super::{rows_of, Candidate};
use crate::args::advise::AdviseArgs;
use crate::UsageError;
use anyhow::Result;
use keylab_core::{EngineKind, EngineSettings, FillFactors, SimModel};
use keylab_ddl::{DdlTable, SourceDialect};
use keylab_keys::{Encoding, Strategy, Variant};
use keylab_schema::{Column, ColumnType, Table};
use std::collections::HashSet;

/// A table ready to run: its candidates (the current key first) and where they run.
pub struct Prepared {
    /// The current key, then each candidate.
    pub candidates: Vec<Candidate>,
    /// The simulator's model (ignored on a server).
    pub model: SimModel,
    /// A PostgreSQL heap (the nbtree model or --engine postgres).
    pub heap_table: bool,
    /// The fill factors applied.
    pub fill: FillFactors,
    /// Bytes per page of the engine.
    pub page_bytes: u64,
}

/// The candidates of `ddl` with their model and settings; `widths` are the --width values
/// for its columns. A refusal (no primary key, a limit a candidate breaks, a bad --width)
/// is an error naming the place.
pub fn prepare(
    args: &AdviseArgs,
    widths: &[(String, u32)],
    ddl: &DdlTable,
    dialect: SourceDialect,
    origin: &str,
    notes: &mut Vec<String>,
) -> Result<Prepared> {
    let mut candidates = candidates(args, widths, ddl, dialect, origin, notes)?;
    let model = choose_model(args, dialect, &candidates, notes)?;
    let heap_table = match args.engine {
        EngineKind::Sim => model == SimModel::Postgres15,
        kind => kind == EngineKind::Postgres,
    };
    let target = match (args.engine, heap_table) {
        (EngineKind::Sim, true) => FillFactorTarget::NbtreeModel,
        (EngineKind::Postgres, _) => FillFactorTarget::PostgresServer,
        _ => FillFactorTarget::Innodb,
    };
    let fill = fill_factors(ddl, dialect, origin, target, notes);
    for c in &mut candidates {
        c.heap_table = heap_table;
        c.fill_factors = fill.clone();
    }
    let cur = &candidates[0];
    let widths: Vec<String> = cur
        .table
        .columns
        .iter()
        .zip(&cur.plan)
        .filter(|(col, _)| col.ty.fixed_len().is_none())
        .filter_map(|(col, p)| Some(format!("{} {} bytes", col.name, p.width_bytes(&col.ty)?)))
        .collect();
    if !widths.is_empty() {
        notes.push(format!(
            "widths of variable-length values (set with --width COLUMN=BYTES): {}",
            widths.join(", ")
        ));
    }
    let settings = EngineSettings::default();
    for c in &candidates {
        if let Err(e) = keylab_schema::limits::check(&c.table, settings.page_size_bytes) {
            let at = ddl.at;
            return Err(UsageError(format!(
                "{origin}:{}:{}: table `{}`, candidate {}: {e}",
                at.line, at.column, ddl.table.name, c.label
            ))
            .into());
        }
    }
    let nullable = ddl.table.columns.iter().filter(|c| c.nullable).count();
    if nullable > 0 {
        notes.push(format!(
            "{nullable} nullable column(s) are filled in every row (their NULL bits still count); \
             --width sets the average width of variable-length ones"
        ));
    }
    let page_bytes = if heap_table {
        u64::from(keylab_nbtree_model::geometry::PAGE_BYTES)
    } else {
        u64::from(settings.page_size_bytes)
    };
    Ok(Prepared { candidates, model, heap_table, fill, page_bytes })
}

/// The variant whose ids the current key's type most likely holds (only the shape of the
/// order and the stored length matter to the pages): an integer AUTO_INCREMENT is auto-inc,
/// other integers snowflake, 16 bytes uuid4:bin, text of 36/32/26 characters uuid4:text /
/// uuid4:hex / ulid:text.
fn current_variant(table: &Table) -> Option<Variant> {
    let [k] = table.primary_key.as_slice() else { return None };
    let v = |s: Strategy, e: Encoding| Variant::new(s, e).ok();
    match table.columns[*k].ty {
        ColumnType::Int | ColumnType::BigInt { .. } if table.auto_increment => {
            v(Strategy::AutoInc, Encoding::Bigint)
        }
        ColumnType::BigInt { .. } => v(Strategy::Snowflake, Encoding::Bigint),
        ColumnType::Binary { bytes: 16 } => v(Strategy::Uuid4, Encoding::Bin),
        ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } if chars >= 36 => {
            v(Strategy::Uuid4, Encoding::Text)
        }
        ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } if chars >= 32 => {
            v(Strategy::Uuid4, Encoding::Hex)
        }
        ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } if chars >= 26 => {
            v(Strategy::Ulid, Encoding::Text)
        }
        _ => None,
    }
}

fn candidates(
    args: &AdviseArgs,
    widths_given: &[(String, u32)],
    ddl: &DdlTable,
    dialect: keylab_ddl::SourceDialect,
    origin: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<Candidate>> {
    let t = &ddl.table;
    if t.primary_key.is_empty() {
        return Err(UsageError(format!(
            "{origin}:{}:{}: table `{}` has no PRIMARY KEY (InnoDB would cluster on a hidden \
             6-byte row id, which keylab does not model); add the key it should have",
            ddl.at.line, ddl.at.column, t.name
        ))
        .into());
    }
    let mut widths = Vec::new();
    for (name, bytes) in widths_given {
        let Some(c) = t.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name)) else {
            return Err(UsageError(format!(
                "--width {name}={bytes}: table `{}` has no column `{name}`; valid: {}",
                t.name,
                variable_columns(t).join(", ")
            ))
            .into());
        };
        if t.columns[c].ty.fixed_len().is_some()
            && !matches!(t.columns[c].ty, ColumnType::Char { .. })
        {
            return Err(UsageError(format!(
                "--width {name}={bytes}: `{name}` is fixed-length ({} bytes); valid: {}",
                t.columns[c].ty.max_bytes(),
                variable_columns(t).join(", ")
            ))
            .into());
        }
        let max = t.columns[c].ty.max_bytes();
        if *bytes > max {
            return Err(UsageError(format!(
                "--width {name}={bytes}: `{name}` holds at most {max} bytes; valid: 0..={max}"
            ))
            .into());
        }
        widths.push((c, *bytes));
    }
    let width_of = |c: usize| widths.iter().find(|(w, _)| *w == c).map(|(_, b)| *b);
    let current_v = current_variant(t);
    let key_name = t.primary_key.iter().map(|&c| t.columns[c].name.clone()).collect::<Vec<_>>();
    let key_type = t.primary_key.iter().map(|&c| match dialect {
        keylab_ddl::SourceDialect::Postgres => keylab_pg_server::column_type(
            &t.columns[c].ty,
            keylab_pg_server::TextCollation::Default,
        ),
        keylab_ddl::SourceDialect::Mysql => t.columns[c].ty.sql(keylab_schema::Dialect::Mariadb),
    });
    let key_type = key_type.collect::<Vec<_>>().join(", ");
    notes.push(match current_v {
        Some(v) => format!(
            "current key ({}: {key_type}) is loaded with {v} ids, the strategy its type suggests",
            key_name.join(", ")
        ),
        None => format!(
            "current key ({}: {key_type}) is loaded with distinct values in row order",
            key_name.join(", ")
        ),
    });
    let mut out = vec![Candidate {
        label: "current".into(),
        variant: current_v,
        plan: plan_columns(t, &t.primary_key, rows_of(args), &width_of),
        key: t.primary_key.clone(),
        table: Table { name: format!("{}_current", t.name), ..t.clone() },
        heap_table: false,
        fill_factors: FillFactors::default(),
        progress_prefix: None,
    }];
    let mut seen = HashSet::new();
    let keys = match &args.keys {
        Some(keys) => keys.clone(),
        None => crate::args::advise::candidates_of(crate::args::advise::DEFAULT_CANDIDATES),
    };
    for &v in &keys {
        if !seen.insert(v) {
            continue;
        }
        let mut table = t.clone();
        table.name = format!("{}_{}", t.name, sanitize(&v.to_string()));
        let key = if let [k] = t.primary_key.as_slice() {
            table.columns[*k].ty = v.column_type();
            vec![*k]
        } else {
            // A composite key's columns stay as plain columns; the candidate is a new one.
            table.columns.push(Column::new("keylab_id", v.column_type(), false));
            let k = table.columns.len() - 1;
            table.primary_key = vec![k];
            vec![k]
        };
        table.auto_increment = v.strategy.is_engine_assigned();
        out.push(Candidate {
            label: v.to_string(),
            variant: Some(v),
            plan: plan_columns(&table, &key, rows_of(args), &width_of),
            key,
            table,
            heap_table: false,
            fill_factors: FillFactors::default(),
            progress_prefix: None,
        });
    }
    if t.primary_key.len() > 1 {
        notes.push(
            "composite primary key: each candidate clusters on a new single column keylab_id, \
             the former key columns kept as plain columns"
                .into(),
        );
    }
    Ok(out)
}

fn variable_columns(t: &Table) -> Vec<String> {
    let v: Vec<String> = t
        .columns
        .iter()
        .filter(|c| c.ty.fixed_len().is_none() || matches!(c.ty, ColumnType::Char { .. }))
        .map(|c| c.name.clone())
        .collect();
    if v.is_empty() {
        vec!["(the table has no variable-length column)".into()]
    } else {
        v
    }
}

fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}
