//! Reading ids back from text: the inverse of `Key`'s `Display`, used to replay ids from a
//! file (`--keys-file`, one id per line as `keylab keys` prints them).
//!
//! Each variant checks length, alphabet and (for UUIDs) version and variant bits, and says
//! what it expected. Letter case is normalized to the form keylab generates (lowercase
//! UUID/MD5 hex, uppercase ULID/TSID), which changes neither length nor order. Binary
//! encodings also accept the id's usual text (a dashed UUID, a ULID, a KSUID), converted to
//! the stored bytes as `UUID_TO_BIN` would.

use crate::generator::{tsid_key, uuid_key};
use crate::key::{InlineBytes, Key};
use crate::text::{base62_decode_20, crockford_digit, crockford_u64_decode, hex_decode};
use crate::uuid::unswap_v1_time_fields;
use crate::{Encoding, Strategy, Variant};

/// Why a line could not be read as an id of a variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not a {variant} id: expected {expected}")]
pub struct KeyParseError {
    /// The variant the id was read for.
    pub variant: Variant,
    /// The text given (cut to 80 characters).
    pub given: String,
    /// What a valid id looks like.
    pub expected: String,
}

impl Key {
    /// Reads one id of `variant` from its printed form (surrounding whitespace ignored).
    pub fn parse(variant: Variant, s: &str) -> Result<Key, KeyParseError> {
        let s = s.trim();
        parse_inner(variant, s).map_err(|expected| KeyParseError {
            variant,
            given: s.chars().take(80).collect(),
            expected,
        })
    }
}

fn parse_inner(variant: Variant, s: &str) -> Result<Key, String> {
    let b = s.as_bytes();
    match variant.strategy {
        Strategy::AutoInc | Strategy::Seq | Strategy::Sequence | Strategy::Table => {
            s.parse::<i64>().map(Key::Int).map_err(|_| "a decimal 64-bit integer".into())
        }
        Strategy::Snowflake => non_negative(s).map(Key::Int),
        Strategy::Tsid => match variant.encoding {
            Encoding::Text => crockford_u64_decode(b)
                .map(|v| tsid_key(v as i64, Encoding::Text))
                .ok_or_else(|| {
                    "13 Crockford base32 characters (0-9 and A-Z without I, L, O, U), \
                     the first at most F"
                        .into()
                }),
            _ => non_negative(s).map(Key::Int),
        },
        Strategy::Uuid1 | Strategy::Uuid4 | Strategy::Uuid6 | Strategy::Uuid7 => {
            parse_uuid(variant, b)
        }
        Strategy::Ulid => {
            let ulid_text = "26 Crockford base32 characters (0-9 and A-Z without I, L, O, U), \
                             the first at most 7";
            let text = parse_ulid_text(b);
            match variant.encoding {
                Encoding::Text => text.map(|v| ulid_key(v, true)).ok_or_else(|| ulid_text.into()),
                _ => text
                    .or_else(|| hex16(b).map(u128::from_be_bytes))
                    .map(|v| ulid_key(v, false))
                    .ok_or_else(|| format!("32 hex digits of the stored bytes, or {ulid_text}")),
            }
        }
        Strategy::Ksuid => {
            let ksuid_text =
                "27 base62 characters (0-9, A-Z, a-z), at most aWgEPTl1tmebfsQzFP4bxwgy80V";
            match variant.encoding {
                Encoding::Text => base62_decode_20(b)
                    .map(|_| Key::Bytes(InlineBytes::new(b, true)))
                    .ok_or_else(|| ksuid_text.into()),
                _ => {
                    let mut raw = [0u8; 20];
                    base62_decode_20(b)
                        .or_else(|| hex_decode(b, &mut raw).map(|_| raw))
                        .map(|v| Key::Bytes(InlineBytes::new(&v, false)))
                        .ok_or_else(|| {
                            format!("40 hex digits of the stored bytes, or {ksuid_text}")
                        })
                }
            }
        }
        Strategy::Md5 => {
            let mut raw = [0u8; 16];
            hex_decode(b, &mut raw).ok_or("32 hex digits (an MD5 digest)")?;
            Ok(match variant.encoding {
                Encoding::Text => {
                    let lower = s.to_ascii_lowercase();
                    Key::Bytes(InlineBytes::new(lower.as_bytes(), true))
                }
                _ => Key::Bytes(InlineBytes::new(&raw, false)),
            })
        }
    }
}

fn non_negative(s: &str) -> Result<i64, String> {
    match s.parse::<i64>() {
        Ok(v) if v >= 0 => Ok(v),
        _ => Err("a non-negative decimal 64-bit integer".into()),
    }
}

fn hex16(b: &[u8]) -> Option<[u8; 16]> {
    let mut raw = [0u8; 16];
    hex_decode(b, &mut raw).map(|_| raw)
}

/// A dashed 8-4-4-4-12 UUID, strictly (no braces, URN prefix or bare hex).
fn dashed_uuid(b: &[u8]) -> Option<[u8; 16]> {
    let dashes_ok = b.len() == 36 && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-');
    if !dashes_ok {
        return None;
    }
    ::uuid::Uuid::try_parse_ascii(b).ok().map(|u| u.into_bytes())
}

fn parse_uuid(variant: Variant, b: &[u8]) -> Result<Key, String> {
    let version = match variant.strategy {
        Strategy::Uuid1 => 1,
        Strategy::Uuid4 => 4,
        Strategy::Uuid6 => 6,
        _ => 7,
    };
    let dashed = format!("a version-{version} UUID as 36 characters (8-4-4-4-12 hex digits)");
    let bytes = match variant.encoding {
        Encoding::Text => dashed_uuid(b).ok_or(dashed)?,
        Encoding::Hex => hex16(b).ok_or(format!("32 hex digits (a version-{version} UUID))"))?,
        Encoding::Bin => dashed_uuid(b)
            .or_else(|| hex16(b))
            .ok_or(format!("32 hex digits of the stored bytes, or {dashed}"))?,
        _ => match dashed_uuid(b) {
            Some(u) => u,
            None => hex16(b)
                .map(|s| unswap_v1_time_fields(&s))
                .ok_or(format!("32 hex digits of the stored (time-swapped) bytes, or {dashed}"))?,
        },
    };
    let got = bytes[6] >> 4;
    if got != version || bytes[8] >> 6 != 0b10 {
        return Err(format!(
            "a version-{version} RFC 9562 UUID (this one has version {got}, variant bits {:02b})",
            bytes[8] >> 6
        ));
    }
    Ok(uuid_key(bytes, variant.encoding))
}

/// 26 Crockford chars whose value fits 128 bits.
fn parse_ulid_text(b: &[u8]) -> Option<u128> {
    if b.len() != ::ulid::ULID_LEN || crockford_digit(b[0])? > 7 {
        return None;
    }
    b.iter().try_fold(0u128, |acc, &c| Some(acc << 5 | crockford_digit(c)? as u128))
}

fn ulid_key(v: u128, text: bool) -> Key {
    let ulid = ::ulid::Ulid(v);
    if text {
        let mut buf = [0u8; ::ulid::ULID_LEN];
        Key::Bytes(InlineBytes::new(ulid.array_to_str(&mut buf).as_bytes(), true))
    } else {
        Key::Bytes(InlineBytes::new(&ulid.to_bytes(), false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Variant {
        s.parse().unwrap()
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = Key::parse(v("uuid7:text"), "6ccd780c-baba-1026-9564-5b8c656024db").unwrap_err();
        assert_eq!(
            e.to_string(),
            "`6ccd780c-baba-1026-9564-5b8c656024db` is not a uuid7:text id: expected a \
             version-7 RFC 9562 UUID (this one has version 1, variant bits 10)"
        );
        let e = Key::parse(v("ulid"), "01ARZ3NDEKTSV4RRFFQ69G5FAVX").unwrap_err().to_string();
        assert!(e.contains("26 Crockford base32"), "{e}");
        assert!(Key::parse(v("ulid"), "81ARZ3NDEKTSV4RRFFQ69G5FAV").is_err(), "overflow");
        assert!(Key::parse(v("ulid"), "01ARZ3NDEKTSV4RRFFQ69G5FAU").is_err(), "U not Crockford");
        assert!(Key::parse(v("ksuid"), "aWgEPTl1tmebfsQzFP4bxwgy80W").is_err());
        assert!(Key::parse(v("snowflake"), "-4").is_err());
        assert!(Key::parse(v("seq"), "12x").is_err());
        assert!(Key::parse(v("md5"), "abc").unwrap_err().to_string().contains("32 hex digits"));
        assert!(Key::parse(v("uuid4:text"), "{6ccd780c-baba-4026-9564-5b8c656024db}").is_err());
    }

    #[test]
    fn case_is_normalized_and_binary_accepts_text_forms() {
        let k = Key::parse(v("uuid4"), " 6CCD780C-BABA-4026-9564-5B8C656024DB\r").unwrap();
        assert_eq!(k.to_string(), "6ccd780c-baba-4026-9564-5b8c656024db");
        let k = Key::parse(v("ulid"), "01arz3ndektsv4rrffq69g5fav").unwrap();
        assert_eq!(k.to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
        let k = Key::parse(v("uuid1:bin-swap"), "6ccd780c-baba-1026-9564-5b8c656024db").unwrap();
        assert_eq!(k.to_string(), "1026baba6ccd780c95645b8c656024db");
        assert_eq!(Key::parse(v("uuid1:bin-swap"), "1026baba6ccd780c95645b8c656024db"), Ok(k));
        let k = Key::parse(v("ulid:bin"), "01ARZ3NDEKTSV4RRFFQ69G5FAV").unwrap();
        assert_eq!(k.to_string(), "01563e3ab5d3d6764c61efb99302bd5b");
        let k = Key::parse(v("tsid:text"), "0aryzvzxw377r").unwrap();
        assert_eq!(k.to_string(), "0ARYZVZXW377R");
    }
}
