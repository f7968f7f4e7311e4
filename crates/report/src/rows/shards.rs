//! The sharded runs' figures (`--shards`): a `Shards` section of the side-by-side table (the
//! hottest shard's share, the hotspot curve summarised, and each shard's rows, leaf pages,
//! fill, splits and page writes), the HTML charts (each shard's share of the inserts over
//! rows loaded, one chart per run; leaf pages per shard), and the reading's sentence.
//!
//! Nothing here appears for runs without shards. This module does not compute any figure;
//! the engines fill `keylab_core::ShardsResult`.

use crate::chart::{grouped_bar_chart, line_chart, Line, Scale};
use crate::table::{Better, Builder, Value};
use crate::text::{decimal, group_thousands};
use keylab_core::{Report, RunResult, ShardResult};

fn count(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Count)
}

fn shard(r: &RunResult, k: usize) -> Option<&ShardResult> {
    r.shards.as_ref()?.shards.get(k)
}

/// The partition's name (the first word of its bound, `keylab advise`'s partitions).
fn partition_name(s: &ShardResult) -> String {
    s.bound.as_deref().and_then(|b| b.split_whitespace().next()).unwrap_or("?").to_string()
}

/// The `Partitions` section of a partitioned table (`keylab advise`): each partition's
/// bound, rows and every index's leaf pages, and which partition took the inserts.
fn add_partitions_section(b: &mut Builder, runs: &[RunResult]) {
    let Some(first) = runs.iter().find_map(|r| r.shards.as_ref()) else { return };
    b.section("Partitions");
    b.row("partitions.partitioning", "partitioning", None, |r| {
        r.shards
            .as_ref()
            .map_or(Value::Null, |s| Value::Text(format!("{} × {}", s.sharding, s.shards.len())))
    });
    b.row("partitions.hotspot", "partition taking the inserts, per tenth of the load", None, |r| {
        r.shards
            .as_ref()
            .filter(|s| !s.windows.is_empty())
            .map_or(Value::Null, |s| Value::List(hotspot_text(s)))
    });
    for (k, part) in first.shards.iter().enumerate() {
        let name = partition_name(part);
        b.row(&format!("partitions.{k}.bound"), &format!("partition {name}"), None, move |r| {
            // The bound after the name (the label has the name).
            let bound = shard(r, k).and_then(|s| s.bound.as_deref()?.split_once(' '));
            bound.map_or(Value::Null, |(_, b)| Value::Text(b.to_string()))
        });
        b.row(&format!("partitions.{k}.rows"), &format!("partition {name} rows"), None, move |r| {
            count(shard(r, k).and_then(|s| s.rows))
        });
        let most = runs.iter().filter_map(|r| shard(r, k)).map(|s| s.indexes.len()).max();
        for i in 0..most.unwrap_or(0) {
            // Indexes by place: PRIMARY first, then the table's (a candidate may add none).
            let ix_name = runs
                .iter()
                .find_map(|r| shard(r, k)?.indexes.get(i).map(|x| x.name.clone()))
                .unwrap_or_default();
            b.row(
                &format!("partitions.{k}.{i}.leaf_pages"),
                &format!("partition {name} {ix_name} leaf pages"),
                Some(Better::Lower),
                move |r| count(shard(r, k).and_then(|s| s.indexes.get(i)?.leaf_pages)),
            );
        }
    }
}

/// Adds the `Shards` section when some run is sharded (the `Partitions` section when the
/// shards are a table's partitions).
pub(crate) fn add_shards_section(b: &mut Builder, runs: &[RunResult]) {
    if runs.iter().any(|r| r.shards.as_ref().is_some_and(|s| s.partitions)) {
        return add_partitions_section(b, runs);
    }
    let most = runs.iter().filter_map(|r| r.shards.as_ref()).map(|s| s.shards.len()).max();
    let Some(most) = most else { return };
    b.section("Shards");
    b.row("shards.sharding", "sharding", None, |r| {
        r.shards
            .as_ref()
            .map_or(Value::Null, |s| Value::Text(format!("{} × {}", s.sharding, s.shards.len())))
    });
    b.row(
        "shards.mean_hottest_share_pct",
        "busiest shard's share per window, mean",
        Some(Better::Lower),
        |r| {
            r.shards
                .as_ref()
                .and_then(|s| s.mean_hottest_share_pct)
                .map_or(Value::Null, Value::Percent)
        },
    );
    b.row(
        "shards.hottest_share_pct",
        "busiest shard's share, worst window",
        Some(Better::Lower),
        |r| r.shards.as_ref().and_then(|s| s.hottest_share_pct).map_or(Value::Null, Value::Percent),
    );
    b.row("shards.hotspot", "busiest shard per window", None, |r| {
        r.shards.as_ref().map_or(Value::Null, |s| Value::List(hotspot_text(s)))
    });
    for k in 0..most {
        let leaf = move |r: &RunResult| shard(r, k).and_then(|s| s.indexes.first()?.leaf_pages);
        b.row(&format!("shards.{k}.rows"), &format!("shard {k} rows"), None, move |r| {
            count(shard(r, k).and_then(|s| s.rows))
        });
        b.row(
            &format!("shards.{k}.leaf_pages"),
            &format!("shard {k} PRIMARY leaf pages"),
            Some(Better::Lower),
            move |r| count(leaf(r)),
        );
        b.row(
            &format!("shards.{k}.fill_pct"),
            &format!("shard {k} PRIMARY fill"),
            Some(Better::Higher),
            move |r| {
                shard(r, k)
                    .and_then(|s| s.indexes.first()?.fill_pct)
                    .map_or(Value::Null, Value::Percent)
            },
        );
        b.row(
            &format!("shards.{k}.page_splits"),
            &format!("shard {k} page splits"),
            Some(Better::Lower),
            move |r| count(shard(r, k).and_then(|s| s.counters.page_splits)),
        );
        b.row(
            &format!("shards.{k}.pages_written"),
            &format!("shard {k} pages written"),
            Some(Better::Lower),
            move |r| count(shard(r, k).and_then(|s| s.counters.pages_written)),
        );
    }
}

/// `0×7 1×6 2×7 of 20`: the shard that took most of each window's inserts, run-length coded
/// (`·` for a window where no shard took more than half).
fn hotspot_text(s: &keylab_core::ShardsResult) -> String {
    let busiest: Vec<String> = s
        .windows
        .iter()
        .map(|w| {
            let max = w.inserts.iter().copied().max().unwrap_or(0);
            let total: u64 = w.inserts.iter().sum();
            // A window without a clear majority is spread: shown as `·`.
            match w.inserts.iter().position(|&i| i == max) {
                Some(k) if total > 0 && max * 2 > total => k.to_string(),
                _ => "·".into(),
            }
        })
        .collect();
    let mut runs: Vec<(String, usize)> = Vec::new();
    for b in busiest {
        match runs.last_mut() {
            Some((last, n)) if *last == b => *n += 1,
            _ => runs.push((b, 1)),
        }
    }
    let runs: Vec<String> = runs.iter().map(|(b, n)| format!("{b}×{n}")).collect();
    format!("{} of {}", runs.join(" "), s.windows.len())
}

/// The HTML charts: per run, each shard's share of the inserts in each window over rows
/// loaded; and leaf pages per shard for every run.
pub(crate) fn charts(report: &Report, labels: &[String]) -> Vec<String> {
    let mut charts = Vec::new();
    for (run, label) in report.runs.iter().zip(labels) {
        let Some(s) = &run.shards else { continue };
        let lines: Vec<Line> = (0..s.shards.len())
            .map(|k| Line {
                name: format!("shard {k}"),
                points: s
                    .windows
                    .iter()
                    .filter_map(|w| {
                        let total: u64 = w.inserts.iter().sum();
                        (total > 0).then(|| {
                            (w.rows_end as f64, w.inserts[k] as f64 * 100.0 / total as f64)
                        })
                    })
                    .collect(),
            })
            .filter(|l| l.points.len() >= 2)
            .collect();
        if !lines.is_empty() {
            charts.push(line_chart(
                &format!("{label}: share of inserts per shard"),
                ("rows loaded", "% of the window's inserts"),
                &lines,
                Scale::Linear,
                &|x| group_thousands(x.round().max(0.0) as u64),
                &|y| format!("{}%", decimal(y, 0)),
            ));
        }
    }
    let most = report.runs.iter().filter_map(|r| r.shards.as_ref()).map(|s| s.shards.len()).max();
    if let Some(most) = most {
        let names: Vec<String> = (0..most).map(|k| format!("shard {k}")).collect();
        let series: Vec<&str> = names.iter().map(String::as_str).collect();
        let groups: Vec<(String, Vec<Option<f64>>)> = report
            .runs
            .iter()
            .zip(labels)
            .filter(|(r, _)| r.shards.is_some())
            .map(|(r, l)| {
                let pages = (0..most)
                    .map(|k| {
                        shard(r, k).and_then(|s| s.indexes.first()?.leaf_pages).map(|p| p as f64)
                    })
                    .collect();
                (l.clone(), pages)
            })
            .collect();
        charts.push(grouped_bar_chart("PRIMARY leaf pages per shard", &series, &groups, &|v| {
            group_thousands(v.round().max(0.0) as u64)
        }));
    }
    charts
}

/// The reading's sentence about sharding: the run whose writes are most concentrated, its
/// busiest shard's mean share, and what that means for throughput.
pub(crate) fn reading(report: &Report, labels: &[String]) -> Option<String> {
    let mut sharded = report.runs.iter().zip(labels).filter_map(|(r, l)| {
        Some((l, r.shards.as_ref()?, r.shards.as_ref()?.mean_hottest_share_pct?))
    });
    let first = sharded.next()?;
    let (mut hot, mut cool) = (first, first);
    for x in sharded {
        if x.2 > hot.2 {
            hot = x;
        }
        if x.2 < cool.2 {
            cool = x;
        }
    }
    let n = hot.1.shards.len();
    let even = 100.0 / n as f64;
    let mut text = format!(
        "Sharded over {n} ({}): under {}, the busiest shard took {}% of each window's inserts on \
         average",
        hot.1.sharding,
        hot.0,
        decimal(hot.2, 0)
    );
    if hot.2 > 1.5 * even {
        text.push_str(&format!(
            " (an even spread is {}%): the writes go to one shard at a time, so only one \
             server's insert capacity is in use and more shards add no write throughput for \
             this key",
            decimal(even, 0)
        ));
    } else {
        text.push_str(&format!(" (an even spread is {}%)", decimal(even, 0)));
    }
    if !std::ptr::eq(cool.1, hot.1) {
        text.push_str(&format!(
            "; under {} it was {}%, spreading the writes over every shard",
            cool.0,
            decimal(cool.2, 0)
        ));
    }
    text.push('.');
    Some(text)
}
