//! The shared side-by-side table: built once from a [`Report`](keylab_core::Report), rendered
//! by the terminal, Markdown, CSV and HTML formats (and read by the HTML charts), so the list
//! of metrics and how each is shown lives only here.
//!
//! Rows are metrics, columns are runs (variants). Each numeric cell of a row with a direction
//! ([`Better`]) carries its ratio to the best run on that row among the runs of the same
//! simulator model (a report of `--model mariadb-10.11,postgres-15` compares an nbtree index
//! with nbtree indexes only, never with an InnoDB clustered index). This module formats values but
//! knows no output syntax; it does not decide which rows a renderer hides.
//!
//! This file holds the table's types, how a value is shown, and the sections and column
//! groups renderers draw; the rows are built in `table/build.rs`, ratios computed in
//! `table/ratios.rs`.

mod build;
mod ratios;
mod repeats;

pub(crate) use self::build::Builder;
use crate::text::{decimal, group_thousands, human_bytes};

/// Most run columns drawn side by side in one table; wider reports are split.
pub const MAX_COLUMNS: usize = 6;

/// Which way a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// Smaller is better (pages, bytes, splits, I/O, time, latency).
    Lower,
    /// Larger is better (rows/s, fill, records per leaf).
    Higher,
}

/// One figure, typed so each renderer can show it its own way.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// The engine cannot give this figure (or the run has no such index or query).
    Null,
    /// Text (tokens such as the load method).
    Text(String),
    /// A count.
    Count(u64),
    /// A size in bytes (human units in tables, raw in CSV).
    Bytes(u64),
    /// A measured or simulated quantity shown with `places` decimals.
    Decimal {
        /// The value.
        value: f64,
        /// Decimals shown in tables (CSV keeps full precision).
        places: usize,
    },
    /// A percentage, `91.6` for 91.6 %.
    Percent(f64),
    /// A list-valued figure (load samples, churn rounds, DDL statements) shown as a short
    /// summary (`10 samples to 2,000 rows`). CSV leaves such rows out; HTML charts the list.
    List(String),
}

impl Value {
    /// The figure as a number, for ratios and charts.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Count(n) | Value::Bytes(n) => Some(*n as f64),
            Value::Decimal { value, .. } | Value::Percent(value) => Some(*value),
            Value::Null | Value::Text(_) | Value::List(_) => None,
        }
    }

    /// For people: thousands separators, human byte sizes, `—` for null.
    pub fn human(&self) -> String {
        match self {
            Value::Null => "—".to_string(),
            Value::Text(t) | Value::List(t) => t.clone(),
            Value::Count(n) => group_thousands(*n),
            Value::Bytes(n) => human_bytes(*n),
            Value::Decimal { value, places } => decimal(*value, *places),
            Value::Percent(p) => format!("{}%", decimal(*p, 1)),
        }
    }

    /// For machines: raw numbers at full precision, empty for null.
    pub fn raw(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Text(t) | Value::List(t) => t.clone(),
            Value::Count(n) | Value::Bytes(n) => n.to_string(),
            Value::Decimal { value, .. } | Value::Percent(value) => value.to_string(),
        }
    }

    /// True when the engine gave no figure.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// A cell's standing against the best run on its row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ratio {
    /// This run is the best (ties included).
    Best,
    /// This many times worse than the best: value / best when lower is better, best / value
    /// when higher is better; always > 1.
    Times(f64),
}

impl Ratio {
    /// `best`, `×1.91`, `×12.3`, `×457`, or `×>1000` (past a thousand the digits say nothing a
    /// reader can use, and the figure itself is in the cell).
    pub fn human(&self) -> String {
        match self {
            Ratio::Best => "best".to_string(),
            Ratio::Times(r) if *r < 10.0 => format!("×{r:.2}"),
            Ratio::Times(r) if *r < 100.0 => format!("×{r:.1}"),
            Ratio::Times(r) if *r < 1000.0 => format!("×{r:.0}"),
            Ratio::Times(_) => "×>1000".to_string(),
        }
    }

    /// `1.000` or `1.910`, for CSV.
    pub fn raw(&self) -> String {
        match self {
            Ratio::Best => "1.000".to_string(),
            Ratio::Times(r) => format!("{r:.3}"),
        }
    }
}

/// One cell: a run's figure and, on rows with a direction, its ratio to the best.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The figure.
    pub value: Value,
    /// Ratio to the best run; `None` on rows without a direction, when the figure is null,
    /// when fewer than two runs have a figure, when all figures are equal, or when the best
    /// figure is 0 (no finite ratio).
    pub ratio: Option<Ratio>,
}

/// One metric across all runs.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    /// Stable machine name, used as the CSV column: `rows`, `counters.page_splits`,
    /// `PRIMARY.size_pages`, `query.pk_range.p50_ms`, `phase1.churn.merges`.
    pub key: String,
    /// The group it is shown under: `Run`, `Load`, `Counters`, `Table`, `Index PRIMARY`...
    pub section: String,
    /// Short human label within its section, with its unit.
    pub label: String,
    /// Identity rows (variant, strategy, encoding) are the column headers in tables; CSV
    /// writes them as columns.
    pub identity: bool,
    /// Which way is better; `None` when the metric has no better direction.
    pub better: Option<Better>,
    /// One per column.
    pub cells: Vec<Cell>,
}

impl MetricRow {
    /// True when no run has this figure: the engine cannot give it.
    pub fn all_null(&self) -> bool {
        self.cells.iter().all(|c| c.value.is_null())
    }

    /// True when a cell holds a list-valued figure (CSV leaves the row out).
    pub fn is_list(&self) -> bool {
        self.cells.iter().any(|c| matches!(c.value, Value::List(_)))
    }

    /// True when the row is a phase figure (`phase3.churn.page_splits`).
    pub fn is_phase(&self) -> bool {
        self.key.starts_with("phase")
    }

    /// True when at least one cell carries a ratio.
    pub fn has_ratios(&self) -> bool {
        self.cells.iter().any(|c| c.ratio.is_some())
    }
}

/// The side-by-side table of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricTable {
    /// Column headers, one per run: the variant, with placement, method, batch or writers
    /// added only when needed to tell two runs of the same variant apart.
    pub columns: Vec<String>,
    /// Metric rows, in display order.
    pub rows: Vec<MetricRow>,
    /// Notes shown under a section heading (a phase not applicable on this engine, with the
    /// engine's reason; settings the engine does not apply).
    pub notes: Vec<SectionNote>,
    /// Section names in display order (a section may have notes and no rows).
    pub section_order: Vec<String>,
    /// Each column's simulator model when the report holds runs of more than one, else
    /// `None` for every column. Ratios compare columns of the same model only.
    pub column_models: Vec<Option<String>>,
}

/// A note under a section heading.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionNote {
    /// The section it belongs to.
    pub section: String,
    /// The text, one sentence or phrase.
    pub text: String,
}

/// One section of the table as renderers draw it: heading, notes, visible rows.
#[derive(Debug, Clone)]
pub struct SectionView<'a> {
    /// Heading.
    pub name: &'a str,
    /// Notes under the heading.
    pub notes: Vec<&'a str>,
    /// Rows with at least one figure.
    pub rows: Vec<&'a MetricRow>,
}

impl MetricTable {
    /// Rows shown in tables: not identity rows, and not rows no run has a figure for.
    pub fn visible_rows(&self) -> impl Iterator<Item = &MetricRow> {
        self.rows.iter().filter(|r| !r.identity && !r.all_null())
    }

    /// Keys of the rows no run has a figure for (`n/a on this engine`). Phase figures are
    /// named once by figure (`phases: pages_read`), not once per phase; a null in the
    /// `settings` phase is a setting the scenario did not ask for, so it is not listed.
    pub fn null_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        let mut phase_figures: Vec<&str> = Vec::new();
        let asked = |r: &&MetricRow| !(r.is_phase() && r.key.contains(".settings."));
        for r in self.rows.iter().filter(|r| !r.identity && r.all_null()).filter(asked) {
            if r.is_phase() {
                let figure = r.key.splitn(3, '.').nth(2).unwrap_or(&r.key);
                if !phase_figures.contains(&figure) {
                    phase_figures.push(figure);
                }
            } else {
                keys.push(r.key.clone());
            }
        }
        if !phase_figures.is_empty() {
            keys.push(format!("phases: {}", phase_figures.join(", ")));
        }
        keys
    }

    /// The sections in display order, each with its notes and visible rows; sections with
    /// neither are left out.
    pub fn sections(&self) -> Vec<SectionView<'_>> {
        self.section_order
            .iter()
            .map(|name| SectionView {
                name,
                notes: self
                    .notes
                    .iter()
                    .filter(|n| n.section == *name)
                    .map(|n| n.text.as_str())
                    .collect(),
                rows: self.visible_rows().filter(|r| r.section == *name).collect(),
            })
            .filter(|s| !s.notes.is_empty() || !s.rows.is_empty())
            .collect()
    }

    /// [`MetricTable::sections`] as drawn for the columns `cols`: in a report of several
    /// models (drawn one model per part), a row none of these columns has a figure for is
    /// left out of that part (the InnoDB part shows no PostgreSQL rows), and a section left
    /// with neither notes nor rows too. A report of one model draws every part alike.
    pub fn sections_in(&self, cols: &std::ops::Range<usize>) -> Vec<SectionView<'_>> {
        let mut sections = self.sections();
        if self.column_models.iter().all(Option::is_none) {
            return sections;
        }
        for s in &mut sections {
            s.rows.retain(|r| r.cells[cols.clone()].iter().any(|c| !c.value.is_null()));
        }
        sections.retain(|s| !s.notes.is_empty() || !s.rows.is_empty());
        sections
    }

    /// The runs split into groups of at most [`MAX_COLUMNS`] columns, as even as possible
    /// (37 runs: 7 groups of 5 or 6), and never across two models: runs of several models
    /// are drawn one model at a time.
    /// Tables of many runs are drawn once per group, with the same rows; ratios stay
    /// relative to the best over all runs (of the same model).
    pub fn column_groups(&self) -> Vec<std::ops::Range<usize>> {
        let mut groups = Vec::new();
        let mut start = 0;
        while start < self.columns.len() || groups.is_empty() {
            let model = self.column_models.get(start);
            let end = (start..self.columns.len())
                .find(|&i| self.column_models.get(i) != model)
                .unwrap_or(self.columns.len());
            groups.extend(even_split(start..end));
            start = end;
        }
        groups
    }

    /// The heading of one group of columns ([`MetricTable::column_groups`]): its model when
    /// the report holds several, and which runs it shows when it is not all of them.
    pub fn part_heading(&self, range: &std::ops::Range<usize>) -> Option<String> {
        let total = self.columns.len();
        let model = self.column_models.get(range.start).cloned().flatten();
        let runs = (range.len() < total).then(|| match range.len() {
            1 => format!("Run {} of {total}", range.end),
            _ => format!("Runs {}–{} of {total}", range.start + 1, range.end),
        });
        match (model, runs) {
            (Some(m), Some(runs)) => Some(format!("Model {m} · {runs}")),
            (Some(m), None) => Some(format!("Model {m}")),
            (None, runs) => runs,
        }
    }

    /// The row with machine name `key`.
    pub fn row(&self, key: &str) -> Option<&MetricRow> {
        self.rows.iter().find(|r| r.key == key)
    }
}

/// `range` in parts of at most [`MAX_COLUMNS`], as even as possible.
fn even_split(range: std::ops::Range<usize>) -> Vec<std::ops::Range<usize>> {
    let n = range.len();
    let groups = n.div_ceil(MAX_COLUMNS).max(1);
    let (base, extra) = (n / groups, n % groups);
    let mut start = range.start;
    (0..groups)
        .map(|g| {
            let len = base + usize::from(g < extra);
            let part = start..start + len;
            start += len;
            part
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_format_for_people_and_machines() {
        assert_eq!(Value::Null.human(), "—");
        assert_eq!(Value::Null.raw(), "");
        assert_eq!(Value::Bytes(5_783_552).human(), "5.5 MiB");
        assert_eq!(Value::Bytes(5_783_552).raw(), "5783552");
        assert_eq!(Value::Percent(91.6).human(), "91.6%");
        assert_eq!(Value::Decimal { value: 20325.2, places: 0 }.human(), "20,325");
        assert_eq!(Value::Decimal { value: 20325.2, places: 0 }.raw(), "20325.2");
        assert_eq!(Ratio::Times(1.9123).human(), "×1.91");
        assert_eq!(Ratio::Times(12.34).human(), "×12.3");
        assert_eq!(Ratio::Times(456.7).human(), "×457");
        assert_eq!(Ratio::Times(7_949_125.0).human(), "×>1000");
        assert_eq!(Ratio::Times(1.9123).raw(), "1.912");
    }
}
