//! `keylab inspect FILE.ibd`: a real tablespace's structure, read offline, per index: pages
//! by level, height, leaf fill and its histogram, records per leaf, garbage. These are the
//! figures the simulator predicts, measured from the file itself.

use crate::args::InspectArgs;
use crate::UsageError;
use anyhow::Result;
use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use keylab_server::ibd::{read_tablespace, IbdError, TablespaceReport};
use std::io::Write;

/// Runs `keylab inspect`.
pub fn run(args: InspectArgs) -> Result<()> {
    let report = read_tablespace(&args.file).map_err(|e| match e {
        IbdError::Format(why) => {
            UsageError(format!("{}: not a readable InnoDB tablespace: {why}", args.file.display()))
        }
        io => UsageError(io.to_string()),
    })?;
    if report.file_pages < report.header_pages {
        eprintln!("keylab: warning: {}", truncated(&args.file.display().to_string(), &report));
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render(&args.file.display().to_string(), &report))?;
    }
    Ok(())
}

/// The warning for a file shorter than its header says.
fn truncated(file: &str, report: &TablespaceReport) -> String {
    format!(
        "{file} is truncated: its header says {} pages, the file holds {}; the figures cover \
         only the pages present",
        report.header_pages, report.file_pages
    )
}

fn render(file: &str, report: &TablespaceReport) -> String {
    let mut text = format!(
        "{file}: {} KiB pages, {} pages in the file, {} allocated\n",
        report.page_size_bytes / 1024,
        report.file_pages,
        report.allocated_pages
    );
    if report.file_pages < report.header_pages {
        text.push_str(&format!("warning: {}\n", truncated(file, report)));
    }
    if report.corrupt_index_pages > 0 {
        text.push_str(&format!(
            "warning: {} index pages had implausible headers and were skipped\n",
            report.corrupt_index_pages
        ));
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_header([
        "index id",
        "height",
        "pages per level (leaf first)",
        "leaf pages",
        "leaf fill",
        "records/leaf",
        "garbage",
        "leaf fill histogram (0-10%..90-100%)",
    ]);
    for ix in &report.indexes {
        let levels: Vec<String> = ix.pages_per_level.iter().map(u64::to_string).collect();
        let hist: Vec<String> = ix.fill_histogram.iter().map(u64::to_string).collect();
        table.add_row([
            ix.index_id.to_string(),
            ix.height.to_string(),
            levels.join(" / "),
            ix.leaf_pages.to_string(),
            ix.fill_pct.map_or("n/a".into(), |f| format!("{f:.1}%")),
            ix.records_per_leaf.map_or("n/a".into(), |r| format!("{r:.1}")),
            format!("{} B", ix.leaf_garbage_bytes),
            hist.join(" "),
        ]);
    }
    for col in 1..7 {
        if let Some(c) = table.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    text.push_str(&table.to_string());
    text.push_str(
        "\nIndex ids are the server's (INFORMATION_SCHEMA.INNODB_SYS_INDEXES on MariaDB, \
         INNODB_INDEXES on MySQL); the lowest is usually PRIMARY.\n",
    );
    text
}
