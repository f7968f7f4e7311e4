//! Key helpers of the page search: whole-key comparison, the prefix words and packed record
//! entries that `Page` searches, and a search of a cold sorted array with overlapping cache
//! misses. They hold no page state; the page's rules are in `page.rs`.

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
