//! The values each column type accepts on the server keylab targets (MariaDB 10.11), and
//! time values written as the server reads them. Scenario checks use the ranges to refuse a
//! generator that would make a value the column cannot hold before anything runs; the server
//! driver uses the text forms to send times over their whole range.
//!
//! It does not decide what happens to a value out of range (the scenario checks do).

use crate::{ColumnType, TemporalKind};
use time::OffsetDateTime;

/// Seconds in a day.
pub const DAY_S: i64 = 86_400;

/// 1000-01-01 00:00:00 UTC, the first `DATE`/`DATETIME` value, in Unix seconds.
pub const DATE_MIN_UNIX_S: i64 = -30_610_224_000;
/// 9999-12-31 23:59:59 UTC, the last `DATETIME` value (and the last second of `DATE`'s last
/// day), in Unix seconds.
pub const DATE_MAX_UNIX_S: i64 = 253_402_300_799;
/// `TIMESTAMP`'s first value on MariaDB 10.11, 1970-01-01 00:00:01 UTC (0 is the "zero"
/// timestamp, which strict mode refuses): `TIMESTAMP_MIN_VALUE` in include/my_time.h.
pub const TIMESTAMP_MIN_UNIX_S: i64 = 1;
/// `TIMESTAMP`'s last value on MariaDB 10.11, 2038-01-19 03:14:07 UTC (`TIMESTAMP_MAX_VALUE`,
/// `INT_MAX32`, in include/my_time.h; 11.5 and later on 64-bit hosts go to 2106).
pub const TIMESTAMP_MAX_UNIX_S: i64 = i32::MAX as i64;

/// The values a column type holds, as keylab's generators produce them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRange {
    /// Integers `lo..=hi` (`INT`, `BIGINT`, and the whole numbers of `DECIMAL(p,s)`).
    Int {
        /// Lowest.
        lo: i128,
        /// Highest.
        hi: i128,
    },
    /// Times `lo..=hi`, Unix seconds (UTC).
    Time {
        /// Earliest.
        lo: i64,
        /// Latest.
        hi: i64,
    },
    /// Strings of at most this many characters (`CHAR`, `VARCHAR`, `TEXT`).
    Chars(u32),
    /// Byte strings of at most this many bytes (`BINARY`).
    Bytes(u32),
}

impl ValueRange {
    /// True when integer `v` is in the range (false for non-integer ranges).
    pub fn holds_int(&self, v: i128) -> bool {
        matches!(*self, ValueRange::Int { lo, hi } if lo <= v && v <= hi)
    }

    /// True when time `s` (Unix seconds) is in the range (false for non-time ranges).
    pub fn holds_time(&self, s: i64) -> bool {
        matches!(*self, ValueRange::Time { lo, hi } if lo <= s && s <= hi)
    }
}

impl std::fmt::Display for ValueRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ValueRange::Int { lo, hi } => write!(f, "{lo} to {hi}"),
            ValueRange::Time { lo, hi } => write!(
                f,
                "{} to {} UTC (Unix seconds {lo} to {hi})",
                datetime_text(lo).unwrap_or_default(),
                datetime_text(hi).unwrap_or_default()
            ),
            ValueRange::Chars(n) => write!(f, "at most {n} characters"),
            ValueRange::Bytes(n) => write!(f, "at most {n} bytes"),
        }
    }
}

impl ColumnType {
    /// What a column of this type accepts on MariaDB 10.11 (strict mode).
    pub fn value_range(&self) -> ValueRange {
        match *self {
            ColumnType::Int => {
                ValueRange::Int { lo: i128::from(i32::MIN), hi: i128::from(i32::MAX) }
            }
            ColumnType::BigInt { unsigned: false } => {
                ValueRange::Int { lo: i128::from(i64::MIN), hi: i128::from(i64::MAX) }
            }
            ColumnType::BigInt { unsigned: true } => {
                ValueRange::Int { lo: 0, hi: i128::from(u64::MAX) }
            }
            // p - s digits before the point; a whole number there has at most that many.
            ColumnType::Decimal { precision, scale } => {
                let digits = precision.saturating_sub(scale).min(38);
                let hi = 10i128.pow(digits) - 1;
                ValueRange::Int { lo: -hi, hi }
            }
            ColumnType::Char { chars, .. } | ColumnType::VarChar { chars, .. } => {
                ValueRange::Chars(chars)
            }
            ColumnType::Text { .. } => ValueRange::Chars(65_535),
            ColumnType::Binary { bytes } => ValueRange::Bytes(bytes),
            ColumnType::Timestamp => {
                ValueRange::Time { lo: TIMESTAMP_MIN_UNIX_S, hi: TIMESTAMP_MAX_UNIX_S }
            }
            ColumnType::DateTime | ColumnType::Date => {
                ValueRange::Time { lo: DATE_MIN_UNIX_S, hi: DATE_MAX_UNIX_S }
            }
            ColumnType::Integer { bytes, unsigned } => {
                let bits = 8 * u32::from(bytes);
                if unsigned {
                    ValueRange::Int { lo: 0, hi: (1i128 << bits) - 1 }
                } else {
                    ValueRange::Int { lo: -(1i128 << (bits - 1)), hi: (1i128 << (bits - 1)) - 1 }
                }
            }
            // The whole numbers a FLOAT (24-bit mantissa) or DOUBLE (53) holds exactly.
            ColumnType::Float { double } => {
                let hi = 1i128 << if double { 53 } else { 24 };
                ValueRange::Int { lo: -hi, hi }
            }
            ColumnType::Bool => ValueRange::Int { lo: 0, hi: 1 },
            // `Field_year`: 1901 to 2155 (0 is the "zero" year).
            ColumnType::Year => ValueRange::Int { lo: 1901, hi: 2155 },
            // Member numbers, 1-based (0 is the error value '').
            ColumnType::Enum { members } | ColumnType::PgEnum { members } => {
                ValueRange::Int { lo: 1, hi: i128::from(members) }
            }
            // Bit masks of the members; PostgreSQL's bigint keeps 63 of them.
            ColumnType::Set { members } => {
                ValueRange::Int { lo: 0, hi: (1i128 << u32::from(members).min(63)) - 1 }
            }
            ColumnType::Bit { bits } => ValueRange::Int { lo: 0, hi: (1i128 << bits) - 1 },
            // money: 8-byte cents.
            ColumnType::Money => {
                ValueRange::Int { lo: i128::from(i64::MIN) / 100, hi: i128::from(i64::MAX) / 100 }
            }
            ColumnType::Numeric => {
                let hi = 10i128.pow(38) - 1;
                ValueRange::Int { lo: -hi, hi }
            }
            ColumnType::Temporal { kind: TemporalKind::Interval, .. } => {
                ValueRange::Int { lo: 0, hi: i128::from(i32::MAX) }
            }
            ColumnType::Temporal {
                kind: TemporalKind::Timestamp | TemporalKind::TimestampTz,
                ..
            } => ValueRange::Time { lo: TIMESTAMP_MIN_UNIX_S, hi: TIMESTAMP_MAX_UNIX_S },
            ColumnType::Temporal { .. } => {
                ValueRange::Time { lo: DATE_MIN_UNIX_S, hi: DATE_MAX_UNIX_S }
            }
            ColumnType::VarBinary { bytes } => ValueRange::Bytes(bytes),
            ColumnType::Blob | ColumnType::Opaque => ValueRange::Bytes(65_535),
            ColumnType::MacAddr { bytes } => ValueRange::Bytes(u32::from(bytes)),
            ColumnType::Inet { .. } => ValueRange::Bytes(16),
            ColumnType::Json { .. } | ColumnType::TsVector | ColumnType::Array { .. } => {
                ValueRange::Chars(65_535)
            }
        }
    }

    /// True for the types whose values are times (`TIMESTAMP`, `DATETIME`, `DATE`, `TIME`,
    /// with or without fractional seconds or a zone), false for `interval` (whole seconds).
    pub fn is_time(&self) -> bool {
        matches!(self, ColumnType::Timestamp | ColumnType::DateTime | ColumnType::Date)
            || matches!(self, ColumnType::Temporal { kind, .. } if *kind != TemporalKind::Interval)
    }
}

/// `YYYY-MM-DD HH:MM:SS` of Unix seconds `s` (UTC), `None` outside years 1..9999.
pub fn datetime_text(s: i64) -> Option<String> {
    let t = OffsetDateTime::from_unix_timestamp(s).ok()?;
    (t.year() >= 1).then(|| {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )
    })
}

/// Unix seconds of a time literal as DDL writes one: `YYYY-MM-DD`, optionally followed by
/// `[ T]HH:MM[:SS[.fff]]` and a zone offset `+HH[:MM]`/`-HH[:MM]`/`Z` (a time without one is
/// UTC, as keylab sends times). `None` for any other text. Fractions of a second are dropped.
pub fn parse_time_text(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, rest) = text.split_at(text.len().min(10));
    let mut d = date.split('-');
    let year: i32 = d.next()?.parse().ok()?;
    let month: u8 = d.next()?.parse().ok()?;
    let day: u8 = d.next()?.parse().ok()?;
    let date =
        time::Date::from_calendar_date(year, time::Month::try_from(month).ok()?, day).ok()?;
    let mut secs = i64::from(date.to_julian_day() - 2_440_588) * DAY_S;
    let rest = rest.trim_start_matches([' ', 'T']);
    if rest.is_empty() {
        return Some(secs);
    }
    // The clock, then the zone: the first sign or `Z` after the clock's digits.
    let zone_at = rest.find(['+', '-', 'Z']).unwrap_or(rest.len());
    let (clock, zone) = rest.split_at(zone_at);
    let mut c = clock.trim().split(':');
    let h: i64 = c.next()?.parse().ok()?;
    let m: i64 = c.next().unwrap_or("0").parse().ok()?;
    let s: f64 = c.next().unwrap_or("0").parse().ok()?;
    secs += h * 3600 + m * 60 + s as i64;
    let zone = zone.trim();
    if !zone.is_empty() && zone != "Z" {
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let mut z = zone[1..].split(':');
        let zh: i64 = z.next()?.parse().ok()?;
        let zm: i64 = z.next().unwrap_or("0").parse().ok()?;
        secs -= sign * (zh * 3600 + zm * 60);
    }
    Some(secs)
}

/// `YYYY-MM-DD` of the day holding Unix seconds `s` (UTC), `None` outside years 1..9999.
pub fn date_text(s: i64) -> Option<String> {
    datetime_text(s).map(|mut t| {
        t.truncate(10);
        t
    })
}

/// A time value of column type `ty` as the server writes it back (`YYYY-MM-DD` for `DATE`,
/// `YYYY-MM-DD HH:MM:SS` otherwise, UTC), the form keylab sends it in: a literal the server
/// reads the same way over the type's whole range, where `FROM_UNIXTIME` stops at 1970 and
/// 2038. `None` outside years 1..9999 (no column holds such a value).
///
/// A time type with `n` fractional digits is written as MariaDB writes it back, with `n`
/// zero digits (keylab's times are whole seconds); a `TIME` as the time of day.
pub fn time_text(s: i64, ty: &ColumnType) -> Option<String> {
    match *ty {
        ColumnType::Date => date_text(s),
        ColumnType::Temporal { kind, fsp } => {
            let mut t = datetime_text(s)?;
            if matches!(kind, TemporalKind::Time | TemporalKind::TimeTz) {
                t.drain(..11);
            }
            if fsp > 0 {
                t.push('.');
                t.extend(std::iter::repeat_n('0', usize::from(fsp.min(6))));
            }
            Some(t)
        }
        _ => datetime_text(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_literals_are_read_with_their_zone() {
        assert_eq!(parse_time_text("1970-01-02"), Some(DAY_S));
        assert_eq!(parse_time_text("2022-01-01 00:00:00+00"), Some(1_640_995_200));
        assert_eq!(parse_time_text("2022-04-01 01:00:00+01"), Some(1_648_771_200));
        assert_eq!(parse_time_text("2022-04-01T00:00:00Z"), Some(1_648_771_200));
        assert_eq!(parse_time_text("1969-12-31 23:00:00-01:00"), Some(0));
        assert_eq!(parse_time_text("tomorrow"), None);
    }

    #[test]
    fn bounds_are_the_calendar_dates() {
        assert_eq!(datetime_text(DATE_MIN_UNIX_S).unwrap(), "1000-01-01 00:00:00");
        assert_eq!(datetime_text(DATE_MAX_UNIX_S).unwrap(), "9999-12-31 23:59:59");
        assert_eq!(datetime_text(TIMESTAMP_MAX_UNIX_S).unwrap(), "2038-01-19 03:14:07");
        assert_eq!(datetime_text(TIMESTAMP_MIN_UNIX_S).unwrap(), "1970-01-01 00:00:01");
        assert_eq!(date_text(-1).unwrap(), "1969-12-31");
        assert_eq!(time_text(86_399, &ColumnType::Date).unwrap(), "1970-01-01");
        assert_eq!(time_text(-86_400 * 365, &ColumnType::DateTime).unwrap(), "1969-01-01 00:00:00");
        assert_eq!(datetime_text(DATE_MAX_UNIX_S + 1), None);
        let t3 = ColumnType::Temporal { kind: TemporalKind::DateTime, fsp: 3 };
        assert_eq!(time_text(0, &t3).unwrap(), "1970-01-01 00:00:00.000");
        let time = ColumnType::Temporal { kind: TemporalKind::Time, fsp: 0 };
        assert_eq!(time_text(3_661, &time).unwrap(), "01:01:01");
    }

    #[test]
    fn integer_ranges() {
        assert!(ColumnType::Int.value_range().holds_int(i128::from(i32::MAX)));
        assert!(!ColumnType::Int.value_range().holds_int(i128::from(i32::MAX) + 1));
        let u = ColumnType::BigInt { unsigned: true }.value_range();
        assert!(u.holds_int(i128::from(u64::MAX)) && !u.holds_int(-1));
        let d = ColumnType::Decimal { precision: 5, scale: 2 }.value_range();
        assert_eq!(d, ValueRange::Int { lo: -999, hi: 999 });
        let z = ColumnType::Decimal { precision: 2, scale: 2 }.value_range();
        assert_eq!(z, ValueRange::Int { lo: 0, hi: 0 });
        let tiny = ColumnType::Integer { bytes: 1, unsigned: false }.value_range();
        assert_eq!(tiny, ValueRange::Int { lo: -128, hi: 127 });
        let medium = ColumnType::Integer { bytes: 3, unsigned: true }.value_range();
        assert_eq!(medium, ValueRange::Int { lo: 0, hi: 16_777_215 });
        assert_eq!(ColumnType::Year.value_range(), ValueRange::Int { lo: 1901, hi: 2155 });
        assert_eq!(
            ColumnType::Timestamp.value_range().to_string(),
            "1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC (Unix seconds 1 to 2147483647)"
        );
    }
}
