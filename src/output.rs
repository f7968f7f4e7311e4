//! Writing a report: to standard output in the chosen format, and to every `--export-*` file.
//! Exports are rewritten after each variant finishes, so an interrupted run keeps what it did.

use crate::args::OutputArgs;
use anyhow::{Context, Result};
use keylab_core::Report;
use keylab_report::{render, Format, RenderContext};
use std::io::{IsTerminal, Write};
use std::path::Path;

fn context(color: bool) -> RenderContext {
    RenderContext { color, generated_at: None }
}

/// Prints `report` on standard output in the chosen format.
pub fn print(report: &Report, args: &OutputArgs) -> Result<()> {
    let stdout = std::io::stdout();
    let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = std::io::BufWriter::new(stdout.lock());
    render(report, args.format, &context(color), &mut out)?;
    out.flush()?;
    Ok(())
}

/// Writes every requested export file.
pub fn write_exports(report: &Report, args: &OutputArgs) -> Result<()> {
    let targets = [
        (&args.export_json, Format::Json),
        (&args.export_csv, Format::Csv),
        (&args.export_markdown, Format::Markdown),
        (&args.export_html, Format::Html),
    ];
    for (path, format) in targets {
        if let Some(path) = path {
            write_file(report, format, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// Writes through a temporary file beside the target, so a reader never sees half a file.
fn write_file(report: &Report, format: Format, path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    render(report, format, &context(false), &mut tmp)?;
    tmp.flush()?;
    // A temporary file is private (0600); an exported report is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path)?;
    Ok(())
}
