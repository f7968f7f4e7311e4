//! `KeyGen`: one variant's id stream. It picks the strategy's generator, feeds it the seeded
//! random source and the clock, and writes each id in the variant's encoding into an inline
//! `Key` (no heap allocation per id).
//!
//! Bit layouts live in the per-strategy modules; this module only dispatches and encodes.

use crate::clock::Clock;
use crate::key::{InlineBytes, Key};
use crate::ksuid::KsuidGen;
use crate::md5_uuid::Md5Gen;
use crate::snowflake::SnowflakeGen;
use crate::text::{base62_encode_20, crockford_u64, hex_encode, KSUID_TEXT_LEN, TSID_TEXT_LEN};
use crate::tsid::TsidGen;
use crate::ulid::UlidGen;
use crate::uuid::{swap_v1_time_fields, v4, GregorianGen, V7Gen};
use crate::{Encoding, GenConfig, Strategy, Variant};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The per-strategy state behind a `KeyGen`.
#[derive(Debug, Clone)]
enum Source {
    /// auto-inc and seq: the last id handed out.
    Counter(i64),
    /// sequence and table: per-writer blocks.
    Blocks(BlockIds),
    Uuid4(ChaCha8Rng),
    /// uuid1 and uuid6.
    Gregorian(GregorianGen),
    Uuid7(V7Gen),
    Ulid(UlidGen),
    Snowflake(SnowflakeGen),
    Tsid(TsidGen),
    Ksuid(KsuidGen),
    Md5(Md5Gen),
}

/// A deterministic stream of ids of one variant.
///
/// With the virtual clock, the same `Variant` and `GenConfig` give the same ids on every
/// machine; a different seed gives different random parts.
#[derive(Debug, Clone)]
pub struct KeyGen {
    variant: Variant,
    source: Source,
}

impl KeyGen {
    /// A generator for `variant`. Out-of-range settings are clamped (`ids_per_ms` 0 counts
    /// as 1) or masked (`node` to 10 bits); call `GenConfig::validate` to refuse them.
    pub fn new(variant: Variant, cfg: &GenConfig) -> KeyGen {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        // One ChaCha stream per strategy, so e.g. uuid4 and ulid runs under one seed do not
        // share random bits.
        rng.set_stream(stream_id(variant.strategy));
        let clock = Clock::new(cfg.clock, cfg.ids_per_ms).with_step_ms(cfg.step_ms);
        let source = match variant.strategy {
            Strategy::AutoInc | Strategy::Seq => Source::Counter(0),
            Strategy::Sequence | Strategy::Table => {
                Source::Blocks(BlockIds::new(cfg.block, cfg.writers))
            }
            Strategy::Uuid4 => Source::Uuid4(rng),
            Strategy::Uuid1 => Source::Gregorian(GregorianGen::new(rng, clock, false)),
            Strategy::Uuid6 => Source::Gregorian(GregorianGen::new(rng, clock, true)),
            Strategy::Uuid7 => Source::Uuid7(V7Gen::new(rng, clock, cfg.within_ms)),
            Strategy::Ulid => Source::Ulid(UlidGen::new(rng, clock, cfg.within_ms)),
            Strategy::Snowflake => Source::Snowflake(SnowflakeGen::new(clock, cfg.node)),
            Strategy::Tsid => Source::Tsid(TsidGen::new(rng, clock, cfg.node)),
            Strategy::Ksuid => Source::Ksuid(KsuidGen::new(rng, clock)),
            Strategy::Md5 => Source::Md5(Md5Gen::new(rng)),
        };
        KeyGen { variant, source }
    }

    /// The variant this generator produces.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The next id, in the variant's stored form.
    #[inline]
    pub fn next_key(&mut self) -> Key {
        let encoding = self.variant.encoding;
        match &mut self.source {
            Source::Counter(last) => {
                *last += 1;
                Key::Int(*last)
            }
            Source::Blocks(b) => Key::Int(b.next()),
            Source::Snowflake(g) => Key::Int(g.next()),
            Source::Tsid(g) => tsid_key(g.next(), encoding),
            Source::Uuid4(rng) => uuid_key(v4(rng), encoding),
            Source::Gregorian(g) => uuid_key(g.next(), encoding),
            Source::Uuid7(g) => uuid_key(g.next(), encoding),
            Source::Ulid(g) => {
                let ulid = g.next();
                match encoding {
                    Encoding::Text => {
                        let mut b = InlineBytes::zeroed(::ulid::ULID_LEN, true);
                        let buf: &mut [u8; ::ulid::ULID_LEN] =
                            b.as_mut_slice().try_into().expect("26-byte buffer");
                        ulid.array_to_str(buf);
                        Key::Bytes(b)
                    }
                    _ => Key::Bytes(InlineBytes::new(&ulid.to_bytes(), false)),
                }
            }
            Source::Ksuid(g) => {
                let bytes = g.next();
                match encoding {
                    Encoding::Text => {
                        let mut b = InlineBytes::zeroed(KSUID_TEXT_LEN, true);
                        base62_encode_20(&bytes, b.as_mut_slice());
                        Key::Bytes(b)
                    }
                    _ => Key::Bytes(InlineBytes::new(&bytes, false)),
                }
            }
            Source::Md5(g) => {
                let digest = g.next();
                match encoding {
                    Encoding::Text => {
                        let mut b = InlineBytes::zeroed(32, true);
                        hex_encode(&digest, b.as_mut_slice());
                        Key::Bytes(b)
                    }
                    _ => Key::Bytes(InlineBytes::new(&digest, false)),
                }
            }
        }
    }
}

/// The ChaCha stream of a strategy's random parts. Fixed numbers, not the enum's order:
/// they are part of "same seed, same ids" across keylab versions.
fn stream_id(strategy: Strategy) -> u64 {
    match strategy {
        Strategy::AutoInc => 0,
        Strategy::Seq => 1,
        Strategy::Uuid1 => 2,
        Strategy::Uuid4 => 3,
        Strategy::Uuid6 => 4,
        Strategy::Uuid7 => 5,
        Strategy::Ulid => 6,
        Strategy::Snowflake => 7,
        Strategy::Tsid => 8,
        Strategy::Ksuid => 9,
        Strategy::Md5 => 10,
        Strategy::Sequence => 11,
        Strategy::Table => 12,
    }
}

/// Ids handed out the way an ORM's pooled `SEQUENCE`/`TABLE` generator does: each writer
/// holds a block of `block` values taken in one round trip (values `start..start + block`,
/// blocks granted in request order) and assigns them in order; rows go to the writers in
/// turn, one row each (keylab's model of how their inserts interleave), and a writer whose
/// block is used up takes the next free block. With one writer the ids are 1, 2, 3, ...
#[derive(Debug, Clone)]
pub(crate) struct BlockIds {
    block: i64,
    /// Per writer: the next value and the end of its block (exclusive).
    writers: Vec<(i64, i64)>,
    /// First value of the next block the "server" grants.
    next_block: i64,
    /// The writer the next row goes to.
    turn: usize,
}

impl BlockIds {
    /// `block` and `writers` below 1 count as 1.
    pub(crate) fn new(block: u32, writers: u32) -> BlockIds {
        let n = writers.max(1) as usize;
        BlockIds {
            block: i64::from(block.max(1)),
            writers: vec![(0, 0); n],
            next_block: 1,
            turn: 0,
        }
    }

    pub(crate) fn next(&mut self) -> i64 {
        let w = &mut self.writers[self.turn];
        if w.0 == w.1 {
            *w = (self.next_block, self.next_block + self.block);
            self.next_block += self.block;
        }
        let id = w.0;
        w.0 += 1;
        self.turn = (self.turn + 1) % self.writers.len();
        id
    }
}

/// A TSID as stored: the integer, or its 13-char Crockford base32 text.
#[inline]
pub(crate) fn tsid_key(v: i64, encoding: Encoding) -> Key {
    match encoding {
        Encoding::Text => {
            let mut b = InlineBytes::zeroed(TSID_TEXT_LEN, true);
            crockford_u64(v as u64, b.as_mut_slice());
            Key::Bytes(b)
        }
        _ => Key::Int(v),
    }
}

/// A UUID's 16 bytes as stored: dashed lowercase text, bare hex, raw, or v1-swapped raw.
#[inline]
pub(crate) fn uuid_key(bytes: [u8; 16], encoding: Encoding) -> Key {
    let u = ::uuid::Uuid::from_bytes(bytes);
    match encoding {
        Encoding::Text => {
            let mut b = InlineBytes::zeroed(36, true);
            u.hyphenated().encode_lower(b.as_mut_slice());
            Key::Bytes(b)
        }
        Encoding::Hex => {
            let mut b = InlineBytes::zeroed(32, true);
            u.simple().encode_lower(b.as_mut_slice());
            Key::Bytes(b)
        }
        Encoding::BinSwap => Key::Bytes(InlineBytes::new(&swap_v1_time_fields(&bytes), false)),
        Encoding::Bin | Encoding::Bigint => Key::Bytes(InlineBytes::new(&bytes, false)),
    }
}

/// An endless stream of ids.
impl Iterator for KeyGen {
    type Item = Key;

    #[inline]
    fn next(&mut self) -> Option<Key> {
        Some(self.next_key())
    }
}
