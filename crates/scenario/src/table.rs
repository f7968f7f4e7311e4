//! Building a scenario's table for one key variant and placement: the id column (typed by the
//! variant unless the file says otherwise), the surrogate key in `secondary` placement, the
//! payload columns with their generators, and the indexes, with every name resolved and every
//! generator checked against its column's type.
//!
//! A payload column's generator is checked against its type in `table/column_gen.rs`.
//!
//! It does not generate rows (`rows.rs` does) and knows no engine.

use crate::error::ScenarioError;
use crate::spec::{TableSpec, TypeSpec};
use keylab_core::Placement;
use keylab_keys::{Encoding, Variant};
use keylab_schema::limits::{self, LimitError};
use keylab_schema::{Charset, Column, ColumnType, Index, Table};
use std::ops::Range;
use toml::Spanned;

mod column_gen;

use column_gen::column_gen;
pub(crate) use column_gen::type_text;

/// How one column's value is made for each row.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnGen {
    /// The generated id.
    Id,
    /// The surrogate `AUTO_INCREMENT` key (1, 2, 3, ... as a single writer is given).
    Surrogate,
    /// The same bytes in every row.
    Fixed(Vec<u8>),
    /// Random letters and digits, length uniform in `[min, max]`.
    Ascii {
        /// Shortest.
        min: u32,
        /// Longest.
        max: u32,
    },
    /// The first `chars` characters of a UUID's text: random lowercase hex digits, `-` at
    /// the layout's dashes.
    UuidPrefix {
        /// Characters, 1..=36.
        chars: u32,
    },
    /// The bytes, then one random decimal digit.
    PrefixDigit(Vec<u8>),
    /// `start + k`, `k` the row's value number (see [`Steps`]).
    Seq {
        /// First value.
        start: i64,
        /// Which value number each row gets.
        steps: Steps,
        /// The column is `BIGINT UNSIGNED`: values are [`Value::UInt`](keylab_schema::Value),
        /// so they go on past the signed maximum.
        unsigned: bool,
    },
    /// Uniform in `[lo, hi]`.
    Int {
        /// Lowest.
        lo: i64,
        /// Highest.
        hi: i64,
    },
    /// `start_unix_s + k × step_s`, `k` the row's value number (see [`Steps`]).
    Timestamp {
        /// First value.
        start_unix_s: i64,
        /// Step per value.
        step_s: i64,
        /// Which value number each row gets.
        steps: Steps,
    },
    /// SQL NULL.
    Null,
}

/// Which value number `k` row `n` (from 0) of a stepping generator gets: `n / every`, then
/// `% cycle` when the values cycle. Each value is a whole function of `k`, so the first row
/// with a given `k` and the largest `k` of a run follow by arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    /// Rows that share a value (at least 1).
    pub every: u64,
    /// Values before starting over (`None`: never).
    pub cycle: Option<u64>,
}

impl Steps {
    /// One value per row, never starting over.
    pub const EACH_ROW: Steps = Steps { every: 1, cycle: None };

    /// The value number of row `n`.
    pub fn index(self, n: u64) -> u64 {
        let k = n / self.every.max(1);
        match self.cycle {
            Some(c) => k % c.max(1),
            None => k,
        }
    }

    /// The largest value number among rows `0..rows` (`rows` at least 1).
    pub fn last_index(self, rows: u64) -> u64 {
        let k = rows.saturating_sub(1) / self.every.max(1);
        match self.cycle {
            Some(c) => k.min(c.max(1) - 1),
            None => k,
        }
    }

    /// The first row with value number `k`.
    pub fn first_row(self, k: u64) -> u64 {
        k.saturating_mul(self.every.max(1))
    }
}

/// A table with how each of its columns is generated.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltTable {
    /// The table.
    pub table: Table,
    /// One generator per column, in column order.
    pub columns: Vec<ColumnGen>,
    /// Position of the id column.
    pub id_column: usize,
}

/// Spans point into `source` of `origin`.
pub(crate) struct Ctx<'a> {
    pub origin: &'a str,
    pub source: &'a str,
}

impl Ctx<'_> {
    pub fn err(&self, span: Range<usize>, msg: impl Into<String>) -> ScenarioError {
        ScenarioError::at(self.origin, self.source, span, msg)
    }
}

pub(crate) fn column_type(ty: TypeSpec, charset: Charset) -> ColumnType {
    match ty {
        TypeSpec::Int => ColumnType::Int,
        TypeSpec::BigInt { unsigned } => ColumnType::BigInt { unsigned },
        TypeSpec::Char(chars) => ColumnType::Char { chars, charset },
        TypeSpec::VarChar(chars) => ColumnType::VarChar { chars, charset },
        TypeSpec::Binary(bytes) => ColumnType::Binary { bytes },
        TypeSpec::Text => ColumnType::Text { charset },
        TypeSpec::Timestamp => ColumnType::Timestamp,
        TypeSpec::DateTime => ColumnType::DateTime,
        TypeSpec::Date => ColumnType::Date,
        TypeSpec::Decimal(p, s) => ColumnType::Decimal { precision: p, scale: s },
    }
}

fn charset_of(
    cx: &Ctx,
    ty: TypeSpec,
    charset: &Option<Spanned<Charset>>,
) -> Result<Charset, ScenarioError> {
    match charset {
        Some(c) if !ty.is_string() => {
            Err(cx.err(c.span(), "a charset applies only to char, varchar and text columns"))
        }
        Some(c) => Ok(*c.get_ref()),
        None => Ok(Charset::Utf8mb4),
    }
}

/// The id column's type for `variant`: the file's type if it gives one (checked to hold the
/// variant's ids), else the variant's own.
fn id_type(cx: &Ctx, spec: &TableSpec, variant: Variant) -> Result<ColumnType, ScenarioError> {
    let id = &spec.id;
    let Some(ty) = &id.ty else {
        let mut ct = variant.column_type();
        if let Some(c) = &id.charset {
            match &mut ct {
                ColumnType::VarChar { charset, .. } => *charset = *c.get_ref(),
                _ => {
                    return Err(cx.err(
                        c.span(),
                        format!(
                            "a charset applies only to text ids; {variant} is stored as {}",
                            variant.encoding
                        ),
                    ))
                }
            }
        }
        return Ok(ct);
    };
    let t = *ty.get_ref();
    let charset = charset_of(cx, t, &id.charset)?;
    let need = variant.stored_len();
    let fits = match variant.encoding {
        Encoding::Text | Encoding::Hex => match t {
            TypeSpec::Char(n) | TypeSpec::VarChar(n) => n >= need,
            TypeSpec::Text => true,
            _ => false,
        },
        Encoding::Bin | Encoding::BinSwap => matches!(t, TypeSpec::Binary(n) if n >= need),
        Encoding::Bigint => matches!(t, TypeSpec::BigInt { .. }),
    };
    if !fits {
        let want = match variant.encoding {
            Encoding::Text | Encoding::Hex => format!("char({need}) or varchar({need}) or longer"),
            Encoding::Bin | Encoding::BinSwap => format!("binary({need}) or longer"),
            Encoding::Bigint => "bigint".to_string(),
        };
        return Err(
            cx.err(ty.span(), format!("this id type cannot hold {variant} ids; valid: {want}"))
        );
    }
    Ok(column_type(t, charset))
}

/// Checks the parts of a table spec that do not depend on the variant: unique names and
/// generators that fit their columns. Returns the payload generators.
pub(crate) fn check_payload(cx: &Ctx, spec: &TableSpec) -> Result<Vec<ColumnGen>, ScenarioError> {
    let mut seen: Vec<&str> = vec![spec.id.name.get_ref(), spec.surrogate.get_ref()];
    if spec.id.name.get_ref() == spec.surrogate.get_ref() {
        return Err(
            cx.err(spec.surrogate.span(), "the surrogate key needs a name other than the id's")
        );
    }
    let mut gens = Vec::with_capacity(spec.columns.len());
    for c in &spec.columns {
        if seen.contains(&c.name.get_ref().as_str()) {
            return Err(cx.err(
                c.name.span(),
                format!(
                    "column `{}` is defined twice (the id and the surrogate key count)",
                    c.name.get_ref()
                ),
            ));
        }
        seen.push(c.name.get_ref());
        charset_of(cx, *c.ty.get_ref(), &c.charset)?;
        gens.push(column_gen(cx, c)?);
    }
    Ok(gens)
}

/// The table `spec` describes, for `variant` in `placement`, named `name`.
pub(crate) fn build(
    cx: &Ctx,
    spec: &TableSpec,
    variant: Variant,
    placement: Placement,
    name: String,
) -> Result<BuiltTable, ScenarioError> {
    let payload = check_payload(cx, spec)?;
    let id = Column::new(spec.id.name.get_ref().clone(), id_type(cx, spec, variant)?, false);
    let (mut columns, mut gens, id_column, auto_increment) = match placement {
        Placement::Pk => (vec![id], vec![ColumnGen::Id], 0, variant.strategy.is_engine_assigned()),
        Placement::Secondary => {
            let surrogate = Column::new(
                spec.surrogate.get_ref().clone(),
                ColumnType::BigInt { unsigned: false },
                false,
            );
            (vec![surrogate, id], vec![ColumnGen::Surrogate, ColumnGen::Id], 1, true)
        }
    };
    for (c, g) in spec.columns.iter().zip(payload) {
        let charset = charset_of(cx, *c.ty.get_ref(), &c.charset)?;
        columns.push(Column::new(
            c.name.get_ref().clone(),
            column_type(*c.ty.get_ref(), charset),
            c.nullable,
        ));
        gens.push(g);
    }
    let mut indexes = Vec::new();
    if placement == Placement::Secondary {
        indexes.push(Index::new(
            format!("k_{}", spec.id.name.get_ref()),
            vec![id_column],
            spec.id.unique,
        ));
    }
    for ix in &spec.indexes {
        if ix.columns.get_ref().is_empty() {
            return Err(cx.err(ix.columns.span(), "an index needs at least one column"));
        }
        if indexes.iter().any(|i: &Index| &i.name == ix.name.get_ref())
            || ix.name.get_ref() == "PRIMARY"
        {
            return Err(
                cx.err(ix.name.span(), format!("index `{}` is defined twice", ix.name.get_ref()))
            );
        }
        let mut cols = Vec::new();
        for c in ix.columns.get_ref() {
            let pos = columns.iter().position(|col| &col.name == c.get_ref()).ok_or_else(|| {
                let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                cx.err(
                    c.span(),
                    format!(
                        "unknown column `{}` in index `{}` ({placement} placement); valid: {}",
                        c.get_ref(),
                        ix.name.get_ref(),
                        names.join(", ")
                    ),
                )
            })?;
            cols.push(pos);
        }
        indexes.push(Index::new(ix.name.get_ref().clone(), cols, ix.unique));
    }
    let table = Table {
        name,
        columns,
        primary_key: vec![0],
        auto_increment,
        indexes,
        row_format: spec.row_format,
        partitioning: None,
    };
    Ok(BuiltTable { table, columns: gens, id_column })
}

/// Checks `built` (made from `spec`) against the server's table limits at `page_size_bytes`
/// (`keylab_schema::limits`), pointing an error at the column's type, the index's columns or
/// the id; `run` names the run. A key part the server shortens to a prefix passes (both
/// engines model and note it).
pub(crate) fn check_limits(
    cx: &Ctx,
    spec: &TableSpec,
    built: &BuiltTable,
    page_size_bytes: u32,
    run: &str,
) -> Result<(), ScenarioError> {
    let result = limits::check(&built.table, page_size_bytes);
    let first_payload = built.columns.len() - spec.columns.len();
    let id_span = spec.id.ty.as_ref().map_or(spec.id.name.span(), |t| t.span());
    let column_span = |c: usize| match c.checked_sub(first_payload) {
        Some(i) => spec.columns[i].ty.span(),
        None => id_span.clone(),
    };
    let index_span = |name: &str| {
        spec.indexes
            .iter()
            .find(|ix| ix.name.get_ref() == name)
            .map_or(id_span.clone(), |ix| ix.columns.span())
    };
    let err = match result {
        // A prefix index is built by the server without an error and modelled by the
        // simulator; both engines note it in the result.
        Ok(_) => return Ok(()),
        Err(e) => e,
    };
    let span = match &err {
        LimitError::ColumnTooLong { column, .. } => column_span(*column),
        LimitError::RowTooLong { .. }
        | LimitError::TooManyColumns { .. }
        | LimitError::TooManyKeys { .. } => spec.name.span(),
        LimitError::KeyTooLong { index, position: Some(_), .. }
        | LimitError::TextKey { index, position: Some(_), .. }
        | LimitError::CompactKeyPartTooLong { index, position: Some(_), .. } => index_span(index),
        LimitError::KeyTooLong { position: None, .. }
        | LimitError::TextKey { position: None, .. }
        | LimitError::CompactKeyPartTooLong { position: None, .. } => id_span.clone(),
    };
    let what = match &err {
        LimitError::ColumnTooLong { column, .. } => {
            format!("column `{}`: ", built.table.columns[*column].name)
        }
        LimitError::RowTooLong { .. }
        | LimitError::TooManyColumns { .. }
        | LimitError::TooManyKeys { .. } => format!("table `{}`: ", spec.name.get_ref()),
        _ => String::new(),
    };
    Err(cx.err(span, format!("{what}{err} (run `{run}`, {} KiB pages)", page_size_bytes / 1024)))
}
