//! A saved result (`keylab report FILE`) is outside input: parsing any bytes never panics,
//! and whatever parses renders in every format without panicking.
#![no_main]

use keylab_report::{parse_report, render_to_string, Format, RenderContext};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(report) = parse_report(text, Path::new("fuzz.json")) {
        let ctx = RenderContext { color: false, generated_at: None, ..Default::default() };
        for format in Format::ALL {
            let _ = render_to_string(&report, format, &ctx);
        }
    }
});
