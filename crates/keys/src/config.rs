//! Generator settings: seed, virtual-clock rate, the within-millisecond rule, clock kind and
//! node id, with their CLI tokens. Shared by every strategy; each ignores what it has no use
//! for (documented per field).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How time-ordered ids that share a millisecond are ordered among themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WithinMs {
    /// Strictly ascending (RFC 9562 counter / ULID increment). The default.
    #[default]
    Monotonic,
    /// Fresh random bits per id: ordered across milliseconds, not inside one
    /// (RFC 9562 allows it). Applies to `uuid7` and `ulid`.
    Random,
}

/// Where time-based ids take their time from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClockKind {
    /// Starts at `VIRTUAL_EPOCH_MS`, advances 1 ms every `ids_per_ms` ids: reproducible.
    /// The default.
    #[default]
    Virtual,
    /// The system clock: ids differ on every run.
    Wall,
}

/// Settings of one id generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GenConfig {
    /// Seed of the random parts (uuid4, uuid7/ulid random bits, TSID counter starts, KSUID
    /// payloads, v1/v6 clock sequence and node). Default 1.
    pub seed: u64,
    /// Ids per millisecond of the virtual clock; 0 counts as 1. Default 1.
    pub ids_per_ms: u32,
    /// Milliseconds the virtual clock advances after each `ids_per_ms` ids; 0 counts as 1.
    /// Default 1.
    pub step_ms: u32,
    /// Rule inside one millisecond for `uuid7` and `ulid`; snowflake and tsid always use
    /// their counters, uuid1/uuid6 their 100-ns ticks, ksuid a fresh payload.
    pub within_ms: WithinMs,
    /// Virtual or wall clock.
    pub clock: ClockKind,
    /// Node id of snowflake and tsid (10 bits: 0 to 1023; higher bits are dropped).
    /// Default 1.
    pub node: u16,
    /// Values per round trip of the `sequence` and `table` generators (an ORM's allocation
    /// size; Hibernate's default is 50); 0 counts as 1. Default 50.
    pub block: u32,
    /// Writers taking blocks of `sequence`/`table` ids in turn (their blocks interleave);
    /// 0 counts as 1. Default 1.
    pub writers: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            seed: 1,
            ids_per_ms: 1,
            step_ms: 1,
            within_ms: WithinMs::Monotonic,
            clock: ClockKind::Virtual,
            node: 1,
            block: 50,
            writers: 1,
        }
    }
}

/// Highest node id snowflake and tsid can carry (10 bits).
pub const MAX_NODE: u16 = 1023;

/// A setting outside its range, or an unknown token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `ids_per_ms` was 0.
    #[error("ids per millisecond must be at least 1")]
    ZeroIdsPerMs,
    /// `node` does not fit 10 bits.
    #[error("node id {0} does not fit 10 bits; valid: 0 to 1023")]
    NodeTooLarge(u16),
    /// An unknown `--within-ms` token.
    #[error("unknown within-ms rule `{0}`; valid: monotonic, random")]
    UnknownWithinMs(String),
    /// An unknown `--clock` token.
    #[error("unknown clock `{0}`; valid: virtual, wall")]
    UnknownClock(String),
}

impl GenConfig {
    /// Checks the ranges `KeyGen::new` would otherwise silently clamp or mask.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.ids_per_ms == 0 {
            return Err(ConfigError::ZeroIdsPerMs);
        }
        if self.node > MAX_NODE {
            return Err(ConfigError::NodeTooLarge(self.node));
        }
        Ok(())
    }
}

impl WithinMs {
    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            WithinMs::Monotonic => "monotonic",
            WithinMs::Random => "random",
        }
    }
}

impl ClockKind {
    /// The CLI token.
    pub fn token(self) -> &'static str {
        match self {
            ClockKind::Virtual => "virtual",
            ClockKind::Wall => "wall",
        }
    }
}

impl FromStr for WithinMs {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "monotonic" => Ok(WithinMs::Monotonic),
            "random" => Ok(WithinMs::Random),
            _ => Err(ConfigError::UnknownWithinMs(s.trim().to_string())),
        }
    }
}

impl FromStr for ClockKind {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "virtual" => Ok(ClockKind::Virtual),
            "wall" => Ok(ClockKind::Wall),
            _ => Err(ConfigError::UnknownClock(s.trim().to_string())),
        }
    }
}

impl fmt::Display for WithinMs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl fmt::Display for ClockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_ranges() {
        assert_eq!("random".parse::<WithinMs>().unwrap(), WithinMs::Random);
        assert_eq!("Wall".parse::<ClockKind>().unwrap(), ClockKind::Wall);
        let e = "sometimes".parse::<WithinMs>().unwrap_err().to_string();
        assert_eq!(e, "unknown within-ms rule `sometimes`; valid: monotonic, random");
        assert!("sundial".parse::<ClockKind>().unwrap_err().to_string().contains("virtual, wall"));
        assert_eq!(GenConfig::default().validate(), Ok(()));
        let bad = GenConfig { node: 1024, ..GenConfig::default() };
        assert_eq!(bad.validate(), Err(ConfigError::NodeTooLarge(1024)));
        let bad = GenConfig { ids_per_ms: 0, ..GenConfig::default() };
        assert_eq!(bad.validate(), Err(ConfigError::ZeroIdsPerMs));
    }
}
