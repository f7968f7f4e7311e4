//! The HTML report in a real headless browser (Debian's `chromium`): every fixture's page
//! loads from a file with no network, a screenshot is produced, the browser parsed every
//! inline SVG chart as an element, and the console shows no script error.
//!
//! Skipped (with a note on stderr) when no browser is installed; set
//! `KEYLAB_REQUIRE_BROWSER=1` to make a missing browser a failure, and `KEYLAB_CHROMIUM` to
//! point at a browser binary.

use keylab_report::{load_report, render_to_string, Format, RenderContext};
use std::path::{Path, PathBuf};
use std::process::Command;

fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("KEYLAB_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let dirs = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"]
        .iter()
        .flat_map(|name| std::env::split_paths(&dirs).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

fn run(browser: &Path, profile: &Path, args: &[&str], page: &Path) -> std::process::Output {
    Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .args(["--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("browser runs")
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let Some(browser) = browser() else {
        assert!(std::env::var_os("KEYLAB_REQUIRE_BROWSER").is_none(), "no chromium found");
        eprintln!("skipped: no chromium on PATH (set KEYLAB_CHROMIUM to run the browser check)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ctx = RenderContext { color: false, generated_at: None };
    let fixtures = [
        "sim_compare_4",
        "server_load",
        "null_heavy",
        "single_variant",
        "e1_scenario",
        "e5_scenario",
    ];
    for name in fixtures {
        let fixture =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.json"));
        let html = render_to_string(&load_report(fixture).unwrap(), Format::Html, &ctx);
        let page = dir.path().join(format!("{name}.html"));
        std::fs::write(&page, &html).unwrap();
        let profile = dir.path().join(format!("profile-{name}"));

        let shot = dir.path().join(format!("{name}.png"));
        let out = run(
            &browser,
            &profile,
            &["--window-size=1200,2400", &format!("--screenshot={}", shot.display())],
            &page,
        );
        let png = std::fs::read(&shot).unwrap_or_else(|_| {
            panic!("{name}: no screenshot; stderr:\n{}", String::from_utf8_lossy(&out.stderr))
        });
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "{name}: not a PNG");

        let out = run(&browser, &profile, &["--dump-dom"], &page);
        let dom = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let charts = html.matches("<svg class=\"chart\"").count();
        assert!(charts > 0, "{name}: no charts");
        assert_eq!(
            dom.matches("<svg class=\"chart\"").count(),
            charts,
            "{name}: charts lost in parsing"
        );
        assert!(dom.contains("<table class=\"metrics\">"), "{name}: table lost in parsing");
        for error in ["Uncaught", "SyntaxError", "ReferenceError"] {
            assert!(!stderr.contains(error), "{name}: script error in console:\n{stderr}");
        }
    }
}
