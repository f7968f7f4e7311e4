//! A DDL file is outside input: reading any bytes never panics, every refusal names the file
//! with a line and a column, and every table read or refused is found by its name.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    match keylab_ddl::parse(src, "fuzz.sql") {
        Ok(f) => {
            let _ = f.table(None);
            for r in &f.refused {
                assert!(r.error.to_string().starts_with("fuzz.sql:"));
            }
            for t in &f.tables {
                assert!(f.table(Some(&t.table.name)).is_ok());
            }
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.sql:")),
    }
});
