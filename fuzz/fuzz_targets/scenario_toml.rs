//! A scenario file is outside input: parsing and planning any bytes never panics, and every
//! error names the file with a line and a column.
#![no_main]

use keylab_scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    match Scenario::parse(src, "fuzz.toml") {
        Ok(s) => {
            let _ = s.plan(0.01);
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.toml:")),
    }
});
