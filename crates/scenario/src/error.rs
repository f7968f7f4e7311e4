//! Scenario errors: every one names the file (or built-in), the line and the column, says
//! what is wrong and lists the valid choices, then quotes the line with a caret. The
//! password of any `scheme://user:password@` in a quoted line (a `backends` URL) or in the
//! TOML parser's message shows as `***`, whatever the error.

use std::fmt;
use std::ops::Range;

/// A scenario that cannot be read, parsed or planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file path or `builtin:NAME`.
    pub origin: String,
    /// 1-based line, `None` when the error is about the whole file (it cannot be read).
    pub line: Option<usize>,
    /// 1-based column in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The offending source line.
    pub source_line: Option<String>,
}

impl ScenarioError {
    /// An error at byte `span` of `source`, quoting its line with passwords masked.
    pub fn at(origin: &str, source: &str, span: Range<usize>, message: impl Into<String>) -> Self {
        let (line, column, text) = line_col(source, span.start);
        ScenarioError {
            origin: origin.to_string(),
            line: Some(line),
            column,
            message: message.into(),
            source_line: Some(mask_passwords(text)),
        }
    }

    /// An error about the whole file (cannot read it, no such built-in).
    pub fn file(origin: &str, message: impl Into<String>) -> Self {
        ScenarioError {
            origin: origin.to_string(),
            line: None,
            column: 0,
            message: message.into(),
            source_line: None,
        }
    }

    /// From the `toml` crate's error, converting its byte span to line:column.
    pub fn from_toml(origin: &str, source: &str, err: &toml::de::Error) -> Self {
        // A few errors (a missing top-level field) carry no span: they are about the whole
        // document, which starts at 1:1.
        let span = err.span().unwrap_or(0..0);
        let message = err.message().trim_end();
        // serde's words for a one-key table (a phase, a generator) with several keys.
        let message = if message.starts_with("wanted exactly 1 element") {
            "expected exactly one key here: a phase is one of load, churn, rebuild, queries, \
             ddl; a gen is one of fixed, ascii, seq, int, timestamp, null"
        } else {
            message
        };
        // The parser's message may quote a value (a URL of `backends`).
        ScenarioError::at(origin, source, span, mask_passwords(message))
    }
}

/// `line` with the password of every `scheme://user:password@` replaced by `***`. A URL
/// ends at a quote, a space, a comma or `]`; its password runs from the first `:` after
/// `://` to the last `@` (a password may hold `@`).
pub(crate) fn mask_passwords(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("://") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest.find(['"', '\'', ' ', ',', ']']).unwrap_or(rest.len());
        let url = &rest[..end];
        match (url.rfind('@'), url.find(':')) {
            (Some(at), Some(colon)) if colon < at => {
                out.push_str(&url[..=colon]);
                out.push_str("***");
                out.push_str(&url[at..]);
            }
            _ => out.push_str(url),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// 1-based line and character column of byte `offset`, and that line's text.
fn line_col(source: &str, offset: usize) -> (usize, usize, &str) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let end = source[start..].find('\n').map_or(source.len(), |i| start + i);
    let column = source[start..offset].chars().count() + 1;
    (line, column, source[start..end].trim_end_matches('\r'))
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}:{}: {}", self.origin, line, self.column, self.message)?,
            None => write!(f, "{}: {}", self.origin, self.message)?,
        }
        if let (Some(text), Some(line)) = (&self.source_line, self.line) {
            let gutter = line.to_string();
            let pad = " ".repeat(gutter.len());
            let caret = " ".repeat(self.column.saturating_sub(1));
            write!(f, "\n {pad} |\n {gutter} | {text}\n {pad} | {caret}^")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_character_columns() {
        let src = "a = 1\nbé = 2\r\nc = 3";
        assert_eq!(line_col(src, 0), (1, 1, "a = 1"));
        assert_eq!(line_col(src, 6), (2, 1, "bé = 2"));
        // "bé " is 4 bytes but 3 characters.
        assert_eq!(line_col(src, 10), (2, 4, "bé = 2"));
        assert_eq!(line_col(src, 999), (3, 6, "c = 3"));
    }

    #[test]
    fn passwords_in_urls_are_masked() {
        assert_eq!(mask_passwords("a mysql://u:pw@h:1/d b"), "a mysql://u:***@h:1/d b");
        assert_eq!(
            mask_passwords(r#"["mysql://u@h", "x://u:p@q@h"]"#),
            r#"["mysql://u@h", "x://u:***@h"]"#
        );
        assert_eq!(mask_passwords("no url: a@b"), "no url: a@b");
    }

    #[test]
    fn display_names_file_line_column_and_quotes_the_line() {
        let e = ScenarioError::at("s.toml", "x = 1\nrowz = 2\n", 6..10, "unknown field `rowz`");
        assert_eq!(e.to_string(), "s.toml:2:1: unknown field `rowz`\n   |\n 2 | rowz = 2\n   | ^");
    }
}
