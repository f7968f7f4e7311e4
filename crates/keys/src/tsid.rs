//! TSID ids (the layout of the Java `tsid-creator` library): 42 bits of milliseconds since
//! 2020-01-01T00:00:00Z, then 22 bits split into a 10-bit node id and a 12-bit counter.
//!
//! Hand-written: no well-kept Rust crate implements this layout with a caller-supplied
//! clock and random source. The counter rule is tsid-creator's (`TsidFactory`): a new
//! millisecond starts the counter at a random value; a repeated one increments it; an
//! overflow carries into the time part, so ids never descend.

use crate::clock::Clock;
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha8Rng;

/// The TSID epoch, 2020-01-01T00:00:00Z, in Unix milliseconds.
pub const TSID_EPOCH_MS: u64 = 1_577_836_800_000;
const NODE_BITS: u32 = 10;
const COUNTER_BITS: u32 = 12;
const COUNTER_MAX: u32 = (1 << COUNTER_BITS) - 1;

/// TSID generator state.
#[derive(Debug, Clone)]
pub(crate) struct TsidGen {
    rng: ChaCha8Rng,
    clock: Clock,
    node: u64,
    last_ms: u64,
    counter: u32,
}

impl TsidGen {
    /// `node` is masked to its 10 bits.
    pub fn new(rng: ChaCha8Rng, clock: Clock, node: u16) -> TsidGen {
        let node = node as u64 & ((1 << NODE_BITS) - 1);
        TsidGen { rng, clock, node, last_ms: 0, counter: 0 }
    }

    #[inline]
    pub fn next(&mut self) -> i64 {
        let now = self.clock.next_ms();
        if now > self.last_ms {
            self.last_ms = now;
            self.counter = self.rng.next_u32() & COUNTER_MAX;
        } else if self.counter == COUNTER_MAX {
            self.last_ms += 1;
            self.counter = 0;
        } else {
            self.counter += 1;
        }
        let ms = self.last_ms.saturating_sub(TSID_EPOCH_MS) & ((1 << 42) - 1);
        (ms << (NODE_BITS + COUNTER_BITS) | self.node << COUNTER_BITS | self.counter as u64) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockKind;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn layout_and_counter_carry() {
        let clock = Clock::new(ClockKind::Virtual, 10);
        let mut g = TsidGen::new(ChaCha8Rng::seed_from_u64(3), clock, 7);
        let a = g.next();
        assert_eq!(a as u64 >> 22, crate::VIRTUAL_EPOCH_MS - TSID_EPOCH_MS);
        assert_eq!((a >> 12) & 0x3FF, 7);
        let b = g.next();
        assert_eq!(b, a + 1);
        g.counter = COUNTER_MAX;
        let c = g.next();
        assert_eq!((c >> 22) - (a >> 22), 1, "overflow carries into the time part");
        assert_eq!(c & 0xFFF, 0);
    }
}
