//! One table of `keylab advise` made ready to run: its candidates (the current key and each
//! candidate key in its place), the model they run on, the fill factors applied, the limits
//! checked; the notes it adds. Shared by the one-table report and the schema summary.

use super::limits;
use super::partitions;
use super::rows::{self, plan_columns, ColumnValues};
use super::sim::choose_model;
use super::storage::{fill_factors, FillFactorTarget};
use super::{rows_of, Candidate};
use crate::args::advise::AdviseArgs;
use crate::UsageError;
use anyhow::Result;
use keylab_core::{EngineKind, EngineSettings, FillFactors, SimModel};
use keylab_ddl::{DdlTable, SourceDialect};
use keylab_keys::{Encoding, Strategy, Variant};
use keylab_schema::{Column, ColumnType, Dialect, Table};
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
    // A type the engine lacks is built as its nearest type there: say what differs.
    let source_dialect = match dialect {
        keylab_ddl::SourceDialect::Postgres => Dialect::Postgres,
        keylab_ddl::SourceDialect::Mysql => Dialect::Mariadb,
    };
    let engine_dialect = if heap_table { Dialect::Postgres } else { Dialect::Mariadb };
    // Only a type of the other dialect can be missing (a PostgreSQL file on the nbtree model
    // has its own types).
    for col in ddl.table.columns.iter().filter(|_| engine_dialect != source_dialect) {
        if let Some(why) = col.ty.nearest_note(engine_dialect) {
            notes.push(format!("column `{}` ({}): {why}", col.name, col.type_sql(source_dialect)));
        }
    }
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
    notes.extend(partial_indexes(&mut candidates, heap_table));
    let cur = &candidates[0];
    let width_notes: Vec<String> = cur
        .table
        .columns
        .iter()
        .zip(&cur.plan)
        .filter(|(col, _)| col.ty.fixed_len().is_none())
        .filter_map(|(col, p)| Some(format!("{} {} bytes", col.name, p.width_bytes(&col.ty)?)))
        .collect();
    if !width_notes.is_empty() {
        notes.push(format!(
            "widths of variable-length values (set with --width COLUMN=BYTES): {}",
            width_notes.join(", ")
        ));
    }
    let settings = EngineSettings::default();
    for c in &candidates {
        let nbtree_model = args.engine == EngineKind::Sim && heap_table;
        if let Some(e) = limits::check(c, heap_table, nbtree_model, settings.page_size_bytes) {
            let at = ddl.at;
            let hint = match (heap_table, dialect) {
                (false, keylab_ddl::SourceDialect::Postgres) => {
                    " (a MariaDB limit: the table runs on InnoDB here; --model postgres-15 or \
                     --engine postgres runs it on PostgreSQL's)"
                }
                _ => "",
            };
            return Err(UsageError(format!(
                "{origin}:{}:{}: table `{}`, candidate {}: {e}{hint}",
                at.line, at.column, ddl.table.name, c.label
            ))
            .into());
        }
    }
    if heap_table {
        notes.extend(limits::collation_note(&candidates[0].table));
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
        ColumnType::Int | ColumnType::BigInt { .. } | ColumnType::Integer { .. }
            if table.auto_increment =>
        {
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

/// Refuses (exit 2) a table whose UNIQUE or key column cannot take `rows` distinct values of
/// its type: a `CHAR(2)` code key holds 1,296 of keylab's base-36 codes, a `TINYINT` 256.
/// Refusing says what to change; capping the rows would advise on another table size.
fn check_unique_capacity(
    t: &Table,
    plan: &[ColumnValues],
    rows: u64,
    origin: &str,
    ddl: &DdlTable,
) -> Result<()> {
    for (col, p) in t.columns.iter().zip(plan) {
        // The current key's own ids (auto-inc from 1) go as high as the row count.
        let key_cap = match (p, col.ty.value_range()) {
            (ColumnValues::Key, keylab_schema::ValueRange::Int { hi, .. }) => {
                Some(hi.max(0) as u128)
            }
            _ => None,
        };
        let Some(cap) = key_cap.or_else(|| rows::unique_capacity(p, &col.ty)) else { continue };
        if cap < u128::from(rows) {
            return Err(UsageError(format!(
                "{origin}:{}:{}: table `{}`: column `{}` ({}) is in a key or UNIQUE index and \
                 holds at most {cap} distinct values keylab makes, fewer than the {rows} rows \
                 asked for; valid: --rows 1..={cap}",
                ddl.at.line,
                ddl.at.column,
                t.name,
                col.name,
                col.ty.sql(keylab_schema::Dialect::Mariadb),
            ))
            .into());
        }
    }
    Ok(())
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
    if let keylab_schema::Clustered::Unique(i) = t.innodb_clustered() {
        if t.indexes[i].descending.contains(&true) {
            return Err(UsageError(format!(
                "{origin}:{}:{}: table `{}` has no PRIMARY KEY, so InnoDB clusters on UNIQUE KEY `{}`, \
                 which has a DESC part: a descending clustered index is not modelled; valid: \
                 ascending parts, or a PRIMARY KEY",
                ddl.at.line, ddl.at.column, t.name, t.indexes[i].name
            ))
            .into());
        }
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
        _ if t.primary_key.is_empty() => format!(
            "current table has no PRIMARY KEY and is loaded as it is: on InnoDB clustered on {}; \
             on PostgreSQL a heap without a key index; each candidate adds a column keylab_id as \
             its primary key",
            t.innodb_clustered_text()
        ),
        Some(v) => format!(
            "current key ({}: {key_type}) is loaded with {v} ids, the strategy its type suggests",
            key_name.join(", ")
        ),
        None => format!(
            "current key ({}: {key_type}) is loaded with distinct values in row order",
            key_name.join(", ")
        ),
    });
    if let Some(why) = partitions::unroutable(t) {
        return Err(UsageError(format!(
            "{origin}:{}:{}: table `{}`: {why}",
            ddl.at.line, ddl.at.column, t.name
        ))
        .into());
    }
    let mut current_plan =
        plan_columns(t, &t.primary_key, rows_of(args), current_v.is_some(), &width_of);
    if let Some(note) = rows::plan_partition_key(t, rows_of(args), &mut current_plan) {
        notes.push(note);
    }
    notes.extend(partitions::routing_note(t));
    let mut key_note = None;
    check_unique_capacity(t, &current_plan, super::workload::held_rows(args), origin, ddl)?;
    let mut out = vec![Candidate {
        label: "current".into(),
        variant: current_v,
        plan: current_plan,
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
        match partitions::fit_candidate(&mut table, &key) {
            Ok(note) => key_note = key_note.or(note),
            Err(why) => {
                notes.push(format!("candidate {v} skipped: {why}"));
                continue;
            }
        }
        let mut plan = plan_columns(&table, &key, rows_of(args), true, &width_of);
        rows::plan_partition_key(&table, rows_of(args), &mut plan);
        out.push(Candidate {
            label: v.to_string(),
            variant: Some(v),
            plan,
            key,
            table,
            heap_table: false,
            fill_factors: FillFactors::default(),
            progress_prefix: None,
        });
    }
    notes.extend(key_note);
    if t.primary_key.len() > 1 {
        notes.push(
            "composite primary key: each candidate clusters on a new single column keylab_id, \
             the former key columns kept as plain columns"
                .into(),
        );
    }
    Ok(out)
}

/// Partial and expression indexes: on PostgreSQL (the nbtree model, the server) a partial
/// index holds the rows matching its condition, the columns it compares with constants made
/// to match some rows; InnoDB has no partial index (MariaDB, MySQL), so there it is left out,
/// said in a note. `lower(col)`, `upper(col)` and `col::text` keep the length and the order of
/// keylab's text (lower-case letters and digits), so they are modelled as the column.
fn partial_indexes(candidates: &mut [Candidate], heap_table: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(first) = candidates.first() else { return notes };
    for ix in first.table.indexes.iter() {
        if ix.key_fns.iter().any(Option::is_some) {
            notes.push(format!(
                "index `{}` is on an expression (lower(), upper(), ::text) of keylab's text, \
                 which has the column's length and order: modelled as on the column{}",
                ix.name,
                if heap_table { "" } else { "; InnoDB builds it on the column itself" }
            ));
        }
        if ix.predicate.is_some() && !heap_table {
            notes.push(format!(
                "partial index `{}` left out: InnoDB has no partial indexes (its WHERE is \
                 PostgreSQL's)",
                ix.name
            ));
        }
    }
    for (k, c) in candidates.iter_mut().enumerate() {
        if !heap_table {
            c.table.indexes.retain(|ix| ix.predicate.is_none());
            for ix in &mut c.table.indexes {
                ix.key_fns.clear();
            }
            continue;
        }
        let changed = rows::plan_predicate_columns(&c.table, &mut c.plan);
        if k == 0 {
            notes.extend(changed);
        }
    }
    if heap_table {
        for ix in first_indexes(candidates).iter().filter(|ix| ix.predicate.is_some()) {
            let empty = match &ix.predicate {
                Some(keylab_schema::Predicate::IsNull(c)) => Some(*c),
                _ => None,
            };
            if let Some(c) = empty {
                notes.push(format!(
                    "partial index `{}` (WHERE {} IS NULL) holds no row: keylab fills every \
                     column of every row",
                    ix.name, candidates[0].table.columns[c].name
                ));
            }
        }
    }
    notes
}

fn first_indexes(candidates: &[Candidate]) -> Vec<keylab_schema::Index> {
    candidates.first().map(|c| c.table.indexes.clone()).unwrap_or_default()
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
