//! A short plain-language reading of a report: which variant wins on what, and why, in a few
//! sentences computed from the figures.
//!
//! Every claim rests on figures in the report: a page ratio, a fill percentage, records per
//! leaf, split counts, timings. The only outside knowledge used is what a variant is by
//! definition in `keylab-keys` (its key's byte length and whether ids arrive in index order),
//! and even then "keys arrive in order" is said only when the fill figure shows the in-order
//! pattern too. Simulated figures are called simulated. This
//! module does not judge which variant a team should pick.
//!
//! This file gathers the sentences in order and holds what they share (a run with its
//! label, key order and length, the id index, the page size); the page comparison is in
//! `reading/pages.rs`, load and query timings in `reading/timings.rs`; the other topics
//! each have a file in `reading/`: `engines.rs` (across models and engines), `phases.rs` (churn
//! and rebuild), `settings.rs` (what a matrix setting did), `keys.rs` (the v1 byte swap),
//! `e5.rs` (E5's published table), `pool.rs` (buffer pool curves), `reads.rs` (read locality) and `load.rs` (first-batch
//! wait, writers against cores).

mod e5;
mod engines;
mod keys;
mod load;
mod pages;
mod phases;
mod pool;
mod reads;
mod settings;
mod spread;
mod timings;
mod verdict;

use self::pages::{compare_group, describe_single, placement_groups};
use self::timings::{queries, throughput};
use crate::labels::{column_labels, run_models};
use keylab_core::{IndexResult, Report, RunResult};
use keylab_keys::{Strategy, Variant};

pub use self::verdict::{verdict, MAX_LINES as MAX_VERDICT_LINES};

/// Whether ids arrive in the order of the index they are stored in, by definition of the
/// variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyOrder {
    /// Each id sorts after the previous one (auto-increment, time-ordered ids).
    Ordered,
    /// Ids land anywhere in the index (UUIDv4, hashes).
    Random,
    /// Depends on the clock or the layout (UUIDv1 text, KSUID), or not a known variant.
    Unknown,
}

/// The variant of a run, `None` when its tokens are not ones this keylab knows.
fn variant(strategy: &str, encoding: &str) -> Option<Variant> {
    let text =
        if encoding.is_empty() { strategy.to_string() } else { format!("{strategy}:{encoding}") };
    text.parse().ok()
}

/// Whether `strategy` stored as `encoding` arrives in index order.
pub(crate) fn key_order(strategy: &str, encoding: &str) -> KeyOrder {
    match variant(strategy, encoding) {
        Some(v) if v.is_ascending() => KeyOrder::Ordered,
        Some(v) if matches!(v.strategy, Strategy::Uuid4 | Strategy::Md5) => KeyOrder::Random,
        _ => KeyOrder::Unknown,
    }
}

/// Bytes the key takes in a record (`Variant::stored_len`: UUID text 36, ULID text 26,
/// binary 16, bigint 8...), `None` for an unknown variant.
pub(crate) fn key_bytes(strategy: &str, encoding: &str) -> Option<u32> {
    variant(strategy, encoding).map(|v| v.stored_len())
}

/// The reading of `report`: a few sentences, each a separate string (the sentences of
/// [`reading_groups`] in their order).
pub fn reading(report: &Report) -> Vec<String> {
    reading_groups(report).into_iter().flat_map(|g| g.sentences).collect()
}

/// A topic of the reading and its sentences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadingGroup {
    /// What the sentences are about (`Size, fill and splits`, `Cache`, ...).
    pub topic: &'static str,
    /// The sentences, in order.
    pub sentences: Vec<String>,
}

/// The reading of `report` grouped by topic, groups without a sentence left out: size, fill
/// and splits; cache; load and queries; phases and settings; engines; shards; and what the
/// figures are (provenance, what the engine does not report) last.
pub fn reading_groups(report: &Report) -> Vec<ReadingGroup> {
    let labels = column_labels(&report.runs);
    let runs: Vec<Labeled> = report
        .runs
        .iter()
        .zip(&labels)
        .map(|(run, label)| Labeled {
            run,
            label,
            in_order_fill: in_order_fill(
                &report.engine.kind,
                run.model.as_deref().or(report.engine.model.as_deref()),
                run,
            ),
        })
        .collect();
    let mut out = Vec::new();
    let models = run_models(&report.runs);
    let groups = placement_groups(&runs, &models);
    let placements = groups.iter().filter(|((p, _, _), _)| *p != groups[0].0 .0).count() > 0;
    let tables = groups.iter().any(|((_, t, _), _)| *t != groups[0].0 .1);
    for ((placement, table, model), group) in &groups {
        let page_bytes = page_size(report, model.as_deref());
        let mut sentences = if group.len() == 1 {
            vec![describe_single(group[0])]
        } else {
            compare_group(group, page_bytes)
        };
        let on_table = if tables { format!(" (table {table})") } else { String::new() };
        let lead = match placement.as_str() {
            _ if !placements => format!("On table {table}: "),
            "pk" => format!("With the id as the primary key{on_table}: "),
            "secondary" => format!("With the id in a secondary index{on_table}: "),
            other => format!("With placement {other}{on_table}: "),
        };
        if placements || tables {
            sentences[0].insert_str(0, &lead);
        }
        if let Some(model) = model {
            sentences[0].insert_str(0, &format!("On {model}: "));
        }
        out.extend(sentences);
    }
    let key_pages = |r: &RunResult| key_index(r).and_then(|i| i.size_pages.or(i.leaf_pages));
    out.extend(self::keys::v1_swap(&report.runs, key_pages));
    let size = out;
    let pairs: Vec<_> = runs.iter().map(|r| (r.run, r.label)).collect();
    let cache = self::pool::curve_turns(&pairs, key_index, page_size(report, None));
    let reads = self::reads::read_sentences(&pairs, &models);
    let mut load = throughput(&runs);
    load.extend(self::load::writers_over_cores(report));
    load.extend(queries(&runs));
    let mut phases = self::phases::phase_sentences(&pairs);
    phases.extend(self::settings::setting_effects(&report.runs));
    let mut published = self::settings::published_comparison(&report.scenario, &report.runs);
    published.extend(self::e5::published_comparison(&report.scenario, &report.runs));
    let engines = self::engines::cross_engine(&report.runs, &models);
    let shards: Vec<String> = crate::rows::shards::reading(report, &labels).into_iter().collect();
    let mut about = vec![provenance(report)];
    about.extend(not_reported(report, &runs));
    [
        ("Size, fill and splits", size),
        ("Cache", cache),
        ("Reads", reads),
        ("Load and queries", load),
        ("Phases and settings", phases),
        ("Against published figures", published),
        ("Engines", engines),
        ("Shards", shards),
        ("About these figures", about),
    ]
    .into_iter()
    .filter(|(_, sentences)| !sentences.is_empty())
    .map(|(topic, sentences)| ReadingGroup { topic, sentences })
    .collect()
}

/// A run with its column label.
struct Labeled<'a> {
    run: &'a RunResult,
    label: &'a str,
    /// How full in-order inserts leave this run's id index, in words.
    in_order_fill: &'static str,
}

impl Labeled<'_> {
    fn index(&self) -> Option<&IndexResult> {
        key_index(self.run)
    }
    fn fill(&self) -> Option<f64> {
        self.index()?.fill_pct
    }
    fn key_bytes(&self) -> Option<u32> {
        key_bytes(&self.run.strategy, &self.run.encoding)
    }
    fn order(&self) -> KeyOrder {
        key_order(&self.run.strategy, &self.run.encoding)
    }
    /// Shows the in-order fill pattern: ordered by definition and near 15/16 full or more.
    fn fills_in_order(&self) -> bool {
        self.order() == KeyOrder::Ordered && self.fill().is_some_and(|f| f >= 85.0)
    }
    /// Shows the random-insert pattern: random by definition and in the middle-split band
    /// (pages between 1/2 and 15/16 full, averaging near ln 2 of capacity).
    fn fills_at_random(&self) -> bool {
        self.order() == KeyOrder::Random && self.fill().is_some_and(|f| (50.0..78.0).contains(&f))
    }
}

/// InnoDB leaves 1/16 of a clustered leaf free when inserts arrive in order (the split rule
/// of `btr_page_get_split_rec_to_right`) but packs secondary leaves full; PostgreSQL's nbtree
/// splits the rightmost leaf at the index fillfactor (90 by default) in both placements; other
/// engines have their own rules, so only "nearly full" is said for them.
fn in_order_fill(engine: &str, model: Option<&str>, run: &RunResult) -> &'static str {
    let postgres = engine == "postgres" || model.is_some_and(|m| m.starts_with("postgres"));
    let innodb = matches!(engine, "sim" | "mariadb" | "mysql") && !postgres;
    if postgres {
        "about the index fillfactor (90% by default)"
    } else if innodb && run.placement != "secondary" {
        "about 15/16"
    } else {
        "nearly full"
    }
}

/// The index that holds the id: the primary key (listed first, `PRIMARY` on every engine) as
/// a clustered key, else the first secondary index.
pub(crate) fn key_index(run: &RunResult) -> Option<&IndexResult> {
    if run.placement == "secondary" {
        run.indexes.get(1).or_else(|| run.indexes.iter().find(|i| i.name != "PRIMARY"))
    } else {
        run.indexes.iter().find(|i| i.name == "PRIMARY").or(run.indexes.first())
    }
}

/// The page size in bytes from the engine settings (`page_size` or `innodb_page_size`, as a
/// number of bytes or as `16k`; the nbtree model's `block_size` for runs of a `postgres`
/// model in a report of several models).
pub(crate) fn page_size(report: &Report, model: Option<&str>) -> Option<f64> {
    let s = &report.engine.settings;
    let block = model.filter(|m| m.starts_with("postgres")).and_then(|_| s.get("block_size"));
    let v = block.or_else(|| s.get("page_size")).or_else(|| s.get("innodb_page_size"))?;
    if let Some(n) = v.as_u64() {
        return Some(n as f64);
    }
    let text = v.as_str()?.trim().to_ascii_lowercase();
    let text = text.trim_end_matches("ib").trim_end_matches('b');
    match text.strip_suffix('k') {
        Some(kib) => kib.trim().parse::<f64>().ok().map(|k| k * 1024.0),
        None => text.parse::<f64>().ok(),
    }
}

fn provenance(report: &Report) -> String {
    let e = &report.engine;
    if e.kind == "sim" {
        format!(
            "These figures are simulated by the sim engine, {}; none was measured on a server.",
            e.version
        )
    } else {
        format!("Figures measured on {} {}.", e.kind, e.version)
    }
}

fn not_reported(report: &Report, runs: &[Labeled]) -> Vec<String> {
    let mut out = Vec::new();
    if runs.is_empty() {
        return out;
    }
    let none = |f: &dyn Fn(&Labeled) -> bool| runs.iter().all(|r| !f(r));
    let mut missing = Vec::new();
    if none(&|r| r.run.counters.page_splits.is_some()) {
        missing.push("page splits");
    }
    if none(&|r| r.fill().is_some()) {
        missing.push("leaf fill");
    }
    if none(&|r| r.index().is_some_and(|i| i.size_pages.is_some() || i.leaf_pages.is_some())) {
        missing.push("index pages");
    }
    let untimed = none(&|r| r.run.load.wall_s.is_some());
    if report.engine.kind == "sim" {
        if untimed {
            out.push(
                "The simulator does not time loads (its wall time would say nothing about a \
                 server's), so no throughput is shown."
                    .to_string(),
            );
        }
    } else if untimed {
        missing.push("load timings");
    }
    if !missing.is_empty() {
        out.push(format!(
            "This engine does not report {}; the reading leaves them out rather than guess.",
            and_list(&missing)
        ));
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
