//! The values of a scenario file that can be wrong on their own: a column type, a page size,
//! a byte size, a fill factor, a merge threshold, an autoinc lock mode. Each is its own type
//! whose parse error lists the valid choices, so the `toml` crate points at the value.
//!
//! Not for: checks that need more than one value (a type's length against its generator,
//! a page size against the row size), which planning makes.

use serde::{de, Deserialize, Deserializer};
use std::fmt;

/// A column type as written: `int`, `bigint`, `bigint unsigned`, `char(n)`, `varchar(n)`,
/// `binary(n)`, `text`, `timestamp`, `datetime`, `date`, `decimal(p,s)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeSpec {
    /// `INT`.
    Int,
    /// `BIGINT [UNSIGNED]`.
    BigInt {
        /// Unsigned.
        unsigned: bool,
    },
    /// `CHAR(n)`.
    Char(u32),
    /// `VARCHAR(n)`.
    VarChar(u32),
    /// `BINARY(n)`.
    Binary(u32),
    /// `TEXT`.
    Text,
    /// `TIMESTAMP`.
    Timestamp,
    /// `DATETIME`.
    DateTime,
    /// `DATE`.
    Date,
    /// `DECIMAL(p,s)`.
    Decimal(u32, u32),
}

/// The valid type spellings, for error messages.
pub const TYPE_CHOICES: &str = "int, bigint, bigint unsigned, char(n), varchar(n), binary(n), \
                                text, timestamp, datetime, date, decimal(p,s)";

impl TypeSpec {
    /// Parses a type name (case-insensitive).
    pub fn parse(s: &str) -> Result<TypeSpec, String> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad = || format!("unknown column type `{s}`; valid: {TYPE_CHOICES}");
        let simple = match t.as_str() {
            "int" | "integer" => Some(TypeSpec::Int),
            "bigint" => Some(TypeSpec::BigInt { unsigned: false }),
            "bigint unsigned" => Some(TypeSpec::BigInt { unsigned: true }),
            "text" => Some(TypeSpec::Text),
            "timestamp" => Some(TypeSpec::Timestamp),
            "datetime" => Some(TypeSpec::DateTime),
            "date" => Some(TypeSpec::Date),
            _ => None,
        };
        if let Some(ty) = simple {
            return Ok(ty);
        }
        let (head, rest) = t.split_once('(').ok_or_else(bad)?;
        let args = rest.strip_suffix(')').ok_or_else(bad)?;
        let nums: Vec<u32> = args
            .split(',')
            .map(|a| a.trim().parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let one = |max: u32, what: &str| match nums.as_slice() {
            [n] if (1..=max).contains(n) => Ok(*n),
            _ => Err(format!("{what} length in `{s}` must be one number from 1 to {max}")),
        };
        match head.trim() {
            "char" => one(255, "char").map(TypeSpec::Char),
            "varchar" => one(65_535, "varchar").map(TypeSpec::VarChar),
            "binary" => one(255, "binary").map(TypeSpec::Binary),
            "decimal" => match nums.as_slice() {
                [p, s] if (1..=65).contains(p) && s <= p && *s <= 30 => {
                    Ok(TypeSpec::Decimal(*p, *s))
                }
                _ => Err(format!(
                    "`{s}`: decimal(p,s) needs precision 1 to 65 and scale 0 to 30, at most p"
                )),
            },
            _ => Err(bad()),
        }
    }

    /// True for character types (they take a `charset`).
    pub fn is_string(self) -> bool {
        matches!(self, TypeSpec::Char(_) | TypeSpec::VarChar(_) | TypeSpec::Text)
    }

    /// True for time types.
    pub fn is_time(self) -> bool {
        matches!(self, TypeSpec::Timestamp | TypeSpec::DateTime | TypeSpec::Date)
    }
}

impl<'de> Deserialize<'de> for TypeSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        TypeSpec::parse(&s).map_err(de::Error::custom)
    }
}

/// `innodb_page_size` in bytes, written `"4k"` ... `"64k"` or as bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSizeSpec(pub u32);

const PAGE_SIZES: [u32; 5] = [4096, 8192, 16_384, 32_768, 65_536];

impl PageSizeSpec {
    /// `16k` style label.
    pub fn label(self) -> String {
        format!("{}k", self.0 / 1024)
    }
}

impl<'de> Deserialize<'de> for PageSizeSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = match IntOrString::deserialize(d)? {
            IntOrString::Int(n) => u64::try_from(n).ok(),
            IntOrString::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "4k" => Some(4096),
                "8k" => Some(8192),
                "16k" => Some(16_384),
                "32k" => Some(32_768),
                "64k" => Some(65_536),
                other => other.parse().ok(),
            },
        };
        match bytes.and_then(|b| u32::try_from(b).ok()).filter(|b| PAGE_SIZES.contains(b)) {
            Some(b) => Ok(PageSizeSpec(b)),
            None => Err(de::Error::custom("not an InnoDB page size; valid: 4k, 8k, 16k, 32k, 64k")),
        }
    }
}

/// A size in bytes, written as an integer or with a `K`, `M` or `G` suffix (powers of 1024).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// `128M` style label.
    pub fn label(self) -> String {
        const UNITS: [(u64, &str); 3] = [(1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
        for (unit, suffix) in UNITS {
            if self.0 >= unit && self.0 % unit == 0 {
                return format!("{}{suffix}", self.0 / unit);
            }
        }
        self.0.to_string()
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bad = || de::Error::custom("not a size; write bytes (134217728) or 128M, 1G, 512K");
        match IntOrString::deserialize(d)? {
            IntOrString::Int(n) => u64::try_from(n).map(ByteSize).map_err(|_| bad()),
            IntOrString::String(s) => {
                let t = s.trim().to_ascii_uppercase();
                let (num, mult) = match t.char_indices().last() {
                    Some((i, 'K')) => (&t[..i], 1u64 << 10),
                    Some((i, 'M')) => (&t[..i], 1 << 20),
                    Some((i, 'G')) => (&t[..i], 1 << 30),
                    _ => (t.as_str(), 1),
                };
                let n: u64 = num.trim().parse().map_err(|_| bad())?;
                n.checked_mul(mult).map(ByteSize).ok_or_else(bad)
            }
        }
    }
}

/// `innodb_fill_factor`, 10 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillFactor(pub u8);

impl<'de> Deserialize<'de> for FillFactor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        match u8::try_from(n) {
            Ok(v) if (10..=100).contains(&v) => Ok(FillFactor(v)),
            _ => {
                Err(de::Error::custom(format!("fill factor {n} is out of range; valid: 10 to 100")))
            }
        }
    }
}

/// `MERGE_THRESHOLD`, 1 to 50.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeThreshold(pub u8);

impl<'de> Deserialize<'de> for MergeThreshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        match u8::try_from(n) {
            Ok(v) if (1..=50).contains(&v) => Ok(MergeThreshold(v)),
            _ => Err(de::Error::custom(format!(
                "merge threshold {n} is out of range; valid: 1 to 50"
            ))),
        }
    }
}

/// `innodb_autoinc_lock_mode`: 0 (traditional), 1 (consecutive) or 2 (interleaved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoincLockMode(pub u8);

impl<'de> Deserialize<'de> for AutoincLockMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        match u8::try_from(n) {
            Ok(v) if v <= 2 => Ok(AutoincLockMode(v)),
            _ => Err(de::Error::custom(format!(
                "autoinc_lock_mode {n} is not valid; valid: 0 (traditional), 1 (consecutive), \
                 2 (interleaved)"
            ))),
        }
    }
}

/// An integer or a string, for values that accept both.
pub(super) enum IntOrString {
    Int(i64),
    String(String),
}

impl<'de> Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = IntOrString;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IntOrString, E> {
                Ok(IntOrString::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IntOrString, E> {
                i64::try_from(v).map(IntOrString::Int).map_err(|_| E::custom("number too large"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::String(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}
