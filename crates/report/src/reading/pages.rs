//! The reading's page sentences: runs grouped by placement, table and model, each group
//! compared on its id index's pages (which variant uses fewer, and the cause the figures
//! support: key length, fill from key order, or both), splits and writes per 1,000 rows; a
//! single run described on its own.
//!
//! Not for: timings, queries or figures an engine did not give (`reading/timings.rs`,
//! `reading.rs`), or phase, setting and engine sentences (the other files of `reading/`).

use super::Labeled;
use crate::text::{decimal, group_thousands, times};
use keylab_core::RunResult;

/// Runs compared with each other: same placement, same table (a scenario's matrix cell
/// may name another table, such as E1's heavy rows, whose pages say nothing about keys) and
/// same model (an nbtree index's pages are not an InnoDB clustered index's).
type Group<'a> = ((String, String, Option<String>), Vec<&'a Labeled<'a>>);

pub(super) fn placement_groups<'a>(
    runs: &'a [Labeled<'a>],
    models: &[Option<String>],
) -> Vec<Group<'a>> {
    let mut groups: Vec<Group> = Vec::new();
    for (r, model) in runs.iter().zip(models) {
        let table = crate::labels::cell_table(r.run);
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

pub(super) fn compare_group(group: &[&Labeled], page_bytes: Option<f64>) -> Vec<String> {
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

pub(super) fn describe_single(r: &Labeled) -> String {
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
