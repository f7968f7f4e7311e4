//! Key helpers of the page search: whole-key comparison, the prefix words and packed record
//! entries that `Page` searches, the hex digit values a text page's first guess interpolates,
//! and a search of a cold sorted array with overlapping cache misses. They hold no page
//! state; the page's rules are in `page/mod.rs`.

/// `a <= b` for equal-length keys, comparing 8 bytes at a time as big-endian words.
#[inline]
pub(crate) fn key_le(a: &[u8], b: &[u8]) -> bool {
    if a.len() == 16 && b.len() == 16 {
        let w = |k: &[u8], i: usize| u64::from_be_bytes(k[i..i + 8].try_into().expect("8"));
        return (w(a, 0), w(a, 8)) <= (w(b, 0), w(b, 8));
    }
    if a.len() == 8 && b.len() == 8 {
        return u64::from_be_bytes(a.try_into().expect("8"))
            <= u64::from_be_bytes(b.try_into().expect("8"));
    }
    // Longer keys: the first differing 8-byte word decides; most keys differ in the first.
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_be_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let y = u64::from_be_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != y {
            return x < y;
        }
        i += 8;
    }
    a[i..] <= b[i..]
}

/// The 8 key bytes from `off` on as a big-endian word (zero-padded). A page keeps the
/// length of the prefix all its keys share, in bytes and bits, so the bits after it order its
/// keys on the bits that differ, and a search narrows to equal bits in a small array first.
#[inline]
pub(crate) fn key_word(k: &[u8], off: usize) -> u64 {
    let k = &k[off.min(k.len())..];
    if k.len() >= 8 {
        u64::from_be_bytes(k[..8].try_into().expect("8 bytes"))
    } else {
        let mut b = [0u8; 8];
        b[..k.len()].copy_from_slice(k);
        u64::from_be_bytes(b)
    }
}

/// Classes of key bytes for [`text_word`], in byte order: each lowercase hex digit and `-`
/// alone (the bytes of hex ids, uuid text with its dashes), the runs of other bytes between
/// them one class each.
const TEXT_CLASSES: u64 = 21;

/// Class of every byte (`TEXT_CLASSES` values, non-decreasing in the byte) and whether it
/// holds that byte alone: a shared class gives equal digits to unequal bytes.
const TEXT_DIGIT: [(u8, bool); 256] = {
    let mut t = [(0u8, false); 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        t[b] = match c {
            0..=b',' => (0, false),
            b'-' => (1, true),
            b'.'..=b'/' => (2, false),
            b'0'..=b'9' => (3 + c - b'0', true),
            b':'..=b'`' => (13, false),
            b'a'..=b'f' => (14 + c - b'a', true),
            _ => (20, false),
        };
        b += 1;
    }
    t
};

/// Key bytes a text word reads: `TEXT_CLASSES`^7 < 2^31.
const TEXT_WORD_BYTES: usize = 7;

/// True when the key bytes a [`text_word`] from `off` reads are hex digits or dashes, where
/// the text word holds 16 values in each class-sized step instead of a byte's 256.
#[inline]
pub(crate) fn is_hex_text(k: &[u8], off: usize) -> bool {
    let k = &k[off.min(k.len())..];
    k[..k.len().min(TEXT_WORD_BYTES)].iter().all(|&b| TEXT_DIGIT[b as usize].1)
}

/// An order-preserving word of the key bytes from `off` for keys of hex text: the bytes'
/// classes as digits of a base-21 number in the high bits, so the 18 prefix bits of an entry
/// hold about 4 hex digits (16 bits) where [`key_word`] holds 2¼ (9 bits), and ties (whole-key
/// reads) are rarer. Keys in byte order give non-decreasing words for any bytes: digits are
/// non-decreasing in the byte, and after a class shared by several bytes the rest is zero
/// (two keys equal up to such a byte and differing in it tie instead of comparing on later
/// bytes, which could invert their order). Like `key_word`, reads only 8 bytes from `off`.
#[inline]
pub(crate) fn text_word(k: &[u8], off: usize) -> u64 {
    let k = &k[off.min(k.len())..];
    let mut acc = 0u64;
    for i in 0..TEXT_WORD_BYTES {
        // Bytes past the end are zero, as `key_word` pads them.
        let (d, alone) = TEXT_DIGIT[k.get(i).copied().unwrap_or(0) as usize];
        acc = acc * TEXT_CLASSES + d as u64;
        if !alone {
            acc *= TEXT_CLASSES.pow((TEXT_WORD_BYTES - 1 - i) as u32);
            break;
        }
    }
    // Below 21^7 < 2^31: the top 31 bits of the word.
    acc << 33
}

/// The 8 key bytes from `off` as 4-bit hex digit values packed into a u32, for a text page's
/// interpolated search guess (`Page::guess`): unlike a [`text_word`], whose base-21 digits
/// leave gaps where no hex digit lies (a fifth of every digit's range, so a guess over text
/// words missed its ±16 window on about half the searches of a non-leaf page), hex text maps
/// evenly onto these values. Only a guess reads it: other bytes give some value in 0..16,
/// and a dash's constant value is the same in every uuid of a page.
#[inline]
pub(crate) fn hex_guess_word(k: &[u8], off: usize) -> u32 {
    const LOW: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let w = key_word(k, off);
    // '0'..'9' (0x30..0x39) keep their low nibble; 'a'..'f' (0x61..0x66), whose bit 6 is
    // set, add 9 to theirs.
    let nibbles = ((w & LOW) + 9 * ((w >> 6) & 0x0101_0101_0101_0101)) & LOW;
    // Pack the eight nibbles, first byte highest.
    let x = (nibbles | nibbles >> 4) & 0x00ff_00ff_00ff_00ff;
    let x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
    (x | x >> 16) as u32
}

/// Low bits of a `Page::recs` entry that hold the heap slot: a record takes at least its
/// 5-byte header, so even a 64 KiB page has fewer than 2^14 heap slots.
pub(crate) const HEAP_BITS: u32 = 14;
pub(crate) const HEAP_MASK: u32 = (1 << HEAP_BITS) - 1;

/// One record's entry in `Page::recs`: the high 18 bits of its prefix word (so entries sort
/// as their keys do, ties left to whole keys) above its heap slot.
#[inline]
pub(crate) fn entry(prefix: u32, heap: u16) -> u32 {
    debug_assert!((heap as u32) <= HEAP_MASK);
    prefix & !HEAP_MASK | heap as u32
}

/// `a.partition_point(|&x| x < v)` for a sorted array that is usually not in cache: each
/// round reads 15 evenly spaced words whose loads do not depend on one another (so their
/// cache misses overlap) and narrows the range to a sixteenth; a binary search, whose every
/// load waits on the previous one, pays a miss per step instead. With 4-byte entries a
/// typical leaf (about 17 cache lines) takes one round, about one pivot per line (measured:
/// 8 and 32 ways were slower).
#[inline]
pub(crate) fn lower_bound<T: Copy + Ord>(a: &[T], v: T) -> usize {
    const WAYS: usize = 16;
    // The answer lies in lo..=hi.
    let (mut lo, mut hi) = (0usize, a.len());
    while hi - lo > 2 * WAYS {
        let step = (hi - lo) / WAYS;
        let mut below = 0;
        for j in 1..WAYS {
            below += (a[lo + j * step - 1] < v) as usize;
        }
        // Pivots lo + j·step − 1 for j = 1..WAYS: `below` of them are < v, so the answer is
        // after the last of those and at most the first of the others.
        let new_lo = lo + below * step;
        if below < WAYS - 1 {
            hi = lo + (below + 1) * step - 1;
        }
        lo = new_lo;
    }
    lo + a[lo..hi].partition_point(|&x| x < v)
}

/// Length of the common prefix of two keys.
#[inline]
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

/// [`lower_bound`] that first reads the entries around `guess` (a position the caller
/// expects the answer near): when the answer lies within `NEAR` entries of it, a search of a
/// cold array reads one or two cache lines instead of one per sixteenth of the array. A wrong
/// guess costs one more round, never a different answer.
#[inline]
pub(crate) fn lower_bound_near<T: Copy + Ord>(a: &[T], v: T, guess: usize) -> usize {
    const NEAR: usize = 16;
    let n = a.len();
    if n <= 2 * NEAR {
        return a.partition_point(|&x| x < v);
    }
    let lo = guess.saturating_sub(NEAR).min(n);
    let hi = (guess + NEAR).min(n);
    // The answer is in lo..=hi when a[lo − 1] < v ≤ a[hi].
    if lo > 0 && a[lo - 1] >= v {
        return lower_bound(&a[..lo - 1], v);
    }
    if hi < n && a[hi] < v {
        return hi + 1 + lower_bound(&a[hi + 1..], v);
    }
    lo + a[lo..hi].partition_point(|&x| x < v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes next to every class boundary of `TEXT_DIGIT`, hex digits and dashes more often.
    fn text_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            4 => prop::sample::select(b"0123456789abcdef-".to_vec()),
            2 => prop::sample::select(b"\0\x01,./9:@AF`agz\x7f\x80\xff".to_vec()),
            1 => any::<u8>(),
        ]
    }

    /// Two keys of one width that share their first `off` bytes or more (as the keys of a
    /// page share its `shared` bytes), and `off`.
    fn key_pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, usize)> {
        (0usize..12, 0usize..12).prop_flat_map(|(shared, rest)| {
            (
                prop::collection::vec(text_byte(), shared),
                prop::collection::vec(text_byte(), rest),
                prop::collection::vec(text_byte(), rest),
                0..=shared,
            )
                .prop_map(|(s, a, b, off)| ([s.clone(), a].concat(), [s, b].concat(), off))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

        /// Keys in byte order give words in order (ties allowed), from any offset, as
        /// `key_word` does; equal keys give equal words.
        #[test]
        fn text_word_keeps_key_order((a, b, off) in key_pair()) {
            let (lo, hi) = if a <= b { (&a, &b) } else { (&b, &a) };
            prop_assert!(text_word(lo, off) <= text_word(hi, off));
            prop_assert!(key_word(lo, off) <= key_word(hi, off));
            if a == b {
                prop_assert_eq!(text_word(&a, off), text_word(&b, off));
            }
            // A word depends only on the 8 bytes from `off` (`entry_differs_within`).
            if a.len() >= off + 8 && a[off..off + 8] == b[off..off + 8] {
                prop_assert_eq!(text_word(&a, off), text_word(&b, off));
            }
        }
    }

    #[test]
    fn text_word_tells_hex_digits_apart() {
        // Every hex digit and the dash are alone in their class: uuid text keys that differ
        // within the first 7 bytes after the offset give different words.
        let keys: Vec<&[u8]> =
            vec![b"00000-0f", b"0000000-", b"0000001-", b"000000f-", b"0000f-00", b"f-000000"];
        assert!(keys.is_sorted());
        for w in keys.windows(2) {
            assert!(text_word(w[0], 0) < text_word(w[1], 0), "{:?}", w);
            assert!(is_hex_text(w[0], 0) && is_hex_text(w[1], 0));
        }
        assert!(!is_hex_text(b"00A00000", 0) && is_hex_text(b"00A00000", 3));
        assert!(is_hex_text(b"", 0) && is_hex_text(b"ab", 5));
        // A shared class ends the word: later bytes cannot reorder two keys it ties.
        assert_eq!(text_word(b"G0", 0), text_word(b"Zf", 0));
        assert!(text_word(b"9f", 0) < text_word(b":0", 0));
        assert!(text_word(b"fz", 0) < text_word(b"g\0", 0));
    }

    #[test]
    fn hex_guess_word_reads_hex_digits() {
        assert_eq!(hex_guess_word(b"0123abcdef", 0), 0x0123_abcd);
        assert_eq!(hex_guess_word(b"xx9fa0", 2), 0x9fa0_0000);
        // Uuid text: the dash is a constant digit, the digits keep their order.
        assert!(hex_guess_word(b"3f-09", 0) < hex_guess_word(b"3f-10", 0));
    }

    #[test]
    fn lower_bound_near_matches_partition_point() {
        let mut x = 7u64;
        for n in [0usize, 1, 5, 31, 32, 33, 64, 100, 269, 600, 2000] {
            let mut a: Vec<u32> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 40) as u32 & 0xfff
                })
                .collect();
            a.sort_unstable();
            for v in (0..0x1001).step_by(37) {
                let want = a.partition_point(|&e| e < v);
                for guess in [0, 1, n / 3, n / 2, n.saturating_sub(1), n, n + 5, want, want + 20] {
                    assert_eq!(lower_bound_near(&a, v, guess), want, "n {n} v {v} g {guess}");
                }
            }
        }
    }
}
