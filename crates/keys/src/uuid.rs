//! UUID generators (RFC 9562 versions 1, 4, 6 and 7) and MySQL's v1 time-field swap.
//!
//! The `uuid` crate lays out the bits (`Builder`); this module decides what goes in them so
//! ids are reproducible: random bits from the seeded generator, time from the keylab clock,
//! and the within-millisecond rule. The v1 swap of `UUID_TO_BIN(u, 1)` is hand-written: it
//! is four byte moves, and no crate does it.

use crate::clock::Clock;
use crate::WithinMs;
use ::uuid::Builder;
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha8Rng;

/// 100-ns ticks from the Gregorian epoch (1582-10-15) to the Unix epoch.
const GREGORIAN_TO_UNIX_TICKS: u64 = 0x01B2_1DD2_1381_4000;

/// 16 random bytes from two 64-bit draws (cheaper than `fill_bytes`).
#[inline]
pub(crate) fn random_16(rng: &mut ChaCha8Rng) -> [u8; 16] {
    let hi = rng.next_u64() as u128;
    let lo = rng.next_u64() as u128;
    (hi << 64 | lo).to_be_bytes()
}

/// UUIDv4: 122 random bits.
pub(crate) fn v4(rng: &mut ChaCha8Rng) -> [u8; 16] {
    Builder::from_random_bytes(random_16(rng)).into_uuid().into_bytes()
}

/// Bits of the UUIDv7 counter: the 12 bits of `rand_a` and the top 30 bits of `rand_b`.
const V7_COUNTER_BITS: u32 = 42;
const V7_COUNTER_MAX: u64 = (1 << V7_COUNTER_BITS) - 1;

/// UUIDv7 generator.
///
/// Monotonic mode is RFC 9562 section 6.2 method 1 (fixed-length dedicated counter): a
/// 42-bit counter in `rand_a` and the top of `rand_b`, seeded randomly with its top bit clear
/// at each new millisecond and incremented by one per id inside it; the last 32 bits stay
/// random. On counter overflow, or when the wall clock steps back, the timestamp is held or
/// advanced by one (section 6.2's "increment the timestamp") so ids never descend.
/// Random mode draws all 74 bits afresh per id.
#[derive(Debug, Clone)]
pub(crate) struct V7Gen {
    rng: ChaCha8Rng,
    clock: Clock,
    within_ms: WithinMs,
    last_ms: u64,
    counter: u64,
}

impl V7Gen {
    pub fn new(rng: ChaCha8Rng, clock: Clock, within_ms: WithinMs) -> V7Gen {
        V7Gen { rng, clock, within_ms, last_ms: 0, counter: 0 }
    }

    #[inline]
    pub fn next(&mut self) -> [u8; 16] {
        let now = self.clock.next_ms();
        let low = self.rng.next_u64();
        let (ms, counter) = match self.within_ms {
            WithinMs::Random => (now, self.rng.next_u64() >> (64 - V7_COUNTER_BITS)),
            WithinMs::Monotonic => {
                if now > self.last_ms {
                    self.last_ms = now;
                    self.counter = self.rng.next_u64() >> (64 - V7_COUNTER_BITS + 1);
                } else if self.counter == V7_COUNTER_MAX {
                    self.last_ms += 1;
                    self.counter = self.rng.next_u64() >> (64 - V7_COUNTER_BITS + 1);
                } else {
                    self.counter += 1;
                }
                (self.last_ms, self.counter)
            }
        };
        // counter_random_bytes as `Builder` reads them: bytes 0-1 carry rand_a (12 bits),
        // byte 2's low 6 bits and bytes 3-9 carry rand_b (62 bits).
        let rand_a = (counter >> 30) as u16;
        let rand_b = (counter & ((1 << 30) - 1)) << 32 | (low & 0xFFFF_FFFF);
        let mut bytes = [0u8; 10];
        bytes[..2].copy_from_slice(&rand_a.to_be_bytes());
        bytes[2..].copy_from_slice(&rand_b.to_be_bytes());
        Builder::from_unix_timestamp_millis(ms, &bytes).into_uuid().into_bytes()
    }
}

/// UUIDv1 and UUIDv6 generator: 60-bit Gregorian time in 100-ns ticks, a 14-bit clock
/// sequence and a 48-bit node, the last two drawn once per generator (a random node has
/// the multicast bit set, RFC 9562 section 6.10).
///
/// Every id gets its own tick: the clock's tick, or one past the previous id's when the
/// clock has not moved on (more than 10,000 ids per ms, or a stalled wall clock), so ids
/// ascend in time order (v6 bytes, v1 `bin-swap`).
#[derive(Debug, Clone)]
pub(crate) struct GregorianGen {
    clock: Clock,
    sorted: bool,
    clock_seq: u16,
    node: [u8; 6],
    last_ticks: u64,
}

impl GregorianGen {
    /// `sorted`: version 6 (time most significant first); otherwise version 1.
    pub fn new(mut rng: ChaCha8Rng, clock: Clock, sorted: bool) -> GregorianGen {
        let r = rng.next_u64().to_be_bytes();
        let mut node = [r[0], r[1], r[2], r[3], r[4], r[5]];
        node[0] |= 0x01;
        let clock_seq = u16::from_be_bytes([r[6], r[7]]) & 0x3FFF;
        GregorianGen { clock, sorted, clock_seq, node, last_ticks: 0 }
    }

    #[inline]
    pub fn next(&mut self) -> [u8; 16] {
        let now = self.clock.next_instant().unix_ticks() + GREGORIAN_TO_UNIX_TICKS;
        let ticks = now.max(self.last_ticks + 1);
        self.last_ticks = ticks;
        let b = if self.sorted {
            Builder::from_sorted_gregorian_timestamp(ticks, self.clock_seq, &self.node)
        } else {
            Builder::from_gregorian_timestamp(ticks, self.clock_seq, &self.node)
        };
        b.into_uuid().into_bytes()
    }
}

/// MySQL's `UUID_TO_BIN(u, 1)`: moves `time_hi_and_version` (bytes 6-7) to the front, then
/// `time_mid` (4-5), then `time_low` (0-3), so a v1 UUID's bytes follow its time.
pub(crate) fn swap_v1_time_fields(u: &[u8; 16]) -> [u8; 16] {
    let mut s = *u;
    s[0..2].copy_from_slice(&u[6..8]);
    s[2..4].copy_from_slice(&u[4..6]);
    s[4..8].copy_from_slice(&u[0..4]);
    s
}

/// The inverse of [`swap_v1_time_fields`], as `BIN_TO_UUID(b, 1)`.
pub(crate) fn unswap_v1_time_fields(s: &[u8; 16]) -> [u8; 16] {
    let mut u = *s;
    u[0..4].copy_from_slice(&s[4..8]);
    u[4..6].copy_from_slice(&s[2..4]);
    u[6..8].copy_from_slice(&s[0..2]);
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockKind;
    use ::uuid::{Uuid, Variant, Version};
    use rand_chacha::rand_core::SeedableRng;

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(7)
    }

    fn check(bytes: [u8; 16], version: Version) {
        let u = Uuid::from_bytes(bytes);
        assert_eq!(u.get_version(), Some(version), "{u}");
        assert_eq!(u.get_variant(), Variant::RFC4122, "{u}");
        // The same bits read by hand: version nibble and the 0b10 variant.
        assert_eq!(bytes[6] >> 4, version as u8);
        assert_eq!(bytes[8] >> 6, 0b10);
    }

    #[test]
    fn rfc9562_version_and_variant_bits() {
        let mut r = rng();
        let clock = Clock::new(ClockKind::Virtual, 1);
        let mut v1 = GregorianGen::new(rng(), clock.clone(), false);
        let mut v6 = GregorianGen::new(rng(), clock.clone(), true);
        let mut v7 = V7Gen::new(rng(), clock.clone(), WithinMs::Monotonic);
        let mut v7r = V7Gen::new(rng(), clock, WithinMs::Random);
        for _ in 0..1000 {
            check(v1.next(), Version::Mac);
            check(v4(&mut r), Version::Random);
            check(v6.next(), Version::SortMac);
            check(v7.next(), Version::SortRand);
            check(v7r.next(), Version::SortRand);
        }
    }

    #[test]
    fn time_fields_decode_to_the_virtual_clock() {
        let clock = Clock::new(ClockKind::Virtual, 1);
        let u = Uuid::from_bytes(V7Gen::new(rng(), clock.clone(), WithinMs::Monotonic).next());
        let (secs, _) = u.get_timestamp().unwrap().to_unix();
        assert_eq!(secs * 1000, crate::VIRTUAL_EPOCH_MS);
        for sorted in [false, true] {
            let u = Uuid::from_bytes(GregorianGen::new(rng(), clock.clone(), sorted).next());
            assert_eq!(u.get_timestamp().unwrap().to_unix().0 * 1000, crate::VIRTUAL_EPOCH_MS);
            assert_eq!(u.get_node_id().unwrap()[0] & 1, 1, "random node has multicast bit");
        }
    }

    #[test]
    fn swap_matches_mysql_example_and_inverts() {
        // MySQL manual: UUID_TO_BIN('6ccd780c-baba-1026-9564-5b8c656024db', 1)
        // = 0x1026BABA6CCD780C95645B8C656024DB.
        let u = Uuid::parse_str("6ccd780c-baba-1026-9564-5b8c656024db").unwrap();
        let s = swap_v1_time_fields(u.as_bytes());
        assert_eq!(Uuid::from_bytes(s).simple().to_string(), "1026baba6ccd780c95645b8c656024db");
        assert_eq!(&unswap_v1_time_fields(&s), u.as_bytes());
    }
}
