//! The rows of the side-by-side table, from a report's runs: identity, run, load, counters,
//! the extension sections (buffer pool, shards, PostgreSQL: their own files), table,
//! indexes, queries, then the phases; and the [`Builder`] every section adds its rows with.
//!
//! Not for: ratios to the best run (`table/ratios.rs`), how a value is shown (`table.rs`),
//! or output syntax (the renderers).

use super::ratios::ratios_by_model;
use super::{Better, Cell, MetricRow, MetricTable, SectionNote, Value};
use crate::labels::{column_labels, run_models};
use keylab_core::{Report, RunResult};

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
        crate::rows::pool::add_counter_extensions(&mut b, runs);
        crate::rows::pool::add_buffer_pool_section(&mut b, runs);
        crate::rows::shards::add_shards_section(&mut b, runs);
        crate::rows::postgres::add_postgres_section(&mut b, runs);

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
            b.row(&format!("query.{name}.cold_ms"), "first run, cold (ms)", None, |r| {
                dec(query(r).and_then(|q| q.cold_ms), 2)
            });
            b.row(&format!("query.{name}.p50_ms"), "p50 (ms)", Some(Better::Lower), |r| {
                dec(query(r).and_then(|q| q.p50_ms), 2)
            });
            b.row(&format!("query.{name}.p99_ms"), "p99 (ms)", Some(Better::Lower), |r| {
                dec(query(r).and_then(|q| q.p99_ms), 2)
            });
            b.row(&format!("query.{name}.spread_ms"), "min .. max (ms)", None, |r| {
                query(r)
                    .and_then(|q| Some((q.min_ms?, q.max_ms?)))
                    .map_or(Value::Null, |(a, b)| Value::Text(format!("{a:.2} .. {b:.2}")))
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
            b.row(&format!("query.{name}.plan_extra"), "plan (key_len; Extra)", None, |r| {
                query(r).and_then(|q| q.plan).map_or(Value::Null, |p| {
                    if p.key_len.is_none() && p.extra.is_none() {
                        return Value::Null;
                    }
                    Value::Text(format!(
                        "{}; {}",
                        p.key_len.as_deref().unwrap_or("-"),
                        p.extra.as_deref().unwrap_or("-")
                    ))
                })
            });
        }

        let labels = column_labels(runs);
        crate::phases::add_phase_sections(&mut b, runs, &labels);
        super::repeats::add_repeat_rows(&mut b, runs, &labels);

        MetricTable {
            columns: labels,
            rows: b.rows,
            notes: b.notes,
            section_order: b.order,
            column_models: models,
        }
    }
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

pub(super) fn count(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Count)
}

fn bytes(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Bytes)
}

fn dec(v: Option<f64>, places: usize) -> Value {
    v.map_or(Value::Null, |value| Value::Decimal { value, places })
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
