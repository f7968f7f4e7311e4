//! A `--keys-file` line is outside input: parsing any bytes as any variant never panics, and
//! whatever parses prints back to the same key.
#![no_main]

use keylab_keys::{Key, Strategy, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    for &strategy in Strategy::all() {
        for &encoding in strategy.encodings() {
            let variant = Variant { strategy, encoding };
            if let Ok(key) = Key::parse(variant, line) {
                let printed = key.to_string();
                assert_eq!(Key::parse(variant, &printed).ok(), Some(key));
            }
        }
    }
});
