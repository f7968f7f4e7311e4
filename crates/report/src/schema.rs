//! The `schema` section of a report (`keylab advise FILE.sql` over every table) as pieces of
//! the header every format draws (`settings.rs`): an opening line, the ranked table of
//! advised tables, the child foreign keys each parent's best candidate changes, how child
//! bytes are counted, and the refused tables with their reasons. CSV writes the section
//! as rows of its own (`csv_export.rs`); JSON keeps it as it is.

use crate::settings::{SettingsView, SubTable};
use crate::text::human_bytes;
use keylab_core::SchemaSummary;

/// What a missing figure shows.
const NONE: &str = "—";

/// Signed bytes in binary units: `+8.0 KiB`, `-1.5 MiB`, `0 B`.
pub(crate) fn signed_bytes(bytes: i64) -> String {
    let sign = match bytes {
        b if b > 0 => "+",
        b if b < 0 => "-",
        _ => "",
    };
    format!("{sign}{}", human_bytes(bytes.unsigned_abs()))
}

fn or_none<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or(NONE.to_string(), f)
}

/// Adds the schema summary to `view`.
pub(crate) fn extend_view(view: &mut SettingsView, s: &SchemaSummary) {
    let advised = s.tables.len();
    let intro = format!(
        "schema {} ({}): {advised} table(s) advised, {} refused; {} rows per table; candidates: {}",
        s.file,
        s.dialect,
        s.refused.len(),
        s.rows_per_table,
        s.candidates.join(", ")
    );
    view.lists.push(("Schema summary".into(), vec![intro]));
    // Rows in rank order (the CSV numbers them).
    let header = [
        "table",
        "current key",
        "best",
        "bytes now",
        "bytes best",
        "pages now",
        "pages best",
        "saved",
        "child bytes added",
        "saved with children",
    ];
    let rows = s
        .tables
        .iter()
        .map(|t| {
            vec![
                t.table.clone(),
                t.current_key.clone(),
                match (&t.best, &t.best_key_type) {
                    (Some(b), Some(ty)) => format!("{b} ({ty})"),
                    (Some(b), None) => b.clone(),
                    _ => t.note.clone().unwrap_or_else(|| NONE.into()),
                },
                or_none(t.bytes_now, human_bytes),
                or_none(t.bytes_best, human_bytes),
                or_none(t.pages_now, |p| p.to_string()),
                or_none(t.pages_best, |p| p.to_string()),
                or_none(t.bytes_saved, signed_bytes),
                or_none(t.child_bytes_added, signed_bytes),
                or_none(t.bytes_saved_with_children, signed_bytes),
            ]
        })
        .collect();
    view.tables.push(SubTable {
        name: "Tables, most bytes saved (children included) first".into(),
        header: header.iter().map(|h| h.to_string()).collect(),
        rows,
    });
    let children: Vec<Vec<String>> = s
        .tables
        .iter()
        .flat_map(|t| {
            t.children.iter().map(move |c| {
                vec![
                    t.table.clone(),
                    c.table.clone(),
                    c.columns.join(", "),
                    c.rows.to_string(),
                    format!("{:+}", c.width_change_bytes),
                    c.records
                        .iter()
                        .zip(&c.record_change_bytes)
                        .map(|(r, b)| format!("{r} {b:+}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    or_none(c.bytes_added, signed_bytes),
                ]
            })
        })
        .collect();
    if !children.is_empty() {
        let header = [
            "parent",
            "child",
            "columns",
            "rows",
            "column width",
            "records (bytes each)",
            "bytes added",
        ];
        view.tables.push(SubTable {
            name: "Children: what each parent's best candidate adds to its referencing columns"
                .into(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: children,
        });
    }
    view.lists.push(("How child bytes are counted".into(), vec![s.child_bytes_method.clone()]));
    if !s.refused.is_empty() {
        let lines = s
            .refused
            .iter()
            .map(|r| {
                let named = r.table.is_empty() || r.reason.contains(&format!("`{}`", r.table));
                match named {
                    true => format!("{}: {}", r.at, r.reason),
                    false => format!("{}: table `{}`: {}", r.at, r.table, r.reason),
                }
            })
            .collect();
        view.lists.push(("Refused tables".into(), lines));
    }
}

/// The CSV of the section: one row per table, advised (ranked) then refused, raw numbers.
pub(crate) fn csv_rows(s: &SchemaSummary) -> (Vec<String>, Vec<Vec<String>>) {
    let header = [
        "rank",
        "table",
        "status",
        "current_key",
        "best",
        "best_key_type",
        "bytes_now",
        "bytes_best",
        "pages_now",
        "pages_best",
        "bytes_saved",
        "child_bytes_added",
        "bytes_saved_with_children",
        "reason",
    ];
    let n = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let i = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut rows: Vec<Vec<String>> = s
        .tables
        .iter()
        .enumerate()
        .map(|(rank, t)| {
            vec![
                (rank + 1).to_string(),
                t.table.clone(),
                "advised".into(),
                t.current_key.clone(),
                t.best.clone().unwrap_or_default(),
                t.best_key_type.clone().unwrap_or_default(),
                n(t.bytes_now),
                n(t.bytes_best),
                n(t.pages_now),
                n(t.pages_best),
                i(t.bytes_saved),
                i(t.child_bytes_added),
                i(t.bytes_saved_with_children),
                t.note.clone().unwrap_or_default(),
            ]
        })
        .collect();
    for r in &s.refused {
        let mut row = vec![String::new(), r.table.clone(), "refused".into()];
        row.extend((0..10).map(|_| String::new()));
        row.push(format!("{}: {}", r.at, r.reason));
        rows.push(row);
    }
    (header.iter().map(|h| h.to_string()).collect(), rows)
}
