//! The proptest equivalent of the `report_json` fuzz target (fuzz/): a saved result is outside
//! input, so parsing any mutation of a real one never panics, and whatever parses renders in
//! every format without panicking.

use keylab_report::{parse_report, render_to_string, Format, RenderContext};
use proptest::prelude::*;
use std::path::Path;

const FIXTURES: [&str; 4] = [
    include_str!("fixtures/sim_compare_4.json"),
    include_str!("fixtures/e5_scenario.json"),
    include_str!("fixtures/null_heavy.json"),
    include_str!("fixtures/server_load.json"),
];

fn parse_and_render(text: &str) {
    if let Ok(report) = parse_report(text, Path::new("m.json")) {
        let ctx = RenderContext { color: false, generated_at: None, ..Default::default() };
        for format in Format::ALL {
            let _ = render_to_string(&report, format, &ctx);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Bytes replaced, cut or inserted in a real result.
    #[test]
    fn mutated_results_never_panic(
        which in 0usize..FIXTURES.len(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..40,
        insert in "[ -~]{0,12}",
    ) {
        let src = FIXTURES[which];
        let mut i = at.index(src.len());
        while !src.is_char_boundary(i) { i -= 1; }
        let mut j = (i + cut).min(src.len());
        while !src.is_char_boundary(j) { j -= 1; }
        parse_and_render(&format!("{}{}{}", &src[..i], insert, &src[j..]));
    }

    /// Numbers in a real result replaced by extreme ones.
    #[test]
    fn extreme_numbers_never_panic(
        which in 0usize..FIXTURES.len(),
        nth in 0usize..200,
        value in prop_oneof![
            Just("0".to_string()), Just("-1".to_string()), Just("1e308".to_string()),
            Just("-1e308".to_string()), Just("18446744073709551615".to_string()),
            Just("1e-308".to_string()), Just("null".to_string()),
        ],
    ) {
        let src = FIXTURES[which];
        let spans: Vec<(usize, usize)> = number_spans(src);
        if spans.is_empty() { return Ok(()); }
        let (a, b) = spans[nth % spans.len()];
        parse_and_render(&format!("{}{}{}", &src[..a], value, &src[b..]));
    }
}

/// Where the JSON numbers after a `": "` are.
fn number_spans(src: &str) -> Vec<(usize, usize)> {
    let bytes = src.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while let Some(k) = src[i..].find(": ") {
        let a = i + k + 2;
        let mut b = a;
        while b < bytes.len() && (bytes[b].is_ascii_digit() || b"-+.eE".contains(&bytes[b])) {
            b += 1;
        }
        if b > a {
            spans.push((a, b));
        }
        i = a;
    }
    spans
}
