//! The Markdown format: the verdict (a short list under the headline), the side-by-side
//! [`MetricTable`] as a GitHub table (section rows in
//! bold, `×N` or **best** after each value), the metrics this engine cannot give, and the
//! reading as lists, one per topic. Rows no run has a figure for are listed, not drawn. Section notes (a
//! phase the engine cannot run, with its reason) are italic rows under the section heading.
//! Reports of more than [`MAX_COLUMNS`](crate::MAX_COLUMNS) runs get one table per group of
//! runs (`### Runs 1–6 of 37`), each with every row; ratios stay relative to all runs.

use crate::reading::{reading_groups, verdict};
use crate::settings::settings_view;
use crate::table::{MetricTable, Ratio};
use crate::{headline, load_check_line, RenderContext, RATIO_LEGEND};
use keylab_core::Report;
use std::io;
use std::ops::Range;

pub(crate) fn render(
    report: &Report,
    ctx: &RenderContext,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let model = MetricTable::from_report(report);
    writeln!(out, "# keylab report: {}", inline(&report.scenario))?;
    writeln!(out)?;
    writeln!(out, "{}", inline(&headline(report)))?;
    writeln!(out)?;
    writeln!(out, "**Verdict**")?;
    writeln!(out)?;
    for line in verdict(report) {
        writeln!(out, "- {}", inline(&line))?;
    }
    let settings = settings_view(report, ctx.verbose);
    if !settings.lines.is_empty() {
        writeln!(out)?;
        // Two trailing spaces: a Markdown line break, one group per line.
        let lines: Vec<String> = settings.lines.iter().map(|l| inline(l)).collect();
        writeln!(out, "{}", lines.join("  \n"))?;
    }
    for (name, items) in &settings.lists {
        writeln!(out)?;
        writeln!(out, "{}:", inline(name))?;
        writeln!(out)?;
        for item in items {
            writeln!(out, "- {}", inline(item))?;
        }
    }
    for sub in &settings.tables {
        writeln!(out)?;
        writeln!(out, "{}:", inline(&sub.name))?;
        writeln!(out)?;
        let header: Vec<String> = sub.header.iter().map(|h| cell(h)).collect();
        writeln!(out, "| {} |", header.join(" | "))?;
        let align: Vec<&str> =
            (0..sub.header.len()).map(|i| if i == 0 { "---" } else { "---:" }).collect();
        writeln!(out, "| {} |", align.join(" | "))?;
        for row in &sub.rows {
            let cells: Vec<String> = row.iter().map(|v| cell(v)).collect();
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
    }
    writeln!(out)?;
    if report.runs.is_empty() {
        if report.schema.is_none() {
            writeln!(out, "No runs in this report.")?;
        }
    } else {
        for range in model.column_groups() {
            if let Some(heading) = model.part_heading(&range) {
                writeln!(out, "### {heading}")?;
                writeln!(out)?;
            }
            write_table(&model, range, out)?;
            writeln!(out)?;
        }
        if model.visible_rows().any(|r| r.has_ratios()) {
            writeln!(out, "{RATIO_LEGEND}")?;
            writeln!(out)?;
        }
        if let Some(line) = load_check_line(report) {
            writeln!(out, "{}", inline(&line))?;
            writeln!(out)?;
        }
        let nulls = model.null_keys();
        if !nulls.is_empty() {
            let keys: Vec<String> = nulls.iter().map(|k| format!("`{k}`")).collect();
            writeln!(out, "n/a on this engine (null in the result): {}.", keys.join(", "))?;
            writeln!(out)?;
        }
        writeln!(out, "## Reading")?;
        writeln!(out)?;
        for (i, group) in reading_groups(report).into_iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "### {}", inline(group.topic))?;
            writeln!(out)?;
            for sentence in group.sentences {
                writeln!(out, "- {}", inline(&sentence))?;
            }
        }
    }
    if let Some(at) = &ctx.generated_at {
        writeln!(out)?;
        writeln!(out, "_Generated {} by keylab {}._", inline(at), inline(&report.keylab))?;
    }
    Ok(())
}

fn write_table(model: &MetricTable, cols: Range<usize>, out: &mut dyn io::Write) -> io::Result<()> {
    let columns = &model.columns[cols.clone()];
    let header: Vec<String> = columns.iter().map(|c| cell(c)).collect();
    let blank = " |".repeat(columns.len());
    writeln!(out, "| metric | {} |", header.join(" | "))?;
    writeln!(out, "|---|{}", "--:|".repeat(columns.len()))?;
    for section in model.sections_in(&cols) {
        writeln!(out, "| **{}** |{blank}", cell(section.name))?;
        for note in &section.notes {
            writeln!(out, "| _{}_ |{blank}", cell(note))?;
        }
        for row in &section.rows {
            let values: Vec<String> = row.cells[cols.clone()]
                .iter()
                .map(|c| {
                    let value = cell(&c.value.human());
                    match c.ratio {
                        Some(Ratio::Best) => format!("{value} **best**"),
                        Some(r) => format!("{value} {}", r.human()),
                        None => value,
                    }
                })
                .collect();
            writeln!(out, "| {} | {} |", cell(&row.label), values.join(" | "))?;
        }
    }
    Ok(())
}

/// Text inside a table cell: pipes would end the cell, newlines the row.
fn cell(text: &str) -> String {
    inline(text).replace('|', "\\|").replace('\n', " ")
}

/// Text in running Markdown: escape the characters that would start emphasis, code or HTML.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
