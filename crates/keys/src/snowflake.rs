//! Twitter Snowflake ids: sign bit 0, 41 bits of milliseconds since the Twitter epoch,
//! 10 bits of node id, 12 bits of per-millisecond sequence.
//!
//! Hand-written: the layout is one shift-and-or, and no well-kept crate lets the caller
//! supply the clock (which keylab needs for reproducible runs).

use crate::clock::Clock;

/// Twitter's Snowflake epoch, 2010-11-04T01:42:54.657Z, in Unix milliseconds.
pub const TWITTER_EPOCH_MS: u64 = 1_288_834_974_657;
const NODE_BITS: u32 = 10;
const SEQUENCE_BITS: u32 = 12;
const SEQUENCE_MAX: u64 = (1 << SEQUENCE_BITS) - 1;

/// Snowflake generator state.
#[derive(Debug, Clone)]
pub(crate) struct SnowflakeGen {
    clock: Clock,
    node: u64,
    last_ms: u64,
    sequence: u64,
}

impl SnowflakeGen {
    /// `node` is masked to its 10 bits.
    pub fn new(clock: Clock, node: u16) -> SnowflakeGen {
        SnowflakeGen { clock, node: node as u64 & ((1 << NODE_BITS) - 1), last_ms: 0, sequence: 0 }
    }

    /// The sequence restarts at 0 each millisecond. Where Twitter's server waits for the
    /// next millisecond when 4096 ids are used up (or refuses a clock that went back), this
    /// one moves its timestamp on by one, which is what waiting yields on a virtual clock.
    #[inline]
    pub fn next(&mut self) -> i64 {
        let now = self.clock.next_ms();
        if now > self.last_ms {
            self.last_ms = now;
            self.sequence = 0;
        } else if self.sequence == SEQUENCE_MAX {
            self.last_ms += 1;
            self.sequence = 0;
        } else {
            self.sequence += 1;
        }
        let ms = self.last_ms.saturating_sub(TWITTER_EPOCH_MS) & ((1 << 41) - 1);
        (ms << (NODE_BITS + SEQUENCE_BITS) | self.node << SEQUENCE_BITS | self.sequence) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClockKind;

    #[test]
    fn layout() {
        let mut g = SnowflakeGen::new(Clock::new(ClockKind::Virtual, 2), 5);
        let a = g.next();
        let b = g.next();
        let c = g.next();
        assert!(a > 0);
        assert_eq!(a as u64 >> 22, crate::VIRTUAL_EPOCH_MS - TWITTER_EPOCH_MS);
        assert_eq!((a >> 12) & 0x3FF, 5);
        assert_eq!(a & 0xFFF, 0);
        assert_eq!(b & 0xFFF, 1);
        assert_eq!(c & 0xFFF, 0, "sequence restarts in the next millisecond");
        assert_eq!((c >> 22) - (a >> 22), 1);
    }
}
