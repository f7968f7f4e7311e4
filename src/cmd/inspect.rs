//! `keylab inspect FILE.ibd`: a real tablespace's structure, read offline, per index: pages
//! by level, height, leaf fill and its histogram, records per leaf, garbage. These are the
//! figures the simulator predicts, measured from the file itself. On MySQL 8.0+ files the
//! indexes are named, and the table and its columns shown, from the file's own dictionary.

use crate::args::InspectArgs;
use crate::UsageError;
use anyhow::Result;
use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use keylab_mariadb::ibd::{read_tablespace, IbdError, Sdi, TablespaceReport};
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
        let warning = truncated(&args.file.display().to_string(), &report);
        eprintln!("keylab: warning: {}", keylab_report::escape_controls(&warning, true));
    }
    for warning in &report.warnings {
        let text = format!("{}: {warning}", args.file.display());
        eprintln!("keylab: warning: {}", keylab_report::escape_controls(&text, true));
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
    for warning in &report.warnings {
        text.push_str(&format!("warning: {warning}\n"));
    }
    if let Some(sdi) = &report.sdi {
        text.push_str(&dictionary_header(sdi));
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_header([
        "index id",
        "name",
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
            index_name(report, ix.index_id),
            ix.height.to_string(),
            levels.join(" / "),
            ix.leaf_pages.to_string(),
            ix.fill_pct.map_or("n/a".into(), |f| format!("{f:.1}%")),
            ix.records_per_leaf.map_or("n/a".into(), |r| format!("{r:.1}")),
            format!("{} B", ix.leaf_garbage_bytes),
            hist.join(" "),
        ]);
    }
    for col in 2..8 {
        if let Some(c) = table.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    text.push_str(&table.to_string());
    text.push('\n');
    if let Some(sdi) = &report.sdi {
        // R-tree and full-text indexes have no B-tree INDEX pages of their own to count.
        let unpaged: Vec<String> = sdi
            .tables
            .iter()
            .flat_map(|t| &t.indexes)
            .filter(|ix| !report.indexes.iter().any(|p| Some(p.index_id) == ix.index_id))
            .map(|ix| match ix.index_id {
                Some(id) => format!("{} (id {id})", ix.name),
                None => ix.name.clone(),
            })
            .collect();
        if !unpaged.is_empty() {
            text.push_str(&format!(
                "In the dictionary but without INDEX pages here: {}\n",
                unpaged.join(", ")
            ));
        }
    }
    for note in &report.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    if report.sdi.is_none() {
        text.push_str(
            "Index ids are the server's (INFORMATION_SCHEMA.INNODB_SYS_INDEXES on MariaDB, \
             INNODB_INDEXES on MySQL); the lowest is usually PRIMARY.\n",
        );
    }
    text
}

/// An index's name from the dictionary, marked when the server added it; "n/a" without one.
fn index_name(report: &TablespaceReport, index_id: u64) -> String {
    match report.sdi.as_ref().and_then(|sdi| sdi.index(index_id)) {
        Some(ix) if ix.hidden => format!("{} (hidden)", ix.name),
        Some(ix) => ix.name.clone(),
        None => "n/a".into(),
    }
}

/// The tables and columns the file's dictionary describes, columns wrapped to ~100 chars.
fn dictionary_header(sdi: &Sdi) -> String {
    let mut text = String::new();
    let version = sdi.mysql_version.as_deref().unwrap_or("unknown version");
    for t in &sdi.tables {
        text.push_str(&format!(
            "table {}.{} (from the file's dictionary, written by MySQL {version})\n",
            t.schema, t.name
        ));
        let mut line = format!("  columns ({}):", t.columns.len());
        for (i, c) in t.columns.iter().enumerate() {
            let null = if c.nullable { " NULL" } else { "" };
            let sep = if i + 1 < t.columns.len() { "," } else { "" };
            // InnoDB's own full-text tables record no SQL type.
            let ty = if c.sql_type.is_empty() { String::new() } else { format!(" {}", c.sql_type) };
            let item = format!(" {}{ty}{null}{sep}", c.name);
            if line.len() + item.len() > 100 {
                text.push_str(&line);
                text.push('\n');
                line = "   ".into();
            }
            line.push_str(&item);
        }
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_mariadb::ibd::{IndexPages, SdiColumn, SdiIndex, SdiTable};

    fn report(with_sdi: bool) -> TablespaceReport {
        let mut ix = IndexPages::default();
        ix.index_id = 70;
        ix.fill_histogram = vec![0; 10];
        let mut r =
            TablespaceReport { page_size_bytes: 16384, indexes: vec![ix], ..Default::default() };
        if with_sdi {
            let col = |n: usize| SdiColumn {
                name: format!("column_{n}"),
                sql_type: "varchar(45)".into(),
                nullable: n == 1,
            };
            let index = |name: &str, id: u64, hidden: bool| SdiIndex {
                name: name.into(),
                hidden,
                index_id: Some(id),
                root_page: Some(4),
                partition: None,
            };
            r.sdi = Some(Sdi {
                mysql_version: Some("8.4.3".into()),
                tables: vec![SdiTable {
                    schema: "db".into(),
                    name: "t".into(),
                    columns: (0..6).map(col).collect(),
                    indexes: vec![index("PRIMARY", 70, true), index("ft", 71, false)],
                }],
            });
        } else {
            r.notes = vec![keylab_mariadb::ibd::NO_SDI_NOTE.into()];
        }
        r
    }

    #[test]
    fn a_dictionary_names_indexes_and_lists_columns() {
        let text = render("t.ibd", &report(true));
        assert!(text.contains("table db.t (from the file's dictionary, written by MySQL 8.4.3)"));
        assert!(text.contains("columns (6): column_0 varchar(45), column_1 varchar(45) NULL,"));
        let header = text.lines().take_while(|l| !l.starts_with('┌'));
        assert!(header.clone().count() == 4 && header.clone().all(|l| l.len() <= 100), "{text}");
        assert!(text.contains("PRIMARY (hidden)"), "{text}");
        assert!(text.contains("without INDEX pages here: ft (id 71)"), "{text}");
        assert!(!text.contains("Index ids are the server's"), "{text}");
    }

    #[test]
    fn without_a_dictionary_ids_are_explained() {
        let text = render("t.ibd", &report(false));
        assert!(text.contains("┆ n/a "), "{text}");
        assert!(text.contains("note: index names not in the file"), "{text}");
        assert!(text.contains("Index ids are the server's"), "{text}");
    }
}
