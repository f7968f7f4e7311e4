//! Behaviour of every generator through the public API: order in stored bytes, formats,
//! round trips through text, and determinism under the seed.

use keylab_keys::{
    ClockKind, Encoding, GenConfig, Key, KeyGen, Strategy, Variant, WithinMs, VIRTUAL_EPOCH_MS,
};
use uuid::{Uuid, Version};

fn v(s: &str) -> Variant {
    s.parse().unwrap()
}

fn cfg(ids_per_ms: u32) -> GenConfig {
    GenConfig { ids_per_ms, ..GenConfig::default() }
}

fn take(variant: Variant, cfg: &GenConfig, n: usize) -> Vec<Key> {
    KeyGen::new(variant, cfg).take(n).collect()
}

fn sort_key(k: &Key) -> Vec<u8> {
    let mut out = Vec::new();
    k.write_sort_key(&mut out);
    out
}

/// Number of places where an id stores before the one generated just before it.
fn descents(keys: &[Key]) -> usize {
    keys.windows(2).filter(|w| sort_key(&w[1]) < sort_key(&w[0])).count()
}

fn assert_strictly_ascending(variant: Variant, cfg: &GenConfig, n: usize) {
    let keys = take(variant, cfg, n);
    for (i, w) in keys.windows(2).enumerate() {
        assert!(w[0] < w[1], "{variant} at {} ids/ms: id {i} {} !< {}", cfg.ids_per_ms, w[0], w[1]);
        assert!(sort_key(&w[0]) < sort_key(&w[1]), "{variant}: stored bytes not ascending");
    }
}

const ASCENDING: &[&str] = &[
    "auto-inc",
    "seq",
    "uuid6:text",
    "uuid6:hex",
    "uuid6:bin",
    "uuid7:text",
    "uuid7:hex",
    "uuid7:bin",
    "ulid:text",
    "ulid:bin",
    "snowflake",
    "tsid",
    "tsid:text",
    "uuid1:bin-swap",
];

#[test]
fn time_ordered_ids_ascend_at_1_and_100_ids_per_ms() {
    for rate in [1, 100] {
        for s in ASCENDING {
            assert_strictly_ascending(v(s), &cfg(rate), 20_000);
            assert!(v(s).is_ascending(), "{s}");
        }
    }
}

#[test]
fn time_ordered_ids_ascend_beyond_their_per_ms_capacity() {
    // 20,000 ids per ms: more than snowflake's/TSID's 4096 sequence values and more than
    // the 10,000 100-ns ticks of uuid1/uuid6, so every overflow path runs.
    for s in ASCENDING {
        assert_strictly_ascending(v(s), &cfg(20_000), 50_000);
    }
}

#[test]
fn wall_clock_ids_ascend_in_monotonic_mode() {
    let wall = GenConfig { clock: ClockKind::Wall, ..GenConfig::default() };
    for s in ASCENDING {
        assert_strictly_ascending(v(s), &wall, 20_000);
    }
}

#[test]
fn random_ids_are_not_ordered() {
    for s in ["uuid4:text", "uuid4:bin", "md5:text", "md5:bin"] {
        let keys = take(v(s), &cfg(1), 10_000);
        let d = descents(&keys);
        assert!((4_000..6_000).contains(&d), "{s}: {d} descents in 9,999 pairs");
        assert!(!v(s).is_ascending());
    }
}

#[test]
fn uuid7_and_ulid_random_within_ms_order_only_across_milliseconds() {
    let random = GenConfig { ids_per_ms: 100, within_ms: WithinMs::Random, ..GenConfig::default() };
    for s in ["uuid7:bin", "uuid7:text", "ulid:bin", "ulid:text"] {
        let keys = take(v(s), &random, 10_000);
        let ms: Vec<&[Key]> = keys.chunks(100).collect();
        let inside: usize = ms.iter().map(|m| descents(m)).sum();
        assert!(inside > 1_000, "{s}: only {inside} descents inside milliseconds");
        for pair in ms.windows(2) {
            let last_of_first = pair[0].iter().max().unwrap();
            let first_of_next = pair[1].iter().min().unwrap();
            assert!(last_of_first < first_of_next, "{s}: milliseconds overlap");
        }
        // The default (monotonic) has no descents at all at the same rate.
        assert_eq!(descents(&take(v(s), &cfg(100), 10_000)), 0, "{s}");
    }
}

#[test]
fn uuid1_text_wraps_with_time_low_while_bin_swap_ascends() {
    // time_low wraps every 2^32 ticks of 100 ns (429.5 s); at 1 id per virtual ms 500,000
    // ids span 500 s, so at least one wrap falls inside.
    let n = 500_000;
    let text = take(v("uuid1:text"), &cfg(1), n);
    let swapped = take(v("uuid1:bin-swap"), &cfg(1), n);
    let wraps: Vec<usize> = (1..n).filter(|&i| text[i] < text[i - 1]).collect();
    assert!(!wraps.is_empty(), "uuid1:text never wrapped");
    for &i in &wraps {
        let low = |k: &Key| u32::from_str_radix(&k.to_string()[..8], 16).unwrap();
        assert!(low(&text[i]) < 10_000, "descent not at a time_low wrap: {}", text[i]);
        assert!(low(&text[i - 1]) > u32::MAX - 10_000);
    }
    assert_eq!(descents(&swapped), 0);
    // Both streams are the same UUIDs: the swap is the only difference.
    for i in [0, wraps[0], n - 1] {
        let as_swap = Key::parse(v("uuid1:bin-swap"), &text[i].to_string()).unwrap();
        assert_eq!(as_swap, swapped[i]);
    }
}

#[test]
fn rfc9562_version_and_variant_bits_in_every_encoding() {
    for (strategy, version) in [
        (Strategy::Uuid1, Version::Mac),
        (Strategy::Uuid4, Version::Random),
        (Strategy::Uuid6, Version::SortMac),
        (Strategy::Uuid7, Version::SortRand),
    ] {
        for &encoding in strategy.encodings() {
            let variant = Variant { strategy, encoding };
            for key in take(variant, &cfg(100), 500) {
                let text = key.to_string();
                let u = match encoding {
                    Encoding::BinSwap => {
                        // Undo UUID_TO_BIN(u, 1): time_low, time_mid, time_hi come back.
                        let s = &text;
                        let un = format!("{}{}{}{}", &s[8..16], &s[4..8], &s[0..4], &s[16..]);
                        Uuid::try_parse(&un).unwrap()
                    }
                    _ => Uuid::try_parse(&text).unwrap(),
                };
                assert_eq!(u.get_version(), Some(version), "{variant}: {text}");
                assert_eq!(u.get_variant(), uuid::Variant::RFC4122, "{variant}: {text}");
            }
        }
    }
}

#[test]
fn text_lengths_and_alphabets() {
    let expect = [
        ("uuid1:text", 36),
        ("uuid4:text", 36),
        ("uuid6:text", 36),
        ("uuid7:text", 36),
        ("uuid4:hex", 32),
        ("uuid7:hex", 32),
        ("ulid:text", 26),
        ("ksuid:text", 27),
        ("md5:text", 32),
        ("tsid:text", 13),
    ];
    for (s, len) in expect {
        assert_eq!(v(s).stored_len(), len);
        for key in take(v(s), &cfg(7), 2_000) {
            let b = key.as_bytes().unwrap();
            assert_eq!(b.len() as u32, len, "{s}: {key}");
            assert_eq!(key.to_string().len() as u32, len);
            let ok = |c: u8| match s {
                "ulid:text" | "tsid:text" => b"0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(&c),
                "ksuid:text" => c.is_ascii_alphanumeric(),
                _ => c.is_ascii_digit() || (b'a'..=b'f').contains(&c) || c == b'-',
            };
            assert!(b.iter().all(|&c| ok(c)), "{s}: {key}");
        }
    }
    let first = take(v("ulid"), &cfg(1), 1)[0].to_string();
    assert!(first.as_bytes()[0] <= b'7', "ULID first char carries 3 bits: {first}");
    for (s, len) in [("uuid4:bin", 16), ("uuid1:bin-swap", 16), ("ulid:bin", 16), ("ksuid:bin", 20)]
    {
        let key = take(v(s), &cfg(1), 1)[0];
        assert_eq!(key.as_bytes().unwrap().len(), len);
        assert_eq!(key.to_string().len(), 2 * len, "binary prints as hex");
    }
}

#[test]
fn ulid_and_ksuid_agree_with_their_crates() {
    for key in take(v("ulid"), &cfg(3), 1_000) {
        let u = ulid::Ulid::from_string(&key.to_string()).unwrap();
        assert!(u.timestamp_ms() >= VIRTUAL_EPOCH_MS);
        assert_eq!(u.to_string(), key.to_string());
    }
    for key in take(v("ksuid"), &cfg(3), 1_000) {
        use svix_ksuid::KsuidLike;
        let k = svix_ksuid::Ksuid::from_base62(&key.to_string()).unwrap();
        assert_eq!(k.timestamp_seconds() as u64, VIRTUAL_EPOCH_MS / 1000);
    }
}

#[test]
fn every_variant_round_trips_through_its_printed_form() {
    for variant in Variant::all() {
        for key in take(variant, &cfg(10), 1_000) {
            let printed = key.to_string();
            let back = Key::parse(variant, &printed).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back, key, "{variant}");
            assert_eq!(back.to_string(), printed);
        }
    }
}

#[test]
fn same_seed_same_ids_other_seed_other_ids() {
    for variant in Variant::all() {
        let a = take(variant, &cfg(5), 500);
        let b = take(variant, &cfg(5), 500);
        assert_eq!(a, b, "{variant} not reproducible");
        let other = GenConfig { seed: 2, ..cfg(5) };
        let c = take(variant, &other, 500);
        // Sequences and snowflake carry no random part; everything else must change.
        match variant.strategy {
            Strategy::AutoInc
            | Strategy::Seq
            | Strategy::Snowflake
            | Strategy::Sequence
            | Strategy::Table => assert_eq!(a, c),
            _ => assert_ne!(a, c, "{variant} ignores the seed"),
        }
    }
}

#[test]
fn sequences_count_from_one_and_snowflake_carries_the_node() {
    let keys: Vec<i64> =
        take(v("auto-inc"), &cfg(1), 3).iter().map(|k| k.as_int().unwrap()).collect();
    assert_eq!(keys, [1, 2, 3]);
    let node9 = GenConfig { node: 9, ..GenConfig::default() };
    for s in ["snowflake", "tsid"] {
        let k = take(v(s), &node9, 1)[0].as_int().unwrap();
        assert_eq!((k >> 12) & 0x3FF, 9, "{s}");
    }
}

/// The first ids under the default config (seed 1, virtual clock, 1 id/ms). "Same seed, same
/// ids on every machine" also means across keylab and dependency versions: a change here
/// changes every published run, and must be deliberate.
#[test]
fn default_config_ids_are_pinned() {
    let golden = [
        ("uuid1", ["57fd0000-c7d3-11ef-b536-e15b5d7e9132", "57fd2710-c7d3-11ef-b536-e15b5d7e9132"]),
        ("uuid4", ["91771fee-2401-449d-ac92-76d10282b7c2", "32a9c1b6-b749-4161-a452-773a95a94b85"]),
        ("uuid6", ["1efc7d35-7fd0-6000-bb7e-a97cc4b0643d", "1efc7d35-7fd2-6710-bb7e-a97cc4b0643d"]),
        ("uuid7", ["01941f29-7c00-77b9-8bbe-47f3090dd2bb", "01941f29-7c01-71eb-8027-a5ed75ba775e"]),
        ("ulid", ["01JGFJJZ00S0NPZZRHRP0V36W3", "01JGFJJZ01QZNAQXV9K3JGA9BC"]),
        ("snowflake", ["1874244142494650368", "1874244142498844672"]),
        ("tsid", ["662082630451206217", "662082630455400063"]),
        ("ksuid", ["2r0IWuvndGvvkwHeZllvlwtTUTJ", "2r0IWswSlLFSAjKquYNR2GTI6vw"]),
        ("md5", ["b256b76e67efb0d72249c14539fbb998", "7268bf43cb198c2f9defe6a664cbc7df"]),
    ];
    for (s, ids) in golden {
        let got: Vec<String> =
            KeyGen::new(v(s), &GenConfig::default()).take(2).map(|k| k.to_string()).collect();
        assert_eq!(got, ids, "{s}");
    }
    // The virtual clock starts at 2025-01-01T00:00:00Z: 0x01941f297c00 ms in the uuid7 above.
    assert_eq!(VIRTUAL_EPOCH_MS, 0x0194_1f29_7c00);
}

#[test]
fn only_ksuid_text_sorts_differently_under_a_case_insensitive_collation() {
    for variant in Variant::all().filter(|v| v.encoding.is_text()) {
        let mut by_bytes = take(variant, &cfg(1), 2_000);
        by_bytes.sort();
        let mut folded = by_bytes.clone();
        folded.sort_by_key(|k| k.to_string().to_ascii_lowercase());
        assert_eq!(by_bytes != folded, variant.needs_binary_collation(), "{variant}");
    }
}

#[test]
fn sequence_and_table_ids_come_in_per_writer_blocks() {
    use keylab_keys::{Key, KeyGen, Variant};
    let ids = |v: &str, block: u32, writers: u32, n: usize| -> Vec<i64> {
        let cfg = GenConfig { block, writers, ..GenConfig::default() };
        KeyGen::new(v.parse::<Variant>().unwrap(), &cfg)
            .take(n)
            .map(|k| match k {
                Key::Int(i) => i,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    // One writer: blocks follow each other, so the ids are 1, 2, 3, ...
    assert_eq!(ids("sequence", 3, 1, 7), [1, 2, 3, 4, 5, 6, 7]);
    // Two writers with blocks of 3: writer 0 holds 1..=3, writer 1 holds 4..=6, rows in turn;
    // then writer 0 takes 7..=9 and writer 1 takes 10..=12.
    assert_eq!(ids("table", 3, 2, 10), [1, 4, 2, 5, 3, 6, 7, 10, 8, 11]);
    // No value is handed out twice.
    let mut many = ids("sequence", 50, 8, 10_000);
    many.sort_unstable();
    many.dedup();
    assert_eq!(many.len(), 10_000);
}
