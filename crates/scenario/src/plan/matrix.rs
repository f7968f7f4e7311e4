//! Matrix expansion: each `[[matrix]]` group is the product of its dimensions (the first
//! varying slowest), each value a setter on a [`Cell`] with its label; the cells are the
//! union of the groups (one empty cell without a matrix).
//!
//! Not for: turning a cell into runs (settings, phases, tables: the parent module).

use super::{scale_count, variants, Cell};
use crate::error::ScenarioError;
use crate::spec::ScenarioSpec;
use crate::table::Ctx;
use std::num::NonZeroU32;

type Setter = Box<dyn Fn(&mut Cell)>;

/// A dimension: its name and one setter per value, each with the value's label.
fn dim<T: Clone + 'static>(
    dims: &mut Vec<(String, Vec<(String, Setter)>)>,
    name: &str,
    values: &[T],
    label: impl Fn(&T) -> String,
    set: impl Fn(&mut Cell, T) + Clone + 'static,
) {
    let setters = values
        .iter()
        .map(|v| {
            let (v2, set) = (v.clone(), set.clone());
            (label(v), Box::new(move |c: &mut Cell| set(c, v2.clone())) as Setter)
        })
        .collect();
    dims.push((name.to_string(), setters));
}

pub(super) fn expand(
    cx: &Ctx,
    spec: &ScenarioSpec,
    scale: f64,
) -> Result<Vec<Cell>, ScenarioError> {
    let groups: Vec<_> =
        if spec.matrix.is_empty() { vec![None] } else { spec.matrix.iter().map(Some).collect() };
    let mut cells = Vec::new();
    for group in groups {
        let mut dims: Vec<(String, Vec<(String, Setter)>)> = Vec::new();
        if let Some(m) = group {
            let m = m.get_ref();
            macro_rules! empty_check {
                ($field:expr) => {
                    if let Some(list) = &$field {
                        if list.get_ref().is_empty() {
                            return Err(
                                cx.err(list.span(), "a matrix dimension needs at least one value")
                            );
                        }
                    }
                };
            }
            empty_check!(m.table);
            empty_check!(m.variants);
            empty_check!(m.placements);
            empty_check!(m.rows);
            empty_check!(m.method);
            empty_check!(m.batch);
            empty_check!(m.writers);
            empty_check!(m.page_size);
            empty_check!(m.buffer_pool);
            empty_check!(m.fill_factor);
            empty_check!(m.merge_threshold);
            empty_check!(m.change_buffering);
            empty_check!(m.ids_per_ms);
            empty_check!(m.within_ms);
            empty_check!(m.autoinc_lock_mode);
            empty_check!(m.sharding);
            if let Some(names) = &m.table {
                let tables = spec.tables.get_ref();
                let mut idx = Vec::new();
                for n in names.get_ref() {
                    let i = tables
                        .iter()
                        .position(|t| t.name.get_ref() == n.get_ref())
                        .ok_or_else(|| {
                            let valid: Vec<&str> =
                                tables.iter().map(|t| t.name.get_ref().as_str()).collect();
                            cx.err(
                                n.span(),
                                format!(
                                    "unknown table `{}`; valid: {}",
                                    n.get_ref(),
                                    valid.join(", ")
                                ),
                            )
                        })?;
                    idx.push(i);
                }
                dim(
                    &mut dims,
                    "table",
                    &idx,
                    |&i| tables[i].name.get_ref().clone(),
                    |c, i| c.table = Some(i),
                );
            }
            if let Some(v) = &m.rows {
                dim(
                    &mut dims,
                    "rows",
                    v.get_ref(),
                    move |n| scale_count(n.get(), scale).to_string(),
                    |c, n| c.rows = Some(n.get()),
                );
            }
            if let Some(v) = &m.method {
                dim(&mut dims, "method", v.get_ref(), |m| m.to_string(), |c, m| c.method = Some(m));
            }
            if let Some(v) = &m.batch {
                dim(&mut dims, "batch", v.get_ref(), |b| b.to_string(), |c, b| c.batch = Some(b));
            }
            if let Some(v) = &m.writers {
                dim(
                    &mut dims,
                    "writers",
                    v.get_ref(),
                    |n| n.to_string(),
                    |c, n| c.writers = Some(n.get()),
                );
            }
            if let Some(v) = &m.page_size {
                dim(
                    &mut dims,
                    "page_size",
                    v.get_ref(),
                    |p| p.label(),
                    |c, p| c.page_size = Some(p.0),
                );
            }
            if let Some(v) = &m.buffer_pool {
                dim(
                    &mut dims,
                    "buffer_pool",
                    v.get_ref(),
                    |b| b.label(),
                    |c, b| c.buffer_pool = Some(b.0),
                );
            }
            if let Some(v) = &m.fill_factor {
                dim(
                    &mut dims,
                    "fill_factor",
                    v.get_ref(),
                    |f| f.0.to_string(),
                    |c, f| c.fill_factor = Some(f.0),
                );
            }
            if let Some(v) = &m.merge_threshold {
                dim(
                    &mut dims,
                    "merge_threshold",
                    v.get_ref(),
                    |f| f.0.to_string(),
                    |c, f| c.merge_threshold = Some(f.0),
                );
            }
            if let Some(v) = &m.change_buffering {
                dim(
                    &mut dims,
                    "change_buffering",
                    v.get_ref(),
                    |&b| if b { "on" } else { "off" }.into(),
                    |c, b| c.change_buffering = Some(b),
                );
            }
            if let Some(v) = &m.ids_per_ms {
                let set = |c: &mut Cell, n: NonZeroU32| c.ids_per_ms = Some(n.get());
                dim(&mut dims, "ids_per_ms", v.get_ref(), |n| n.to_string(), set);
            }
            if let Some(v) = &m.within_ms {
                let set = |c: &mut Cell, w| c.within_ms = Some(w);
                dim(&mut dims, "within_ms", v.get_ref(), |w| w.to_string(), set);
            }
            if let Some(v) = &m.autoinc_lock_mode {
                dim(
                    &mut dims,
                    "autoinc_lock_mode",
                    v.get_ref(),
                    |m| m.0.to_string(),
                    |c, m| c.autoinc_lock_mode = Some(m.0),
                );
            }
            if let Some(v) = &m.sharding {
                let set = |c: &mut Cell, s| c.sharding = Some(s);
                dim(&mut dims, "sharding", v.get_ref(), |s| s.to_string(), set);
            }
        }
        let base = Cell {
            variants: match group.and_then(|m| m.get_ref().variants.as_ref()) {
                Some(v) => Some(variants(cx, v.get_ref())?),
                None => None,
            },
            placements: group
                .and_then(|m| m.get_ref().placements.as_ref().map(|v| v.get_ref().clone())),
            ..Cell::default()
        };
        cells.extend(product(base, &dims));
    }
    Ok(cells)
}

/// Every combination of `dims` applied to `base`, the first dimension varying slowest.
fn product(base: Cell, dims: &[(String, Vec<(String, Setter)>)]) -> Vec<Cell> {
    let mut out = vec![base];
    for (name, values) in dims {
        let mut next = Vec::with_capacity(out.len() * values.len());
        for cell in &out {
            for (label, set) in values {
                let mut c = cell.clone();
                set(&mut c);
                c.coords.push((name.clone(), label.clone()));
                next.push(c);
            }
        }
        out = next;
    }
    out
}
