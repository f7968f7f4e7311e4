//! The HTML report in a real headless browser (Debian's `chromium`): every fixture's page
//! loads from a file with no network, a screenshot is produced, the browser parsed every
//! inline SVG chart as an element, and the console shows no script error. Then, at a laptop's
//! width (1280 px) and a phone's (390 px), a screenshot is taken and checked (a PNG of that
//! width), and a copy of the page with a small measuring script appended says whether
//! anything overflows the width (`scrollWidth <= innerWidth`) and whether the verdict is
//! within the first screen. The report itself has no script; only the test's copy does.
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
    let ctx = RenderContext { color: false, generated_at: None, ..Default::default() };
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
        for (width, height) in VIEWPORTS {
            check_layout(&browser, dir.path(), name, &html, width, height);
        }
    }
}

/// A laptop's and a phone's viewport, in CSS pixels.
const VIEWPORTS: [(u32, u32); 2] = [(1280, 800), (390, 844)];

/// Appended to a copy of the page: measures the layout and writes it into the page, where
/// `--dump-dom` shows it.
const MEASURE: &str = r#"<script>
(function () {
  var v = document.querySelector("ul.verdict").getBoundingClientRect();
  var out = document.createElement("pre");
  out.id = "layout-check";
  out.textContent = "scroll=" + document.documentElement.scrollWidth + " inner=" + innerWidth +
    " verdict_top=" + Math.round(v.top) + " verdict_bottom=" + Math.round(v.bottom) +
    " height=" + innerHeight;
  document.body.appendChild(out);
})();
</script>"#;

/// The numbers `MEASURE` wrote, by name.
fn measured(dom: &str, name: &str) -> Option<i64> {
    let marker = "id=\"layout-check\">";
    let text = &dom[dom.find(marker)? + marker.len()..];
    let text = &text[..text.find("</pre>")?];
    let prefix = format!("{name}=");
    text.split_whitespace().find_map(|w| w.strip_prefix(&prefix)?.parse().ok())
}

/// At `width` x `height`: a screenshot of that width, no horizontal overflow, and the verdict
/// on the first screen.
fn check_layout(browser: &Path, dir: &Path, name: &str, html: &str, width: u32, height: u32) {
    let size = format!("--window-size={width},{height}");
    let page = dir.join(format!("{name}-{width}.html"));
    std::fs::write(&page, html).unwrap();
    let profile = dir.join(format!("profile-{name}-{width}"));
    let shot = dir.join(format!("{name}-{width}.png"));
    let out = run(browser, &profile, &[&size, &format!("--screenshot={}", shot.display())], &page);
    let png = std::fs::read(&shot).unwrap_or_else(|_| {
        panic!("{name} at {width}: no screenshot; {}", String::from_utf8_lossy(&out.stderr))
    });
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 5_000, "{name} at {width}");
    // IHDR: the image's width and height, big-endian, at bytes 16 and 20.
    let png_width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(png_width, width, "{name}: the screenshot is not {width} px wide");

    let measuring = dir.join(format!("{name}-{width}-measure.html"));
    std::fs::write(&measuring, html.replace("</body>", &format!("{MEASURE}\n</body>"))).unwrap();
    let out = run(browser, &profile, &[&size, "--dump-dom"], &measuring);
    let dom = String::from_utf8_lossy(&out.stdout);
    let get = |what: &str| {
        measured(&dom, what).unwrap_or_else(|| panic!("{name} at {width}: no {what} in\n{dom}"))
    };
    let (scroll, inner) = (get("scroll"), get("inner"));
    assert_eq!(inner, i64::from(width), "{name}: the viewport is not {width} px wide");
    assert!(scroll <= inner, "{name} at {width}: the page is {scroll} px wide (overflows)");
    let (bottom, screen) = (get("verdict_bottom"), get("height"));
    assert!(bottom <= screen, "{name} at {width}: the verdict ends at {bottom} px, below {screen}");
}
