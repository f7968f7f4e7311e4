//! Key variants: a key strategy (how ids are generated) paired with an encoding (how the id is
//! stored), their CLI tokens, and what each pair needs from a table: its column type and the
//! bytes it takes in a record.
//!
//! This module only names and describes variants; generating ids is `KeyGen`'s job.

use keylab_schema::{Charset, ColumnType, Dialect};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// How ids are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Engine-assigned `BIGINT AUTO_INCREMENT`: 1, 2, 3, ... for a single writer.
    AutoInc,
    /// Application-assigned sequential `BIGINT`: 1, 2, 3, ...
    Seq,
    /// UUID version 1 (Gregorian 100-ns time, `time_low` first).
    Uuid1,
    /// UUID version 4 (random).
    Uuid4,
    /// UUID version 6 (Gregorian 100-ns time, most significant bits first).
    Uuid6,
    /// UUID version 7 (Unix milliseconds, then counter and random bits).
    Uuid7,
    /// ULID (48-bit Unix milliseconds, 80 random bits, monotonic within a millisecond).
    Ulid,
    /// Twitter Snowflake (41-bit ms, 10-bit node, 12-bit sequence).
    Snowflake,
    /// TSID (42-bit ms since 2020, 10-bit node, 12-bit counter).
    Tsid,
    /// Segment's KSUID (32-bit seconds since 2014-05-13, 128 random bits).
    Ksuid,
    /// MD5 over the canonical text of a random UUIDv4, as SQL's `md5(uuid())`.
    Md5,
    /// An ORM's `SEQUENCE` generator: each writer takes a block of `block` values per round
    /// trip to a server sequence (`INCREMENT BY block`) and assigns them in order; writers'
    /// blocks interleave, values a block leaves unused are skipped.
    Sequence,
    /// An ORM's `TABLE` generator: the same blocks, taken by updating a row of an id table
    /// (`next = next + block`) instead of a sequence.
    Table,
}

/// How an id is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// The canonical string (36 chars for UUIDs, 26 for ULID, 27 for KSUID, 13 for TSID,
    /// 32 for MD5).
    Text,
    /// 32 lowercase hex chars, no dashes.
    Hex,
    /// Raw bytes (`BINARY(16)`, `BINARY(20)` for KSUID).
    Bin,
    /// UUIDv1 bytes with the time fields swapped as MySQL's `UUID_TO_BIN(u, 1)`.
    BinSwap,
    /// A signed 64-bit integer.
    Bigint,
}

const ALL_STRATEGIES: [Strategy; 13] = [
    Strategy::AutoInc,
    Strategy::Seq,
    Strategy::Uuid1,
    Strategy::Uuid4,
    Strategy::Uuid6,
    Strategy::Uuid7,
    Strategy::Ulid,
    Strategy::Snowflake,
    Strategy::Tsid,
    Strategy::Ksuid,
    Strategy::Md5,
    Strategy::Sequence,
    Strategy::Table,
];

const ALL_ENCODINGS: [Encoding; 5] =
    [Encoding::Text, Encoding::Hex, Encoding::Bin, Encoding::BinSwap, Encoding::Bigint];

impl Strategy {
    /// Every strategy, in the order the CLI lists them.
    pub fn all() -> &'static [Strategy] {
        &ALL_STRATEGIES
    }

    /// The CLI token (`auto-inc`, `uuid7`, ...).
    pub fn token(self) -> &'static str {
        match self {
            Strategy::AutoInc => "auto-inc",
            Strategy::Seq => "seq",
            Strategy::Uuid1 => "uuid1",
            Strategy::Uuid4 => "uuid4",
            Strategy::Uuid6 => "uuid6",
            Strategy::Uuid7 => "uuid7",
            Strategy::Ulid => "ulid",
            Strategy::Snowflake => "snowflake",
            Strategy::Tsid => "tsid",
            Strategy::Ksuid => "ksuid",
            Strategy::Md5 => "md5",
            Strategy::Sequence => "sequence",
            Strategy::Table => "table",
        }
    }

    /// The encoding used when a variant names only the strategy.
    pub fn default_encoding(self) -> Encoding {
        self.encodings()[0]
    }

    /// The encodings this strategy can be stored as; the first is the default.
    pub fn encodings(self) -> &'static [Encoding] {
        use Encoding::*;
        match self {
            Strategy::AutoInc
            | Strategy::Seq
            | Strategy::Snowflake
            | Strategy::Sequence
            | Strategy::Table => &[Bigint],
            Strategy::Tsid => &[Bigint, Text],
            Strategy::Uuid1 => &[Text, Hex, Bin, BinSwap],
            Strategy::Uuid4 | Strategy::Uuid6 | Strategy::Uuid7 => &[Text, Hex, Bin],
            Strategy::Ulid | Strategy::Ksuid | Strategy::Md5 => &[Text, Bin],
        }
    }

    /// True when the id leads with a timestamp, so ids generated later store after earlier
    /// ones in every encoding (at the strategy's time resolution: a second for KSUID).
    /// UUIDv1 is time-based but leads with `time_low`, so it is not (only `bin-swap` is).
    pub fn is_time_ordered(self) -> bool {
        matches!(
            self,
            Strategy::Uuid6
                | Strategy::Uuid7
                | Strategy::Ulid
                | Strategy::Snowflake
                | Strategy::Tsid
                | Strategy::Ksuid
        )
    }

    /// True when the database engine assigns the id (`AUTO_INCREMENT`), not the application.
    pub fn is_engine_assigned(self) -> bool {
        self == Strategy::AutoInc
    }
}

impl Encoding {
    /// Every encoding.
    pub fn all() -> &'static [Encoding] {
        &ALL_ENCODINGS
    }

    /// The CLI token (`text`, `hex`, `bin`, `bin-swap`, `bigint`).
    pub fn token(self) -> &'static str {
        match self {
            Encoding::Text => "text",
            Encoding::Hex => "hex",
            Encoding::Bin => "bin",
            Encoding::BinSwap => "bin-swap",
            Encoding::Bigint => "bigint",
        }
    }

    /// True for encodings stored as characters (`text`, `hex`).
    pub fn is_text(self) -> bool {
        matches!(self, Encoding::Text | Encoding::Hex)
    }
}

/// A key strategy with the encoding its ids are stored in, e.g. `uuid7:bin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variant {
    /// How ids are generated.
    pub strategy: Strategy,
    /// How they are stored.
    pub encoding: Encoding,
}

/// Why a variant string was refused. The message lists the valid choices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    /// The strategy token is not one keylab knows.
    #[error("unknown key strategy `{given}`; valid: {}", strategy_list())]
    UnknownStrategy {
        /// The token as given.
        given: String,
    },
    /// The encoding token is not one keylab knows.
    #[error("unknown key encoding `{given}`; valid encodings for {strategy}: {}",
        encoding_list(*strategy))]
    UnknownEncoding {
        /// The strategy it was given for.
        strategy: Strategy,
        /// The token as given.
        given: String,
    },
    /// The strategy cannot be stored in that encoding.
    #[error("`{strategy}` cannot be stored as `{encoding}`; valid encodings for {strategy}: {}",
        encoding_list(*strategy))]
    Unsupported {
        /// The strategy.
        strategy: Strategy,
        /// The encoding asked for.
        encoding: Encoding,
    },
}

fn strategy_list() -> String {
    Strategy::all().iter().map(|s| s.token()).collect::<Vec<_>>().join(", ")
}

fn encoding_list(strategy: Strategy) -> String {
    strategy.encodings().iter().map(|e| e.token()).collect::<Vec<_>>().join(", ")
}

impl Variant {
    /// A variant, checking the pair is supported.
    pub fn new(strategy: Strategy, encoding: Encoding) -> Result<Variant, VariantError> {
        if strategy.encodings().contains(&encoding) {
            Ok(Variant { strategy, encoding })
        } else {
            Err(VariantError::Unsupported { strategy, encoding })
        }
    }

    /// The strategy in its default encoding.
    pub fn default_for(strategy: Strategy) -> Variant {
        Variant { strategy, encoding: strategy.default_encoding() }
    }

    /// Every supported strategy/encoding pair, strategies in CLI order.
    pub fn all() -> impl Iterator<Item = Variant> {
        Strategy::all()
            .iter()
            .flat_map(|&s| s.encodings().iter().map(move |&e| Variant { strategy: s, encoding: e }))
    }

    /// Length of the stored text in characters (all ASCII), `None` for binary and integers.
    pub fn text_len(&self) -> Option<u32> {
        match (self.strategy, self.encoding) {
            (Strategy::Tsid, Encoding::Text) => Some(13),
            (Strategy::Ulid, Encoding::Text) => Some(26),
            (Strategy::Ksuid, Encoding::Text) => Some(27),
            (Strategy::Md5, Encoding::Text) | (_, Encoding::Hex) => Some(32),
            (_, Encoding::Text) => Some(36),
            _ => None,
        }
    }

    /// Bytes the id takes in a record: characters for text (ASCII: one byte each, also in
    /// utf8mb4), raw bytes for binary, 8 for `bigint`.
    pub fn stored_len(&self) -> u32 {
        match self.encoding {
            Encoding::Bigint => 8,
            Encoding::Bin | Encoding::BinSwap => match self.strategy {
                Strategy::Ksuid => 20,
                _ => 16,
            },
            Encoding::Text | Encoding::Hex => self.text_len().unwrap_or(0),
        }
    }

    /// The column type an id of this variant is stored in: `VARCHAR(n)` utf8mb4 for text,
    /// `BINARY(n)` for binary, signed `BIGINT` for integers.
    pub fn column_type(&self) -> ColumnType {
        match self.encoding {
            Encoding::Bigint => ColumnType::BigInt { unsigned: false },
            Encoding::Bin | Encoding::BinSwap => ColumnType::Binary { bytes: self.stored_len() },
            Encoding::Text | Encoding::Hex => {
                let charset = if self.needs_binary_collation() {
                    Charset::Utf8mb4Bin
                } else {
                    Charset::Utf8mb4
                };
                ColumnType::VarChar { chars: self.stored_len(), charset }
            }
        }
    }

    /// The column type as written in `CREATE TABLE` for `dialect`.
    pub fn column_sql(&self, dialect: Dialect) -> String {
        self.column_type().sql(dialect)
    }

    /// True when the stored text mixes letter cases (KSUID's base62), so byte order is the
    /// id order only under a binary collation (`utf8mb4_bin`, `ascii_bin`, PostgreSQL's
    /// `"C"`). Under the servers' default case-insensitive or linguistic collations such
    /// ids sort differently from `Key`'s order (and ids differing only in case collide).
    /// Every other text encoding is single-case hex, Crockford base32 or digits, whose
    /// order is the same under those collations.
    pub fn needs_binary_collation(&self) -> bool {
        self.strategy == Strategy::Ksuid && self.encoding == Encoding::Text
    }

    /// True when ids come out in ascending stored order (with `WithinMs::Monotonic`, and at
    /// millisecond resolution or finer): what an index sees as append-only inserts.
    pub fn is_ascending(&self) -> bool {
        match self.strategy {
            Strategy::AutoInc | Strategy::Seq => true,
            // With one writer; several writers' blocks interleave (see `GenConfig::writers`).
            Strategy::Sequence | Strategy::Table => true,
            Strategy::Uuid1 => self.encoding == Encoding::BinSwap,
            Strategy::Ksuid => false,
            s => s.is_time_ordered(),
        }
    }
}

impl FromStr for Strategy {
    type Err = VariantError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        Strategy::all()
            .iter()
            .copied()
            .find(|x| x.token() == t)
            .ok_or_else(|| VariantError::UnknownStrategy { given: s.trim().to_string() })
    }
}

/// Parses `strategy[:encoding]`, e.g. `uuid4:text`, `ulid:bin`, `auto-inc`; a missing encoding
/// means the strategy's default. Tokens are case-insensitive.
impl FromStr for Variant {
    type Err = VariantError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (strategy, encoding) = match s.split_once(':') {
            Some((st, en)) => (st, Some(en)),
            None => (s, None),
        };
        let strategy: Strategy = strategy.parse()?;
        let Some(encoding) = encoding else {
            return Ok(Variant::default_for(strategy));
        };
        let t = encoding.trim().to_ascii_lowercase();
        let encoding =
            Encoding::all().iter().copied().find(|e| e.token() == t).ok_or_else(|| {
                VariantError::UnknownEncoding { strategy, given: encoding.trim().to_string() }
            })?;
        Variant::new(strategy, encoding)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// Prints `strategy:encoding`, except that 64-bit integer variants print the bare strategy
/// (`auto-inc`, `seq`, `snowflake`, `tsid`): `bigint` is their default and the name says it.
/// So `uuid4:text`, `ulid:bin`, `tsid:text`, but `auto-inc`. The output parses back to the
/// same variant.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.encoding == Encoding::Bigint {
            f.write_str(self.strategy.token())
        } else {
            write!(f, "{}:{}", self.strategy.token(), self.encoding.token())
        }
    }
}

impl Serialize for Variant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Variant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_pair_parses_and_prints_back() {
        let mut n = 0;
        for v in Variant::all() {
            let long = format!("{}:{}", v.strategy, v.encoding);
            assert_eq!(long.parse::<Variant>().unwrap(), v, "{long}");
            assert_eq!(v.to_string().parse::<Variant>().unwrap(), v, "{v}");
            n += 1;
        }
        // 5 bigint-only + tsid 2 + uuid1 4 + uuid4/6/7 3 each + ulid/ksuid/md5 2 each.
        assert_eq!(n, 5 + 2 + 4 + 9 + 6);
    }

    #[test]
    fn bare_strategy_takes_its_default_encoding() {
        let cases = [
            ("auto-inc", Encoding::Bigint),
            ("seq", Encoding::Bigint),
            ("snowflake", Encoding::Bigint),
            ("tsid", Encoding::Bigint),
            ("uuid1", Encoding::Text),
            ("uuid4", Encoding::Text),
            ("uuid7", Encoding::Text),
            ("ulid", Encoding::Text),
            ("ksuid", Encoding::Text),
            ("md5", Encoding::Text),
        ];
        for (s, e) in cases {
            assert_eq!(s.parse::<Variant>().unwrap().encoding, e, "{s}");
        }
    }

    #[test]
    fn display_is_short_for_integers_only() {
        assert_eq!("auto-inc".parse::<Variant>().unwrap().to_string(), "auto-inc");
        assert_eq!("tsid:bigint".parse::<Variant>().unwrap().to_string(), "tsid");
        assert_eq!("tsid:text".parse::<Variant>().unwrap().to_string(), "tsid:text");
        assert_eq!("uuid4".parse::<Variant>().unwrap().to_string(), "uuid4:text");
        assert_eq!("UUID7:BIN".parse::<Variant>().unwrap().to_string(), "uuid7:bin");
    }

    #[test]
    fn errors_list_the_valid_choices() {
        let e = "uuid9".parse::<Variant>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown key strategy `uuid9`; valid: auto-inc, seq, uuid1, uuid4, uuid6, uuid7, \
             ulid, snowflake, tsid, ksuid, md5, sequence, table"
        );
        let e = "uuid4:bigint".parse::<Variant>().unwrap_err().to_string();
        assert_eq!(
            e,
            "`uuid4` cannot be stored as `bigint`; valid encodings for uuid4: text, hex, bin"
        );
        let e = "ulid:base64".parse::<Variant>().unwrap_err().to_string();
        assert_eq!(e, "unknown key encoding `base64`; valid encodings for ulid: text, bin");
        let e = "uuid4:bin-swap".parse::<Variant>().unwrap_err().to_string();
        assert!(e.contains("valid encodings for uuid4: text, hex, bin"), "{e}");
        assert!("".parse::<Variant>().is_err());
        assert!("auto-inc:text".parse::<Variant>().is_err());
        assert!("snowflake:bin".parse::<Variant>().is_err());
        assert!("md5:hex".parse::<Variant>().is_err());
        assert!("ksuid:hex".parse::<Variant>().is_err());
    }

    #[test]
    fn every_invalid_pair_is_refused() {
        for &s in Strategy::all() {
            for &e in Encoding::all() {
                let r = format!("{s}:{e}").parse::<Variant>();
                assert_eq!(r.is_ok(), s.encodings().contains(&e), "{s}:{e}");
            }
        }
    }

    #[test]
    fn column_types_and_lengths() {
        let v = |s: &str| s.parse::<Variant>().unwrap();
        assert_eq!(v("uuid4:text").stored_len(), 36);
        assert_eq!(v("uuid4:hex").stored_len(), 32);
        assert_eq!(v("uuid1:bin-swap").stored_len(), 16);
        assert_eq!(v("ulid").stored_len(), 26);
        assert_eq!(v("ksuid").stored_len(), 27);
        assert_eq!(v("ksuid:bin").stored_len(), 20);
        assert_eq!(v("md5").stored_len(), 32);
        assert_eq!(v("tsid:text").stored_len(), 13);
        assert_eq!(v("snowflake").stored_len(), 8);
        assert_eq!(
            v("uuid7:text").column_sql(Dialect::Mariadb),
            "VARCHAR(36) CHARACTER SET utf8mb4"
        );
        assert_eq!(v("uuid7:bin").column_sql(Dialect::Mysql), "BINARY(16)");
        assert_eq!(v("uuid7:bin").column_sql(Dialect::Postgres), "BYTEA");
        assert_eq!(v("auto-inc").column_type(), ColumnType::BigInt { unsigned: false });
        let mixed: Vec<String> =
            Variant::all().filter(|v| v.needs_binary_collation()).map(|v| v.to_string()).collect();
        assert_eq!(mixed, ["ksuid:text"]);
        assert_eq!(
            v("ksuid:text").column_sql(Dialect::Mariadb),
            "VARCHAR(27) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        );
        assert_eq!(v("ksuid:text").column_sql(Dialect::Postgres), "VARCHAR(27) COLLATE \"C\"");
    }

    #[test]
    fn serde_uses_the_tokens() {
        let v: Variant = "uuid1:bin-swap".parse().unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"uuid1:bin-swap\"");
        let back: Variant = serde_json::from_str("\"ulid\"").unwrap();
        assert_eq!(back, "ulid:text".parse().unwrap());
        assert!(serde_json::from_str::<Variant>("\"uuid9\"").is_err());
        assert_eq!(serde_json::to_string(&Strategy::AutoInc).unwrap(), "\"auto-inc\"");
        assert_eq!(serde_json::to_string(&Encoding::BinSwap).unwrap(), "\"bin-swap\"");
    }
}
