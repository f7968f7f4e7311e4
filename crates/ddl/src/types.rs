//! SQL column types (as `sqlparser` reads them) to the storage types keylab models
//! ([`keylab_schema::ColumnType`]): exact where the model has the type, the nearest type of the
//! same stored length with a note where it has not, refused where no type stores alike.

use keylab_schema::{Charset, ColumnType};
use sqlparser::ast::{BinaryLength, CharacterLength, DataType, ExactNumberInfo, TimezoneInfo};

/// How a declared type maps to a modelled one.
pub(crate) enum Mapped {
    /// The model stores it as the server does.
    Exact(ColumnType),
    /// Stored as `ColumnType`, with this note on what differs.
    Near(ColumnType, String),
}

/// The character set a charset or collation name stands for; `None` for one keylab does not
/// know (the caller says so).
pub(crate) fn charset_named(name: &str) -> Option<Charset> {
    let n = name.to_ascii_lowercase();
    // PostgreSQL's byte-order collations ("C", "POSIX", "ucs_basic") compare as a binary
    // collation does; its "default" is the database's, UTF-8 on keylab's instances.
    match n.as_str() {
        "c" | "posix" | "ucs_basic" => return Some(Charset::Utf8mb4Bin),
        "default" => return Some(Charset::Utf8mb4),
        _ => {}
    }
    let bin = n.ends_with("_bin") || n == "binary";
    Some(match n.split('_').next().unwrap_or("") {
        "utf8mb4" if bin => Charset::Utf8mb4Bin,
        "utf8mb4" => Charset::Utf8mb4,
        "utf8" | "utf8mb3" => Charset::Utf8mb3,
        "latin1" => Charset::Latin1,
        "ascii" => Charset::Ascii,
        "binary" => Charset::Latin1,
        _ => return None,
    })
}

fn char_len(l: &Option<CharacterLength>) -> Option<u32> {
    match l {
        Some(CharacterLength::IntegerLength { length, .. }) => u32::try_from(*length).ok(),
        _ => None,
    }
}

fn precision(info: &ExactNumberInfo) -> (u32, u32) {
    match *info {
        ExactNumberInfo::None => (10, 0),
        ExactNumberInfo::Precision(p) => (p.min(65) as u32, 0),
        ExactNumberInfo::PrecisionAndScale(p, s) => (p.min(65) as u32, s.clamp(0, 30) as u32),
    }
}

/// Maps `ty` (declared with `charset`); `Err` names why keylab cannot model it.
pub(crate) fn map_type(ty: &DataType, charset: Charset) -> Result<Mapped, String> {
    use DataType as D;
    let int = ColumnType::Int;
    let near = |t: ColumnType, why: &str| Ok(Mapped::Near(t, why.to_string()));
    match ty {
        D::Int(_) | D::Integer(_) | D::IntUnsigned(_) | D::IntegerUnsigned(_) | D::Int4(_) => {
            Ok(Mapped::Exact(int))
        }
        D::BigInt(_) | D::Int8(_) => Ok(Mapped::Exact(ColumnType::BigInt { unsigned: false })),
        D::BigIntUnsigned(_) => Ok(Mapped::Exact(ColumnType::BigInt { unsigned: true })),
        D::TinyInt(_) | D::TinyIntUnsigned(_) | D::Bool | D::Boolean => {
            near(int, "a 1-byte integer, modelled (and created) as a 4-byte INT")
        }
        D::SmallInt(_) | D::SmallIntUnsigned(_) | D::Int2(_) => {
            near(int, "a 2-byte integer, modelled (and created) as a 4-byte INT")
        }
        D::MediumInt(_) | D::MediumIntUnsigned(_) => {
            near(int, "a 3-byte integer, modelled (and created) as a 4-byte INT")
        }
        D::Enum(..) => near(int, "an ENUM (1-2 bytes), modelled (and created) as a 4-byte INT"),
        D::Set(members) if set_bytes(members.len()) <= 4 => near(
            int,
            &match set_bytes(members.len()) {
                1 => format!(
                    "a SET of {} members (1 byte), modelled (and created) as a 4-byte INT",
                    members.len()
                ),
                n => format!(
                    "a SET of {} members ({n} bytes), modelled (and created) as a 4-byte INT",
                    members.len()
                ),
            },
        ),
        D::Set(members) => near(
            ColumnType::BigInt { unsigned: true },
            &format!(
                "a SET of {} members (8 bytes), modelled (and created) as BIGINT UNSIGNED",
                members.len()
            ),
        ),
        D::Custom(name, _) if custom_name(name) == "year" => {
            near(int, "a 1-byte YEAR, modelled (and created) as a 4-byte INT")
        }
        // BIT(n) is stored as `(n + 7) / 8` fixed bytes (DATA_FIXBINARY, `get_innobase_type_from_mysql_type`), as
        // BINARY(n) is.
        D::Bit(n) => {
            let bits = n.unwrap_or(1).clamp(1, 64) as u32;
            near(
                ColumnType::Binary { bytes: bits.div_ceil(8) },
                &format!(
                    "BIT({bits}), modelled (and created) as BINARY({}), its stored bytes",
                    bits.div_ceil(8)
                ),
            )
        }
        D::Custom(name, _) if custom_name(name) == "inet6" => near(
            ColumnType::Binary { bytes: 16 },
            "MariaDB's INET6, modelled (and created) as BINARY(16), its 16 stored bytes",
        ),
        D::Custom(name, _) if custom_name(name) == "inet4" => near(
            ColumnType::Binary { bytes: 4 },
            "MariaDB's INET4, modelled (and created) as BINARY(4), its 4 stored bytes",
        ),
        D::Char(l) | D::Character(l) => match char_len(l) {
            Some(chars) => Ok(Mapped::Exact(ColumnType::Char { chars: chars.max(1), charset })),
            None if l.is_none() => Ok(Mapped::Exact(ColumnType::Char { chars: 1, charset })),
            None => Err("a CHAR length keylab cannot read".into()),
        },
        D::Varchar(l) | D::CharacterVarying(l) | D::Nvarchar(l) => match char_len(l) {
            Some(chars) => Ok(Mapped::Exact(ColumnType::VarChar { chars, charset })),
            // PostgreSQL's unbounded `character varying` stores like text.
            None => Ok(Mapped::Exact(ColumnType::Text { charset })),
        },
        D::Binary(n) => Ok(Mapped::Exact(ColumnType::Binary { bytes: n.unwrap_or(1) as u32 })),
        D::Varbinary(Some(BinaryLength::IntegerLength { length })) => near(
            ColumnType::VarChar { chars: *length as u32, charset: Charset::Latin1 },
            "VARBINARY, modelled (and created) as VARCHAR in latin1, stored alike (1 byte a \
             character, the same length bytes)",
        ),
        D::Text | D::TinyText | D::MediumText | D::LongText => {
            Ok(Mapped::Exact(ColumnType::Text { charset }))
        }
        D::Blob(_) | D::TinyBlob | D::MediumBlob | D::LongBlob | D::Bytea => near(
            ColumnType::Text { charset: Charset::Latin1 },
            "a BLOB, modelled (and created) as TEXT in latin1, stored alike",
        ),
        D::Uuid => near(
            ColumnType::Binary { bytes: 16 },
            "a uuid column (PostgreSQL's, or MariaDB's UUID type), modelled as BINARY(16), \
             its 16 stored bytes",
        ),
        D::Date => Ok(Mapped::Exact(ColumnType::Date)),
        // TIME takes 3 bytes, as DATE does, plus (n + 1) / 2 for n fractional digits
        // (`Field_timef::pack_length`, stored as DATA_FIXBINARY).
        D::Time(fsp, TimezoneInfo::None) => near(
            ColumnType::Date,
            &match fsp.unwrap_or(0) {
                0 => "a 3-byte TIME, modelled (and created) as a 3-byte DATE".to_string(),
                n => format!(
                    "a TIME({n}) ({} bytes), modelled (and created) as a 3-byte DATE",
                    3 + n.min(6).div_ceil(2)
                ),
            },
        ),
        D::Datetime(None) | D::Datetime(Some(0)) => Ok(Mapped::Exact(ColumnType::DateTime)),
        D::Timestamp(None | Some(0), TimezoneInfo::None) => {
            Ok(Mapped::Exact(ColumnType::Timestamp))
        }
        D::Timestamp(..) => near(
            ColumnType::DateTime,
            "a PostgreSQL timestamp or one with fractional seconds: the InnoDB model stores \
             it as a 5-byte DATETIME, the nbtree model as PostgreSQL's 8-byte timestamp",
        ),
        D::Datetime(Some(_)) => {
            near(ColumnType::DateTime, "fractional seconds are not modelled (1-3 bytes less)")
        }
        D::Decimal(i) | D::Numeric(i) | D::DecimalUnsigned(i) | D::Dec(i) | D::DecUnsigned(i) => {
            let (p, s) = precision(i);
            Ok(Mapped::Exact(ColumnType::Decimal { precision: p.max(1), scale: s.min(p) }))
        }
        D::Double(_) | D::DoublePrecision | D::Float8 | D::Float64 => near(
            ColumnType::BigInt { unsigned: false },
            "a DOUBLE, modelled (and created) as an 8-byte BIGINT",
        ),
        // FLOAT(p) with p over 24 digits is a DOUBLE (`Field_double`).
        D::Float(ExactNumberInfo::Precision(p)) if *p > 24 => near(
            ColumnType::BigInt { unsigned: false },
            "a FLOAT of over 24 digits, which is a DOUBLE, modelled (and created) as an 8-byte \
             BIGINT",
        ),
        D::DoubleUnsigned(_) | D::DoublePrecisionUnsigned => near(
            ColumnType::BigInt { unsigned: false },
            "a DOUBLE, modelled (and created) as an 8-byte BIGINT",
        ),
        D::Real | D::Float4 | D::Float(_) | D::FloatUnsigned(_) | D::RealUnsigned => {
            near(int, "a FLOAT, modelled (and created) as a 4-byte INT")
        }
        // MariaDB's JSON is LONGTEXT in utf8mb4_bin (with a JSON_VALID check).
        D::JSON => Ok(Mapped::Exact(ColumnType::Text { charset: Charset::Utf8mb4Bin })),
        other => Err(format!(
            "type `{other}` is not modelled; valid: integer, decimal, char, varchar, binary, \
             varbinary, text, blob, json, date, time, year, datetime, timestamp, uuid, inet4, \
             inet6, enum, set, bit, float, double"
        )),
    }
}

/// A custom type's name, lower case (`year`, `inet6`).
fn custom_name(name: &sqlparser::ast::ObjectName) -> String {
    name.to_string().trim_matches(['`', '"']).to_ascii_lowercase()
}

/// Bytes of a SET of `members` (`get_set_pack_length`): 1, 2, 3, 4 or 8.
fn set_bytes(members: usize) -> usize {
    match members.div_ceil(8) {
        n @ 0..=4 => n.max(1),
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_and_collations() {
        assert_eq!(charset_named("utf8mb4_bin"), Some(Charset::Utf8mb4Bin));
        assert_eq!(charset_named("utf8mb4_general_ci"), Some(Charset::Utf8mb4));
        assert_eq!(charset_named("utf8"), Some(Charset::Utf8mb3));
        assert_eq!(charset_named("latin1_swedish_ci"), Some(Charset::Latin1));
        assert_eq!(charset_named("koi8r"), None);
        assert_eq!(charset_named("C"), Some(Charset::Utf8mb4Bin));
        assert_eq!(charset_named("default"), Some(Charset::Utf8mb4));
    }

    #[test]
    fn jsonb_is_refused() {
        let e = map_type(&DataType::JSONB, Charset::Utf8mb4).err().unwrap();
        assert!(e.contains("not modelled"), "{e}");
    }
}
