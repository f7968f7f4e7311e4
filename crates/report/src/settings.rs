//! The engine settings of a report's header, in a shape every format can draw: plain values as
//! one `name=value` line, lists (an engine's notes) as lists, and nested objects (a server's
//! per-table file I/O under `table_file_writes`) as small tables, never as raw JSON.
//!
//! It does not decide which settings an engine reports, and it does not format them per
//! format: the terminal, Markdown and HTML renderers draw these pieces. CSV has no header
//! (one line of column names for spreadsheets), and JSON keeps the settings as they are.

use keylab_core::Report;
use serde_json::Value as Json;

/// The settings of a report header, sorted into what each format draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SettingsView {
    /// `settings: name=value, ...` over the plain values; `None` when there are none.
    pub line: Option<String>,
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

/// The settings of `report` sorted into a line, lists and tables.
pub(crate) fn settings_view(report: &Report) -> SettingsView {
    let mut view = SettingsView::default();
    let mut pairs = Vec::new();
    for (name, value) in &report.engine.settings {
        match value {
            Json::Array(items) => view.lists.push((name.clone(), items.iter().map(text).collect())),
            Json::Object(entries) => view.tables.push(sub_table(name, entries)),
            other => pairs.push(format!("{name}={}", text(other))),
        }
    }
    if !pairs.is_empty() {
        view.line = Some(format!("settings: {}", pairs.join(", ")));
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
    fn nested_settings_become_tables_and_lists() {
        let view = settings_view(&report(json!({
            "innodb_page_size": 16384,
            "innodb_change_buffering": "none",
            "notes": ["first note", "second note"],
            "table_file_writes": {
                "t_a": {"io_write_requests": 10, "io_write_bytes": 163840},
                "t_b": null
            }
        })));
        assert_eq!(
            view.line.as_deref(),
            Some("settings: innodb_change_buffering=none, innodb_page_size=16384")
        );
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
        let view = settings_view(&report(json!({"limits": {"a": 1, "b": "x"}})));
        assert_eq!(view.line, None);
        assert_eq!(view.tables[0].header, ["name", "value"]);
        assert_eq!(view.tables[0].rows, [vec!["a", "1"], vec!["b", "x"]]);
    }
}
