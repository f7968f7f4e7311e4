//! Property tests over seeds, rates and variants: round trips, determinism, and `Key`'s order
//! matching the stored byte order.

use keylab_keys::{GenConfig, Key, KeyGen, Variant, WithinMs};
use proptest::prelude::*;

fn any_variant() -> impl Strategy<Value = Variant> {
    let all: Vec<Variant> = Variant::all().collect();
    proptest::sample::select(all)
}

fn any_config() -> impl Strategy<Value = GenConfig> {
    (any::<u64>(), 1u32..5_000, any::<bool>(), 0u16..1024).prop_map(|(seed, rate, random, node)| {
        GenConfig {
            seed,
            ids_per_ms: rate,
            within_ms: if random { WithinMs::Random } else { WithinMs::Monotonic },
            node,
            ..GenConfig::default()
        }
    })
}

fn sort_key(k: &Key) -> Vec<u8> {
    let mut out = Vec::new();
    k.write_sort_key(&mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn printed_ids_parse_back(variant in any_variant(), cfg in any_config()) {
        for key in KeyGen::new(variant, &cfg).take(50) {
            prop_assert_eq!(Key::parse(variant, &key.to_string()), Ok(key));
        }
    }

    #[test]
    fn generation_is_a_function_of_the_config(variant in any_variant(), cfg in any_config()) {
        let a: Vec<Key> = KeyGen::new(variant, &cfg).take(50).collect();
        let b: Vec<Key> = KeyGen::new(variant, &cfg).take(50).collect();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn distinct_seeds_give_distinct_random_ids(s1 in any::<u64>(), s2 in any::<u64>()) {
        prop_assume!(s1 != s2);
        for name in ["uuid4:bin", "uuid7:bin", "ulid:bin", "ksuid:bin", "md5:bin"] {
            let variant: Variant = name.parse().unwrap();
            let a = KeyGen::new(variant, &GenConfig { seed: s1, ..GenConfig::default() }).next_key();
            let b = KeyGen::new(variant, &GenConfig { seed: s2, ..GenConfig::default() }).next_key();
            prop_assert_ne!(a, b, "{}", name);
        }
    }

    #[test]
    fn key_order_is_stored_byte_order(variant in any_variant(), cfg in any_config()) {
        let keys: Vec<Key> = KeyGen::new(variant, &cfg).take(40).collect();
        for a in &keys {
            for b in &keys {
                prop_assert_eq!(a.cmp(b), sort_key(a).cmp(&sort_key(b)));
                let (mut va, mut vb) = (Vec::new(), Vec::new());
                a.to_value().write_sort_key(&mut va);
                b.to_value().write_sort_key(&mut vb);
                prop_assert_eq!(a.cmp(b), va.cmp(&vb));
            }
        }
    }

    #[test]
    fn ids_are_unique(variant in any_variant(), cfg in any_config()) {
        let mut keys: Vec<Key> = KeyGen::new(variant, &cfg).take(2_000).collect();
        keys.sort();
        keys.dedup();
        prop_assert_eq!(keys.len(), 2_000);
    }

    #[test]
    fn garbage_is_refused_not_misread(variant in any_variant(), s in "[ -~]{0,40}") {
        if let Ok(key) = Key::parse(variant, &s) {
            // Whatever parses must print back to the same id, modulo letter case.
            let again = Key::parse(variant, &key.to_string());
            prop_assert_eq!(again, Ok(key));
        }
    }
}
