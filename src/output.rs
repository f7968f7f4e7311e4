//! Writing a report: to standard output in the chosen format, and to every `--export-*` file.
//!
//! What an export path names decides how it is written:
//! - a regular file, or nothing yet: rewritten after each finished run through a temporary file
//!   beside it, renamed over it (a reader never sees half a file; an interrupted run keeps what
//!   it did). A symbolic link is followed: its target is replaced and the link kept. An existing
//!   file keeps its permission bits; a new one gets 0666 less the umask, as a shell redirect.
//! - a character device or a FIFO (`/dev/null`, `/dev/stdout`, a named pipe), and any path
//!   under `/dev` or `/proc` (`/dev/stdout` may name the file a shell redirected to): written
//!   through (appended to), once, when the command finishes (or fails part-way), never
//!   replaced. A FIFO no process reads fails after a few seconds instead of hanging.
//! - a directory, a block device, a socket, or a path whose directory does not exist: refused
//!   before anything runs (exit 2).

use crate::args::OutputArgs;
use crate::UsageError;
use anyhow::{Context, Result};
use keylab_core::Report;
use keylab_report::{render, Format, RenderContext};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

fn context(color: bool, args: &OutputArgs) -> RenderContext {
    RenderContext { color, generated_at: None, width: None, verbose: args.verbose }
}

/// The narrowest width tables are fitted to (a `COLUMNS` below it is taken as this).
const MIN_WIDTH: usize = 40;

/// The columns standard output's tables must fit in: `COLUMNS` when it is set to a number
/// (piped or not, as `ls` and `git` read it), else the width of the terminal standard output
/// is, else no limit (a file or a pipe with no `COLUMNS` gets tables as wide as their figures).
fn output_width(stdout: &std::io::Stdout) -> Option<usize> {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    let width = columns.filter(|&c| c > 0).or_else(|| {
        let (terminal_size::Width(w), _) = terminal_size::terminal_size_of(stdout)?;
        Some(usize::from(w))
    })?;
    Some(width.max(MIN_WIDTH))
}

/// Prints `report` on standard output in the chosen format.
pub fn print(report: &Report, args: &OutputArgs) -> Result<()> {
    let stdout = std::io::stdout();
    let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let ctx = RenderContext { width: output_width(&stdout), ..context(color, args) };
    let mut out = std::io::BufWriter::new(stdout.lock());
    render(report, args.format, &ctx, &mut out)?;
    out.flush()?;
    Ok(())
}

/// Whether more runs will follow this write of the exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// More runs follow: only replaceable files are rewritten.
    Partial,
    /// The last write of this command: every export is written.
    Final,
}

/// The export flags with their paths.
pub(crate) fn targets(args: &OutputArgs) -> impl Iterator<Item = (&'static str, &PathBuf, Format)> {
    [
        ("--export-json", &args.export_json, Format::Json),
        ("--export-csv", &args.export_csv, Format::Csv),
        ("--export-markdown", &args.export_markdown, Format::Markdown),
        ("--export-html", &args.export_html, Format::Html),
    ]
    .into_iter()
    .filter_map(|(flag, path, format)| path.as_ref().map(|p| (flag, p, format)))
}

/// Writes the requested export files (at [`Stage::Partial`], only the replaceable ones).
pub fn write_exports(report: &Report, args: &OutputArgs, stage: Stage) -> Result<()> {
    for (flag, path, format) in targets(args) {
        let target = classify(path)
            .map_err(|why| UsageError(format!("{flag} {}: {why}", path.display())))?;
        let mut bytes = Vec::new();
        render(report, format, &context(false, args), &mut bytes)?;
        match target {
            Target::Replace { path: real, mode } => replace(&real, mode, &bytes),
            Target::WriteThrough if stage == Stage::Final => write_through(path, &bytes),
            Target::WriteThrough => Ok(()),
        }
        .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// How an export path is written.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A regular file (existing with these permission bits, or new), at this path with
    /// symbolic links resolved.
    Replace { path: PathBuf, mode: Option<u32> },
    /// Opened and written as it is.
    WriteThrough,
}

/// Decides how `path` is written; the error says why it cannot be.
pub(crate) fn classify(path: &Path) -> Result<Target, String> {
    // /dev/stdout and /proc/self/fd/N are links the kernel resolves to whatever the descriptor
    // holds (a pipe, a terminal, a redirected file): never replace one of those.
    let absolute = std::path::absolute(path).map_err(|e| e.to_string())?;
    let special = absolute.starts_with("/dev") || absolute.starts_with("/proc");
    match std::fs::metadata(path) {
        Ok(meta) => {
            use std::os::unix::fs::FileTypeExt;
            let kind = meta.file_type();
            if kind.is_dir() {
                Err("is a directory; give a file name".into())
            } else if kind.is_block_device() {
                Err("is a block device; keylab does not write reports onto disks".into())
            } else if kind.is_socket() {
                Err("is a socket; give a file, a FIFO or a character device".into())
            } else if special || kind.is_char_device() || kind.is_fifo() {
                Ok(Target::WriteThrough)
            } else {
                use std::os::unix::fs::PermissionsExt;
                let real = resolve_links(path)?;
                Ok(Target::Replace { path: real, mode: Some(meta.permissions().mode() & 0o7777) })
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Nothing there yet (or a link to nothing): the file is created where the link
            // points, in a directory that must exist.
            let real = resolve_links(path)?;
            let dir = parent_dir(&real);
            if !dir.is_dir() {
                return Err(format!("directory {} does not exist", dir.display()));
            }
            Ok(Target::Replace { path: real, mode: None })
        }
        Err(e) => Err(e.to_string()),
    }
}

/// `path` with symbolic links in its last component followed (to a target that may not exist
/// yet), so the rename replaces the target and keeps the link.
fn resolve_links(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    // As the kernel's limit on links in one lookup (ELOOP).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|e| e.to_string())?;
                p = parent_dir(&p).join(to);
            }
            _ => return Ok(p),
        }
    }
    Err("too many levels of symbolic links".into())
}

fn parent_dir(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Writes through a temporary file beside `path` and renames it over `path`, so a reader
/// never sees half a file.
fn replace(path: &Path, mode: Option<u32>, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // A new file is created 0666 less the umask, as a shell redirect would.
    let mut tmp = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(parent_dir(path))?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    if let Some(mode) = mode {
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode))?;
    }
    tmp.persist(path)?;
    Ok(())
}

/// How long an export FIFO may wait for a reader when the command ends (the reader may be
/// started just after keylab) before the write fails instead of hanging.
const FIFO_READER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Writes `bytes` into what `path` names without replacing it. A FIFO is opened without
/// blocking: with no reader within [`FIFO_READER_WAIT`] the write fails naming it, instead of
/// hanging (with a private server still up) as a shell redirect would.
fn write_through(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    // Appending: a regular file reached through /dev/stdout is the shell's redirect, which
    // standard output writes to as well; no truncation.
    let mut options = std::fs::OpenOptions::new();
    options.append(true);
    if !fifo {
        let mut file = options.open(path)?;
        file.write_all(bytes)?;
        file.flush()?;
        return Ok(());
    }
    options.custom_flags(libc::O_NONBLOCK);
    let started = std::time::Instant::now();
    let mut file = loop {
        match options.open(path) {
            // ENXIO: no process has the FIFO open for reading.
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if started.elapsed() >= FIFO_READER_WAIT {
                    anyhow::bail!(
                        "a FIFO no process reads (waited {} s); start its reader \
                         (e.g. `cat {} &`) before keylab, or export to a file",
                        FIFO_READER_WAIT.as_secs(),
                        path.display()
                    );
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => break other?,
        }
    };
    // The descriptor stays non-blocking: a full pipe answers WouldBlock until the reader
    // drains it.
    let mut rest = bytes;
    while !rest.is_empty() {
        match file.write(rest) {
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_classified_by_what_they_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("r.json");
        std::fs::write(&file, "x").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("r.json", &link).unwrap();
        assert_eq!(
            classify(&link).unwrap(),
            Target::Replace { path: dir.path().join("r.json"), mode: Some(0o644) }
        );
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink("new.json", &dangling).unwrap();
        assert_eq!(
            classify(&dangling).unwrap(),
            Target::Replace { path: dir.path().join("new.json"), mode: None }
        );
        assert_eq!(classify(Path::new("/dev/null")).unwrap(), Target::WriteThrough);
        assert_eq!(classify(Path::new("/dev/stdout")).unwrap(), Target::WriteThrough);
        assert!(classify(dir.path()).unwrap_err().contains("directory"));
        let orphan = dir.path().join("no/such/dir/r.json");
        assert!(classify(&orphan).unwrap_err().contains("does not exist"));
        let lp = dir.path().join("loop");
        std::os::unix::fs::symlink("loop", &lp).unwrap();
        assert!(classify(&lp).is_err());
    }
}
