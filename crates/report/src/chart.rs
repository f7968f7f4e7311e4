//! Charts for the HTML report, drawn as inline SVG strings from plain numbers: horizontal bar
//! charts, grouped bar charts (several series per label), ten-bucket fill histograms and
//! line charts (one line per series over a numeric x axis, linear or logarithmic).
//!
//! Hand-written because no charting crate renders small, self-contained, deterministic SVG
//! to a string (plotters and charming pull in fonts, files or JavaScript). Output depends only
//! on the inputs: coordinates are printed with one decimal, no ids or timestamps. Styling is
//! by CSS class (`bar`, `s0`..`s9` fills, `l0`..`l9` lines, `na`, `axis`, `grid`), set by the page's stylesheet. A value of
//! `None` draws `n/a`, never a zero-length bar.
//!
//! This file only draws: which charts a report gets, from which figures, is picked in
//! `chart/data.rs` (phase lists, load dimensions) `chart/pool.rs` (buffer pool curves) and `chart/reads.rs`
//! (misses per read against pool size).

pub(crate) mod data;
pub(crate) mod pool;
pub(crate) mod reads;

use crate::text::escape_html as esc;
use std::fmt::Write;

/// Total width of a bar chart, px.
const WIDTH: f64 = 680.0;
/// Width reserved for labels on the left, px.
const LABEL_W: f64 = 230.0;
/// Width reserved for the value printed after the longest bar, px.
const VALUE_W: f64 = 110.0;
/// Height of the title band, px.
const TITLE_H: f64 = 30.0;

/// Number of series colours defined by the stylesheet (`s0`..`s9`, `l0`..`l9`).
const SERIES_CLASSES: usize = 10;

/// A horizontal bar chart: one bar per label, values printed with `show`.
pub fn bar_chart(
    title: &str,
    bars: &[(String, Option<f64>)],
    show: &dyn Fn(f64) -> String,
) -> String {
    let groups: Vec<(String, Vec<Option<f64>>)> =
        bars.iter().map(|(l, v)| (l.clone(), vec![*v])).collect();
    grouped_bar_chart(title, &[], &groups, show)
}

/// Bars for several series per label (e.g. p50, p99, max per variant). `series` names the
/// series for the legend; with no names there is one series and no legend.
pub fn grouped_bar_chart(
    title: &str,
    series: &[&str],
    groups: &[(String, Vec<Option<f64>>)],
    show: &dyn Fn(f64) -> String,
) -> String {
    let per_group = series.len().max(1);
    let bar_h = if per_group == 1 { 18.0 } else { 14.0 };
    let group_h = per_group as f64 * (bar_h + 2.0) + 8.0;
    let legend_h = if series.is_empty() { 0.0 } else { 20.0 };
    let top = TITLE_H + legend_h;
    let height = top + groups.len() as f64 * group_h + 6.0;
    let max = groups.iter().flat_map(|(_, v)| v.iter().flatten()).copied().fold(0.0_f64, f64::max);
    let area = WIDTH - LABEL_W - VALUE_W;

    let mut svg = open(title, WIDTH, height);
    if !series.is_empty() {
        let mut x = LABEL_W;
        for (i, name) in series.iter().enumerate() {
            let _ = write!(
                svg,
                r#"<rect class="s{}" x="{x:.1}" y="{:.1}" width="12" height="12"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                i % SERIES_CLASSES,
                TITLE_H - 2.0,
                x + 16.0,
                TITLE_H + 8.0,
                esc(name)
            );
            x += 24.0 + 8.0 * name.chars().count() as f64;
        }
    }
    for (g, (label, values)) in groups.iter().enumerate() {
        let y0 = top + g as f64 * group_h;
        let _ = write!(
            svg,
            r#"<text class="label" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LABEL_W - 8.0,
            y0 + (group_h - 8.0) / 2.0 + 4.0,
            esc(label)
        );
        for (s, value) in values.iter().enumerate() {
            let y = y0 + s as f64 * (bar_h + 2.0);
            let text_y = y + bar_h / 2.0 + 4.0;
            match value {
                Some(v) => {
                    let w = if max > 0.0 { v.max(0.0) / max * area } else { 0.0 };
                    let class = if series.is_empty() {
                        "bar".to_string()
                    } else {
                        format!("s{}", s % SERIES_CLASSES)
                    };
                    let tip = match series.get(s) {
                        Some(name) => format!("{label} {name}: {}", show(*v)),
                        None => format!("{label}: {}", show(*v)),
                    };
                    let _ = write!(
                        svg,
                        r#"<rect class="{class}" x="{LABEL_W:.1}" y="{y:.1}" width="{w:.1}" height="{bar_h:.1}"><title>{}</title></rect><text x="{:.1}" y="{text_y:.1}">{}</text>"#,
                        esc(&tip),
                        LABEL_W + w + 6.0,
                        esc(&show(*v))
                    );
                }
                None => {
                    let _ = write!(
                        svg,
                        r#"<text class="na" x="{:.1}" y="{text_y:.1}">n/a</text>"#,
                        LABEL_W + 2.0
                    );
                }
            }
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Leaf pages by fill in ten buckets of ten points (`[0,10)` … `[90,100]`), as vertical bars.
pub fn fill_histogram(title: &str, buckets: &[u64]) -> String {
    let (width, height) = (320.0, 190.0);
    let (x0, y0, plot_w, plot_h) = (44.0, TITLE_H + 6.0, 260.0, 110.0);
    let max = buckets.iter().copied().max().unwrap_or(0);
    let slot = plot_w / buckets.len().max(1) as f64;
    let total: u64 = buckets.iter().sum();
    let mut svg = open(title, width, height);
    let base = y0 + plot_h;
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{x0:.1}" y1="{base:.1}" x2="{:.1}" y2="{base:.1}"/><line class="axis" x1="{x0:.1}" y1="{y0:.1}" x2="{x0:.1}" y2="{base:.1}"/>"#,
        x0 + plot_w
    );
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{max}</text><text x="{:.1}" y="{base:.1}" text-anchor="end">0</text>"#,
        x0 - 4.0,
        y0 + 8.0,
        x0 - 4.0
    );
    for (i, &count) in buckets.iter().enumerate() {
        let h = if max > 0 { count as f64 / max as f64 * plot_h } else { 0.0 };
        let x = x0 + i as f64 * slot + 2.0;
        let low = i * 100 / buckets.len().max(1);
        let high = (i + 1) * 100 / buckets.len().max(1);
        let _ = write!(
            svg,
            r#"<rect class="bar" x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}"><title>{low}–{high}% full: {count} leaf pages</title></rect>"#,
            base - h,
            slot - 4.0
        );
    }
    for step in (0..=100).step_by(20) {
        let x = x0 + step as f64 / 100.0 * plot_w;
        let _ = write!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{step}</text>"#,
            base + 14.0
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">leaf fill % ({total} leaf pages)</text>"#,
        x0 + plot_w / 2.0,
        base + 32.0
    );
    svg.push_str("</svg>");
    svg
}

/// One line of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Legend name.
    pub name: String,
    /// `(x, y)` points, drawn in the order given.
    pub points: Vec<(f64, f64)>,
}

/// Axis scale of a line chart's x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values from 0.
    Linear,
    /// Powers of ten evenly spaced (batch sizes 100, 1,000, 10,000); x must be > 0.
    Log,
}

/// A line chart: y from 0 to a round maximum, x linear from 0 (or logarithmic), a legend on
/// the right, a dot with a tooltip at each point. `show_x`/`show_y` print tick labels.
pub fn line_chart(
    title: &str,
    axes: (&str, &str),
    lines: &[Line],
    x_scale: Scale,
    show_x: &dyn Fn(f64) -> String,
    show_y: &dyn Fn(f64) -> String,
) -> String {
    let (x0, plot_w, plot_h) = (64.0, 380.0, 200.0);
    let y0 = TITLE_H + 8.0;
    let legend_x = x0 + plot_w + 24.0;
    let legend_h = lines.len() as f64 * 16.0;
    let height = (y0 + plot_h + 44.0).max(y0 + legend_h + 8.0);
    let points = || lines.iter().flat_map(|l| l.points.iter());
    let y_max = nice_ceiling(points().map(|p| p.1).fold(0.0, f64::max));
    let (x_lo, x_hi) = match x_scale {
        Scale::Linear => (0.0, nice_ceiling(points().map(|p| p.0).fold(0.0, f64::max))),
        Scale::Log => {
            let xs: Vec<f64> = points().map(|p| p.0).filter(|x| *x > 0.0).collect();
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(0.0, f64::max);
            if xs.is_empty() {
                (1.0, 10.0)
            } else {
                (
                    10f64.powf(lo.log10().floor()),
                    10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
                )
            }
        }
    };
    let px = |x: f64| -> f64 {
        let t = match x_scale {
            Scale::Linear => {
                if x_hi > x_lo {
                    (x - x_lo) / (x_hi - x_lo)
                } else {
                    0.0
                }
            }
            Scale::Log => (x.max(x_lo).log10() - x_lo.log10()) / (x_hi.log10() - x_lo.log10()),
        };
        x0 + t * plot_w
    };
    let py = |y: f64| y0 + plot_h - if y_max > 0.0 { y / y_max * plot_h } else { 0.0 };

    let mut svg = open(title, WIDTH.max(legend_x + 200.0), height);
    let base = y0 + plot_h;
    // Grid and ticks: five steps on y; on x five linear steps or each power of ten.
    for i in 0..=5 {
        let v = y_max * f64::from(i) / 5.0;
        let y = py(v);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{x0:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            x0 + plot_w,
            x0 - 6.0,
            y + 4.0,
            esc(&show_y(v))
        );
    }
    let x_ticks: Vec<f64> = match x_scale {
        Scale::Linear => (0..=5).map(|i| x_lo + (x_hi - x_lo) * f64::from(i) / 5.0).collect(),
        Scale::Log => {
            let (a, b) = (x_lo.log10().round() as i32, x_hi.log10().round() as i32);
            (a..=b).map(|e| 10f64.powi(e)).collect()
        }
    };
    for x in x_ticks {
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            px(x),
            base + 16.0,
            esc(&show_x(x))
        );
    }
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{x0:.1}" y1="{base:.1}" x2="{:.1}" y2="{base:.1}"/><line class="axis" x1="{x0:.1}" y1="{y0:.1}" x2="{x0:.1}" y2="{base:.1}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text x="{:.1}" y="{:.1}">{}</text>"#,
        x0 + plot_w,
        x0 + plot_w / 2.0,
        base + 34.0,
        esc(axes.0),
        x0 - 60.0,
        y0 - 6.0,
        esc(axes.1)
    );
    for (i, line) in lines.iter().enumerate() {
        let class = i % SERIES_CLASSES;
        let path: Vec<String> =
            line.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let _ = write!(svg, r#"<polyline class="l{class}" points="{}"/>"#, path.join(" "));
        for &(x, y) in &line.points {
            let _ = write!(
                svg,
                r#"<circle class="s{class}" cx="{:.1}" cy="{:.1}" r="2.5"><title>{}: {} → {}</title></circle>"#,
                px(x),
                py(y),
                esc(&line.name),
                esc(&show_x(x)),
                esc(&show_y(y))
            );
        }
        let ly = y0 + 4.0 + i as f64 * 16.0;
        let _ = write!(
            svg,
            r#"<line class="l{class}" x1="{legend_x:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            legend_x + 16.0,
            legend_x + 22.0,
            ly + 4.0,
            esc(&line.name)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10ⁿ at or above `v` (0 stays 0), so
/// five ticks are round numbers and the plot is not mostly empty.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 0.0;
    }
    let magnitude = 10f64.powf(v.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|c| *c >= v * (1.0 - 1e-12))
        .unwrap_or(10.0 * magnitude)
}

/// The opening tag, accessible title and visible title. No `xmlns`: inline SVG in HTML does
/// not need it, and the page then names no URL at all.
fn open(title: &str, width: f64, height: f64) -> String {
    let t = esc(title);
    format!(
        r#"<svg class="chart" viewBox="0 0 {width:.0} {height:.0}" width="{width:.0}" height="{height:.0}" role="img" aria-label="{t}"><title>{t}</title><text class="title" x="0" y="18">{t}</text>"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(v: f64) -> String {
        format!("{v}")
    }

    #[test]
    fn bars_scale_to_the_largest_value() {
        let svg =
            bar_chart("pages", &[("a".into(), Some(100.0)), ("b".into(), Some(50.0))], &plain);
        let area = WIDTH - LABEL_W - VALUE_W;
        assert!(svg.contains(&format!(r#"width="{area:.1}""#)), "{svg}");
        assert!(svg.contains(&format!(r#"width="{:.1}""#, area / 2.0)), "{svg}");
    }

    #[test]
    fn missing_values_say_n_a_and_draw_no_bar() {
        let svg = bar_chart("splits", &[("a".into(), None), ("b".into(), Some(3.0))], &plain);
        assert_eq!(svg.matches("<rect").count(), 1);
        assert!(svg.contains(">n/a<"));
    }

    #[test]
    fn all_zero_or_empty_draws_no_nan() {
        let svg = bar_chart("x", &[("a".into(), Some(0.0))], &plain);
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        let svg = fill_histogram("h", &[0; 10]);
        assert!(!svg.contains("NaN"), "{svg}");
        let svg = fill_histogram("h", &[]);
        assert!(svg.ends_with("</svg>"));
    }

    #[test]
    fn text_is_escaped() {
        let svg = bar_chart("<b>&", &[("x<y".into(), Some(1.0))], &|_| "\"q\"".into());
        assert!(
            svg.contains("&lt;b&gt;&amp;")
                && svg.contains("x&lt;y")
                && svg.contains("&quot;q&quot;")
        );
        assert!(!svg.contains("<b>"));
    }

    #[test]
    fn histogram_has_ten_bars_with_tooltips() {
        let svg = fill_histogram("fill", &[0, 0, 0, 0, 2, 0, 0, 0, 0, 338]);
        assert_eq!(svg.matches("<rect").count(), 10);
        assert!(svg.contains("90–100% full: 338 leaf pages"));
        assert!(svg.contains("(340 leaf pages)"));
    }

    #[test]
    fn grouped_bars_have_a_legend_and_series_classes() {
        let groups = vec![("a".to_string(), vec![Some(1.0), Some(2.0), None])];
        let svg = grouped_bar_chart("lat", &["p50", "p99", "max"], &groups, &plain);
        assert!(svg.contains(">p50<") && svg.contains(r#"class="s1""#) && svg.contains(">n/a<"));
    }

    #[test]
    fn line_charts_draw_one_polyline_per_series() {
        let lines = vec![
            Line { name: "a".into(), points: vec![(0.0, 0.0), (100.0, 10.0)] },
            Line { name: "b<".into(), points: vec![(50.0, 3.0)] },
        ];
        let svg = line_chart("growth", ("rows", "pages"), &lines, Scale::Linear, &plain, &plain);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains(r#"class="l1""#) && svg.contains("b&lt;"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        let log = line_chart("t", ("batch", "rows/s"), &lines[..1], Scale::Log, &plain, &plain);
        assert!(!log.contains("NaN"), "{log}");
    }

    #[test]
    fn nice_ceilings_are_round() {
        assert_eq!(nice_ceiling(0.0), 0.0);
        assert_eq!(nice_ceiling(7.0), 8.0);
        assert_eq!(nice_ceiling(153.0), 200.0);
        assert_eq!(nice_ceiling(6000.0), 6000.0);
        assert_eq!(nice_ceiling(2000.0), 2000.0);
        assert_eq!(nice_ceiling(2100.0), 2500.0);
        assert_eq!(nice_ceiling(97.0), 100.0);
    }

    #[test]
    fn output_is_deterministic() {
        let a = fill_histogram("f", &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(a, fill_histogram("f", &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    }
}
