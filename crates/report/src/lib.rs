//! keylab-report: every rendering of a keylab result.
//!
//! A [`Report`] (the JSON contract of `docs/contracts.md`, defined in `keylab-core`) is the single
//! source of truth; this crate turns it into a terminal table, JSON, CSV, Markdown or one
//! self-contained HTML file, and reads a saved JSON back ([`load_report`]) so
//! `keylab report RESULT.json --format ...` can re-render a run without re-running it.
//!
//! How the pieces fit:
//! - [`MetricTable`] (`table.rs`) is built once from a report: rows are metrics, one column
//!   per variant, with each cell's ratio to the best variant. The terminal, Markdown, CSV and
//!   HTML tables all render this one model, so the list of fields lives in one place.
//!   Column labels come from each run's matrix cell (`labels.rs`); phase figures become
//!   sections of readable rows and notes (`phases.rs`), lists summarised, never dumped.
//!   Reports of more than [`MAX_COLUMNS`] runs are drawn as several tables of the same rows.
//! - [`reading`] (`reading.rs`, its topics in `reading/`) computes a few plain-language
//!   sentences from the figures.
//! - `chart.rs` draws the HTML report's charts as inline SVG; `chart/data.rs` picks the
//!   charts of phase lists (growth samples, churn rounds) and of load dimensions,
//!   `chart/pool.rs` the buffer pool curves.
//! - `escape.rs` keeps control characters of input (names in a user's DDL) from reaching a
//!   terminal or file raw: every format shows them escaped.
//! - `rows/` holds the table sections of the contract's extensions (buffer pool, PostgreSQL,
//!   shards).
//!
//! What it does not do: run engines, compute statistics from samples, or decide what a run
//! measures. A figure an engine cannot give is `None` in the report and is rendered as `null`
//! (JSON), an empty cell (CSV) or `—` (tables), never as 0.
#![deny(missing_docs)]

mod chart;
mod csv_export;
mod escape;
mod format;
mod html;
mod json;
mod labels;
mod markdown;
mod phases;
mod reading;
mod rows;
mod schema;
mod settings;
mod table;
mod terminal;
mod text;

use std::io;

pub use escape::escape_controls;
pub use format::{Format, UnknownFormat};
pub use json::{load_report, parse_report, LoadError};
pub use keylab_core::Report;
pub use reading::{reading, reading_groups, verdict, ReadingGroup, MAX_VERDICT_LINES};
pub use table::{
    Better, Cell, MetricRow, MetricTable, Ratio, SectionNote, SectionView, Value, MAX_COLUMNS,
};

/// The values that would otherwise vary between two renderings of the same report; tests pass
/// fixed values so their output is byte-stable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderContext {
    /// Colour the terminal table (best values in green). Off when output is not a terminal.
    pub color: bool,
    /// When the report was rendered, shown in Markdown and HTML footers (`None`: not shown).
    pub generated_at: Option<String>,
    /// Columns the terminal format must fit in (`None`: no limit, tables as wide as their
    /// figures). Tables are split into parts of fewer runs, then their label column wrapped,
    /// and prose wrapped, so that no line is longer.
    pub width: Option<usize>,
    /// Show every engine setting, not only those that differ from the engine's defaults.
    pub verbose: bool,
}

/// Renders `report` as `format` into `out`. Control characters in its texts (names from a
/// user's DDL or server) are shown escaped in every format, never raw (`escape.rs`).
pub fn render(
    report: &Report,
    format: Format,
    ctx: &RenderContext,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let clean;
    let report = match format {
        // JSON keeps the texts as they are, escaped the JSON way.
        Format::Json => report,
        _ => match escape::escaped(report) {
            Some(r) => {
                clean = r;
                &clean
            }
            None => report,
        },
    };
    match format {
        Format::Table => terminal::render(report, ctx, out),
        Format::Json => json::render(report, out),
        Format::Csv => csv_export::render(report, out),
        Format::Markdown => markdown::render(report, ctx, out),
        Format::Html => html::render(report, ctx, out),
    }
}

/// Renders `report` as `format` into a string (all formats are UTF-8 text).
pub fn render_to_string(report: &Report, format: Format, ctx: &RenderContext) -> String {
    let mut out = Vec::new();
    render(report, format, ctx, &mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("every renderer writes UTF-8")
}

/// One line naming the run: keylab version, scenario, engine (and the simulator's model),
/// seed; simulated figures say so.
pub(crate) fn headline(report: &Report) -> String {
    let e = &report.engine;
    let provenance = if e.kind == "sim" { " · simulated figures" } else { " · measured figures" };
    let model = e.model.as_ref().map(|m| format!(" (model {m})")).unwrap_or_default();
    format!(
        "keylab {} · scenario {} · engine {}{model}: {} · seed {}{provenance}",
        report.keylab, report.scenario, e.kind, e.version, report.seed
    )
}

/// What each run's load check covered, once per distinct text, as one line shown under the
/// table (`None` when no run has a check). CSV leaves it out: it keeps figures, not prose.
pub(crate) fn load_check_line(report: &Report) -> Option<String> {
    let mut texts: Vec<&str> = Vec::new();
    for run in &report.runs {
        if let Some(v) = &run.load.verification {
            if !texts.contains(&v.checked.as_str()) {
                texts.push(&v.checked);
            }
        }
    }
    (!texts.is_empty()).then(|| format!("Load check: {}.", texts.join("; ")))
}

/// The legend of the ratio marks.
pub(crate) const RATIO_LEGEND: &str = "×N: N times worse than the best variant on that row \
    (sizes, splits, I/O and times: lower is better; rows/s, leaf fill and records per leaf: \
    higher is better).";

/// Runs for unit tests: a minimal valid `RunResult` with `extra` fields merged in.
#[cfg(test)]
pub(crate) fn test_run(extra: serde_json::Value) -> keylab_core::RunResult {
    let mut run = serde_json::json!({
        "variant": "v", "strategy": "s", "encoding": "e", "placement": "pk", "rows": 10,
        "load": {"method": "multi", "batch": 100, "writers": 1, "wall_s": null,
                 "rows_per_s": null, "batch_latency_ms": null},
        "counters": {"page_splits": null, "merge_attempts": null, "merges": null,
                     "page_reorgs": null, "page_discards": null, "pages_read": null,
                     "pages_written": null},
        "table": {"data_length": null, "index_length": null, "data_free": null},
        "indexes": []
    });
    if let (Some(run), Some(extra)) = (run.as_object_mut(), extra.as_object()) {
        run.extend(extra.clone());
    }
    serde_json::from_value(run).expect("a valid run")
}

/// A simulator report of `runs` for unit tests.
#[cfg(test)]
pub(crate) fn test_report(runs: Vec<keylab_core::RunResult>) -> Report {
    let mut report: Report = serde_json::from_value(serde_json::json!({
        "keylab": "0", "scenario": "compare", "seed": 1,
        "engine": {"kind": "sim", "version": "v", "settings": {}},
        "runs": []
    }))
    .expect("a valid report");
    report.runs = runs;
    report
}
