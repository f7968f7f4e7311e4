//! Golden-file tests: every format rendered from fixed result files (`tests/fixtures/*.json`)
//! with a fixed [`RenderContext`], compared with the snapshots in `tests/snapshots/`.
//! `e1_scenario` and `e5_scenario` are real simulator runs (`keylab run e1-uuid-vs-ulid
//! --scale 0.02`, `keylab run e5-fill-factor-churn --scale 0.005`, with the scenarios' rows
//! as they were then), with load samples, churn rounds and phases the simulator cannot run.
//! `e4_pool` is `keylab run e4-change-buffer --scale 0.001`: buffer pool, change buffer and
//! estimated I/O figures. `advise_sim` is `keylab advise tests/fixtures/advise/orders.sql
//! --rows 3000`, `advise_server` the same of `accounts.sql` with `--keys uuid7:bin,auto-inc
//! --engine mariadb` (advice phases, notes at file:line:column, a recommendation);
//! `advise_pg` is `keylab advise tests/fixtures/advise/pg_users.sql --rows 3000 --keys
//! auto-inc,uuid7:bin` (the nbtree model of PostgreSQL 15), `advise_pg_fillfactor` the same of
//! `pg_users_fillfactor.sql` (the user's table and index fillfactors applied: notes at their
//! places, `table_fillfactor` and the nested `index_fillfactor_by_index` settings).
//! `advise_schema` is `keylab advise shop.sql --rows 3000` run in `tests/fixtures/advise/`
//! (every table of a schema file: the `schema` section, no runs; the CLI test
//! `advise::schema::the_summary_is_the_golden_fixture` keeps it equal to the command's output).
//! `sim_pool_curve` is `keylab compare --keys uuid4:text,uuid7:text
//! --rows 200000 --buffer-pool 6M`: the buffer pool curve and its reading (its
//! `index_pages_read`, 107,756 of 108,302 pages read, was added by hand from the same command
//! run on the code of 2026-11-28, whose other pool figures were unchanged). `sim_two_models`
//! is `keylab compare --keys uuid4:bin,uuid7:bin,auto-inc --rows 20000 --model
//! mariadb-10.11,postgres-15`: runs of two models, labelled and ranked by model, the
//! PostgreSQL section and the cross-engine reading. `sharded` is `keylab compare --keys
//! seq,uuid4:bin --rows 6000 --engine mariadb --shards 2`: a measured run on a private Spider
//! head over two private backends (its timings are one run's on a shared machine). Both were
//! regenerated from the code of 2026-11-27 (MariaDB 10.11.19 for `sharded`). The load
//! checks (`verification`) and `server_load`'s nested settings were added by hand when those
//! fields appeared.
//! `sim_reads` is `keylab compare --keys uuid4:bin,uuid7:bin --rows 100000 --buffer-pool 6M
//! --reads point:10000:latest=5%,point:10000:zipf=0.99 --mix 10%:point:10000:latest=5%
//! --pool-sizes 6M,16M,32M` (code
//! of 2026-11-28): a reads phase per spec with its curve and the pool for a 99% hit ratio, a
//! mixed phase, and the reading's read locality.
//! `server_repeats` is `keylab compare --engine mariadb --rows 3000 --keys auto-inc,uuid4:text
//! --repeat 3` (MariaDB 10.11.19, 2026-11-28): each variant run three times, its timings folded
//! into medians with their spread (the Repeats section, the reading's "beyond the spread"), and
//! the structural figures that differed across repeats named.
//! `advise_workload` is `keylab advise benchbase-twitter-postgres.sql --table tweets --rows
//! 3000 --workload 10%:point:3000:latest=5%,secondary:300 --buffer-pool 256K --keys
//! uuid4:bin,uuid7:bin` on the corpus file (code of 2026-11-28; the CLI test
//! `advise::workload::the_workload_report_is_the_golden_fixture` keeps it equal to the
//! command's output): a reads and a mixed phase per candidate, the advice phase's workload
//! figures and curve, the verdict's workload line and the recommendation's rule.
//! `sharded`'s wall-clock figures are replaced by fixed ones before rendering (see
//! [`FIXED_TIMINGS`]), so regenerating it changes the snapshots only where other figures do.
//! Update them with `INSTA_UPDATE=always cargo test -p keylab-report` (or `cargo insta`) and
//! review the diff.

use keylab_report::{load_report, render_to_string, Format, RenderContext, Report};
use std::path::PathBuf;

const FIXTURES: [&str; 18] = [
    "sim_compare_4",
    "server_load",
    "null_heavy",
    "single_variant",
    "e1_scenario",
    "e5_scenario",
    "e4_pool",
    "advise_sim",
    "advise_server",
    "advise_pg",
    "advise_pg_fillfactor",
    "sim_pool_curve",
    "sharded",
    "sim_two_models",
    "advise_schema",
    "sim_reads",
    "server_repeats",
    "advise_workload",
];

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(format!("{name}.json"))
}

fn fixture(name: &str) -> Report {
    load_report(fixture_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn ctx() -> RenderContext {
    RenderContext {
        color: false,
        generated_at: Some("2025-01-01T00:00:00Z".to_string()),
        ..Default::default()
    }
}

/// Fixtures of real server runs whose wall-clock figures are one run's on a shared machine:
/// they change, and can reorder the runs, at every regeneration. Before rendering, each run's
/// load wall time, rows/s, batch latencies, first and other batches and server statement time
/// are replaced by fixed ones (run `i` takes `(i + 1)` x 100 ms); every other figure is
/// rendered as measured, and the fixture file itself keeps what was measured.
const FIXED_TIMINGS: [&str; 1] = ["sharded"];

/// Replaces the measured wall-clock figures of `report`'s runs (see [`FIXED_TIMINGS`]).
fn fix_timings(report: &mut Report) {
    for (i, run) in report.runs.iter_mut().enumerate() {
        let load = &mut run.load;
        if load.wall_s.is_none() {
            continue;
        }
        let step = (i + 1) as f64;
        let wall_s = 0.1 * step;
        load.wall_s = Some(wall_s);
        load.rows_per_s = Some(run.rows as f64 / wall_s);
        let (p50, p99) = (10.0 * step, 20.0 * step);
        if let Some(l) = load.batch_latency_ms.as_mut() {
            (l.p50, l.p99, l.max) = (p50, p99, p99);
        }
        if let Some(first) = load.first_batch_ms.as_mut() {
            first.iter_mut().for_each(|ms| *ms = p99);
        }
        if let Some(others) = load.other_batch_p50_ms.as_mut() {
            others.iter_mut().flatten().for_each(|ms| *ms = p50);
        }
        if let Some(ms) = load.server_statement_ms.as_mut() {
            *ms = 500.0 * wall_s;
        }
    }
}

fn snapshot(name: &str, format: Format) {
    let mut report = fixture(name);
    if FIXED_TIMINGS.contains(&name) {
        fix_timings(&mut report);
    }
    let out = render_to_string(&report, format, &ctx());
    insta::assert_snapshot!(format!("{name}.{}", format.extension()), out);
}

macro_rules! golden {
    ($($test:ident => $name:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            for format in Format::ALL {
                snapshot($name, format);
            }
        }
    )*};
}

golden! {
    sim_compare_4 => "sim_compare_4",
    server_load => "server_load",
    null_heavy => "null_heavy",
    single_variant => "single_variant",
    e1_scenario => "e1_scenario",
    e5_scenario => "e5_scenario",
    e4_pool => "e4_pool",
    advise_sim => "advise_sim",
    advise_server => "advise_server",
    advise_pg => "advise_pg",
    advise_pg_fillfactor => "advise_pg_fillfactor",
    sim_pool_curve => "sim_pool_curve",
    sharded => "sharded",
    sim_two_models => "sim_two_models",
    advise_schema => "advise_schema",
    sim_reads => "sim_reads",
    server_repeats => "server_repeats",
    advise_workload => "advise_workload",
}

#[test]
fn json_round_trips_byte_identical() {
    for name in FIXTURES {
        let text = std::fs::read_to_string(fixture_path(name)).unwrap();
        let out = render_to_string(&fixture(name), Format::Json, &ctx());
        assert_eq!(out, text, "{name}: JSON → Report → JSON changed the bytes");
    }
}

#[test]
fn null_figures_stay_null_in_json_and_empty_in_csv() {
    let report = fixture("null_heavy");
    let json = render_to_string(&report, Format::Json, &ctx());
    assert!(json.contains("\"page_splits\": null"));
    let csv = render_to_string(&report, Format::Csv, &ctx());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "counters.page_splits").unwrap();
    assert_eq!(first[col], "", "null must be an empty cell, not 0");
}

#[test]
fn terminal_never_shows_null_as_zero() {
    let table = render_to_string(&fixture("null_heavy"), Format::Table, &ctx());
    assert!(table.contains("—"), "{table}");
    assert!(table.contains("n/a on this engine"), "{table}");
    assert!(!table.contains("│   page splits"), "an all-null row is listed, not drawn:\n{table}");
}

#[test]
fn html_is_self_contained() {
    for name in FIXTURES {
        let html = render_to_string(&fixture(name), Format::Html, &ctx());
        for banned in ["<script", "http://", "https://", "<link", "@import", "src="] {
            assert!(!html.contains(banned), "{name}: HTML contains {banned}");
        }
        assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
    }
}

#[test]
fn html_escapes_report_text() {
    let mut report = fixture("single_variant");
    report.scenario = "<script>alert(1)</script>".to_string();
    report.runs[0].variant = "a&b".to_string();
    let html = render_to_string(&report, Format::Html, &ctx());
    assert!(!html.contains("<script>"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("a&amp;b"));
}

#[test]
fn sim_reports_say_simulated_never_measured() {
    for name in ["sim_compare_4", "single_variant"] {
        for format in [Format::Table, Format::Markdown, Format::Html] {
            let out = render_to_string(&fixture(name), format, &ctx());
            assert!(out.contains("simulated"), "{name} {format}");
            assert!(!out.contains("Figures measured"), "{name} {format}");
            assert!(!out.contains("measured figures"), "{name} {format}");
        }
    }
}

#[test]
fn color_only_when_asked() {
    let report = fixture("sim_compare_4");
    let plain = render_to_string(&report, Format::Table, &ctx());
    assert!(!plain.contains('\u{1b}'));
    let colored = render_to_string(&report, Format::Table, &RenderContext { color: true, ..ctx() });
    assert!(colored.contains('\u{1b}'));
}

#[test]
fn rendering_is_deterministic() {
    for name in FIXTURES {
        for format in Format::ALL {
            let a = render_to_string(&fixture(name), format, &ctx());
            let b = render_to_string(&fixture(name), format, &ctx());
            assert_eq!(a, b, "{name} {format}");
        }
    }
}

#[test]
fn empty_report_renders_in_every_format() {
    let mut report = fixture("single_variant");
    report.runs.clear();
    for format in Format::ALL {
        let out = render_to_string(&report, format, &ctx());
        assert!(!out.is_empty(), "{format}");
    }
}

/// The terminal format fitted to 80 and 120 columns: every fixture's lines fit, and two are
/// kept as snapshots (`sim_compare_4`: four variants; `advise_sim`: six candidates).
#[test]
fn terminal_fits_80_and_120_columns() {
    for width in [80, 120] {
        let fitted = RenderContext { width: Some(width), ..ctx() };
        for name in FIXTURES {
            let out = render_to_string(&fixture(name), Format::Table, &fitted);
            let long: Vec<&str> = out.lines().filter(|l| l.chars().count() > width).collect();
            assert!(long.is_empty(), "{name} at {width}: lines too long:\n{}", long.join("\n"));
        }
    }
    let at_80 = RenderContext { width: Some(80), ..ctx() };
    for name in ["sim_compare_4", "advise_sim"] {
        let out = render_to_string(&fixture(name), Format::Table, &at_80);
        insta::assert_snapshot!(format!("{name}.80.txt"), out);
    }
}

/// Every fixture's verdict has one to three lines and heads the terminal reading, the
/// Markdown and the HTML report.
#[test]
fn every_report_opens_with_a_verdict() {
    for name in FIXTURES {
        let report = fixture(name);
        let verdict = keylab_report::verdict(&report);
        assert!((1..=keylab_report::MAX_VERDICT_LINES).contains(&verdict.len()), "{name}");
        let table = render_to_string(&report, Format::Table, &ctx());
        let first = table.lines().skip_while(|l| *l != "Verdict:").nth(1).unwrap_or("");
        assert!(first.starts_with("* "), "{name}: no verdict under the headline:\n{table}");
        let html = render_to_string(&report, Format::Html, &ctx());
        let at = |needle: &str| html.find(needle).unwrap_or(usize::MAX);
        assert!(at("<ul class=\"verdict\">") < at("<h2>Reading</h2>"), "{name}");
        assert!(at("<ul class=\"verdict\">") < at("<table class=\"metrics\">"), "{name}");
    }
}

/// Settings at keylab's defaults are left out unless asked for (`--verbose`).
#[test]
fn verbose_lists_every_setting() {
    let report = fixture("e1_scenario");
    let short = render_to_string(&report, Format::Table, &ctx());
    assert!(!short.contains("innodb_page_size=16384"), "{short}");
    assert!(short.contains("--verbose lists them"), "{short}");
    let all = render_to_string(&report, Format::Table, &RenderContext { verbose: true, ..ctx() });
    let page = all.lines().find(|l| l.starts_with("page: ")).unwrap_or_default();
    assert!(page.contains("innodb_page_size=16384"), "{all}");
}
