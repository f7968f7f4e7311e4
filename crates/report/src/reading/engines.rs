//! The cross-engine paragraph of the reading: when a report holds runs of more than one
//! simulator model on the same ids (`keylab compare --model mariadb-10.11,postgres-15`), how
//! each id pattern ranks on each model by the headline figures (the id index's leaf pages,
//! leaf fill, page splits per 1,000 rows, full-page images where a model gives them), which
//! pattern is the best on one model and the worst on another if any, and why, in figures.
//!
//! Figures are only ranked within a model (an nbtree index page is not an InnoDB clustered
//! page); across models the paragraph compares ranks, fill percentages and bytes per record,
//! which mean the same thing on both. The "why" is said only where the figures show it: the
//! clustered row (bytes per record of the id index's leaves), the unordered heap (equal heap
//! pages for ids of the same length in different orders), the in-order fill rules. It does
//! not judge which model or pattern a team should pick.

use crate::reading::{key_index, key_order, KeyOrder};
use crate::text::{decimal, group_thousands, times};
use keylab_core::RunResult;

/// One id pattern (variant and placement) under one model.
struct Entry<'a> {
    run: &'a RunResult,
    pattern: String,
    model: String,
}

/// A headline figure, ranked within each model.
struct Figure {
    name: &'static str,
    lower_is_better: bool,
    value: fn(&RunResult) -> Option<f64>,
    show: fn(f64) -> String,
}

fn leaf_pages(r: &RunResult) -> Option<f64> {
    let i = key_index(r)?;
    i.leaf_pages.or(i.size_pages).map(|p| p as f64)
}

fn fill(r: &RunResult) -> Option<f64> {
    key_index(r)?.fill_pct
}

fn splits_per_1k(r: &RunResult) -> Option<f64> {
    let s = r.counters.page_splits?;
    (r.rows > 0).then(|| s as f64 * 1000.0 / r.rows as f64)
}

fn fpis(r: &RunResult) -> Option<f64> {
    r.postgres.as_ref()?.full_page_images.map(|n| n as f64)
}

const FIGURES: [Figure; 4] = [
    Figure {
        name: "id index leaf pages",
        lower_is_better: true,
        value: leaf_pages,
        show: |v| group_thousands(v as u64),
    },
    Figure {
        name: "leaf fill",
        lower_is_better: false,
        value: fill,
        show: |v| format!("{}%", decimal(v, 1)),
    },
    Figure {
        name: "page splits per 1,000 rows",
        lower_is_better: true,
        value: splits_per_1k,
        show: |v| decimal(v, 1),
    },
    Figure {
        name: "full-page images",
        lower_is_better: true,
        value: fpis,
        show: |v| group_thousands(v as u64),
    },
];

/// The paragraph for `runs` (of the models `models` gives: all `None`
/// when the report holds one model, and then there is no paragraph).
pub(crate) fn cross_engine(runs: &[RunResult], models: &[Option<String>]) -> Vec<String> {
    let placements = runs.iter().any(|r| r.placement != runs[0].placement);
    let entries: Vec<Entry> = runs
        .iter()
        .zip(models)
        .filter_map(|(run, model)| {
            let pattern = if placements {
                format!("{} ({})", run.variant, run.placement)
            } else {
                run.variant.clone()
            };
            Some(Entry { run, pattern, model: model.clone()? })
        })
        .collect();
    let mut model_names: Vec<&str> = Vec::new();
    for e in &entries {
        if !model_names.contains(&e.model.as_str()) {
            model_names.push(&e.model);
        }
    }
    // Only the patterns every model ran are ranked against each other.
    let mut patterns: Vec<&str> = Vec::new();
    for e in &entries {
        let everywhere = model_names
            .iter()
            .all(|m| entries.iter().any(|o| o.model == *m && o.pattern == e.pattern));
        if everywhere && !patterns.contains(&e.pattern.as_str()) {
            patterns.push(&e.pattern);
        }
    }
    if model_names.len() < 2 || patterns.len() < 2 {
        return Vec::new();
    }
    let get = |model: &str, pattern: &str| {
        entries.iter().find(|e| e.model == model && e.pattern == pattern).map(|e| e.run)
    };
    let mut out = Vec::new();
    let mut flips = Vec::new();
    let mut same_order = Vec::new();
    for (n, figure) in FIGURES.iter().enumerate() {
        // Per model: the patterns with this figure, best first.
        let ranked: Vec<(&str, Vec<(&str, f64)>)> = model_names
            .iter()
            .map(|m| {
                let mut list: Vec<(&str, f64)> = patterns
                    .iter()
                    .filter_map(|p| Some((*p, (figure.value)(get(m, p)?)?)))
                    .collect();
                list.sort_by(|a, b| {
                    let o = a.1.total_cmp(&b.1);
                    if figure.lower_is_better {
                        o
                    } else {
                        o.reverse()
                    }
                });
                (*m, list)
            })
            .filter(|(_, list)| list.len() == patterns.len())
            .collect();
        if ranked.len() < 2 {
            continue;
        }
        let alike = !clearly_reordered(figure, &ranked);
        if n == 0 || !alike {
            let per_model: Vec<String> = ranked
                .iter()
                .map(|(m, list)| {
                    let items: Vec<String> =
                        list.iter().map(|(p, v)| format!("{p} {}", (figure.show)(*v))).collect();
                    format!("{m} {}", items.join(", "))
                })
                .collect();
            let lead = if n == 0 { "Across models, on the same ids, by " } else { "By " };
            out.push(format!("{lead}{}, best first: {}.", figure.name, per_model.join("; ")));
        } else {
            same_order.push(figure.name);
        }
        flips.extend(best_here_worst_there(figure, &ranked));
    }
    if !same_order.is_empty() {
        out.push(format!(
            "By {} no pattern changes place between models (ties within 1% aside).",
            same_order.join(" and ")
        ));
    }
    match flips.first() {
        Some(flip) => out.push(flip.clone()),
        None => out.push(no_flip(&model_names, &patterns, &get)),
    }
    out.extend(swapped_pair(&model_names, &patterns, &get));
    out.extend(full_page_images(&model_names, &patterns, &get));
    out.extend(why(&model_names, &patterns, &get));
    out
}

/// Whether `a` is better than `b` by `figure` by more than 1% (closer is a tie).
fn clearly_better(figure: &Figure, a: f64, b: f64) -> bool {
    let (lo, hi) = if figure.lower_is_better { (a, b) } else { (b, a) };
    lo >= 0.0 && hi > lo * 1.01 && hi - lo > 1e-9
}

/// Whether two patterns are clearly in opposite order on two models (near-ties are no order).
fn clearly_reordered(figure: &Figure, ranked: &[(&str, Vec<(&str, f64)>)]) -> bool {
    let pairs = |list: &[(&str, f64)]| {
        let mut out = Vec::new();
        for a in list {
            for b in list {
                if clearly_better(figure, a.1, b.1) {
                    out.push((a.0.to_string(), b.0.to_string()));
                }
            }
        }
        out
    };
    let all: Vec<Vec<(String, String)>> = ranked.iter().map(|(_, l)| pairs(l)).collect();
    all.iter().any(|one| {
        one.iter().any(|(a, b)| all.iter().any(|other| other.contains(&(b.clone(), a.clone()))))
    })
}

/// A pattern that is the best on one model and the worst on another by `figure`: clearly
/// better than the runner-up on the one and clearly worse than the next on the other.
fn best_here_worst_there(figure: &Figure, ranked: &[(&str, Vec<(&str, f64)>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (good, good_list) in ranked {
        let best = good_list[0];
        if !clearly_better(figure, best.1, good_list[1].1) {
            continue;
        }
        for (bad, bad_list) in ranked {
            let n = bad_list.len();
            let worst = bad_list[n - 1];
            let clear = clearly_better(figure, bad_list[n - 2].1, worst.1);
            if good != bad && worst.0 == best.0 && clear {
                out.push(format!(
                    "{} is the best on {good} and the worst on {bad} by {}: {} against {}'s {} \
                     on {good}, {} against {}'s {} on {bad}.",
                    best.0,
                    figure.name,
                    (figure.show)(best.1),
                    good_list[good_list.len() - 1].0,
                    (figure.show)(good_list[good_list.len() - 1].1),
                    (figure.show)(worst.1),
                    bad_list[0].0,
                    (figure.show)(bad_list[0].1)
                ));
            }
        }
    }
    out
}

/// The sentence when no pattern flips: the same best and worst by leaf pages, and the gap on
/// each model.
fn no_flip<'a>(
    models: &[&str],
    patterns: &[&str],
    get: &dyn Fn(&str, &str) -> Option<&'a RunResult>,
) -> String {
    let gaps: Vec<String> = models
        .iter()
        .filter_map(|m| {
            let mut list: Vec<(&str, f64)> =
                patterns.iter().filter_map(|p| Some((*p, leaf_pages(get(m, p)?)?))).collect();
            list.sort_by(|a, b| a.1.total_cmp(&b.1));
            let (best, worst) = (list.first()?, list.last()?);
            (best.1 > 0.0).then(|| {
                format!(
                    "{} on {m} ({} vs {}, {} worst vs {} best)",
                    times(worst.1 / best.1),
                    group_thousands(worst.1 as u64),
                    group_thousands(best.1 as u64),
                    worst.0,
                    best.0
                )
            })
        })
        .collect();
    format!(
        "No id pattern is the best on one model and the worst on another; the gap in id index \
         leaf pages is {}.",
        gaps.join(" and ")
    )
}

/// Bytes per record of the id index's leaves: used bytes of a leaf (fill × page size: 16 KiB
/// on an InnoDB model, nbtree's 8 KiB block on a postgres one) over records per leaf.
fn bytes_per_record(r: &RunResult, model: &str) -> Option<f64> {
    let i = key_index(r)?;
    let page = if model.starts_with("postgres") { 8192.0 } else { 16384.0 };
    let (fill, per_leaf) = (i.fill_pct?, i.records_per_leaf?);
    (per_leaf > 0.0).then(|| fill / 100.0 * page / per_leaf)
}

/// Two patterns whose order by id index leaf pages differs between two models, with the
/// fill and bytes per record that explain it on each.
fn swapped_pair<'a>(
    models: &[&str],
    patterns: &[&str],
    get: &dyn Fn(&str, &str) -> Option<&'a RunResult>,
) -> Option<String> {
    let pages = |m: &str, p: &str| get(m, p).and_then(leaf_pages);
    let shape = |m: &str, p: &str| -> Option<String> {
        let r = get(m, p)?;
        Some(format!(
            "{p} {} pages, {}% full, about {:.0} bytes per record",
            group_thousands(leaf_pages(r)? as u64),
            decimal(fill(r)?, 1),
            bytes_per_record(r, m)?
        ))
    };
    for (k, a) in patterns.iter().enumerate() {
        for b in &patterns[k + 1..] {
            for m1 in models {
                for m2 in models {
                    let (a1, b1, a2, b2) =
                        (pages(m1, a)?, pages(m1, b)?, pages(m2, a)?, pages(m2, b)?);
                    if a1 < b1 && a2 > b2 {
                        return Some(format!(
                            "{a} and {b} swap places by id index leaf pages: on {m1} {} against \
                             {}; on {m2} {} against {}.",
                            shape(m1, a)?,
                            shape(m1, b)?,
                            shape(m2, a)?,
                            shape(m2, b)?
                        ));
                    }
                }
            }
        }
    }
    None
}

/// Full-page images of a model that gives them (PostgreSQL's headline WAL cost of random
/// keys), ranked; or that none was written because no checkpoint ran during the load.
fn full_page_images<'a>(
    models: &[&str],
    patterns: &[&str],
    get: &dyn Fn(&str, &str) -> Option<&'a RunResult>,
) -> Vec<String> {
    let mut out = Vec::new();
    for m in models {
        let figures: Vec<(&str, u64, u64)> = patterns
            .iter()
            .filter_map(|p| {
                let pg = get(m, p)?.postgres.as_ref()?;
                Some((*p, pg.full_page_images?, pg.checkpoints.unwrap_or(0)))
            })
            .collect();
        if figures.len() != patterns.len() {
            continue;
        }
        if figures.iter().all(|f| f.1 == 0 && f.2 == 0) {
            out.push(format!(
                "{m} wrote no full-page images: no checkpoint ran during the load (a scenario's \
                 [engine] checkpoint_every_rows sets one; the built-in pg-wal-fpi does), so this \
                 report does not show the WAL cost of random keys there."
            ));
        } else {
            let mut sorted = figures.clone();
            sorted.sort_by_key(|f| f.1);
            let list: Vec<String> =
                sorted.iter().map(|(p, n, _)| format!("{p} {}", group_thousands(*n))).collect();
            out.push(format!(
                "Full-page images on {m} (one per page first changed after a checkpoint), \
                 fewest first: {}; the other models give no such figure.",
                list.join(", ")
            ));
        }
    }
    out
}

/// Why the models differ, where the figures show it.
fn why<'a>(
    models: &[&str],
    patterns: &[&str],
    get: &dyn Fn(&str, &str) -> Option<&'a RunResult>,
) -> Vec<String> {
    let mut out = Vec::new();
    let postgres = |m: &str| m.starts_with("postgres");
    // The clustered row against the index tuple: bytes per record of the id index's leaves.
    let per_record = bytes_per_record;
    let random = patterns.iter().find(|p| {
        models
            .iter()
            .filter_map(|m| get(m, p))
            .all(|r| key_order(&r.strategy, &r.encoding) == KeyOrder::Random)
    });
    let innodb = models.iter().find(|m| !postgres(m));
    let nbtree = models.iter().find(|m| postgres(m));
    if let (Some(p), Some(i), Some(n)) = (random, innodb, nbtree) {
        let (ri, rn) = (get(i, p), get(n, p));
        let bytes = ri.zip(rn).and_then(|(a, b)| Some((per_record(a, i)?, per_record(b, n)?)));
        if let (Some((bi, bn)), Some(a), Some(b)) = (bytes, ri, rn) {
            if a.placement == "pk" {
                out.push(format!(
                    "Why: on {i} the primary key is the clustered index, so its leaves hold the \
                     whole row (about {bi:.0} bytes per record for {p}) and a random key's \
                     splits move rows; on {n} the index leaf holds only the key and a heap \
                     pointer (about {bn:.0} bytes per tuple) and the row goes to the heap."
                ));
            }
            let (fi, fnb) = (fill(a), fill(b));
            if let (Some(fi), Some(fnb)) = (fi, fnb) {
                out.push(format!(
                    "{p}'s random ids split leaves in the middle on both: {}% full on {i}, {}% \
                     on {n}.",
                    decimal(fi, 1),
                    decimal(fnb, 1)
                ));
            }
        }
    }
    // The heap is not ordered by the key: ids of the same length in another order take the
    // same heap pages.
    if let Some(n) = nbtree {
        let heap = |p: &str| get(n, p).and_then(|r| Some((r, r.postgres.as_ref()?.heap_pages?)));
        let found = patterns.iter().enumerate().find_map(|(k, a)| {
            patterns[k + 1..].iter().find_map(|b| {
                let ((ra, ha), (rb, hb)) = (heap(a)?, heap(b)?);
                let orders =
                    (key_order(&ra.strategy, &ra.encoding), key_order(&rb.strategy, &rb.encoding));
                let differ = matches!(
                    orders,
                    (KeyOrder::Random, KeyOrder::Ordered) | (KeyOrder::Ordered, KeyOrder::Random)
                );
                (differ && ha == hb && leaf_pages(ra) != leaf_pages(rb)).then_some((*a, *b, ha))
            })
        });
        if let Some((a, b, pages)) = found {
            out.push(format!(
                "On {n} the heap is not ordered by the key: {a} and {b} take the same {} heap \
                 pages, so their order costs only in the index.",
                group_thousands(pages)
            ));
        }
    }
    // The in-order fill rules: InnoDB leaves 1/16 free, nbtree splits the rightmost leaf at
    // the fillfactor (90 by default).
    let ordered = patterns.iter().find(|p| {
        models.iter().filter_map(|m| get(m, p)).all(|r| {
            key_order(&r.strategy, &r.encoding) == KeyOrder::Ordered
                && fill(r).is_some_and(|f| f >= 85.0)
        })
    });
    if let (Some(p), Some(i), Some(n)) = (ordered, innodb, nbtree) {
        let (a, b) = (get(i, p).and_then(fill), get(n, p).and_then(fill));
        if let (Some(a), Some(b)) = (a, b) {
            let rule = if get(i, p).is_some_and(|r| r.placement == "pk") {
                "InnoDB's split of the last page leaves 1/16 of a clustered leaf free"
            } else {
                "InnoDB packs in-order secondary leaves nearly full"
            };
            out.push(format!(
                "In-order ids ({p}) fill {}% of a leaf on {i} ({rule}) and {}% on {n} \
                 (nbtree splits the rightmost leaf at the index fillfactor, 90 by default).",
                decimal(a, 1),
                decimal(b, 1)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pk run of `variant` under `model`: its PRIMARY leaf pages, fill and records per leaf.
    fn run(variant: &str, model: &str, leaves: u64, fill: f64, per_leaf: f64) -> RunResult {
        let (strategy, encoding) = variant.split_once(':').unwrap_or((variant, ""));
        let encoding = if encoding.is_empty() { "bigint" } else { encoding };
        crate::test_run(json!({
            "variant": variant, "strategy": strategy, "encoding": encoding, "model": model,
            "rows": 100000,
            "counters": {"page_splits": leaves, "merge_attempts": null, "merges": null,
                         "page_reorgs": null, "page_discards": null, "pages_read": null,
                         "pages_written": null},
            "indexes": [{"name": "PRIMARY", "size_pages": leaves + 2, "leaf_pages": leaves,
                         "nonleaf_pages": 2, "height": 2, "fill_pct": fill,
                         "records_per_leaf": per_leaf, "fill_histogram": null}]
        }))
    }

    fn paragraph(runs: &[RunResult]) -> String {
        cross_engine(runs, &crate::labels::run_models(runs)).join("\n")
    }

    #[test]
    fn one_model_has_no_cross_engine_paragraph() {
        let runs = [
            run("uuid4:bin", "postgres-15", 543, 63.6, 184.0),
            run("auto-inc", "postgres-15", 274, 89.8, 365.0),
        ];
        assert_eq!(paragraph(&runs), "");
    }

    #[test]
    fn a_pattern_best_on_one_model_and_worst_on_the_other_is_named_with_its_figures() {
        let runs = [
            run("uuid7:bin", "mariadb-10.11", 100, 93.0, 250.0),
            run("ulid:text", "mariadb-10.11", 120, 92.0, 210.0),
            run("uuid4:bin", "mariadb-10.11", 150, 68.0, 170.0),
            run("uuid7:bin", "postgres-15", 400, 70.0, 250.0),
            run("ulid:text", "postgres-15", 300, 90.0, 330.0),
            run("uuid4:bin", "postgres-15", 350, 64.0, 290.0),
        ];
        let t = paragraph(&runs);
        assert!(
            t.contains(
                "Across models, on the same ids, by id index leaf pages, best first: \
                 mariadb-10.11 uuid7:bin 100, ulid:text 120, uuid4:bin 150; postgres-15 \
                 ulid:text 300, uuid4:bin 350, uuid7:bin 400."
            ),
            "{t}"
        );
        assert!(
            t.contains(
                "uuid7:bin is the best on mariadb-10.11 and the worst on postgres-15 by id index \
                 leaf pages: 100 against uuid4:bin's 150 on mariadb-10.11, 400 against \
                 ulid:text's 300 on postgres-15."
            ),
            "{t}"
        );
        assert!(!t.contains("No id pattern is the best"), "{t}");
        // Why, in figures: the clustered row's bytes against the index tuple's.
        assert!(t.contains("about 66 bytes per record for uuid4:bin"), "{t}");
        assert!(t.contains("about 18 bytes per tuple"), "{t}");
        assert!(t.contains("68.0% full on mariadb-10.11, 64.0% on postgres-15"), "{t}");
    }

    #[test]
    fn the_same_order_on_both_models_is_said_with_each_gap() {
        let runs = [
            run("uuid4:bin", "mariadb-10.11", 71, 68.8, 281.7),
            run("auto-inc", "mariadb-10.11", 44, 88.8, 454.5),
            run("uuid4:bin", "postgres-15", 97, 71.2, 206.2),
            run("auto-inc", "postgres-15", 55, 89.5, 363.6),
        ];
        let t = paragraph(&runs);
        assert!(
            t.contains("No id pattern is the best on one model and the worst on another"),
            "{t}"
        );
        assert!(
            t.contains("1.6x on mariadb-10.11 (71 vs 44, uuid4:bin worst vs auto-inc best)"),
            "{t}"
        );
        assert!(t.contains("In-order ids (auto-inc) fill 88.8% of a leaf on mariadb-10.11"), "{t}");
        assert!(t.contains("and 89.5% on postgres-15"), "{t}");
    }
}
