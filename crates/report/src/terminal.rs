//! The terminal format: a headline, the verdict (at most three lines), the settings, the
//! side-by-side [`MetricTable`] drawn with comfy-table (ratios to the best variant next to each
//! value), the metrics this engine cannot give, and the reading grouped by topic. It never
//! detects the terminal itself: colour and width come from the caller ([`RenderContext`]) so
//! the output is byte-stable.
//!
//! Reports of more than [`MAX_COLUMNS`](crate::MAX_COLUMNS) runs are drawn as several tables
//! of the same rows (`Runs 1–6 of 37`, ...) rather than one table too wide for any terminal;
//! ratios stay relative to the best over all runs. Given a width, a table that does not fit is
//! split further into parts of fewer runs, and when one run is still too wide its metric
//! labels are wrapped (`fit.rs`); prose is wrapped to the width too. Column headers put the
//! variant on one line and each thing that tells the run apart on a line below. Section notes
//! (a phase the engine cannot run, with its reason) are rows of their own under the section
//! heading.

mod fit;

use crate::reading::{reading_groups, verdict};
use crate::settings::{settings_view, SubTable};
use crate::table::{MetricTable, Ratio};
use crate::text::wrap;
use crate::{headline, load_check_line, RenderContext, RATIO_LEGEND};
use comfy_table::{presets, Attribute, Cell, CellAlignment, Color, ContentArrangement, Table};
use keylab_core::Report;
use std::io;
use std::ops::Range;

/// Width the prose under the table is wrapped to (less when the terminal is narrower).
const PROSE_WIDTH: usize = 100;
/// Width section notes are wrapped to inside the first column.
const NOTE_WIDTH: usize = 44;

pub(crate) fn render(
    report: &Report,
    ctx: &RenderContext,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let model = MetricTable::from_report(report);
    let prose = ctx.width.map_or(PROSE_WIDTH, |w| w.min(PROSE_WIDTH));
    let line = headline(report);
    match ctx.width {
        Some(w) if line.chars().count() > w => writeln!(out, "{}", wrap(&line, w, ""))?,
        _ => writeln!(out, "{line}")?,
    }
    writeln!(out)?;
    writeln!(out, "Verdict:")?;
    for sentence in verdict(report) {
        writeln!(out, "{}", bullet(&sentence, prose, "* "))?;
    }
    writeln!(out)?;
    let settings = settings_view(report, ctx.verbose);
    for line in &settings.lines {
        writeln!(out, "{}", wrap(line, prose - 2, "  ").trim_start())?;
    }
    for (name, items) in &settings.lists {
        writeln!(out, "{name}:")?;
        for item in items {
            writeln!(out, "{}", wrap(&format!("- {item}"), prose - 2, "  "))?;
        }
    }
    for sub in &settings.tables {
        writeln!(out, "{}:", sub.name)?;
        writeln!(out, "{}", draw_settings(sub, ctx.width))?;
    }
    writeln!(out)?;
    if report.runs.is_empty() {
        if report.schema.is_none() {
            writeln!(out, "No runs in this report.")?;
        }
        return Ok(());
    }
    let groups = fit::fitted_groups(&model, ctx.width);
    for (i, (range, arrangement)) in groups.iter().enumerate() {
        if let Some(heading) = model.part_heading(range) {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "{heading}")?;
        }
        writeln!(out, "{}", draw(&model, range.clone(), ctx.color, *arrangement))?;
    }
    if model.visible_rows().any(|r| r.has_ratios()) {
        writeln!(out, "{}", wrap(RATIO_LEGEND, prose, ""))?;
    }
    if let Some(line) = load_check_line(report) {
        writeln!(out, "{}", wrap(&line, prose, ""))?;
    }
    let nulls = model.null_keys();
    if !nulls.is_empty() {
        let note = format!("n/a on this engine (null in the result): {}.", nulls.join(", "));
        writeln!(out, "{}", wrap(&note, prose, ""))?;
    }
    writeln!(out)?;
    writeln!(out, "Reading:")?;
    for group in reading_groups(report) {
        writeln!(out, "{}:", group.topic)?;
        for sentence in group.sentences {
            writeln!(out, "{}", bullet(&sentence, prose, "- "))?;
        }
    }
    Ok(())
}

/// `sentence` wrapped to `width` under a `mark` (`- `), its other lines indented to match.
fn bullet(sentence: &str, width: usize, mark: &str) -> String {
    let indent = " ".repeat(mark.chars().count());
    let text = wrap(sentence, width.saturating_sub(indent.len()).max(1), &indent);
    format!("{mark}{}", text.get(indent.len()..).unwrap_or(""))
}

/// A nested setting as a small table, numbers right-aligned; wrapped to `width` if given.
fn draw_settings(sub: &SubTable, width: Option<usize>) -> String {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(sub.header.iter().map(Cell::new));
    for row in &sub.rows {
        table.add_row(row.iter().enumerate().map(|(i, v)| {
            let cell = Cell::new(v);
            if i > 0 {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        }));
    }
    if let Some(w) = width {
        if table.lines().any(|l| l.chars().count() > w) {
            table.set_content_arrangement(ContentArrangement::Dynamic).set_width(w as u16);
        }
    }
    table.to_string()
}

/// The columns `cols` of the table as text. Each value is followed by its ratio mark padded
/// to one width, so values stay right-aligned on their last digit whether or not a row has
/// ratios.
fn draw(
    model: &MetricTable,
    cols: Range<usize>,
    color: bool,
    arrangement: fit::Arrangement,
) -> String {
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED);
    arrangement.apply(&mut table);
    if color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    let columns = &model.columns[cols.clone()];
    let mut header = vec![Cell::new("metric")];
    header
        .extend(columns.iter().map(|c| Cell::new(stacked(c)).set_alignment(CellAlignment::Right)));
    table.set_header(header);

    let mark_width = model
        .visible_rows()
        .flat_map(|r| r.cells[cols.clone()].iter())
        .filter_map(|c| c.ratio.map(|x| x.human().chars().count()))
        .max()
        .unwrap_or(0);
    let blank = || columns.iter().map(|_| Cell::new("")).collect::<Vec<_>>();
    for section in model.sections_in(&cols) {
        let mut heading =
            vec![styled(Cell::new(section.name), color, |c| c.add_attribute(Attribute::Bold))];
        heading.extend(blank());
        table.add_row(heading);
        for note in &section.notes {
            let mut row = vec![Cell::new(wrap(note, NOTE_WIDTH, "  "))];
            row.extend(blank());
            table.add_row(row);
        }
        for row in &section.rows {
            let mut cells = vec![Cell::new(format!("  {}", row.label))];
            for cell in &row.cells[cols.clone()] {
                let mark = match (&cell.ratio, mark_width) {
                    (_, 0) => String::new(),
                    (Some(r), w) => format!(" {:>w$}", r.human()),
                    (None, w) => format!(" {:w$}", ""),
                };
                let c = Cell::new(format!("{}{mark}", cell.value.human()));
                let best = cell.ratio == Some(Ratio::Best);
                cells.push(styled(c, color && best, |c| c.fg(Color::Green)));
            }
            table.add_row(cells);
        }
    }
    for i in 1..=columns.len() {
        if let Some(col) = table.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    arrangement.constrain(&mut table);
    table.to_string()
}

/// `ulid:text (pk, heavy)` → `ulid:text`, `pk`, `heavy` on lines of their own (then a model,
/// `@ postgres-15`, and a `#2` that tells identical runs apart), so columns stay as narrow as
/// their figures.
pub(crate) fn stacked(label: &str) -> String {
    let (main, nth) = match label.rsplit_once(" #") {
        Some((main, n)) if n.chars().all(|c| c.is_ascii_digit()) => (main, Some(n)),
        _ => (label, None),
    };
    // `uuid4:bin @ postgres-15`: the model on a line of its own.
    let (main, model) = match main.split_once(" @ ") {
        Some((main, model)) => (main, Some(model)),
        None => (main, None),
    };
    let mut lines = match main.split_once(" (").and_then(|(v, r)| Some((v, r.strip_suffix(')')?))) {
        Some((variant, parts)) => format!("{variant}\n{}", parts.replace(", ", "\n")),
        None => main.to_string(),
    };
    if let Some(model) = model {
        lines.push_str(&format!("\n@ {model}"));
    }
    if let Some(n) = nth {
        lines.push_str(&format!("\n#{n}"));
    }
    lines
}

fn styled(cell: Cell, on: bool, style: impl FnOnce(Cell) -> Cell) -> Cell {
    if on {
        style(cell)
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn headers_stack_what_tells_runs_apart() {
        assert_eq!(super::stacked("ulid:text (pk, heavy)"), "ulid:text\npk\nheavy");
        assert_eq!(super::stacked("a (pk) #2"), "a\npk\n#2");
        assert_eq!(super::stacked("auto-inc"), "auto-inc");
        assert_eq!(super::stacked("uuid4:bin @ postgres-15"), "uuid4:bin\n@ postgres-15");
    }
}
