//! The Markdown format: the side-by-side [`MetricTable`] as a GitHub table (section rows in
//! bold, `×N` or **best** after each value), the metrics this engine cannot give, and the
//! reading as a list. Rows no run has a figure for are listed, not drawn.

use crate::table::{MetricTable, Ratio};
use crate::{headline, reading, settings_line, RenderContext, RATIO_LEGEND};
use keylab_core::Report;
use std::io;

pub(crate) fn render(
    report: &Report,
    ctx: &RenderContext,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let model = MetricTable::from_report(report);
    writeln!(out, "# keylab report: {}", inline(&report.scenario))?;
    writeln!(out)?;
    writeln!(out, "{}", inline(&headline(report)))?;
    if let Some(settings) = settings_line(report) {
        writeln!(out)?;
        writeln!(out, "{}", inline(&settings))?;
    }
    writeln!(out)?;
    if report.runs.is_empty() {
        writeln!(out, "No runs in this report.")?;
    } else {
        write_table(&model, out)?;
        if model.visible_rows().any(|r| r.has_ratios()) {
            writeln!(out)?;
            writeln!(out, "{RATIO_LEGEND}")?;
        }
        let nulls = model.null_keys();
        if !nulls.is_empty() {
            let keys: Vec<String> = nulls.iter().map(|k| format!("`{k}`")).collect();
            writeln!(out)?;
            writeln!(out, "n/a on this engine (null in the result): {}.", keys.join(", "))?;
        }
        writeln!(out)?;
        writeln!(out, "## Reading")?;
        writeln!(out)?;
        for sentence in reading(report) {
            writeln!(out, "- {}", inline(&sentence))?;
        }
    }
    if let Some(at) = &ctx.generated_at {
        writeln!(out)?;
        writeln!(out, "_Generated {} by keylab {}._", inline(at), inline(&report.keylab))?;
    }
    Ok(())
}

fn write_table(model: &MetricTable, out: &mut dyn io::Write) -> io::Result<()> {
    let header: Vec<String> = model.columns.iter().map(|c| cell(c)).collect();
    writeln!(out, "| metric | {} |", header.join(" | "))?;
    writeln!(out, "|---|{}", "--:|".repeat(model.columns.len()))?;
    let mut section = "";
    for row in model.visible_rows() {
        if row.section != section {
            section = &row.section;
            writeln!(out, "| **{}** |{}", cell(section), " |".repeat(model.columns.len()))?;
        }
        let values: Vec<String> = row
            .cells
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
