//! ULID generator: 48-bit Unix milliseconds and 80 random bits, laid out and encoded by the
//! `ulid` crate.
//!
//! Monotonic mode follows the ULID spec (and the crate's `Generator`): a new millisecond
//! draws fresh random bits, a repeated one adds 1 to the previous random part. Where the
//! crate's generator fails on overflow of the 80 bits (or would follow a wall clock
//! backwards), this one advances the timestamp by one instead, so ids never descend.
//! Random mode draws all 80 bits afresh per id.

use crate::clock::Clock;
use crate::WithinMs;
use ::ulid::Ulid;
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha8Rng;

const RANDOM_MAX: u128 = (1 << 80) - 1;

/// ULID generator state.
#[derive(Debug, Clone)]
pub(crate) struct UlidGen {
    rng: ChaCha8Rng,
    clock: Clock,
    within_ms: WithinMs,
    last_ms: u64,
    random: u128,
}

impl UlidGen {
    pub fn new(rng: ChaCha8Rng, clock: Clock, within_ms: WithinMs) -> UlidGen {
        UlidGen { rng, clock, within_ms, last_ms: 0, random: 0 }
    }

    #[inline]
    fn random_80(&mut self) -> u128 {
        let hi = (self.rng.next_u32() & 0xFFFF) as u128;
        hi << 64 | self.rng.next_u64() as u128
    }

    #[inline]
    pub fn next(&mut self) -> Ulid {
        let now = self.clock.next_ms();
        match self.within_ms {
            WithinMs::Random => Ulid::from_parts(now, self.random_80()),
            WithinMs::Monotonic => {
                if now > self.last_ms {
                    self.last_ms = now;
                    self.random = self.random_80();
                } else if self.random == RANDOM_MAX {
                    self.last_ms += 1;
                    self.random = self.random_80();
                } else {
                    self.random += 1;
                }
                Ulid::from_parts(self.last_ms, self.random)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockKind;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn monotonic_increments_by_one_within_a_millisecond() {
        let clock = Clock::new(ClockKind::Virtual, 3);
        let mut g = UlidGen::new(ChaCha8Rng::seed_from_u64(1), clock, WithinMs::Monotonic);
        let a = g.next();
        let b = g.next();
        assert_eq!(a.timestamp_ms(), crate::VIRTUAL_EPOCH_MS);
        assert_eq!(b.timestamp_ms(), a.timestamp_ms());
        assert_eq!(b.random(), a.random() + 1);
    }

    #[test]
    fn overflow_moves_to_the_next_millisecond() {
        let clock = Clock::new(ClockKind::Virtual, 10);
        let mut g = UlidGen::new(ChaCha8Rng::seed_from_u64(1), clock, WithinMs::Monotonic);
        let a = g.next();
        g.random = RANDOM_MAX;
        let b = g.next();
        assert_eq!(b.timestamp_ms(), a.timestamp_ms() + 1);
        assert!(b > a);
    }
}
