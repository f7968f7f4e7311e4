//! JSON: the result contract itself, written and read back.
//!
//! Writing is `serde_json::to_string_pretty` of the [`Report`] (DEL and C1 controls in its
//! strings written as `\u00XX`, as serde_json writes C0) plus a final newline; reading a
//! saved file gives a [`Report`] that writes back byte-identical. This module does not
//! migrate older formats: it refuses a file written by a newer keylab instead of guessing.

use keylab_core::{Report, REPORT_SCHEMA_VERSION};
use std::io;
use std::path::{Path, PathBuf};

/// Why a saved result could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The file is not valid JSON, or not a keylab result.
    #[error("{}:{line}:{column}: not a keylab result: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What was wrong there.
        message: String,
    },
    /// The file was written by a newer keylab whose format this one does not know.
    #[error(
        "{}: result format version {found} is newer than this keylab reads ({supported}); \
         re-render it with a newer keylab",
        path.display()
    )]
    NewerFormat {
        /// The file.
        path: PathBuf,
        /// `schema_version` in the file.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
}

/// The largest result file read: far above any keylab result (a few MiB for the largest
/// built-in), so `/dev/zero` or a wrong file fails at once instead of filling memory.
pub const MAX_RESULT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a saved result (`--export-json` output) from `path`.
pub fn load_report(path: impl AsRef<Path>) -> Result<Report, LoadError> {
    use std::io::Read;
    let path = path.as_ref();
    let io = |source| LoadError::Io { path: path.to_path_buf(), source };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_RESULT_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > MAX_RESULT_BYTES {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB; not a keylab result", MAX_RESULT_BYTES >> 20),
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error().to_string()))
    })?;
    parse_report(&text, path)
}

/// Parses a result from `json`; `origin` names where it came from in errors (a file, or
/// `<stdin>`).
pub fn parse_report(json: &str, origin: &Path) -> Result<Report, LoadError> {
    let report: Report = serde_json::from_str(json).map_err(|e| LoadError::Parse {
        path: origin.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: message_without_position(&e),
    })?;
    if report.schema_version > REPORT_SCHEMA_VERSION {
        return Err(LoadError::NewerFormat {
            path: origin.to_path_buf(),
            found: report.schema_version,
            supported: REPORT_SCHEMA_VERSION,
        });
    }
    Ok(report)
}

/// serde_json's message ends with " at line L column C"; the error names the position itself
/// in `file:line:column` form, so drop the duplicate.
fn message_without_position(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

pub(crate) fn render(report: &Report, out: &mut dyn io::Write) -> io::Result<()> {
    let text = serde_json::to_string_pretty(report).map_err(io::Error::other)?;
    let text = crate::escape::json_ascii_controls(text);
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_json_names_file_line_and_column() {
        let err =
            parse_report("{\n  \"keylab\": \"0.1.0\",\n  \"seed\": x\n}", Path::new("r.json"))
                .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("r.json:3:11: not a keylab result: "), "{text}");
        assert!(!text.contains("at line"), "{text}");
    }

    #[test]
    fn missing_field_is_named() {
        let err = parse_report("{\"keylab\": \"0.1.0\"}", Path::new("r.json")).unwrap_err();
        assert!(err.to_string().contains("missing field `scenario`"), "{err}");
    }

    #[test]
    fn newer_format_is_refused() {
        let json = r#"{"keylab":"9","schema_version":99,"scenario":"s","seed":1,
            "engine":{"kind":"sim","version":"v","settings":{}},"runs":[]}"#;
        let err = parse_report(json, Path::new("r.json")).unwrap_err();
        assert!(matches!(err, LoadError::NewerFormat { found: 99, .. }), "{err}");
    }

    #[test]
    fn missing_file_is_named() {
        let err = load_report("/nonexistent/keylab.json").unwrap_err();
        assert!(err.to_string().starts_with("cannot read /nonexistent/keylab.json: "), "{err}");
    }
}
