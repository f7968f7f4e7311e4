//! The HTML report's read-locality curves: misses per 1,000 reads against buffer pool size,
//! one chart per read spec and one line per run, from each run's `reads` phase `pool_curve`
//! (`compare --reads ... --pool-sizes` / `--hit-target`, models only). A spec with fewer than
//! two sizes in every run draws no chart. Drawing is `chart.rs`.

use crate::chart::{line_chart, Line, Scale};
use crate::text::decimal;
use keylab_core::{PhaseResult, Report};

/// One chart per read spec that some run has a curve for.
pub(crate) fn read_curves(report: &Report, labels: &[String]) -> Vec<String> {
    // Specs in first-seen order, with each run's points (pool MiB, misses per 1,000 reads).
    let mut specs: Vec<(String, Vec<Line>)> = Vec::new();
    for (run, label) in report.runs.iter().zip(labels) {
        for phase in &run.phases {
            let PhaseResult::Reads(p) = phase else { continue };
            let (Some(curve), Some(figures)) = (p.pool_curve.get(), p.specs.get()) else {
                continue;
            };
            for (i, f) in figures.iter().enumerate() {
                let Some(spec) = f.spec.get() else { continue };
                let points: Vec<(f64, f64)> = curve
                    .iter()
                    .filter_map(|c| {
                        let misses = (*c.misses_per_1000_reads.get()?.get(i)?)?;
                        let mib = *c.pool_bytes.get()? as f64 / (1024.0 * 1024.0);
                        Some((mib, misses))
                    })
                    .collect();
                if points.len() < 2 {
                    continue;
                }
                let line = Line { name: label.clone(), points };
                match specs.iter_mut().find(|(s, _)| s == spec) {
                    Some((_, lines)) => lines.push(line),
                    None => specs.push((spec.clone(), vec![line])),
                }
            }
        }
    }
    let mib = |v: f64| format!("{} MiB", decimal(v, 1));
    let rate = |v: f64| decimal(v, 1);
    specs
        .iter()
        .map(|(spec, lines)| {
            line_chart(
                &format!("Reads {spec}: misses per 1,000 reads vs buffer pool size"),
                ("buffer pool", "page reads / 1k reads"),
                lines,
                Scale::Linear,
                &mib,
                &rate,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_chart_per_spec_one_line_per_run() {
        let report: Report =
            serde_json::from_str(include_str!("../../tests/fixtures/sim_reads.json")).unwrap();
        let labels: Vec<String> = (0..report.runs.len()).map(|i| format!("run {i}")).collect();
        let charts = read_curves(&report, &labels);
        assert!(!charts.is_empty(), "the fixture has a pool curve");
        for c in &charts {
            assert!(c.contains("misses per 1,000 reads vs buffer pool size"), "{c}");
            assert_eq!(c.matches("<polyline").count(), report.runs.len(), "a line per run");
        }
        // Without curves, no chart.
        let mut bare = report.clone();
        for run in &mut bare.runs {
            for phase in &mut run.phases {
                if let PhaseResult::Reads(p) = phase {
                    p.pool_curve = keylab_core::Figure::Absent;
                }
            }
        }
        assert!(read_curves(&bare, &labels).is_empty());
    }
}
