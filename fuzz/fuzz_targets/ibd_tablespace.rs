//! A `.ibd` file is outside input: reading any bytes as a tablespace (page headers, extent
//! descriptors, and a MySQL 8.0+ dictionary's SDI pages, records, BLOB chains, zlib and
//! JSON) never panics. Seed the corpus with `tests/fixtures/**/*.ibd`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = keylab_mariadb::ibd::read_tablespace_from(data);
});
