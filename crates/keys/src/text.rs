//! Fixed-width text alphabets for ids, writing into caller buffers without allocating:
//! lowercase hex, Crockford base32 of a 64-bit TSID, and base62 of a 20-byte KSUID.
//!
//! Hand-written because the crates that have them return heap `String`s (svix-ksuid's base62,
//! `hex`), and the generator's hot path must not allocate; each is a few lines with a table.
//! UUID and ULID text come from the `uuid` and `ulid` crates, not from here.

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Crockford's base32 alphabet (no I, L, O, U), as TSID and ULID print it.
pub(crate) const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Base62 in ASCII order, as Segment's KSUID uses it, so text order equals numeric order.
pub(crate) const BASE62: &[u8; 62] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Writes `bytes` as lowercase hex into `out[..2 * bytes.len()]`.
pub(crate) fn hex_encode(bytes: &[u8], out: &mut [u8]) {
    for (i, b) in bytes.iter().enumerate() {
        out[2 * i] = HEX[(b >> 4) as usize];
        out[2 * i + 1] = HEX[(b & 15) as usize];
    }
}

/// Decodes hex (either letter case) into `out`; `s` must be exactly `2 * out.len()` chars.
pub(crate) fn hex_decode(s: &[u8], out: &mut [u8]) -> Option<()> {
    if s.len() != 2 * out.len() {
        return None;
    }
    for (i, o) in out.iter_mut().enumerate() {
        let hi = (s[2 * i] as char).to_digit(16)?;
        let lo = (s[2 * i + 1] as char).to_digit(16)?;
        *o = (hi * 16 + lo) as u8;
    }
    Some(())
}

/// Characters of a 64-bit value in Crockford base32 (4 bits in the first char, then 12 x 5).
pub(crate) const TSID_TEXT_LEN: usize = 13;

/// Writes a 64-bit value as 13 Crockford base32 chars, most significant first.
pub(crate) fn crockford_u64(mut v: u64, out: &mut [u8]) {
    for i in (0..TSID_TEXT_LEN).rev() {
        out[i] = CROCKFORD[(v & 31) as usize];
        v >>= 5;
    }
}

/// Value of one Crockford base32 char, either case; `None` outside the alphabet.
pub(crate) fn crockford_digit(c: u8) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    CROCKFORD.iter().position(|&a| a == c).map(|p| p as u8)
}

/// Decodes 13 Crockford base32 chars into a 64-bit value; `None` when a char is outside the
/// alphabet or the value needs more than 64 bits.
pub(crate) fn crockford_u64_decode(s: &[u8]) -> Option<u64> {
    if s.len() != TSID_TEXT_LEN || crockford_digit(s[0])? > 15 {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &c| Some(acc << 5 | crockford_digit(c)? as u64))
}

/// Characters of a KSUID in base62.
pub(crate) const KSUID_TEXT_LEN: usize = 27;

/// 62^5: the largest power of 62 below 2^32, so one long-division pass yields five digits.
const B62_CHUNK: u64 = 916_132_832;

/// Writes 20 bytes (a 160-bit big-endian number) as 27 base62 chars, zero-padded.
pub(crate) fn base62_encode_20(bytes: &[u8; 20], out: &mut [u8]) {
    let mut limbs = [0u32; 5];
    for (i, l) in limbs.iter_mut().enumerate() {
        *l = u32::from_be_bytes([
            bytes[4 * i],
            bytes[4 * i + 1],
            bytes[4 * i + 2],
            bytes[4 * i + 3],
        ]);
    }
    let mut pos = KSUID_TEXT_LEN;
    while pos > 0 {
        // One long division of the 160-bit number by 62^5; the remainder gives five digits.
        let mut rem = 0u64;
        for l in limbs.iter_mut() {
            let cur = rem << 32 | *l as u64;
            *l = (cur / B62_CHUNK) as u32;
            rem = cur % B62_CHUNK;
        }
        for _ in 0..5 {
            if pos == 0 {
                break;
            }
            pos -= 1;
            out[pos] = BASE62[(rem % 62) as usize];
            rem /= 62;
        }
    }
}

/// Value of one base62 char; `None` outside the alphabet.
fn base62_digit(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u32),
        b'A'..=b'Z' => Some((c - b'A') as u32 + 10),
        b'a'..=b'z' => Some((c - b'a') as u32 + 36),
        _ => None,
    }
}

/// Decodes 27 base62 chars into 20 bytes; `None` on a char outside the alphabet or a value
/// above 2^160 - 1 (`aWgEPTl1tmebfsQzFP4bxwgy80V`, the largest KSUID).
pub(crate) fn base62_decode_20(s: &[u8]) -> Option<[u8; 20]> {
    if s.len() != KSUID_TEXT_LEN {
        return None;
    }
    let mut limbs = [0u32; 5];
    for &c in s {
        // limbs = limbs * 62 + digit, least significant limb last.
        let mut carry = base62_digit(c)? as u64;
        for l in limbs.iter_mut().rev() {
            let cur = *l as u64 * 62 + carry;
            *l = cur as u32;
            carry = cur >> 32;
        }
        if carry != 0 {
            return None;
        }
    }
    let mut out = [0u8; 20];
    for (i, l) in limbs.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&l.to_be_bytes());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let mut out = [0u8; 6];
        hex_encode(&[0x00, 0xab, 0xff], &mut out);
        assert_eq!(&out, b"00abff");
        let mut back = [0u8; 3];
        hex_decode(b"00ABff", &mut back).unwrap();
        assert_eq!(back, [0x00, 0xab, 0xff]);
        assert!(hex_decode(b"0g", &mut [0u8; 1]).is_none());
    }

    #[test]
    fn crockford_u64_known_values() {
        // Pair computed independently (Python, digit by digit: 13 chars, 4 bits then 12 x 5).
        let mut out = [0u8; 13];
        crockford_u64(388_400_145_978_465_528, &mut out);
        assert_eq!(&out, b"0ARYZVZXW377R");
        assert_eq!(crockford_u64_decode(b"0aryzvzxw377r"), Some(388_400_145_978_465_528));
        crockford_u64(u64::MAX, &mut out);
        assert_eq!(&out, b"FZZZZZZZZZZZZ");
        assert_eq!(crockford_u64_decode(b"GZZZZZZZZZZZZ"), None);
        assert_eq!(crockford_u64_decode(b"0ARYZVZXW377U"), None);
    }

    #[test]
    fn base62_limits_and_svix_agreement() {
        let mut out = [0u8; 27];
        base62_encode_20(&[0u8; 20], &mut out);
        assert_eq!(&out, b"000000000000000000000000000");
        base62_encode_20(&[0xff; 20], &mut out);
        assert_eq!(&out, b"aWgEPTl1tmebfsQzFP4bxwgy80V");
        assert_eq!(base62_decode_20(b"aWgEPTl1tmebfsQzFP4bxwgy80V"), Some([0xff; 20]));
        assert_eq!(base62_decode_20(b"aWgEPTl1tmebfsQzFP4bxwgy80W"), None);
        assert_eq!(base62_decode_20(b"zzzzzzzzzzzzzzzzzzzzzzzzzzz"), None);
        assert_eq!(base62_decode_20(b"aWgEPTl1tmebfsQzFP4bxwgy80-"), None);
    }
}
