//! The CSV format, for spreadsheets: one row per variant, one column per metric of the shared
//! [`MetricTable`] (its row keys are the headers: `variant`, `rows`, `counters.page_splits`,
//! `PRIMARY.size_pages`...), raw numbers (bytes in bytes, full precision), empty cells for
//! null. Every metric with a better direction is followed by a `<key>.ratio_to_best` column
//! (1.000 for the best variant, empty when no ratio applies), so a sheet can sort or colour
//! on it. Rows no run has a figure for are kept. No other report metadata is written (the
//! header must stay one line for spreadsheet imports), except the simulator's model: a last
//! `engine.model` column says which server's rules produced each row's figures (the run's own
//! `model` in a report of several models, else the engine's).
//!
//! Only scalar figures are written: list-valued phase figures (load `samples`, churn
//! `per_round`, DDL `steps`, `first_batch_ms`) are left out, since one cell cannot hold a
//! series a spreadsheet can use; they stay in the JSON and are charted in the HTML report.

use crate::table::MetricTable;
use keylab_core::Report;
use std::io;

/// Suffix of a ratio column.
const RATIO_SUFFIX: &str = ".ratio_to_best";

pub(crate) fn render(report: &Report, out: &mut dyn io::Write) -> io::Result<()> {
    if let Some(schema) = &report.schema {
        // A schema summary has no runs: one row per table instead.
        let (header, rows) = crate::schema::csv_rows(schema);
        let mut writer = csv::Writer::from_writer(out);
        writer.write_record(&header).map_err(io::Error::other)?;
        for row in rows {
            writer.write_record(&row).map_err(io::Error::other)?;
        }
        return writer.flush();
    }
    let model = MetricTable::from_report(report);
    let mut writer = csv::Writer::from_writer(out);
    let mut header = Vec::new();
    let rows: Vec<_> = model.rows.iter().filter(|r| !r.is_list()).collect();
    for row in &rows {
        header.push(row.key.clone());
        if row.better.is_some() {
            header.push(format!("{}{RATIO_SUFFIX}", row.key));
        }
    }
    let engine_model = report.engine.model.as_deref();
    let run_model = |run: usize| report.runs[run].model.as_deref().or(engine_model);
    if (0..report.runs.len()).any(|run| run_model(run).is_some()) {
        header.push("engine.model".into());
    }
    writer.write_record(&header).map_err(io::Error::other)?;
    for run in 0..model.columns.len() {
        let mut record = Vec::with_capacity(header.len());
        for row in &rows {
            let cell = &row.cells[run];
            record.push(cell.value.raw());
            if row.better.is_some() {
                record.push(cell.ratio.map(|r| r.raw()).unwrap_or_default());
            }
        }
        if let Some(m) = run_model(run) {
            record.push(m.to_string());
        }
        writer.write_record(&record).map_err(io::Error::other)?;
    }
    writer.flush()
}
