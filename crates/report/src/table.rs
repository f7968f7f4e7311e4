//! The shared side-by-side table: built once from a [`Report`], rendered by the terminal,
//! Markdown, CSV and HTML formats (and read by the HTML charts), so the list of metrics and
//! how each is shown lives only here.
//!
//! Rows are metrics, columns are runs (variants). Each numeric cell of a row with a direction
//! ([`Better`]) carries its ratio to the best run on that row among the runs of the same
//! simulator model (a report of `--model mariadb-10.11,postgres-15` compares an nbtree index
//! with nbtree indexes only, never with an InnoDB clustered index). This module formats values but
//! knows no output syntax; it does not decide which rows a renderer hides.

use crate::labels::{column_labels, run_models};
use crate::text::{decimal, group_thousands, human_bytes};
use keylab_core::{Report, RunResult};

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
    /// Builds the table of `report`.
    pub fn from_report(report: &Report) -> MetricTable {
        let runs = &report.runs;
        let models = run_models(runs);
        let mut b = Builder {
            runs,
            models: &models,
            section: String::new(),
            rows: Vec::new(),
            notes: Vec::new(),
            order: Vec::new(),
        };

        b.identity("variant", |r| Value::Text(r.variant.clone()));
        b.identity("strategy", |r| Value::Text(r.strategy.clone()));
        b.identity("encoding", |r| Value::Text(r.encoding.clone()));

        b.section("Run");
        if models.iter().any(Option::is_some) {
            b.note("ratios compare runs of the same model only");
        }
        b.row("placement", "placement", None, |r| Value::Text(r.placement.clone()));
        b.row("rows", "rows", None, |r| Value::Count(r.rows));
        let mixed_rows = runs.iter().any(|r| r.rows != runs[0].rows);
        if mixed_rows {
            b.note(
                "runs differ in rows: totals are not like for like, \
                 compare the per-1,000-row figures",
            );
        }

        b.section("Load");
        b.row("load.method", "method", None, |r| Value::Text(r.load.method.clone()));
        b.row("load.batch", "batch (rows)", None, |r| Value::Count(r.load.batch.into()));
        b.row("load.writers", "writers", None, |r| Value::Count(r.load.writers.into()));
        b.row("load.wall_s", "wall time (s)", Some(Better::Lower), |r| dec(r.load.wall_s, 2));
        b.row("load.rows_per_s", "rows/s", Some(Better::Higher), |r| dec(r.load.rows_per_s, 0));
        let latency = |r: &RunResult| r.load.batch_latency_ms;
        b.row("load.batch_latency_ms.p50", "batch p50 (ms)", Some(Better::Lower), |r| {
            dec(latency(r).map(|l| l.p50), 2)
        });
        b.row("load.batch_latency_ms.p99", "batch p99 (ms)", Some(Better::Lower), |r| {
            dec(latency(r).map(|l| l.p99), 2)
        });
        b.row("load.batch_latency_ms.max", "batch max (ms)", Some(Better::Lower), |r| {
            dec(latency(r).map(|l| l.max), 2)
        });
        // Only where measured, so reports without it keep their CSV columns.
        if runs.iter().any(|r| r.load.server_statement_ms.is_some()) {
            b.row(
                "load.server_statement_ms",
                "server statement time (ms)",
                Some(Better::Lower),
                |r| dec(r.load.server_statement_ms, 1),
            );
        }
        add_verification_rows(&mut b);

        // Merges, reorganisations and discards have no better direction: under churn they
        // are how space comes back, so fewer is not simply better.
        b.section("Counters");
        b.row("counters.page_splits", "page splits", Some(Better::Lower), |r| {
            count(r.counters.page_splits)
        });
        b.row("counters.merge_attempts", "merge attempts", None, |r| {
            count(r.counters.merge_attempts)
        });
        b.row("counters.merges", "merges", None, |r| count(r.counters.merges));
        b.row("counters.page_reorgs", "page reorgs", None, |r| count(r.counters.page_reorgs));
        b.row("counters.page_discards", "page discards", None, |r| count(r.counters.page_discards));
        b.row("counters.pages_read", "pages read", Some(Better::Lower), |r| {
            count(r.counters.pages_read)
        });
        b.row("counters.pages_written", "pages written", Some(Better::Lower), |r| {
            count(r.counters.pages_written)
        });
        if mixed_rows {
            let per_k = |v: Option<u64>, rows: u64| {
                dec(v.filter(|_| rows > 0).map(|v| v as f64 * 1000.0 / rows as f64), 1)
            };
            b.row(
                "counters.page_splits_per_1k_rows",
                "page splits per 1,000 rows",
                Some(Better::Lower),
                |r| per_k(r.counters.page_splits, r.rows),
            );
            b.row(
                "counters.pages_written_per_1k_rows",
                "pages written per 1,000 rows",
                Some(Better::Lower),
                |r| per_k(r.counters.pages_written, r.rows),
            );
            b.row(
                "counters.io_write_requests_per_1k_rows",
                "io write requests per 1,000 rows",
                Some(Better::Lower),
                |r| per_k(r.counters.io_write_requests, r.rows),
            );
        }
        crate::pool_rows::add_counter_extensions(&mut b, runs);
        crate::pool_rows::add_buffer_pool_section(&mut b, runs);
        crate::shard_rows::add_shards_section(&mut b, runs);
        crate::postgres_rows::add_postgres_section(&mut b, runs);

        // DATA_FREE has no direction: free space inside the tablespace is reused by later
        // inserts, so more of it is neither good nor bad on its own.
        b.section("Table");
        b.row("table.data_length", "data length", Some(Better::Lower), |r| {
            bytes(r.table.data_length)
        });
        b.row("table.index_length", "index length", Some(Better::Lower), |r| {
            bytes(r.table.index_length)
        });
        b.row("table.data_free", "data free", None, |r| bytes(r.table.data_free));
        if mixed_rows {
            b.row(
                "table.data_length_per_1k_rows",
                "data length per 1,000 rows",
                Some(Better::Lower),
                |r| bytes(r.table.data_length.filter(|_| r.rows > 0).map(|d| d * 1000 / r.rows)),
            );
        }

        for name in union(runs, |r| r.indexes.iter().map(|i| i.name.clone()).collect()) {
            b.section(&format!("Index {name}"));
            let idx = |r: &RunResult| r.indexes.iter().find(|i| i.name == name).cloned();
            let key = |field: &str| format!("{name}.{field}");
            b.row(&key("size_pages"), "size (pages)", Some(Better::Lower), |r| {
                count(idx(r).and_then(|i| i.size_pages))
            });
            b.row(&key("leaf_pages"), "leaf pages", Some(Better::Lower), |r| {
                count(idx(r).and_then(|i| i.leaf_pages))
            });
            b.row(&key("nonleaf_pages"), "non-leaf pages", Some(Better::Lower), |r| {
                count(idx(r).and_then(|i| i.nonleaf_pages))
            });
            b.row(&key("height"), "height", None, |r| {
                count(idx(r).and_then(|i| i.height).map(u64::from))
            });
            b.row(&key("fill_pct"), "leaf fill", Some(Better::Higher), |r| {
                idx(r).and_then(|i| i.fill_pct).map_or(Value::Null, Value::Percent)
            });
            b.row(&key("records_per_leaf"), "records per leaf", Some(Better::Higher), |r| {
                dec(idx(r).and_then(|i| i.records_per_leaf), 1)
            });
        }

        for name in union(runs, |r| r.queries.iter().map(|q| q.name.clone()).collect()) {
            b.section(&format!("Query {name}"));
            let query = |r: &RunResult| r.queries.iter().find(|q| q.name == name).cloned();
            // Why a figure is missing (e.g. performance_schema off), once per distinct note.
            let mut seen: Vec<String> = Vec::new();
            for note in runs.iter().filter_map(query).flat_map(|q| q.notes) {
                if !seen.contains(&note) {
                    b.note(&note);
                    seen.push(note);
                }
            }
            b.row(&format!("query.{name}.p50_ms"), "p50 (ms)", Some(Better::Lower), |r| {
                dec(query(r).and_then(|q| q.p50_ms), 2)
            });
            b.row(&format!("query.{name}.p99_ms"), "p99 (ms)", Some(Better::Lower), |r| {
                dec(query(r).and_then(|q| q.p99_ms), 2)
            });
            b.row(
                &format!("query.{name}.server_p50_ms"),
                "server p50 (ms)",
                Some(Better::Lower),
                |r| dec(query(r).and_then(|q| q.server_p50_ms), 2),
            );
            b.row(
                &format!("query.{name}.server_p99_ms"),
                "server p99 (ms)",
                Some(Better::Lower),
                |r| dec(query(r).and_then(|q| q.server_p99_ms), 2),
            );
            b.row(
                &format!("query.{name}.server_total_ms"),
                "server total (ms)",
                Some(Better::Lower),
                |r| dec(query(r).and_then(|q| q.server_total_ms), 2),
            );
            b.row(&format!("query.{name}.rows"), "rows returned", None, |r| {
                count(query(r).map(|q| q.rows))
            });
            b.row(&format!("query.{name}.share"), "share of table", None, |r| {
                query(r).and_then(|q| q.share).map_or(Value::Null, |s| Value::Percent(s * 100.0))
            });
            b.row(&format!("query.{name}.condition"), "selected by", None, |r| {
                query(r)
                    .and_then(|q| q.condition)
                    .map_or(Value::Null, |c| Value::Text(short_condition(&c)))
            });
            b.row(&format!("query.{name}.plan"), "plan (type, key, rows)", None, |r| {
                query(r).and_then(|q| q.plan).map_or(Value::Null, |p| {
                    Value::Text(format!(
                        "{} {} {}",
                        p.access_type.as_deref().unwrap_or("-"),
                        p.key.as_deref().unwrap_or("-"),
                        p.rows.map_or("-".to_string(), |n| n.to_string())
                    ))
                })
            });
        }

        let labels = column_labels(runs);
        crate::phases::add_phase_sections(&mut b, runs, &labels);

        MetricTable {
            columns: labels,
            rows: b.rows,
            notes: b.notes,
            section_order: b.order,
            column_models: models,
        }
    }

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
        let runs = (range.len() < total)
            .then(|| format!("Runs {}–{} of {total}", range.start + 1, range.end));
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

/// The load check: rows expected and found and whether the checksum matched, as rows (what
/// was checked is one line under the table, [`crate::load_check_line`]).
fn add_verification_rows(b: &mut Builder<'_>) {
    let check = |r: &RunResult| r.load.verification.clone();
    b.row("load.verification.rows_expected", "rows expected", None, |r| {
        count(check(r).map(|v| v.rows_expected))
    });
    b.row("load.verification.rows_found", "rows found", None, |r| {
        count(check(r).and_then(|v| v.rows_found))
    });
    b.row("load.verification.checksum_equal", "checksum equal", None, |r| {
        match check(r).and_then(|v| v.checksum_equal) {
            Some(equal) => Value::Text(if equal { "yes" } else { "no" }.into()),
            None => Value::Null,
        }
    });
}

/// Collects rows, each computed by a closure over every run.
pub(crate) struct Builder<'a> {
    runs: &'a [RunResult],
    /// Each run's model when runs of several models share the table ([`run_models`]).
    models: &'a [Option<String>],
    /// The section new rows go under.
    section: String,
    rows: Vec<MetricRow>,
    notes: Vec<SectionNote>,
    /// Sections in the order they were begun.
    order: Vec<String>,
}

impl Builder<'_> {
    pub(crate) fn section(&mut self, name: &str) {
        self.section = name.to_string();
        if !self.order.contains(&self.section) {
            self.order.push(self.section.clone());
        }
    }

    /// A note under the current section.
    pub(crate) fn note(&mut self, text: &str) {
        self.notes.push(SectionNote { section: self.section.clone(), text: text.to_string() });
    }

    fn identity(&mut self, key: &str, value: impl Fn(&RunResult) -> Value) {
        self.push(key, key, None, true, value);
    }

    pub(crate) fn row(
        &mut self,
        key: &str,
        label: &str,
        better: Option<Better>,
        value: impl Fn(&RunResult) -> Value,
    ) {
        self.push(key, label, better, false, value);
    }

    fn push(
        &mut self,
        key: &str,
        label: &str,
        better: Option<Better>,
        identity: bool,
        value: impl Fn(&RunResult) -> Value,
    ) {
        let values: Vec<Value> = self.runs.iter().map(value).collect();
        let ratios = match better {
            None => vec![None; values.len()],
            Some(b) => ratios_by_model(&values, b, self.models),
        };
        let cells =
            values.into_iter().zip(ratios).map(|(value, ratio)| Cell { value, ratio }).collect();
        self.rows.push(MetricRow {
            key: key.to_string(),
            section: self.section.clone(),
            label: label.to_string(),
            identity,
            better,
            cells,
        });
    }
}

/// A query condition with each long bound cut to its first 10 characters (the JSON keeps
/// it whole): `BETWEEN '0004dfa1-c…' AND '1a13ad0c-b…'`.
fn short_condition(c: &str) -> String {
    c.split(' ')
        .map(|w| {
            let chars: Vec<char> = w.chars().collect();
            if chars.len() > 14 {
                let head: String = chars[..11].iter().collect();
                let tail = if w.ends_with('\'') { "…'" } else { "…" };
                format!("{head}{tail}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn count(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Count)
}

fn bytes(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Bytes)
}

fn dec(v: Option<f64>, places: usize) -> Value {
    v.map_or(Value::Null, |value| Value::Decimal { value, places })
}

/// [`ratios`] within each model's runs: a run is ranked against runs of its own model only.
fn ratios_by_model(
    values: &[Value],
    better: Better,
    models: &[Option<String>],
) -> Vec<Option<Ratio>> {
    let mut out = vec![None; values.len()];
    let mut seen: Vec<&Option<String>> = Vec::new();
    for model in models {
        if seen.contains(&model) {
            continue;
        }
        seen.push(model);
        let members: Vec<usize> = (0..values.len()).filter(|&i| &models[i] == model).collect();
        let group: Vec<Value> = members.iter().map(|&i| values[i].clone()).collect();
        for (i, ratio) in members.into_iter().zip(ratios(&group, better)) {
            out[i] = ratio;
        }
    }
    out
}

/// Ratio of each figure to the best one on a row with direction `better`.
fn ratios(values: &[Value], better: Better) -> Vec<Option<Ratio>> {
    let numbers: Vec<Option<f64>> = values.iter().map(Value::number).collect();
    let present: Vec<f64> = numbers.iter().flatten().copied().collect();
    let all_equal = present.windows(2).all(|w| w[0] == w[1]);
    if present.len() < 2 || all_equal {
        return vec![None; values.len()];
    }
    let best = match better {
        Better::Lower => present.iter().copied().fold(f64::INFINITY, f64::min),
        Better::Higher => present.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    };
    numbers
        .iter()
        .map(|n| {
            let n = (*n)?;
            if n == best {
                return Some(Ratio::Best);
            }
            let r = match better {
                Better::Lower => n / best,
                Better::Higher => best / n,
            };
            r.is_finite().then_some(Ratio::Times(r))
        })
        .collect()
}

/// Distinct items over runs, in first-appearance order.
fn union(runs: &[RunResult], items: impl Fn(&RunResult) -> Vec<String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for r in runs {
        for item in items(r) {
            if !seen.contains(&item) {
                seen.push(item);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(values: &[Option<u64>]) -> Vec<Value> {
        values.iter().map(|v| count(*v)).collect()
    }

    #[test]
    fn lower_is_better_ratios() {
        let r = ratios(&counts(&[Some(353), Some(675), None]), Better::Lower);
        assert_eq!(r[0], Some(Ratio::Best));
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 675.0 / 353.0).abs() < 1e-9));
        assert_eq!(r[2], None, "a null figure has no ratio");
    }

    #[test]
    fn higher_is_better_ratios() {
        let values = vec![Value::Percent(91.6), Value::Percent(64.5)];
        let r = ratios(&values, Better::Higher);
        assert_eq!(r[0], Some(Ratio::Best));
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 91.6 / 64.5).abs() < 1e-9));
    }

    #[test]
    fn no_ratios_when_they_would_say_nothing() {
        assert_eq!(ratios(&counts(&[Some(5), Some(5)]), Better::Lower), vec![None, None]);
        assert_eq!(ratios(&counts(&[Some(5), None]), Better::Lower), vec![None, None]);
        // Best 0: the others have no finite ratio, but the best is still marked.
        let r = ratios(&counts(&[Some(0), Some(4)]), Better::Lower);
        assert_eq!(r, vec![Some(Ratio::Best), None]);
        // Ties share "best".
        let r = ratios(&counts(&[Some(1), Some(1), Some(3)]), Better::Lower);
        assert_eq!(r[..2], [Some(Ratio::Best), Some(Ratio::Best)]);
    }

    #[test]
    fn ratios_compare_runs_of_the_same_model_only() {
        let models = [Some("a".to_string()), Some("a".into()), Some("b".into()), Some("b".into())];
        let r = ratios_by_model(
            &counts(&[Some(10), Some(20), Some(40), Some(50)]),
            Better::Lower,
            &models,
        );
        assert_eq!(r[0], Some(Ratio::Best));
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 2.0).abs() < 1e-9));
        assert_eq!(r[2], Some(Ratio::Best), "best of its own model, though 4x the other's best");
        assert!(matches!(r[3], Some(Ratio::Times(x)) if (x - 1.25).abs() < 1e-9));
        // One model (None everywhere): one group, as before.
        let r = ratios_by_model(&counts(&[Some(10), Some(40)]), Better::Lower, &[None, None]);
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 4.0).abs() < 1e-9));
    }

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
