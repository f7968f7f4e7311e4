//! The HTML format: one self-contained file (no network, no script, no external style) from
//! the template in `template.html`. It opens with the answer: the verdict and a summary card
//! (the deciding figures per run, `html/summary.rs`), then the inline SVG charts (pages and
//! bytes per variant, page splits, leaf fill histograms and, when the report has them, growth
//! of pages with rows, throughput and batch latency, churn, query times, misses per read against pool size and phase figures),
//! then the reading in collapsible groups (`<details>`), the settings, and the long
//! side-by-side [`MetricTable`] last. The page fits a phone's width (wide tables scroll in their
//! own box) and follows the reader's light or dark scheme (`prefers-color-scheme`).
//!
//! All report text is escaped. Charts of table rows read the same table model as the other
//! formats; the fill histograms and the charts of phase lists (`chart/data.rs`) read the
//! report. A chart with no data is left out. Like the terminal, a report of many runs gets
//! one table per group of at most [`MAX_COLUMNS`](crate::MAX_COLUMNS) runs.

mod summary;

use crate::chart::data as chart_data;
use crate::chart::{bar_chart, fill_histogram, grouped_bar_chart};
use crate::reading::{reading_groups, verdict};
use crate::settings::{settings_view, SettingsView};
use crate::table::{MetricRow, MetricTable, Ratio};
use crate::text::{decimal, escape_html as esc, group_thousands, human_bytes};
use crate::{headline, load_check_line, RenderContext, RATIO_LEGEND};
use keylab_core::Report;
use std::fmt::Write as _;
use std::io;
use std::ops::Range;

const TEMPLATE: &str = include_str!("template.html");

pub(crate) fn render(
    report: &Report,
    ctx: &RenderContext,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let model = MetricTable::from_report(report);
    let title = format!("keylab report: {}", report.scenario);
    let settings = settings_html(&settings_view(report, ctx.verbose));
    let verdict: Vec<String> =
        verdict(report).iter().map(|s| format!("<li>{}</li>", esc(s))).collect();
    let reading = reading_html(report);
    let footer = match &ctx.generated_at {
        Some(at) => format!("Generated {} by keylab {}.", esc(at), esc(&report.keylab)),
        None => format!("Rendered by keylab {}.", esc(&report.keylab)),
    };
    let page = fill_template(TEMPLATE, &|name| match name {
        "title" => Some(esc(&title)),
        "headline" => Some(esc(&headline(report))),
        "settings" => Some(settings.clone()),
        // A schema summary's tables are drawn with the settings: shown open.
        "settings_open" => Some(if report.schema.is_some() { " open" } else { "" }.into()),
        "settings_title" if report.schema.is_some() => Some("Settings and tables".into()),
        "settings_title" => Some("Settings".into()),
        "verdict" => Some(verdict.join("\n")),
        "summary" => Some(summary::summary_table(report)),
        "reading" => Some(reading.clone()),
        // A schema summary's tables are in the settings; it has no runs to set side by side.
        "side_by_side" if report.schema.is_some() => Some(String::new()),
        "side_by_side" => Some(format!(
            "<h2>Side by side</h2>\n<p class=\"meta\">Every figure of every run ({} runs).</p>",
            report.runs.len()
        )),
        "table" | "notes" if report.schema.is_some() => Some(String::new()),
        "table" => Some(table(&model)),
        "notes" => Some(notes(report, &model)),
        "charts" => Some(charts(report, &model)),
        "footer" => Some(footer.clone()),
        _ => None,
    });
    out.write_all(page.as_bytes())
}

/// The reading, one collapsible group per topic (the first open).
fn reading_html(report: &Report) -> String {
    let mut html = String::new();
    for (i, group) in reading_groups(report).into_iter().enumerate() {
        let open = if i == 0 { " open" } else { "" };
        let _ = writeln!(
            html,
            "<details class=\"reading\"{open}><summary>{} <span class=\"count\">({})</span></summary>\n<ul>",
            esc(group.topic),
            group.sentences.len()
        );
        for sentence in &group.sentences {
            let _ = writeln!(html, "<li>{}</li>", esc(sentence));
        }
        html.push_str("</ul>\n</details>\n");
    }
    html
}

/// The settings: the plain ones one line per group, lists as lists, nested ones as small
/// tables.
fn settings_html(view: &SettingsView) -> String {
    let mut out = Vec::new();
    for line in &view.lines {
        out.push(format!(r#"<p class="meta">{}</p>"#, esc(line)));
    }
    for (name, items) in &view.lists {
        let items: Vec<String> = items.iter().map(|i| format!("<li>{}</li>", esc(i))).collect();
        out.push(format!(
            r#"<p class="meta">{}:</p>
<ul class="meta">{}</ul>"#,
            esc(name),
            items.join("")
        ));
    }
    for sub in &view.tables {
        let head: Vec<String> = sub.header.iter().map(|h| format!("<th>{}</th>", esc(h))).collect();
        let rows: Vec<String> = sub
            .rows
            .iter()
            .map(|row| {
                let cells: Vec<String> = row
                    .iter()
                    .enumerate()
                    .map(|(i, v)| match i {
                        0 => format!(r#"<th scope="row">{}</th>"#, esc(v)),
                        _ => format!("<td>{}</td>", esc(v)),
                    })
                    .collect();
                format!("<tr>{}</tr>", cells.join(""))
            })
            .collect();
        out.push(format!(
            r#"<p class="meta">{}:</p>
<div class="scroll"><table class="metrics settings"><thead><tr>{}</tr></thead><tbody>
{}
</tbody></table></div>"#,
            esc(&sub.name),
            head.join(""),
            rows.join("\n")
        ));
    }
    out.join("\n")
}

/// Replaces each `{{name}}` in one pass, so text that is substituted in is never scanned
/// again. Unknown names are left as they are.
fn fill_template(template: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| Some((end, value(&after[..end])?))) {
            Some((end, text)) => {
                out.push_str(&text);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn table(model: &MetricTable) -> String {
    if model.columns.is_empty() {
        return "<p>No runs in this report.</p>".to_string();
    }
    let mut html = String::new();
    for range in model.column_groups() {
        if let Some(heading) = model.part_heading(&range) {
            let _ = writeln!(html, r#"<h3 class="part">{}</h3>"#, esc(&heading));
        }
        html.push_str(&table_part(model, range));
    }
    html
}

fn table_part(model: &MetricTable, cols: Range<usize>) -> String {
    let mut html =
        String::from("<div class=\"scroll\"><table class=\"metrics\">\n<thead><tr><th>metric</th>");
    for c in &model.columns[cols.clone()] {
        let _ = write!(html, "<th>{}</th>", esc(c));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    let span = cols.len() + 1;
    for section in model.sections_in(&cols) {
        let _ = writeln!(
            html,
            r#"<tr class="section"><th colspan="{span}">{}</th></tr>"#,
            esc(section.name)
        );
        for note in &section.notes {
            let _ =
                writeln!(html, r#"<tr class="note"><th colspan="{span}">{}</th></tr>"#, esc(note));
        }
        for row in &section.rows {
            let _ = write!(html, r#"<tr><th scope="row">{}</th>"#, esc(&row.label));
            for cell in &row.cells[cols.clone()] {
                let class = match (&cell.ratio, cell.value.is_null()) {
                    (_, true) => r#" class="na""#,
                    (Some(Ratio::Best), _) => r#" class="best""#,
                    _ => "",
                };
                let ratio = cell
                    .ratio
                    .map(|r| format!(r#"<span class="ratio">{}</span>"#, esc(&r.human())));
                let _ = write!(
                    html,
                    "<td{class}>{}{}</td>",
                    esc(&cell.value.human()),
                    ratio.unwrap_or_default()
                );
            }
            html.push_str("</tr>\n");
        }
    }
    html.push_str("</tbody>\n</table></div>\n");
    html
}

fn notes(report: &Report, model: &MetricTable) -> String {
    let mut html = String::new();
    if model.visible_rows().any(|r| r.has_ratios()) {
        let _ = writeln!(html, r#"<p class="note">{}</p>"#, esc(RATIO_LEGEND));
    }
    if let Some(line) = load_check_line(report) {
        let _ = writeln!(html, r#"<p class="note">{}</p>"#, esc(&line));
    }
    let nulls = model.null_keys();
    if !nulls.is_empty() {
        let keys: Vec<String> = nulls.iter().map(|k| format!("<code>{}</code>", esc(k))).collect();
        let _ = writeln!(
            html,
            r#"<p class="note">n/a on this engine (null in the result): {}.</p>"#,
            keys.join(", ")
        );
    }
    html
}

/// A chart section: a heading and its charts.
struct Section {
    heading: String,
    charts: Vec<String>,
}

fn charts(report: &Report, model: &MetricTable) -> String {
    let labels = &model.columns;
    // One figure per column from a table row, `None` when the row does not exist.
    let series = |key: &str| -> Option<Vec<Option<f64>>> {
        let row = model.row(key)?;
        (!row.all_null()).then(|| row.cells.iter().map(|c| c.value.number()).collect())
    };
    let bars = |values: Vec<Option<f64>>| -> Vec<(String, Option<f64>)> {
        labels.iter().cloned().zip(values).collect()
    };
    let count = |v: f64| group_thousands(v.round() as u64);
    let ms = |v: f64| format!("{} ms", decimal(v, 2));
    let mut sections = Vec::new();

    let mut shape = Vec::new();
    for row in model.rows.iter().filter(|r| r.key.ends_with(".size_pages")) {
        if let Some(values) = series(&row.key) {
            let index = row.key.trim_end_matches(".size_pages");
            shape.push(bar_chart(&format!("{index}: pages (size)"), &bars(values), &count));
        }
    }
    // A series that is 0 for every run (no secondary index) would only add empty bars.
    let bytes: Vec<(&str, Vec<Option<f64>>)> =
        [("data length", "table.data_length"), ("index length", "table.index_length")]
            .into_iter()
            .filter_map(|(name, key)| Some((name, series(key)?)))
            .filter(|(_, values)| values.iter().flatten().any(|v| *v != 0.0))
            .collect();
    if !bytes.is_empty() {
        let groups: Vec<(String, Vec<Option<f64>>)> = (0..labels.len())
            .map(|i| (labels[i].clone(), bytes.iter().map(|(_, v)| v[i]).collect()))
            .collect();
        let show = |v: f64| human_bytes(v.round() as u64);
        if let [(name, _)] = bytes[..] {
            shape.push(grouped_bar_chart(&format!("Table bytes ({name})"), &[], &groups, &show));
        } else {
            let names: Vec<&str> = bytes.iter().map(|(name, _)| *name).collect();
            shape.push(grouped_bar_chart("Table bytes", &names, &groups, &show));
        }
    }
    if let Some(values) = series("counters.page_splits") {
        shape.push(bar_chart("Page splits", &bars(values), &count));
    }
    if let Some(values) = series("counters.pages_written") {
        shape.push(bar_chart("Pages written", &bars(values), &count));
    }
    sections.push(Section { heading: "Pages, bytes and splits".into(), charts: shape });

    let mut fill = Vec::new();
    for (run, label) in report.runs.iter().zip(labels) {
        for index in &run.indexes {
            if let Some(buckets) = &index.fill_histogram {
                fill.push(fill_histogram(&format!("{label} · {}", index.name), buckets));
            }
        }
    }
    sections.push(Section { heading: "Leaf fill histograms".into(), charts: fill });
    sections.push(Section {
        heading: "Growth during the load".into(),
        charts: chart_data::growth(report, labels),
    });
    sections.push(Section {
        heading: "Buffer pool during the load".into(),
        charts: crate::chart::pool::pool_curves(report, labels),
    });
    sections.push(Section {
        heading: "Reads against buffer pool size".into(),
        charts: crate::chart::reads::read_curves(report, labels),
    });

    let mut load = Vec::new();
    if let Some(values) = series("load.rows_per_s") {
        load.push(bar_chart("Load throughput (rows/s)", &bars(values), &count));
    }
    let latency: Vec<Option<Vec<Option<f64>>>> = ["p50", "p99", "max"]
        .iter()
        .map(|p| series(&format!("load.batch_latency_ms.{p}")))
        .collect();
    if latency.iter().any(Option::is_some) {
        let groups: Vec<(String, Vec<Option<f64>>)> = (0..labels.len())
            .map(|i| {
                (labels[i].clone(), latency.iter().map(|s| s.as_ref().and_then(|v| v[i])).collect())
            })
            .collect();
        load.push(grouped_bar_chart("Batch latency", &["p50", "p99", "max"], &groups, &ms));
    }
    load.extend(chart_data::load_dimensions(report));
    sections.push(Section { heading: "Load".into(), charts: load });
    sections.push(Section { heading: "Churn".into(), charts: chart_data::churn(report, labels) });
    sections.push(Section {
        heading: "Shards".into(),
        charts: crate::rows::shards::charts(report, labels),
    });

    let mut queries = Vec::new();
    for row in
        model.rows.iter().filter(|r| r.key.starts_with("query.") && r.key.ends_with(".p50_ms"))
    {
        let name = row.key.trim_start_matches("query.").trim_end_matches(".p50_ms");
        let (p50, p99) = (series(&row.key), series(&format!("query.{name}.p99_ms")));
        if p50.is_some() || p99.is_some() {
            let n = labels.len();
            let (p50, p99) = (p50.unwrap_or(vec![None; n]), p99.unwrap_or(vec![None; n]));
            let groups: Vec<(String, Vec<Option<f64>>)> =
                (0..n).map(|i| (labels[i].clone(), vec![p50[i], p99[i]])).collect();
            queries.push(grouped_bar_chart(
                &format!("Query {name}"),
                &["p50", "p99"],
                &groups,
                &ms,
            ));
        }
    }
    sections.push(Section { heading: "Queries".into(), charts: queries });

    // Phase results (figures with a better direction); settings and what a phase was asked
    // to do are not charted, "before" figures repeat the previous phase's "after", and churn
    // has its own charts above.
    let mut phases = Vec::new();
    let charted = |r: &&MetricRow| {
        r.is_phase()
            && r.better.is_some()
            && !r.key.ends_with("_before")
            && !r.key.contains(".churn.")
    };
    for row in model.rows.iter().filter(charted) {
        let values: Vec<Option<f64>> = row.cells.iter().map(|c| c.value.number()).collect();
        let present: Vec<f64> = values.iter().flatten().copied().collect();
        // A figure every run shares (rounds, rows inserted) is a setting, not a result.
        let varies = present.windows(2).any(|w| w[0] != w[1]);
        if varies || (labels.len() == 1 && !present.is_empty()) {
            let show = |v: f64| if v.fract() == 0.0 { count(v) } else { decimal(v, 3) };
            phases.push(bar_chart(
                &format!("{}: {}", row.section, row.label),
                &bars(values),
                &show,
            ));
        }
    }
    sections.push(Section { heading: "Phases".into(), charts: phases });

    let mut html = String::new();
    for s in sections.into_iter().filter(|s| !s.charts.is_empty()) {
        let _ = writeln!(html, "<h2>{}</h2>\n<div class=\"charts\">", esc(&s.heading));
        for chart in s.charts {
            let _ = writeln!(html, "{chart}");
        }
        html.push_str("</div>\n");
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_fills_in_one_pass() {
        let page = fill_template("a {{x}} b {{y}} {{unknown}}", &|n| match n {
            "x" => Some("{{y}}".to_string()),
            "y" => Some("Y".to_string()),
            _ => None,
        });
        assert_eq!(page, "a {{y}} b Y {{unknown}}");
    }

    #[test]
    fn template_has_every_placeholder() {
        for name in [
            "title", "headline", "verdict", "summary", "settings", "reading", "table", "notes",
            "charts", "footer",
        ] {
            assert!(TEMPLATE.contains(&format!("{{{{{name}}}}}")), "{name}");
        }
    }
}
