//! The PostgreSQL rows of the side-by-side table (`runs[].postgres`): WAL bytes and records,
//! full-page images, nbtree split records left and right, new roots, checkpoints, heap pages
//! and the collation text keys ran under.
//!
//! The section appears only when some run carries the extension (the postgres engine or the
//! `postgres-15` model), so InnoDB reports are drawn exactly as before; a figure the engine
//! cannot give (the model's WAL bytes) stays `—`. This module formats nothing itself;
//! `table.rs` owns the table model.

use crate::table::{Better, Builder, Value};
use keylab_core::{PostgresFigures, RunResult};

fn count(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Count)
}

/// Adds the `PostgreSQL` section when a run has PostgreSQL figures.
pub(crate) fn add_postgres_section(b: &mut Builder, runs: &[RunResult]) {
    if runs.iter().all(|r| r.postgres.is_none()) {
        return;
    }
    let pg = |r: &RunResult| r.postgres.clone().unwrap_or_default();
    let field = |f: fn(&PostgresFigures) -> Option<u64>| move |r: &RunResult| f(&pg(r));
    b.section("PostgreSQL");
    b.row("postgres.wal_bytes", "WAL bytes", Some(Better::Lower), |r| {
        pg(r).wal_bytes.map_or(Value::Null, Value::Bytes)
    });
    let wal_records = field(|p| p.wal_records);
    b.row("postgres.wal_records", "WAL records", Some(Better::Lower), |r| count(wal_records(r)));
    let fpi = field(|p| p.full_page_images);
    b.row("postgres.full_page_images", "full-page images", Some(Better::Lower), |r| count(fpi(r)));
    b.row("postgres.full_page_image_bytes", "full-page image bytes", Some(Better::Lower), |r| {
        pg(r).full_page_image_bytes.map_or(Value::Null, Value::Bytes)
    });
    // Left and right splits have no better direction on their own: their sum is page_splits.
    let left = field(|p| p.split_left);
    b.row("postgres.split_left", "split records, left", None, |r| count(left(r)));
    let right = field(|p| p.split_right);
    b.row("postgres.split_right", "split records, right", None, |r| count(right(r)));
    let roots = field(|p| p.new_roots);
    b.row("postgres.new_roots", "new roots", None, |r| count(roots(r)));
    let checkpoints = field(|p| p.checkpoints);
    b.row("postgres.checkpoints", "checkpoints", None, |r| count(checkpoints(r)));
    let heap = field(|p| p.heap_pages);
    b.row("postgres.heap_pages", "heap pages", Some(Better::Lower), |r| count(heap(r)));
    b.row("postgres.collation", "collation", None, |r| {
        pg(r).collation.map_or(Value::Null, Value::Text)
    });
}

#[cfg(test)]
mod tests {
    use crate::table::{MetricTable, Value};

    #[test]
    fn postgres_figures_get_their_own_section_only_where_a_run_has_them() {
        let innodb = crate::test_run(serde_json::json!({}));
        let report = crate::test_report;
        let table = MetricTable::from_report(&report(vec![innodb.clone()]));
        assert!(table.row("postgres.full_page_images").is_none(), "InnoDB only: no section");
        let pg = crate::test_run(serde_json::json!({"postgres": {
            "wal_bytes": null, "wal_records": null, "full_page_images": 272,
            "full_page_image_bytes": null, "split_left": 148, "split_right": 121,
            "new_roots": 2, "checkpoints": 1, "heap_pages": 541, "collation": "C"}}));
        let table = MetricTable::from_report(&report(vec![innodb, pg]));
        let fpi = table.row("postgres.full_page_images").unwrap();
        assert_eq!(fpi.cells[0].value, Value::Null, "an InnoDB run has no full-page images");
        assert_eq!(fpi.cells[1].value, Value::Count(272));
        assert_eq!(
            table.row("postgres.collation").unwrap().cells[1].value,
            Value::Text("C".into())
        );
        assert!(table.row("postgres.wal_bytes").unwrap().all_null(), "unknown stays null");
    }
}
