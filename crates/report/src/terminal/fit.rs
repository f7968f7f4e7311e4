//! Fitting the metric table to a terminal width: which runs go into each part, and whether a
//! part is drawn as wide as its figures or with its metric labels wrapped.
//!
//! A part is first drawn as it is; if it is too wide, its label column is wrapped (the value
//! columns keep their width, so figures never break); if that would squeeze the labels below
//! [`LABEL_MIN`], the part takes fewer runs. One run that still does not fit has every column
//! wrapped by comfy-table. Widths are measured on the drawn text, not estimated, so what is
//! printed is what was checked.

use super::draw;
use crate::table::MetricTable;
use comfy_table::{ColumnConstraint, ContentArrangement, Table};
use std::ops::Range;

/// The narrowest the metric label column is wrapped to before a part takes fewer runs.
const LABEL_MIN: usize = 24;

/// How one part of the table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrangement {
    /// Every column as wide as its content.
    Natural,
    /// Fitted to `width` columns; with `keep_values`, only the label column wraps.
    Wrap { width: usize, keep_values: bool },
}

impl Arrangement {
    /// Sets the table's content arrangement (before rows are added).
    pub(crate) fn apply(self, table: &mut Table) {
        match self {
            Arrangement::Natural => {
                table.set_content_arrangement(ContentArrangement::Disabled);
            }
            Arrangement::Wrap { width, .. } => {
                let width = u16::try_from(width).unwrap_or(u16::MAX);
                table.set_content_arrangement(ContentArrangement::Dynamic).set_width(width);
            }
        }
    }

    /// Keeps the value columns at their content's width (after rows are added).
    pub(crate) fn constrain(self, table: &mut Table) {
        if let Arrangement::Wrap { keep_values: true, .. } = self {
            for col in table.column_iter_mut().skip(1) {
                col.set_constraint(ColumnConstraint::ContentWidth);
            }
        }
    }
}

/// The parts the table is drawn in, with their arrangement: the model's own column groups
/// ([`MetricTable::column_groups`]) as they are when `width` is `None`, else each split
/// further until every line fits.
pub(crate) fn fitted_groups(
    model: &MetricTable,
    width: Option<usize>,
) -> Vec<(Range<usize>, Arrangement)> {
    let groups = model.column_groups();
    let Some(width) = width else {
        return groups.into_iter().map(|g| (g, Arrangement::Natural)).collect();
    };
    let mut parts = Vec::new();
    for group in groups {
        let mut greedy = Vec::new();
        let mut start = group.start;
        while start < group.end {
            let found = (start + 1..=group.end)
                .rev()
                .find_map(|end| Some((end, fits(model, start..end, width)?)));
            let (end, arrangement) =
                found.unwrap_or((start + 1, Arrangement::Wrap { width, keep_values: false }));
            greedy.push((start..end, arrangement));
            start = end;
        }
        // As many parts as the greedy split needs, but as even as possible (4 runs: 2 + 2,
        // not 3 + 1), when every even part fits too.
        let even: Option<Vec<_>> = even_parts(group.clone(), greedy.len())
            .into_iter()
            .map(|range| Some((range.clone(), fits(model, range, width)?)))
            .collect();
        parts.extend(even.filter(|_| greedy.len() > 1).unwrap_or(greedy));
    }
    parts
}

/// `range` in `n` parts as even as possible.
fn even_parts(range: Range<usize>, n: usize) -> Vec<Range<usize>> {
    let n = n.max(1);
    let (base, extra) = (range.len() / n, range.len() % n);
    let mut start = range.start;
    (0..n)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let part = start..start + len;
            start += len;
            part
        })
        .collect()
}

/// How `cols` fits in `width`, `None` when it does not with readable labels.
fn fits(model: &MetricTable, cols: Range<usize>, width: usize) -> Option<Arrangement> {
    let natural = draw(model, cols.clone(), false, Arrangement::Natural);
    if widest(&natural) <= width {
        return Some(Arrangement::Natural);
    }
    let wrap = Arrangement::Wrap { width, keep_values: true };
    let wrapped = draw(model, cols, false, wrap);
    (widest(&wrapped) <= width && first_column(&wrapped) >= LABEL_MIN).then_some(wrap)
}

/// The longest line of `text`, in characters.
pub(crate) fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// The content width of a drawn table's first column, read off its top border
/// (`┌────┬`, one space of padding on each side).
fn first_column(table: &str) -> usize {
    let top = table.lines().next().unwrap_or("");
    top.chars().skip(1).take_while(|&c| c != '┬' && c != '┐').count().saturating_sub(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{test_report, test_run};
    use serde_json::json;

    fn report(n: usize) -> keylab_core::Report {
        let runs = (0..n)
            .map(|i| {
                test_run(json!({
                    "variant": format!("variant-number-{i}:text"),
                    "indexes": [{"name": "PRIMARY", "size_pages": 1000 + i as u64 * 997,
                                 "leaf_pages": 990, "fill_pct": 68.25}]
                }))
            })
            .collect();
        test_report(runs)
    }

    #[test]
    fn no_width_keeps_the_model_groups() {
        let model = MetricTable::from_report(&report(4));
        assert_eq!(fitted_groups(&model, None), vec![(0..4, Arrangement::Natural)]);
    }

    #[test]
    fn every_part_fits_the_width() {
        let model = MetricTable::from_report(&report(4));
        for width in [40, 60, 80, 120] {
            let parts = fitted_groups(&model, Some(width));
            let covered: usize = parts.iter().map(|(r, _)| r.len()).sum();
            assert_eq!(covered, 4, "{width}: {parts:?}");
            for (range, arrangement) in parts {
                let text = draw(&model, range.clone(), false, arrangement);
                assert!(widest(&text) <= width, "{width} {range:?}:\n{text}");
            }
        }
    }

    #[test]
    fn parts_are_as_even_as_possible() {
        assert_eq!(even_parts(0..4, 2), vec![0..2, 2..4]);
        assert_eq!(even_parts(2..7, 2), vec![2..5, 5..7]);
    }

    #[test]
    fn first_column_is_read_off_the_border() {
        assert_eq!(first_column("┌──────┬───┐\n│ abcd ┆ 1 │"), 4);
    }
}
