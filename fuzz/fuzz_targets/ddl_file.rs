//! A DDL file is outside input: reading any bytes never panics, and every error names the
//! file with a line and a column.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    match keylab_ddl::parse(src, "fuzz.sql") {
        Ok(f) => {
            let _ = f.table(None);
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.sql:")),
    }
});
