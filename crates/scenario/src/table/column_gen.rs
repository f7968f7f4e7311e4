//! A payload column's generator, checked against the column's type: the sequence, fixed
//! text, UUID-prefix and other generators each name the types they fit, and a value that
//! would not fit its column is an error at the file's line and column. Also the type as the
//! file spells it, which these errors (and `ranges.rs`'s) quote.
//!
//! Not for the id column (`id_type` in `table.rs`) nor for making values (`rows.rs`).

use super::{charset_of, ColumnGen, Ctx, Steps};
use crate::error::ScenarioError;
use crate::spec::{ColumnSpec, GenSpec, TypeSpec};
use std::ops::Range;

/// Longest value in bytes of ASCII text a string or binary type holds; `None` for others.
fn ascii_capacity(ty: TypeSpec) -> Option<u32> {
    match ty {
        TypeSpec::Char(n) | TypeSpec::VarChar(n) | TypeSpec::Binary(n) => Some(n),
        TypeSpec::Text => Some(65_535),
        _ => None,
    }
}

/// The column's type as the file spells it.
pub(crate) fn type_text<'a>(cx: &Ctx<'a>, c: &ColumnSpec) -> &'a str {
    cx.source.get(c.ty.span()).unwrap_or("").trim_matches(['"', '\''])
}

/// What a string or binary type's length counts.
fn unit(ty: TypeSpec) -> &'static str {
    if matches!(ty, TypeSpec::Binary(_)) {
        "bytes"
    } else {
        "characters"
    }
}

/// Checks a payload column's generator against its type.
pub(super) fn column_gen(cx: &Ctx, c: &ColumnSpec) -> Result<ColumnGen, ScenarioError> {
    let ty = *c.ty.get_ref();
    let span = c.gen.span();
    let name = c.name.get_ref();
    let text_only = |what: &str| {
        cx.err(
            span.clone(),
            format!(
                "`{what}` makes text, but `{name}` is not a char, varchar, binary or text column"
            ),
        )
    };
    Ok(match c.gen.get_ref() {
        GenSpec::Fixed(s) => {
            let cap = ascii_capacity(ty).ok_or_else(|| text_only("fixed"))?;
            let len = if matches!(ty, TypeSpec::Binary(_)) { s.len() } else { s.chars().count() };
            if len as u64 > u64::from(cap) {
                return Err(cx.err(
                    span,
                    format!(
                        "column `{name}` ({}) cannot hold `{s}` ({len} {}), which this \
                         generator makes at every row from row 1; valid: at most {cap} {}",
                        type_text(cx, c),
                        unit(ty),
                        unit(ty)
                    ),
                ));
            }
            if matches!(ty, TypeSpec::Binary(_)) {
                ColumnGen::Fixed(s.as_bytes().to_vec())
            } else {
                // Stored (and measured by the simulator) in the column's character set.
                let charset = charset_of(cx, ty, &c.charset)?;
                let bytes = charset.encode(s).map_err(|ch| {
                    cx.err(
                        span.clone(),
                        format!(
                            "column `{name}` ({}) cannot hold `{s}`: character `{ch}` (U+{:04X}) \
                             is not in character set {}; valid: characters of {}",
                            type_text(cx, c),
                            ch as u32,
                            charset.sql_name(),
                            charset.sql_name()
                        ),
                    )
                })?;
                ColumnGen::Fixed(bytes)
            }
        }
        &GenSpec::Ascii([min, max]) => {
            let cap = ascii_capacity(ty).ok_or_else(|| text_only("ascii"))?;
            if min > max {
                return Err(cx.err(span, format!("ascii = [{min}, {max}] needs min <= max")));
            }
            if max > cap {
                return Err(cx.err(
                    span,
                    format!(
                        "column `{name}` ({}) cannot hold the values of up to {max} {} this \
                         generator may make at any row (it is random); valid: at most {cap} {}",
                        type_text(cx, c),
                        unit(ty),
                        unit(ty)
                    ),
                ));
            }
            ColumnGen::Ascii { min, max }
        }
        &GenSpec::UuidPrefix(chars) => {
            let cap = ascii_capacity(ty).ok_or_else(|| text_only("uuid_prefix"))?;
            if !(1..=36).contains(&chars) {
                return Err(cx.err(
                    span,
                    format!(
                        "uuid_prefix = {chars}: a UUID's text has 36 characters; valid: 1..=36"
                    ),
                ));
            }
            fits(cx, c, cap, u64::from(chars), &format!("{chars} characters"))?;
            ColumnGen::UuidPrefix { chars }
        }
        GenSpec::PrefixDigit(s) => {
            let cap = ascii_capacity(ty).ok_or_else(|| text_only("prefix_digit"))?;
            let len = if matches!(ty, TypeSpec::Binary(_)) { s.len() } else { s.chars().count() };
            fits(cx, c, cap, len as u64 + 1, &format!("`{s}` and a digit"))?;
            ColumnGen::PrefixDigit(s.as_bytes().to_vec())
        }
        &GenSpec::Seq(s) => {
            numeric(cx, ty, name, span)?;
            ColumnGen::Seq {
                start: s.start,
                steps: Steps { every: s.every.get(), cycle: s.cycle.map(|c| c.get()) },
                unsigned: ty == TypeSpec::BigInt { unsigned: true },
            }
        }
        &GenSpec::Int([lo, hi]) => {
            if lo > hi {
                return Err(cx.err(span, format!("int = [{lo}, {hi}] needs lo <= hi")));
            }
            numeric(cx, ty, name, span)?;
            ColumnGen::Int { lo, hi }
        }
        &GenSpec::Timestamp(t) => {
            if !ty.is_time() {
                return Err(cx.err(
                    span,
                    format!(
                        "`timestamp` needs a timestamp, datetime or date column; `{name}` is not"
                    ),
                ));
            }
            ColumnGen::Timestamp {
                start_unix_s: t.start_unix_s,
                step_s: t.step_s,
                steps: Steps { every: t.every.get(), cycle: t.cycle.map(|c| c.get()) },
            }
        }
        GenSpec::Null => {
            if !c.nullable {
                return Err(
                    cx.err(span, format!("`null` needs a nullable column; `{name}` is not"))
                );
            }
            ColumnGen::Null
        }
    })
}

/// A text generator whose every value has `len` characters (or bytes), `what`: the column
/// must hold that many.
fn fits(cx: &Ctx, c: &ColumnSpec, cap: u32, len: u64, what: &str) -> Result<(), ScenarioError> {
    if len <= u64::from(cap) {
        return Ok(());
    }
    let ty = *c.ty.get_ref();
    Err(cx.err(
        c.gen.span(),
        format!(
            "column `{}` ({}) cannot hold {what} ({len} {}), which this generator makes at \
             every row from row 1; valid: at most {cap} {}",
            c.name.get_ref(),
            type_text(cx, c),
            unit(ty),
            unit(ty)
        ),
    ))
}

/// `seq` and `int` make numbers: the column must hold numbers (whether it holds each value
/// is `ranges.rs`'s check).
fn numeric(cx: &Ctx, ty: TypeSpec, name: &str, span: Range<usize>) -> Result<(), ScenarioError> {
    match ty {
        TypeSpec::Int | TypeSpec::BigInt { .. } | TypeSpec::Decimal(..) => Ok(()),
        _ => Err(cx.err(
            span,
            format!("`seq` and `int` need an int, bigint or decimal column; `{name}` is not"),
        )),
    }
}
