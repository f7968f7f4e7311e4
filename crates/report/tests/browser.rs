//! The HTML report in a real headless browser (Debian's `chromium`): every fixture's page
//! loads from a file with no network, a screenshot is produced, the browser parsed every
//! inline SVG chart as an element, and the console shows no script error. Then, at a laptop's
//! width (1280 px) and a phone's (390 px), the report is shown in a frame of that width: a
//! screenshot is taken and checked (a PNG at least that wide), and a small measuring script in
//! the test's framing page (the report itself has none) says whether anything overflows the
//! width (`scrollWidth <= innerWidth`) and whether the verdict is within the first screen.
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
        "advise_sim",
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

/// A page that shows the report in an iframe of exactly `width` x `height` CSS pixels
/// (headless Chromium will not make its window narrower than 500 px, so a phone's width is
/// given to the frame) and, once it has loaded, writes the frame's measures into itself,
/// where `--dump-dom` shows them. The report goes in `srcdoc`: same origin, so the script may
/// read the frame's layout. The report itself has no script.
fn measuring_page(html: &str, width: u32, height: u32) -> String {
    let doc = html.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>body {{ margin: 0; }} iframe {{ border: 0; display: block; }}</style></head>
<body><iframe id="report" width="{width}" height="{height}" srcdoc="{doc}"></iframe>
<script>
window.addEventListener("load", function () {{
  var w = document.getElementById("report").contentWindow;
  var d = w.document;
  var v = d.querySelector("ul.verdict").getBoundingClientRect();
  var out = document.createElement("pre");
  out.id = "layout-check";
  out.textContent = "scroll=" + d.documentElement.scrollWidth + " inner=" + w.innerWidth +
    " verdict_top=" + Math.round(v.top) + " verdict_bottom=" + Math.round(v.bottom) +
    " height=" + w.innerHeight;
  document.body.appendChild(out);
}});
</script></body></html>
"#
    )
}

/// The numbers the measuring page wrote, by name.
fn measured(dom: &str, name: &str) -> Option<i64> {
    let marker = "id=\"layout-check\">";
    let text = &dom[dom.find(marker)? + marker.len()..];
    let text = &text[..text.find("</pre>")?];
    let prefix = format!("{name}=");
    text.split_whitespace().find_map(|w| w.strip_prefix(&prefix)?.parse().ok())
}

/// At `width` x `height`: a screenshot of the report at that width (a PNG that wide), no
/// horizontal overflow, and the verdict on the first screen.
fn check_layout(browser: &Path, dir: &Path, name: &str, html: &str, width: u32, height: u32) {
    let page = dir.join(format!("{name}-{width}.html"));
    std::fs::write(&page, measuring_page(html, width, height)).unwrap();
    let profile = dir.join(format!("profile-{name}-{width}"));
    let shot = dir.join(format!("{name}-{width}.png"));
    let size = format!("--window-size={},{height}", width.max(500));
    let out = run(browser, &profile, &[&size, &format!("--screenshot={}", shot.display())], &page);
    let png = std::fs::read(&shot).unwrap_or_else(|_| {
        panic!("{name} at {width}: no screenshot; {}", String::from_utf8_lossy(&out.stderr))
    });
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 5_000, "{name} at {width}");
    // IHDR: the image's width, big-endian, at byte 16; at least the frame's.
    let png_width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert!(png_width >= width, "{name}: the screenshot is {png_width} px wide, not {width}");

    let out = run(browser, &profile, &[&size, "--virtual-time-budget=5000", "--dump-dom"], &page);
    let dom = String::from_utf8_lossy(&out.stdout);
    let get = |what: &str| {
        measured(&dom, what).unwrap_or_else(|| panic!("{name} at {width}: no {what} in the page"))
    };
    let (scroll, inner) = (get("scroll"), get("inner"));
    assert_eq!(inner, i64::from(width), "{name}: the frame is not {width} px wide");
    assert!(scroll <= inner, "{name} at {width}: the page is {scroll} px wide (overflows)");
    let (bottom, screen) = (get("verdict_bottom"), get("height"));
    assert!(bottom <= screen, "{name} at {width}: the verdict ends at {bottom} px, below {screen}");
}
