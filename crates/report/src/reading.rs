//! A short plain-language reading of a report: which variant wins on what, and why, in a few
//! sentences computed from the figures.
//!
//! Every claim rests on figures in the report: a page ratio, a fill percentage, records per
//! leaf, split counts, timings. The only outside knowledge used is what a variant is by
//! definition in `keylab-keys` (its key's byte length and whether ids arrive in index order),
//! and even then "keys arrive in order" is said only when the fill figure shows the in-order
//! pattern too. Simulated figures are called simulated. This
//! module does not judge which variant a team should pick.

use crate::labels::{cell, column_labels, run_models};
use crate::text::{decimal, group_thousands, times};
use keylab_core::{IndexResult, Report, RunResult};
use keylab_keys::{Strategy, Variant};

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

/// The reading of `report`: a few sentences, each a separate string.
pub fn reading(report: &Report) -> Vec<String> {
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
    let mut out = vec![provenance(report)];
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
    out.extend(crate::reading_engines::cross_engine(&report.runs, &models));
    let pairs: Vec<_> = runs.iter().map(|r| (r.run, r.label)).collect();
    out.extend(crate::reading_phases::phase_sentences(&pairs));
    out.extend(crate::reading_settings::setting_effects(&report.runs));
    out.extend(crate::reading_settings::published_comparison(&report.scenario, &report.runs));
    let key_pages = |r: &RunResult| key_index(r).and_then(|i| i.size_pages.or(i.leaf_pages));
    out.extend(crate::reading_keys::v1_swap(&report.runs, key_pages));
    out.extend(crate::reading_e5::published_comparison(&report.scenario, &report.runs));
    out.extend(crate::reading_pool::curve_turns(&pairs, key_index, page_size(report, None)));
    out.extend(crate::shard_rows::reading(report, &labels));
    out.extend(throughput(&runs));
    out.extend(crate::reading_load::writers_over_cores(report));
    out.extend(queries(&runs));
    out.extend(not_reported(report, &runs));
    out
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

/// Runs compared with each other: same placement, same table (a scenario's matrix cell
/// may name another table, such as E1's heavy rows, whose pages say nothing about keys) and
/// same model (an nbtree index's pages are not an InnoDB clustered index's).
type Group<'a> = ((String, String, Option<String>), Vec<&'a Labeled<'a>>);

fn placement_groups<'a>(runs: &'a [Labeled<'a>], models: &[Option<String>]) -> Vec<Group<'a>> {
    let mut groups: Vec<Group> = Vec::new();
    for (r, model) in runs.iter().zip(models) {
        let table = cell(r.run).into_iter().find(|(d, _)| d == "table").map(|(_, t)| t);
        let key = (r.run.placement.clone(), table.unwrap_or_default(), model.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    groups
}

/// Which page figure a group is compared on: `size_pages` if every run has it, else
/// `leaf_pages`, else none.
#[derive(Clone, Copy)]
enum PageFigure {
    Size,
    Leaf,
}

impl PageFigure {
    fn get(self, r: &Labeled) -> Option<u64> {
        let i = r.index()?;
        match self {
            PageFigure::Size => i.size_pages,
            PageFigure::Leaf => i.leaf_pages,
        }
    }
    fn word(self) -> &'static str {
        match self {
            PageFigure::Size => "pages",
            PageFigure::Leaf => "leaf pages",
        }
    }
}

fn compare_group(group: &[&Labeled], page_bytes: Option<f64>) -> Vec<String> {
    let mut out = Vec::new();
    let index_name = match group[0].index() {
        Some(i) if group.iter().all(|r| r.index().map(|j| &j.name) == Some(&i.name)) => {
            i.name.clone()
        }
        _ => "id index".to_string(),
    };
    let figure = [PageFigure::Size, PageFigure::Leaf]
        .into_iter()
        .find(|f| group.iter().all(|r| f.get(r).is_some()));
    if let Some(figure) = figure {
        out.extend(compare_pages(group, figure, &index_name, page_bytes));
    }
    out.extend(compare_splits(group));
    out.extend(compare_writes(group));
    if out.is_empty() {
        out.push(format!(
            "{}: the engine reported no page, split or I/O figures to compare.",
            names(group)
        ));
    }
    out
}

fn names(group: &[&Labeled]) -> String {
    group.iter().map(|r| r.label).collect::<Vec<_>>().join(", ")
}

fn compare_pages(
    group: &[&Labeled],
    figure: PageFigure,
    index: &str,
    page_bytes: Option<f64>,
) -> Vec<String> {
    let same_rows = group.iter().all(|r| r.run.rows == group[0].run.rows);
    if !same_rows && group.iter().any(|r| r.run.rows == 0) {
        return Vec::new();
    }
    // Runs of different sizes are compared per 1000 rows.
    let per = if same_rows { "" } else { " per 1000 rows" };
    let pages = |r: &Labeled| -> f64 {
        let p = figure.get(r).unwrap_or(0) as f64;
        if same_rows {
            p
        } else {
            p * 1000.0 / r.run.rows as f64
        }
    };
    let show = |v: f64| if same_rows { group_thousands(v as u64) } else { decimal(v, 1) };
    let best = *group.iter().min_by(|a, b| pages(a).total_cmp(&pages(b))).expect("group not empty");
    let worst =
        *group.iter().max_by(|a, b| pages(a).total_cmp(&pages(b))).expect("group not empty");
    let word = figure.word();
    if pages(best) == 0.0 || pages(worst) / pages(best) < 1.05 {
        return vec![format!(
            "{} use about the same number of {index} {word}{per} ({}–{}).",
            names(group),
            show(pages(best)),
            show(pages(worst))
        )];
    }
    let mut out = Vec::new();
    let ratio = pages(worst) / pages(best);
    let mut head = format!(
        "{} uses {} fewer {index} {word}{per} than {} ({} vs {})",
        best.label,
        times(ratio),
        worst.label,
        show(pages(best)),
        show(pages(worst))
    );
    let (fb, fw) = (best.fill(), worst.fill());
    let mut fill_explained = false;
    if let (Some(fb), Some(fw)) = (fb, fw) {
        if best.fills_in_order() && worst.fills_at_random() {
            head.push_str(&format!(
                ": its keys arrive in index order, so each leaf page fills to {} ({}% full) \
                 before a new one opens, while {}'s random keys split pages in the middle and \
                 leave them {}% full on average",
                best.in_order_fill,
                decimal(fb, 1),
                worst.label,
                decimal(fw, 1)
            ));
            fill_explained = true;
        } else if fb - fw >= 5.0 {
            head.push_str(&format!(
                ": its leaf pages are {}% full against {}%",
                decimal(fb, 1),
                decimal(fw, 1)
            ));
            fill_explained = true;
        }
    }
    head.push('.');
    out.push(head);
    if let (Some(kb), Some(kw)) = (best.key_bytes(), worst.key_bytes()) {
        let per_record =
            record_bytes(best, page_bytes).zip(record_bytes(worst, page_bytes)).map(|(b, w)| {
                format!("; about {b:.0} vs {w:.0} bytes per record, from fill and records per leaf")
            });
        let per_record = per_record.unwrap_or_default();
        if kb < kw {
            let also = if fill_explained { "also " } else { "" };
            out.push(format!(
                "Its records are {also}{} bytes shorter: {kb}-byte vs {kw}-byte keys{per_record}.",
                kw - kb
            ));
        } else if kb > kw {
            out.push(format!(
                "That is despite a key {} bytes longer: {kb}-byte vs {kw}-byte keys{per_record}.",
                kb - kw
            ));
        }
    }
    if group.len() >= 3 {
        let mut ranked: Vec<&&Labeled> = group.iter().collect();
        ranked.sort_by(|a, b| pages(a).total_cmp(&pages(b)));
        let list: Vec<String> =
            ranked.iter().map(|r| format!("{} {}", r.label, show(pages(r)))).collect();
        out.push(format!("By {index} {word}{per}: {}.", list.join(", ")));
        if same_rows {
            out.extend(isolate_causes(group, figure, index, (best, worst)));
        }
    }
    out
}

/// Bytes per record from the figures: used bytes of a leaf (fill × page size) over records
/// per leaf.
fn record_bytes(r: &Labeled, page_bytes: Option<f64>) -> Option<f64> {
    let i = r.index()?;
    let (fill, per_leaf, page) = (i.fill_pct?, i.records_per_leaf?, page_bytes?);
    (per_leaf > 0.0).then(|| fill / 100.0 * page / per_leaf)
}

/// Pairs that separate the two causes: same key length but different fill (insert order),
/// and same fill but different key length (record size). Skips the pair already described.
fn isolate_causes(
    group: &[&Labeled],
    figure: PageFigure,
    index: &str,
    described: (&Labeled, &Labeled),
) -> Vec<String> {
    let mut out = Vec::new();
    let pages = |r: &Labeled| figure.get(r).unwrap_or(0) as f64;
    let is_described = |a: &Labeled, b: &Labeled| {
        let key = |r: &Labeled| r.label.to_string();
        let pair = [key(a), key(b)];
        pair.contains(&key(described.0)) && pair.contains(&key(described.1))
    };
    let mut pairs = Vec::new();
    for (i, a) in group.iter().enumerate() {
        for b in &group[i + 1..] {
            let (small, big) = if pages(a) <= pages(b) { (*a, *b) } else { (*b, *a) };
            if pages(small) > 0.0 && !is_described(small, big) {
                pairs.push((small, big, pages(big) / pages(small)));
            }
        }
    }
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2));
    let order_pair = pairs.iter().find(|(s, b, r)| {
        *r >= 1.05
            && s.key_bytes().is_some()
            && s.key_bytes() == b.key_bytes()
            && s.fill().zip(b.fill()).is_some_and(|(fs, fb)| fs - fb >= 10.0)
    });
    if let Some((s, b, r)) = order_pair {
        let pattern = if s.fills_in_order() && b.fills_at_random() {
            ", the in-order pattern against the random-insert one"
        } else {
            ""
        };
        out.push(format!(
            "{} and {} have keys of the same length ({} bytes), so their {} gap in {index} {} \
             ({} vs {}) is page fill: {}% vs {}%{pattern}.",
            s.label,
            b.label,
            s.key_bytes().unwrap_or(0),
            times(*r),
            figure.word(),
            group_thousands(pages(s) as u64),
            group_thousands(pages(b) as u64),
            decimal(s.fill().unwrap_or(0.0), 1),
            decimal(b.fill().unwrap_or(0.0), 1)
        ));
    }
    let size_pair = pairs.iter().find(|(s, b, r)| {
        *r >= 1.05
            && s.key_bytes().zip(b.key_bytes()).is_some_and(|(ks, kb)| ks < kb)
            && s.fill().zip(b.fill()).is_some_and(|(fs, fb)| (fs - fb).abs() < 3.0)
    });
    if let Some((s, b, r)) = size_pair {
        out.push(format!(
            "{} and {} fill leaf pages alike ({}% vs {}%), so their {} gap in {index} {} ({} vs \
             {}) comes from record size: {}-byte vs {}-byte keys.",
            s.label,
            b.label,
            decimal(s.fill().unwrap_or(0.0), 1),
            decimal(b.fill().unwrap_or(0.0), 1),
            times(*r),
            figure.word(),
            group_thousands(pages(s) as u64),
            group_thousands(pages(b) as u64),
            s.key_bytes().unwrap_or(0),
            b.key_bytes().unwrap_or(0)
        ));
    }
    out
}

/// A per-1000-rows figure list, sorted ascending, when the spread is worth a sentence.
fn per_thousand_rows(
    group: &[&Labeled],
    figure: impl Fn(&RunResult) -> Option<u64>,
) -> Option<Vec<(String, f64)>> {
    let mut list: Vec<(String, f64)> = group
        .iter()
        .filter(|r| r.run.rows > 0)
        .filter_map(|r| {
            Some((r.label.to_string(), figure(r.run)? as f64 * 1000.0 / r.run.rows as f64))
        })
        .collect();
    list.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (min, max) = (list.first()?.1, list.last()?.1);
    (list.len() >= 2 && (max > 0.0 && (min == 0.0 || max / min >= 1.1))).then_some(list)
}

fn compare_splits(group: &[&Labeled]) -> Option<String> {
    let list = per_thousand_rows(group, |r| r.counters.page_splits)?;
    let items: Vec<String> = list.iter().map(|(l, v)| format!("{l} {}", decimal(*v, 1))).collect();
    Some(format!("Page splits per 1000 rows: {}.", items.join(", ")))
}

fn compare_writes(group: &[&Labeled]) -> Option<String> {
    let list = per_thousand_rows(group, |r| r.counters.pages_written)?;
    let items: Vec<String> = list.iter().map(|(l, v)| format!("{l} {}", decimal(*v, 1))).collect();
    Some(format!("Pages written per 1000 rows: {}.", items.join(", ")))
}

fn describe_single(r: &Labeled) -> String {
    let mut parts = Vec::new();
    if let Some(i) = r.index() {
        if let Some(p) = i.size_pages.or(i.leaf_pages) {
            let word = if i.size_pages.is_some() { "pages" } else { "leaf pages" };
            parts.push(format!(
                "{} {} {word} for {} rows",
                group_thousands(p),
                i.name,
                group_thousands(r.run.rows)
            ));
        }
        if let Some(f) = i.fill_pct {
            let pattern = if r.fills_in_order() {
                ", the pattern of in-order inserts".to_string()
            } else if r.fills_at_random() {
                ", in the band random inserts leave (pages split in the middle)".to_string()
            } else {
                String::new()
            };
            parts.push(format!("leaf pages {}% full{pattern}", decimal(f, 1)));
        }
        if let Some(n) = i.records_per_leaf {
            parts.push(format!("{} records per leaf page", decimal(n, 1)));
        }
    }
    if let (Some(s), true) = (r.run.counters.page_splits, r.run.rows > 0) {
        parts.push(format!(
            "{} page splits per 1000 rows",
            decimal(s as f64 * 1000.0 / r.run.rows as f64, 1)
        ));
    }
    if let Some(k) = r.key_bytes() {
        parts.push(format!("{k}-byte keys"));
    }
    if parts.is_empty() {
        format!("{}: the engine reported no index shape figures.", r.label)
    } else {
        format!("{}: {}.", r.label, parts.join("; "))
    }
}

fn throughput(runs: &[Labeled]) -> Vec<String> {
    let mut out = Vec::new();
    let rated: Vec<(&Labeled, f64)> =
        runs.iter().filter_map(|r| Some((r, r.run.load.rows_per_s?))).collect();
    if rated.len() == 1 {
        let (r, rate) = rated[0];
        out.push(format!("{} loaded {} rows/s.", r.label, decimal(rate, 0)));
    } else if rated.len() >= 2 {
        let fast = rated.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        let slow = rated.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        if slow.1 > 0.0 && fast.1 / slow.1 >= 1.05 {
            out.push(format!(
                "{} loaded fastest, {} rows/s, {} the rate of {} ({} rows/s).",
                fast.0.label,
                decimal(fast.1, 0),
                times(fast.1 / slow.1),
                slow.0.label,
                decimal(slow.1, 0)
            ));
        } else {
            out.push(format!(
                "All variants loaded at about the same rate ({} rows/s).",
                decimal(slow.1, 0)
            ));
        }
    }
    let load: Vec<_> = runs.iter().map(|r| (r.run, r.label)).collect();
    out.extend(crate::reading_load::first_batch_wait(&load));
    let p99: Vec<(&Labeled, f64)> =
        runs.iter().filter_map(|r| Some((r, r.run.load.batch_latency_ms?.p99))).collect();
    if p99.len() >= 2 {
        let lo = p99.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        let hi = p99.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        if hi.1 > lo.1 {
            out.push(format!(
                "Batch latency p99 ranged from {} ms ({}) to {} ms ({}).",
                decimal(lo.1, 2),
                lo.0.label,
                decimal(hi.1, 2),
                hi.0.label
            ));
        }
    }
    out
}

/// Per query: the fastest and slowest median, on the server's clock where every run has
/// one (else the client's, which includes sending the rows), the rows each returned, and a
/// warning when the runs returned different row counts (then per 1,000 rows returned too).
fn queries(runs: &[Labeled]) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for r in runs {
        for q in &r.run.queries {
            if !names.contains(&q.name.as_str()) {
                names.push(&q.name);
            }
        }
    }
    names
        .into_iter()
        .filter_map(|name| {
            let found: Vec<(&Labeled, &keylab_core::QueryResult)> = runs
                .iter()
                .filter_map(|r| Some((r, r.run.queries.iter().find(|q| q.name == name)?)))
                .collect();
            let on_server = found.iter().all(|(_, q)| q.server_p50_ms.is_some());
            let clock = if on_server { "server-side" } else { "client round trip" };
            let timed: Vec<(&Labeled, f64, u64)> = found
                .iter()
                .filter_map(|(r, q)| {
                    Some((*r, if on_server { q.server_p50_ms? } else { q.p50_ms? }, q.rows))
                })
                .collect();
            let lo = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
            let hi = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
            (timed.len() >= 2 && hi.1 > lo.1).then(|| {
                let mut line = format!(
                    "Query {name} ({clock} median): {} ms on {} ({} rows) vs {} ms on {} ({} rows).",
                    decimal(lo.1, 2),
                    lo.0.label,
                    lo.2,
                    decimal(hi.1, 2),
                    hi.0.label,
                    hi.2
                );
                if timed.iter().any(|t| t.2 != timed[0].2) {
                    let per_k = |t: &(&Labeled, f64, u64)| {
                        if t.2 == 0 { "n/a".to_string() } else { decimal(t.1 * 1000.0 / t.2 as f64, 3) }
                    };
                    line.push_str(&format!(
                        " The runs returned different row counts, so the times are not like for \
                         like; per 1,000 rows returned: {} ms vs {} ms.",
                        per_k(lo),
                        per_k(hi)
                    ));
                }
                if let Some(p) = found.iter().find_map(|(_, q)| q.share) {
                    if found.iter().all(|(_, q)| q.share.is_some_and(|s| (s - p).abs() < 1e-9)) {
                        line.push_str(&format!(" Each selected {} of its table.", percent_words(p)));
                    }
                }
                line
            })
        })
        .collect()
}

fn percent_words(share: f64) -> String {
    format!("{}%", decimal(share * 100.0, 1))
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
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
