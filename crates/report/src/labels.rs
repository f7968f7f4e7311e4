//! Column labels: one short name per run, unique within a report.
//!
//! A label is the variant, plus what tells it apart from other runs of the same variant. The
//! first source is the run's matrix cell (the `cell_*` figures of its `settings` phase, as
//! `keylab-scenario` writes them): only the coordinates the run's matrix group lists, and only
//! those whose values differ between runs of that variant, e.g. `ulid:text (pk, heavy)`,
//! `md5:text (ff 75)`, `auto-inc (multi, batch 100)`. Runs without a cell (`keylab compare`)
//! fall back to the load and size fields that differ; `#n` is the last resort.
//!
//! This module only names runs; it does not decide column order or what a cell means.

use crate::text::group_thousands;
use keylab_core::{PhaseResult, RunResult};

/// The matrix cell of a run: `(dimension, value)` from its `settings` phase, in the order
/// [`DIM_ORDER`] gives (unknown dimensions after, by name).
pub(crate) fn cell(run: &RunResult) -> Vec<(String, String)> {
    let Some(settings) = run.phases.iter().find_map(|p| match p {
        PhaseResult::Settings(s) => Some(s),
        _ => None,
    }) else {
        return Vec::new();
    };
    let mut dims: Vec<(String, String)> =
        settings.cell.iter().map(|(d, v)| (d.clone(), v.clone())).collect();
    dims.sort_by_key(|(d, _)| {
        (DIM_ORDER.iter().position(|o| o == d).unwrap_or(usize::MAX), d.clone())
    });
    dims
}

/// The run's table when a scenario's matrix chose it (`cell_table`).
pub(crate) fn cell_table(run: &RunResult) -> Option<String> {
    let settings = run.phases.iter().find_map(|p| match p {
        PhaseResult::Settings(s) => Some(s),
        _ => None,
    })?;
    settings.cell.get("table").cloned()
}

/// Order of the matrix dimensions in a label: what changes the table first, then the load,
/// then the engine settings.
const DIM_ORDER: [&str; 11] = [
    "table",
    "rows",
    "method",
    "batch",
    "writers",
    "page_size",
    "buffer_pool",
    "fill_factor",
    "merge_threshold",
    "change_buffering",
    "placements",
];

/// How one coordinate reads in a label.
pub(crate) fn show_dim(dim: &str, value: &str, tables: &TableNames) -> String {
    let number = value.parse::<u64>().ok();
    match (dim, number) {
        ("table", _) => tables.short(value),
        ("rows", Some(n)) => format!("{} rows", group_thousands(n)),
        ("method", _) => value.to_string(),
        ("batch", _) => format!("batch {value}"),
        ("writers", Some(1)) => "1 writer".to_string(),
        ("writers", _) => format!("{value} writers"),
        ("page_size", _) => format!("{value} pages"),
        ("buffer_pool", _) => format!("pool {value}"),
        ("fill_factor", _) => format!("ff {value}"),
        ("merge_threshold", _) => format!("merge threshold {value}"),
        ("change_buffering", _) => format!("change buffer {value}"),
        _ => format!("{} {value}", dim.replace('_', " ")),
    }
}

/// Table names shortened by the prefix they share (`e1`, `e1_heavy` → `e1`, `heavy`).
pub(crate) struct TableNames {
    prefix_len: usize,
}

impl TableNames {
    pub(crate) fn new(runs: &[RunResult]) -> TableNames {
        let names: Vec<String> = runs.iter().flat_map(cell_table).collect();
        let first = names.first().map_or("", String::as_str);
        let mut prefix_len = first.len();
        for name in &names {
            prefix_len = first
                .bytes()
                .zip(name.bytes())
                .take(prefix_len)
                .take_while(|(a, b)| a == b)
                .count();
        }
        // Keep whole words: the shared prefix must end where each name ends or at a separator
        // (`e1` + `_heavy`); otherwise cut it back to just after its last separator.
        let at_word_end =
            |n: &String| matches!(n.as_bytes().get(prefix_len), None | Some(b'_') | Some(b'-'));
        if !names.iter().all(at_word_end) {
            prefix_len = first[..prefix_len].rfind(['_', '-']).map_or(0, |i| i + 1);
        }
        TableNames { prefix_len }
    }

    fn short(&self, name: &str) -> String {
        match name.get(self.prefix_len..).map(|r| r.trim_start_matches(['_', '-'])) {
            Some(rest) if !rest.is_empty() => rest.to_string(),
            _ => name.to_string(),
        }
    }
}

/// Each run's simulator model when the runs come from more than one (`--model
/// mariadb-10.11,postgres-15`), else `None` for every run: a report of one model needs no
/// model in its labels, and its ratios span all runs.
pub(crate) fn run_models(runs: &[RunResult]) -> Vec<Option<String>> {
    let first = runs.first().and_then(|r| r.model.clone());
    if runs.iter().all(|r| r.model == first) {
        return vec![None; runs.len()];
    }
    runs.iter().map(|r| Some(r.model.clone().unwrap_or_else(|| "server".into()))).collect()
}

/// One label per run, unique within `runs`: with runs of several models, each ends in
/// ` @ model` (`uuid4:bin @ postgres-15`).
pub(crate) fn column_labels(runs: &[RunResult]) -> Vec<String> {
    let cells: Vec<Vec<(String, String)>> = runs.iter().map(cell).collect();
    let tables = TableNames::new(runs);
    let main_table = cells.first().and_then(|c| c.iter().find(|(d, _)| d == "table")).cloned();
    let mut labels: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let same: Vec<usize> =
                (0..runs.len()).filter(|&j| runs[j].variant == run.variant).collect();
            let mut extra = Vec::new();
            if same.iter().any(|&j| runs[j].placement != run.placement) {
                extra.push(run.placement.clone());
            }
            for (dim, value) in &cells[i] {
                let varies = same.iter().any(|&j| {
                    cells[j].iter().find(|(d, _)| d == dim).map(|(_, v)| v) != Some(value)
                });
                // The scenario's first table is the default one; only other tables are named.
                let is_main = main_table.as_ref().is_some_and(|(d, v)| d == dim && v == value);
                if varies && !is_main {
                    extra.push(show_dim(dim, value, &tables));
                }
            }
            with_parts(&run.variant, &extra)
        })
        .collect();
    // Runs still alike (no cell, or a cell that does not tell them apart) get the run fields
    // that differ among them.
    type Part = fn(&RunResult) -> String;
    let parts: [Part; 5] = [
        |r| r.placement.clone(),
        |r| r.load.method.clone(),
        |r| format!("batch {}", r.load.batch),
        |r| {
            if r.load.writers == 1 {
                "1 writer".into()
            } else {
                format!("{} writers", r.load.writers)
            }
        },
        |r| format!("{} rows", group_thousands(r.rows)),
    ];
    let before = labels.clone();
    for (i, run) in runs.iter().enumerate() {
        let alike: Vec<usize> = (0..runs.len()).filter(|&j| before[j] == before[i]).collect();
        if alike.len() < 2 {
            continue;
        }
        let extra: Vec<String> = parts
            .iter()
            .filter(|part| alike.iter().any(|&j| part(&runs[j]) != part(run)))
            .map(|part| part(run))
            .filter(|p| !before[i].contains(p.as_str()))
            .collect();
        if !extra.is_empty() {
            labels[i] = match before[i].strip_suffix(')') {
                Some(open) => format!("{open}, {})", extra.join(", ")),
                None => with_parts(&before[i], &extra),
            };
        }
    }
    for (label, model) in labels.iter_mut().zip(run_models(runs)) {
        if let Some(model) = model {
            label.push_str(&format!(" @ {model}"));
        }
    }
    let done = labels.clone();
    labels.iter_mut().enumerate().for_each(|(i, label)| {
        let nth = done[..i].iter().filter(|l| *l == label).count();
        if done.iter().filter(|l| *l == label).count() > 1 {
            *label = format!("{label} #{}", nth + 1);
        }
    });
    labels
}

fn with_parts(head: &str, parts: &[String]) -> String {
    if parts.is_empty() {
        head.to_string()
    } else {
        format!("{head} ({})", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(variant: &str, placement: &str, writers: u32, cell: &[(&str, &str)]) -> RunResult {
        let cells: Vec<String> = cell.iter().map(|(k, v)| format!(r#""cell_{k}":"{v}""#)).collect();
        let phases = if cell.is_empty() {
            String::new()
        } else {
            format!(r#","phases":[{{"kind":"settings",{}}}]"#, cells.join(","))
        };
        let json = format!(
            r#"{{"variant":"{variant}","strategy":"s","encoding":"e","placement":"{placement}",
            "rows":10,"load":{{"method":"multi","batch":100,"writers":{writers},"wall_s":null,
            "rows_per_s":null,"batch_latency_ms":null}},"counters":{{"page_splits":null,
            "merge_attempts":null,"merges":null,"page_reorgs":null,"page_discards":null,
            "pages_read":null,"pages_written":null}},"table":{{"data_length":null,
            "index_length":null,"data_free":null}},"indexes":[]{phases}}}"#
        );
        serde_json::from_str(&json).unwrap()
    }

    #[test]
    fn labels_without_cells_use_run_fields() {
        let runs =
            [run("ulid", "pk", 1, &[]), run("ulid", "secondary", 1, &[]), run("u4", "pk", 1, &[])];
        assert_eq!(column_labels(&runs), ["ulid (pk)", "ulid (secondary)", "u4"]);
        let runs = [run("a", "pk", 1, &[]), run("a", "pk", 4, &[])];
        assert_eq!(column_labels(&runs), ["a (1 writer)", "a (4 writers)"]);
        let runs = [run("a", "pk", 1, &[]), run("a", "pk", 1, &[])];
        assert_eq!(column_labels(&runs), ["a #1", "a #2"]);
    }

    #[test]
    fn labels_name_the_matrix_cell() {
        let light = |rows| [("table", "e1"), ("rows", rows)];
        let runs = [
            run("uuid4:text", "pk", 1, &light("2000")),
            run("ulid:text", "pk", 1, &light("2000")),
            run("ulid:text", "pk", 1, &light("6000")),
            run("ulid:text", "pk", 1, &[("table", "e1_heavy")]),
            run("ulid:text", "secondary", 1, &[("table", "e1_heavy")]),
        ];
        assert_eq!(
            column_labels(&runs),
            [
                "uuid4:text",
                "ulid:text (pk, 2,000 rows)",
                "ulid:text (pk, 6,000 rows)",
                "ulid:text (pk, heavy)",
                "ulid:text (secondary, heavy)"
            ]
        );
        let runs = [
            run("md5:text", "pk", 1, &[("fill_factor", "100")]),
            run("md5:text", "pk", 1, &[("fill_factor", "75")]),
        ];
        assert_eq!(column_labels(&runs), ["md5:text (ff 100)", "md5:text (ff 75)"]);
    }

    #[test]
    fn table_names_lose_their_shared_prefix() {
        let runs = [
            run("a", "pk", 1, &[("table", "t_light")]),
            run("a", "pk", 1, &[("table", "t_heavy")]),
        ];
        assert_eq!(column_labels(&runs), ["a", "a (heavy)"]);
        let runs =
            [run("a", "pk", 1, &[("table", "orders")]), run("a", "pk", 1, &[("table", "other")])];
        assert_eq!(column_labels(&runs), ["a", "a (other)"]);
    }

    #[test]
    fn runs_of_several_models_are_labelled_by_model() {
        let with_model = |variant: &str, model: &str| RunResult {
            model: Some(model.into()),
            ..run(variant, "pk", 1, &[])
        };
        let runs = [
            with_model("uuid4:bin", "mariadb-10.11"),
            with_model("auto-inc", "mariadb-10.11"),
            with_model("uuid4:bin", "postgres-15"),
            with_model("auto-inc", "postgres-15"),
        ];
        assert_eq!(
            column_labels(&runs),
            [
                "uuid4:bin @ mariadb-10.11",
                "auto-inc @ mariadb-10.11",
                "uuid4:bin @ postgres-15",
                "auto-inc @ postgres-15"
            ]
        );
        // One model: labels as before.
        assert_eq!(column_labels(&runs[..2]), ["uuid4:bin", "auto-inc"]);
    }

    #[test]
    fn cells_that_do_not_tell_runs_apart_fall_back() {
        let runs =
            [run("a", "pk", 1, &[("method", "multi")]), run("a", "pk", 4, &[("method", "multi")])];
        assert_eq!(column_labels(&runs), ["a (1 writer)", "a (4 writers)"]);
    }
}
