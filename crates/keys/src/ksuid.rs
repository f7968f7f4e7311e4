//! KSUID generator: 32-bit seconds since 2014-05-13T16:53:20Z and a 128-bit random payload,
//! laid out by the `svix-ksuid` crate (compatible with Segment's reference implementation).
//!
//! Like Segment's `ksuid.New()`, every id gets a fresh payload: KSUIDs are ordered across
//! seconds, not within one, whatever `WithinMs` says (their time resolution is a second).
//! Base62 text is written by `text.rs`, because the crate's encoder returns a heap `String`.

use crate::clock::Clock;
use crate::uuid::random_16;
use rand_chacha::ChaCha8Rng;
use svix_ksuid::{Ksuid, KsuidLike};

/// KSUID generator state.
#[derive(Debug, Clone)]
pub(crate) struct KsuidGen {
    rng: ChaCha8Rng,
    clock: Clock,
}

impl KsuidGen {
    pub fn new(rng: ChaCha8Rng, clock: Clock) -> KsuidGen {
        KsuidGen { rng, clock }
    }

    #[inline]
    pub fn next(&mut self) -> [u8; 20] {
        let unix_s = (self.clock.next_ms() / 1000) as i64;
        let payload = random_16(&mut self.rng);
        *Ksuid::from_seconds(Some(unix_s), Some(&payload)).bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::base62_encode_20;
    use crate::ClockKind;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn timestamp_and_text_agree_with_svix() {
        let clock = Clock::new(ClockKind::Virtual, 1);
        let mut g = KsuidGen::new(ChaCha8Rng::seed_from_u64(9), clock);
        for _ in 0..200 {
            let bytes = g.next();
            let k = Ksuid::from_bytes(bytes);
            assert_eq!(k.timestamp_seconds() * 1000, crate::VIRTUAL_EPOCH_MS as i64);
            let mut text = [0u8; 27];
            base62_encode_20(&bytes, &mut text);
            assert_eq!(std::str::from_utf8(&text).unwrap(), k.to_base62());
        }
    }
}
