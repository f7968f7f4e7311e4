//! The time source of time-based ids: a virtual clock that makes runs reproducible, or the
//! wall clock on request.
//!
//! The virtual clock starts at [`VIRTUAL_EPOCH_MS`] and advances `step_ms` milliseconds
//! (default one) every `ids_per_ms` ids; a step above one stretches a short run over a long
//! time span (E3: enough for UUIDv1's 32-bit `time_low` to wrap, every ~429.5 s); inside a millisecond it spreads the ids evenly over the 10,000 ticks of
//! 100 ns that UUIDv1/v6 carry. It knows nothing of id layouts: keeping ids monotonic when
//! the wall clock stalls or steps back is each generator's job.

use crate::ClockKind;
use std::time::{SystemTime, UNIX_EPOCH};

/// Start of the virtual clock: 2025-01-01T00:00:00Z, in Unix milliseconds.
pub const VIRTUAL_EPOCH_MS: u64 = 1_735_689_600_000;

/// 100-ns ticks in a millisecond.
pub(crate) const TICKS_PER_MS: u64 = 10_000;

/// One reading of the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Instant {
    /// Unix time in milliseconds.
    pub unix_ms: u64,
    /// 100-ns ticks past `unix_ms`, below 10,000.
    pub sub_ms_ticks: u32,
}

impl Instant {
    /// Unix time in 100-ns ticks.
    pub fn unix_ticks(self) -> u64 {
        self.unix_ms * TICKS_PER_MS + self.sub_ms_ticks as u64
    }
}

/// The clock one generator reads once per id.
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    kind: ClockKind,
    ids_per_ms: u32,
    /// Milliseconds the virtual clock advances after `ids_per_ms` ids.
    step_ms: u32,
    /// Virtual clock: the current millisecond and how many ids it has given out.
    ms: u64,
    index_in_ms: u32,
}

impl Clock {
    /// A clock; `ids_per_ms` below 1 counts as 1.
    pub fn new(kind: ClockKind, ids_per_ms: u32) -> Clock {
        Clock {
            kind,
            ids_per_ms: ids_per_ms.max(1),
            step_ms: 1,
            ms: VIRTUAL_EPOCH_MS,
            index_in_ms: 0,
        }
    }

    /// The same clock advancing `step_ms` milliseconds per step (0 counts as 1).
    pub fn with_step_ms(mut self, step_ms: u32) -> Clock {
        self.step_ms = step_ms.max(1);
        self
    }

    /// The time for the next id, at millisecond resolution.
    #[inline]
    pub fn next_ms(&mut self) -> u64 {
        match self.kind {
            ClockKind::Virtual => self.advance().0,
            ClockKind::Wall => wall().unix_ms,
        }
    }

    /// The time for the next id, at 100-ns resolution. On the virtual clock the `i`-th id of
    /// a millisecond gets tick `i * 10000 / ids_per_ms`, so up to 10,000 ids per ms get
    /// distinct ticks.
    #[inline]
    pub fn next_instant(&mut self) -> Instant {
        match self.kind {
            ClockKind::Virtual => {
                let (unix_ms, index) = self.advance();
                let sub = index as u64 * TICKS_PER_MS / self.ids_per_ms as u64;
                Instant { unix_ms, sub_ms_ticks: sub as u32 }
            }
            ClockKind::Wall => wall(),
        }
    }

    /// Hands out one id's slot on the virtual clock: (millisecond, index inside it).
    #[inline]
    fn advance(&mut self) -> (u64, u32) {
        let slot = (self.ms, self.index_in_ms);
        self.index_in_ms += 1;
        if self.index_in_ms == self.ids_per_ms {
            self.index_in_ms = 0;
            self.ms += u64::from(self.step_ms);
        }
        slot
    }
}

fn wall() -> Instant {
    // A clock set before 1970 is a broken machine; time-ordered ids then start at 0.
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    Instant { unix_ms: d.as_millis() as u64, sub_ms_ticks: (d.subsec_nanos() % 1_000_000) / 100 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_advances_every_ids_per_ms() {
        let mut c = Clock::new(ClockKind::Virtual, 3);
        let ms: Vec<u64> = (0..7).map(|_| c.next_ms() - VIRTUAL_EPOCH_MS).collect();
        assert_eq!(ms, [0, 0, 0, 1, 1, 1, 2]);
    }

    #[test]
    fn virtual_ticks_spread_over_the_millisecond() {
        let mut c = Clock::new(ClockKind::Virtual, 4);
        let t: Vec<u32> = (0..5).map(|_| c.next_instant().sub_ms_ticks).collect();
        assert_eq!(t, [0, 2500, 5000, 7500, 0]);
        let mut c = Clock::new(ClockKind::Virtual, 0);
        assert_eq!(c.next_ms() + 1, c.next_ms());
    }

    #[test]
    fn a_step_stretches_the_virtual_clock() {
        let mut c = Clock::new(ClockKind::Virtual, 2).with_step_ms(13);
        let ms: Vec<u64> = (0..5).map(|_| c.next_ms() - VIRTUAL_EPOCH_MS).collect();
        assert_eq!(ms, [0, 0, 13, 13, 26]);
    }

    #[test]
    fn wall_clock_is_now() {
        let mut c = Clock::new(ClockKind::Wall, 1);
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
        assert!(c.next_ms().abs_diff(now) < 10_000);
    }
}
