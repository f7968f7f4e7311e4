//! The output formats, with the CLI tokens `--format` and `--export-*` use.

use std::fmt;
use std::str::FromStr;

/// An output format. The CLI derives its `--format` choices from [`Format::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Aligned side-by-side table for a terminal, with ratios and the reading.
    Table,
    /// The result contract itself (pretty-printed JSON).
    Json,
    /// One row per variant, one column per metric, for spreadsheets.
    Csv,
    /// A GitHub table and the reading.
    Markdown,
    /// One self-contained HTML file with inline SVG charts.
    Html,
}

impl Format {
    /// Every format, in CLI order.
    pub const ALL: [Format; 5] =
        [Format::Table, Format::Json, Format::Csv, Format::Markdown, Format::Html];

    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
            Format::Html => "html",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Html => "html",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// A `--format` value that is not one of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat {
    /// What was given.
    pub given: String,
}

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let valid: Vec<&str> = Format::ALL.iter().map(|f| f.token()).collect();
        write!(f, "unknown format `{}`; valid: {}", self.given, valid.join(", "))
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.token() == s)
            .ok_or_else(|| UnknownFormat { given: s.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.token().parse::<Format>().unwrap(), f);
            assert_eq!(f.to_string(), f.token());
        }
    }

    #[test]
    fn unknown_format_lists_the_valid_choices() {
        let err = "xlsx".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown format `xlsx`; valid: table, json, csv, markdown, html"
        );
    }
}
