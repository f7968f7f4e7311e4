//! keylab's id generators: every key strategy (`auto-inc`, `seq`, `uuid1`/`4`/`6`/`7`,
//! `ulid`, `snowflake`, `tsid`, `ksuid`, `md5`) in every stored encoding (`text`, `hex`,
//! `bin`, `bin-swap`, `bigint`), deterministic under a seed and a virtual clock.
//!
//! A [`Variant`] names a strategy and an encoding and knows its column type and stored
//! length; a [`KeyGen`] yields that variant's ids as [`Key`]s (inline, `Copy`, ordered as
//! the stored column sorts); [`Key::parse`] reads printed ids back for replay.
//!
//! This crate does not touch tables, pages or servers: the simulator and the server drivers
//! take the keys from here and store them.
//!
//! ```
//! use keylab_keys::{GenConfig, KeyGen, Variant};
//! let variant: Variant = "uuid7:text".parse().unwrap();
//! let mut ids = KeyGen::new(variant, &GenConfig::default());
//! let a = ids.next_key();
//! let b = ids.next_key();
//! assert!(a < b);
//! assert_eq!(a.to_string().len(), 36);
//! ```
#![deny(missing_docs)]

mod clock;
mod config;
mod generator;
mod key;
mod ksuid;
mod md5_uuid;
mod parse;
mod snowflake;
mod text;
mod tsid;
mod ulid;
mod uuid;
mod variant;

pub use clock::VIRTUAL_EPOCH_MS;
pub use config::{ClockKind, ConfigError, GenConfig, WithinMs, MAX_NODE};
pub use generator::KeyGen;
pub use key::{InlineBytes, Key, MAX_KEY_BYTES};
pub use parse::KeyParseError;
pub use snowflake::TWITTER_EPOCH_MS;
pub use tsid::TSID_EPOCH_MS;
pub use variant::{Encoding, Strategy, Variant, VariantError};
