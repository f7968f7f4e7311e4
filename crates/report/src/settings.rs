//! The engine settings of a report's header, in a shape every format can draw: plain values as
//! one line per group (`page: innodb_page_size=4096`, `cache: ...`), lists (an engine's notes)
//! as lists, and nested objects (a server's per-table file I/O under `table_file_writes`) as
//! small tables, never as raw JSON. Unless asked for every setting (`--verbose`), a plain
//! setting at keylab's default for its engine is left out: the header shows what this run
//! changed. A setting this module does not know is always shown.
//!
//! It does not decide which settings an engine reports, and it does not format them per
//! format: the terminal, Markdown and HTML renderers draw these pieces. CSV has no header
//! (one line of column names for spreadsheets), and JSON keeps the settings as they are.

use keylab_core::Report;
use serde_json::Value as Json;

/// The settings of a report header, sorted into what each format draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SettingsView {
    /// One line per group of plain values (`page: innodb_page_size=4096, ...`); a single
    /// `settings: ...` line saying so when every one is at its default.
    pub lines: Vec<String>,
    /// Settings whose value is a list (`notes`): name and the items as text.
    pub lists: Vec<(String, Vec<String>)>,
    /// Settings whose value is an object: one table each.
    pub tables: Vec<SubTable>,
}

/// A nested setting drawn as a table: the first column names the entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SubTable {
    /// The setting's name (`table_file_writes`).
    pub name: String,
    /// Column headers, the entry column first.
    pub header: Vec<String>,
    /// One row per entry, as many cells as `header`.
    pub rows: Vec<Vec<String>>,
}

/// What a missing or null cell shows (as in the metric tables).
const NONE: &str = "—";

/// The groups plain settings are shown in, in order, with the names (or name prefixes, ending
/// in `_`) that belong to each; anything else is in `other`.
const GROUPS: [(&str, &[&str]); 5] = [
    (
        "page",
        &[
            "page_size",
            "innodb_page_size",
            "block_size",
            "row_format",
            "innodb_default_row_format",
            "innodb_fill_factor",
            "merge_threshold_pct",
            "index_fillfactor",
            "table_fillfactor",
            "deduplicate_items",
            "collation",
        ],
    ),
    (
        "cache",
        &[
            "buffer_pool_bytes",
            "innodb_buffer_pool_size",
            "innodb_change_buffering",
            "shared_buffers",
            "page_cleaner",
            "innodb_lru_scan_depth",
            "innodb_random_read_ahead",
            "innodb_read_ahead_threshold",
        ],
    ),
    (
        "durability",
        &[
            "checkpoint_every_rows",
            "full_page_writes",
            "innodb_doublewrite",
            "innodb_flush_log_at_trx_commit",
            "innodb_flush_method",
            "innodb_log_file_size",
        ],
    ),
    (
        "load",
        &["innodb_autoinc_lock_mode", "writer_interleave", "local_infile", "max_allowed_packet"],
    ),
    (
        "server",
        &["instance", "database", "server_cores", "performance_schema", "index_page_counters"],
    ),
];

/// keylab's defaults for the settings it sets itself, as the report shows them: what a run
/// without flags reports (the simulator's `unbounded` pool, MariaDB 10.11's 16 KiB pages
/// and `innodb_change_buffering=none`, PostgreSQL's 8 KiB blocks and fillfactors). A value that
/// starts with the text given counts as the default (`on (not modelled: unique ids)`).
const DEFAULTS: [(&str, &str); 14] = [
    ("figures", "simulated"),
    ("innodb_page_size", "16384"),
    ("page_size", "16384"),
    ("row_format", "DYNAMIC"),
    ("innodb_fill_factor", "100"),
    ("merge_threshold_pct", "50"),
    ("innodb_buffer_pool_size", "unbounded"),
    ("innodb_change_buffering", "none"),
    ("block_size", "8192"),
    ("index_fillfactor", "90"),
    ("table_fillfactor", "100"),
    ("full_page_writes", "on"),
    ("checkpoint_every_rows", "none"),
    ("deduplicate_items", "on"),
];

/// Whether `name=value` is keylab's default for it.
fn is_default(name: &str, value: &str) -> bool {
    DEFAULTS.iter().any(|(n, v)| *n == name && value.starts_with(v))
}

/// The group a plain setting is shown in.
fn group_of(name: &str) -> &'static str {
    GROUPS.iter().find(|(_, names)| names.contains(&name)).map_or("other", |(group, _)| group)
}

/// The settings of `report` sorted into lines, lists and tables; every plain setting with
/// `verbose`, else those not at their default.
pub(crate) fn settings_view(report: &Report, verbose: bool) -> SettingsView {
    let mut view = SettingsView::default();
    let mut groups: Vec<(&str, Vec<String>)> =
        GROUPS.iter().map(|(g, _)| (*g, Vec::new())).chain([("other", Vec::new())]).collect();
    let mut hidden = 0;
    for (name, value) in &report.engine.settings {
        match value {
            Json::Array(items) => view.lists.push((name.clone(), items.iter().map(text).collect())),
            Json::Object(entries) => view.tables.push(sub_table(name, entries)),
            other => {
                let value = text(other);
                if !verbose && is_default(name, &value) {
                    hidden += 1;
                    continue;
                }
                let group = group_of(name);
                if let Some((_, pairs)) = groups.iter_mut().find(|(g, _)| *g == group) {
                    pairs.push(format!("{name}={value}"));
                }
            }
        }
    }
    for (group, pairs) in groups.into_iter().filter(|(_, p)| !p.is_empty()) {
        view.lines.push(format!("{group}: {}", pairs.join(", ")));
    }
    if hidden > 0 {
        let what = if view.lines.is_empty() {
            "settings: keylab's defaults"
        } else {
            "other settings at keylab's defaults"
        };
        view.lines.push(format!("{what} ({hidden}; --verbose lists them)"));
    }
    if let Some(schema) = &report.schema {
        crate::schema::extend_view(&mut view, schema);
    }
    view
}

/// An object of objects (entry → figures) becomes one row per entry and one column per
/// figure; any other object becomes `name | value` rows.
fn sub_table(name: &str, entries: &serde_json::Map<String, Json>) -> SubTable {
    let nested = entries.values().all(|v| v.is_object() || v.is_null())
        && entries.values().any(Json::is_object);
    if !nested {
        return SubTable {
            name: name.to_string(),
            header: vec!["name".into(), "value".into()],
            rows: entries.iter().map(|(k, v)| vec![k.clone(), text(v)]).collect(),
        };
    }
    let mut columns: Vec<String> = Vec::new();
    for figures in entries.values().filter_map(Json::as_object) {
        for key in figures.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    let rows = entries
        .iter()
        .map(|(entry, figures)| {
            let mut row = vec![entry.clone()];
            row.extend(columns.iter().map(|c| figures.get(c).map_or(NONE.into(), text)));
            row
        })
        .collect();
    let mut header = vec!["entry".to_string()];
    header.extend(columns);
    SubTable { name: name.to_string(), header, rows }
}

/// A value as text: strings bare, null as `—`, numbers and booleans as written, anything
/// deeper as compact JSON (no engine reports deeper settings today).
fn text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Null => NONE.into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(settings: Json) -> Report {
        serde_json::from_value(json!({
            "keylab": "0", "scenario": "s", "seed": 1,
            "engine": {"kind": "mariadb", "version": "v", "settings": settings},
            "runs": []
        }))
        .unwrap()
    }

    #[test]
    fn plain_settings_are_grouped_and_defaults_left_out() {
        let settings = json!({
            "innodb_page_size": 4096,
            "innodb_change_buffering": "none",
            "innodb_buffer_pool_size": 6291456,
            "server_cores": 2,
            "mystery": "x"
        });
        let view = settings_view(&report(settings.clone()), false);
        assert_eq!(
            view.lines,
            [
                "page: innodb_page_size=4096",
                "cache: innodb_buffer_pool_size=6291456",
                "server: server_cores=2",
                "other: mystery=x",
                "other settings at keylab's defaults (1; --verbose lists them)",
            ]
        );
        let all = settings_view(&report(settings), true);
        assert_eq!(
            all.lines[1],
            "cache: innodb_buffer_pool_size=6291456, innodb_change_buffering=none"
        );
        let defaults = settings_view(&report(json!({"innodb_page_size": 16384})), false);
        assert_eq!(defaults.lines, ["settings: keylab's defaults (1; --verbose lists them)"]);
    }

    #[test]
    fn nested_settings_become_tables_and_lists() {
        let view = settings_view(
            &report(json!({
                "innodb_page_size": 16384,
                "innodb_change_buffering": "none",
                "notes": ["first note", "second note"],
                "table_file_writes": {
                    "t_a": {"io_write_requests": 10, "io_write_bytes": 163840},
                    "t_b": null
                }
            })),
            false,
        );
        assert_eq!(view.lines, ["settings: keylab's defaults (2; --verbose lists them)"]);
        assert_eq!(
            view.lists,
            vec![("notes".into(), vec!["first note".into(), "second note".into()])]
        );
        let t = &view.tables[0];
        assert_eq!(t.name, "table_file_writes");
        assert_eq!(t.header, ["entry", "io_write_bytes", "io_write_requests"]);
        assert_eq!(t.rows, [vec!["t_a", "163840", "10"], vec!["t_b", "—", "—"]]);
    }

    #[test]
    fn a_flat_object_is_a_name_value_table() {
        let view = settings_view(&report(json!({"limits": {"a": 1, "b": "x"}})), false);
        assert!(view.lines.is_empty());
        assert_eq!(view.tables[0].header, ["name", "value"]);
        assert_eq!(view.tables[0].rows, [vec!["a", "1"], vec!["b", "x"]]);
    }
}
