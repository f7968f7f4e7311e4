//! The HTML report's summary card: one row per run with the figures that decide between them
//! (`advise`'s total bytes, the id index's pages, its leaf fill, page splits, table bytes,
//! pages read, load speed), the best of each column marked. A column no run has a figure
//! for is left out; a run without one shows `—`.
//!
//! It reads the report's runs directly and does not rank or judge: the verdict above it does.

use crate::labels::column_labels;
use crate::reading::key_index;
use crate::text::{decimal, escape_html as esc, group_thousands, human_bytes};
use keylab_core::{Figure, PhaseResult, Report, RunResult};
use std::fmt::Write as _;

/// One column of the card: its heading, which way is better, the figure of a run, and how it
/// is shown.
struct Column {
    heading: String,
    higher_is_better: bool,
    figure: fn(&RunResult) -> Option<f64>,
    show: fn(f64) -> String,
}

fn count(v: f64) -> String {
    group_thousands(v.round() as u64)
}

fn bytes(v: f64) -> String {
    human_bytes(v.round() as u64)
}

fn pct(v: f64) -> String {
    format!("{}%", decimal(v, 1))
}

fn id_pages(r: &RunResult) -> Option<f64> {
    let i = key_index(r)?;
    i.size_pages.or(i.leaf_pages).map(|p| p as f64)
}

fn advice_total(r: &RunResult) -> Option<f64> {
    r.phases.iter().find_map(|p| match p {
        PhaseResult::Advice(a) => match a.total_bytes {
            Figure::Value(v) => Some(v as f64),
            _ => None,
        },
        _ => None,
    })
}

fn columns(report: &Report) -> Vec<Column> {
    let index =
        report.runs.iter().find_map(key_index).map_or("id index".into(), |i| i.name.clone());
    vec![
        // advise decides on total bytes: first, so a phone shows it without scrolling.
        Column {
            heading: "total bytes".into(),
            higher_is_better: false,
            figure: advice_total,
            show: bytes,
        },
        Column {
            heading: format!("{index} pages"),
            higher_is_better: false,
            figure: id_pages,
            show: count,
        },
        Column {
            heading: "leaf fill".into(),
            higher_is_better: true,
            figure: |r| key_index(r)?.fill_pct,
            show: pct,
        },
        Column {
            heading: "page splits".into(),
            higher_is_better: false,
            figure: |r| r.counters.page_splits.map(|v| v as f64),
            show: count,
        },
        Column {
            heading: "table bytes".into(),
            higher_is_better: false,
            figure: |r| {
                Some(
                    (r.table.data_length?.saturating_add(r.table.index_length.unwrap_or(0))) as f64,
                )
            },
            show: bytes,
        },
        Column {
            heading: "pages read".into(),
            higher_is_better: false,
            figure: |r| {
                r.buffer_pool
                    .as_ref()
                    .and_then(|p| p.pages_read)
                    .or(r.counters.pages_read)
                    .map(|v| v as f64)
            },
            show: count,
        },
        Column {
            heading: "rows/s".into(),
            higher_is_better: true,
            figure: |r| r.load.rows_per_s,
            show: |v| decimal(v, 0),
        },
    ]
}

/// The card's table, empty when the report has no runs.
pub(crate) fn summary_table(report: &Report) -> String {
    if report.runs.is_empty() {
        return String::new();
    }
    let labels = column_labels(&report.runs);
    let columns: Vec<(Column, Vec<Option<f64>>)> = columns(report)
        .into_iter()
        .map(|c| {
            let values: Vec<Option<f64>> = report.runs.iter().map(c.figure).collect();
            (c, values)
        })
        .filter(|(_, v)| v.iter().any(Option::is_some))
        .collect();
    if columns.is_empty() {
        return String::new();
    }
    let mut html =
        String::from("<div class=\"scroll\"><table class=\"summary\">\n<thead><tr><th>run</th>");
    for (c, _) in &columns {
        let _ = write!(html, "<th>{}</th>", esc(&c.heading));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    let best: Vec<Option<f64>> = columns
        .iter()
        .map(|(c, v)| {
            let present = v.iter().flatten().copied();
            // A column where every run has the same figure has no best.
            let (lo, hi) = present.fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
            (lo < hi).then_some(if c.higher_is_better { hi } else { lo })
        })
        .collect();
    for (i, label) in labels.iter().enumerate() {
        let _ = write!(html, "<tr><th scope=\"row\">{}</th>", esc(label));
        for ((c, values), best) in columns.iter().zip(&best) {
            match values[i] {
                Some(v) => {
                    let class = if Some(v) == *best { " class=\"best\"" } else { "" };
                    let _ = write!(html, "<td{class}>{}</td>", esc(&(c.show)(v)));
                }
                None => html.push_str("<td class=\"na\">—</td>"),
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table></div>");
    html
}
