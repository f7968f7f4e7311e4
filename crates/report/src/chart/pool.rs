//! The HTML report's buffer pool curves: misses (page reads) and page writes per 1,000
//! inserts against rows loaded, one line per run, from each run's `buffer_pool.curve`.
//! A chart with fewer than two points in every run is left out. Drawing is `chart.rs`.

use crate::chart::{line_chart, Line, Scale};
use crate::text::{decimal, group_thousands};
use keylab_core::Report;

/// The curves' charts: reads per 1,000 rows, and writes where an engine gives them.
pub(crate) fn pool_curves(report: &Report, labels: &[String]) -> Vec<String> {
    let lines = |y: fn(&keylab_core::PoolCurvePoint) -> Option<f64>| -> Vec<Line> {
        report
            .runs
            .iter()
            .zip(labels)
            .filter_map(|(r, label)| {
                let curve = r.buffer_pool.as_ref()?.curve.as_ref()?;
                let points: Vec<(f64, f64)> =
                    curve.iter().filter_map(|p| Some((p.rows as f64, y(p)?))).collect();
                (points.len() >= 2).then(|| Line { name: label.clone(), points })
            })
            .collect()
    };
    let count = |v: f64| group_thousands(v.round().max(0.0) as u64);
    let rate = |v: f64| decimal(v, 1);
    let mut charts = Vec::new();
    for (title, y, ls) in [
        (
            "Buffer pool: misses per 1,000 inserts vs rows loaded",
            "page reads / 1k rows",
            lines(|p| Some(p.reads_per_1k_rows)),
        ),
        (
            "Buffer pool: pages written per 1,000 inserts vs rows loaded",
            "page writes / 1k rows",
            lines(|p| p.writes_per_1k_rows),
        ),
    ] {
        if !ls.is_empty() {
            charts.push(line_chart(title, ("rows loaded", y), &ls, Scale::Linear, &count, &rate));
        }
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_run_with_a_curve() {
        let mut report: Report =
            serde_json::from_str(include_str!("../../tests/fixtures/sim_pool_curve.json")).unwrap();
        let labels = vec!["uuid4:text".to_string(), "uuid7:text".to_string()];
        let charts = pool_curves(&report, &labels);
        assert_eq!(charts.len(), 2, "reads and writes");
        assert_eq!(charts[0].matches("<polyline").count(), 2);
        // A run without a curve draws no line; none at all, no chart.
        report.runs[1].buffer_pool = None;
        assert_eq!(pool_curves(&report, &labels)[0].matches("<polyline").count(), 1);
        report.runs[0].buffer_pool = None;
        assert!(pool_curves(&report, &labels).is_empty());
    }
}
