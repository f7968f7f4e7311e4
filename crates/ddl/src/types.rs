//! SQL column types (as `sqlparser` reads them) to the storage types keylab models
//! ([`keylab_schema::ColumnType`]): each as declared, in the file's dialect (PostgreSQL's
//! `timestamp` has 6 fractional digits and no zone, MySQL's none); a type with no storage
//! rule (an extension's) as a variable-length value with a note; MariaDB's INET4/INET6/UUID
//! as the BINARY of their stored bytes with a note.

use keylab_schema::{ArrayElem, Charset, ColumnType, TemporalKind};
use sqlparser::ast::{
    ArrayElemTypeDef, BinaryLength, CharacterLength, DataType, EnumMember, ExactNumberInfo,
    TimezoneInfo,
};

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

/// Maps `ty` (declared with `charset`, in a PostgreSQL file when `pg`); `Err` names why
/// keylab cannot model it.
pub(crate) fn map_type(ty: &DataType, charset: Charset, pg: bool) -> Result<Mapped, String> {
    use DataType as D;
    let exact = |t: ColumnType| Ok(Mapped::Exact(t));
    let near = |t: ColumnType, why: &str| Ok(Mapped::Near(t, why.to_string()));
    let integer = |bytes: u8, unsigned: bool| exact(ColumnType::Integer { bytes, unsigned });
    let fsp = |p: &Option<u64>, default: u8| p.map_or(default, |p| p.min(6) as u8);
    // PostgreSQL's times default to 6 fractional digits, MySQL's to none.
    let default_fsp = if pg { 6 } else { 0 };
    match ty {
        D::Int(_) | D::Integer(_) | D::Int4(_) => exact(ColumnType::Int),
        D::IntUnsigned(_) | D::IntegerUnsigned(_) | D::Int4Unsigned(_) => integer(4, true),
        D::BigInt(_) | D::Int8(_) => exact(ColumnType::BigInt { unsigned: false }),
        D::BigIntUnsigned(_) | D::Int8Unsigned(_) => exact(ColumnType::BigInt { unsigned: true }),
        D::TinyInt(_) => integer(1, false),
        D::TinyIntUnsigned(_) => integer(1, true),
        D::SmallInt(_) | D::Int2(_) => integer(2, false),
        D::SmallIntUnsigned(_) | D::Int2Unsigned(_) => integer(2, true),
        D::MediumInt(_) => integer(3, false),
        D::MediumIntUnsigned(_) => integer(3, true),
        // MySQL's BOOL is TINYINT(1).
        D::Bool | D::Boolean if pg => exact(ColumnType::Bool),
        D::Bool | D::Boolean => integer(1, false),
        // A PostgreSQL enum (`CREATE TYPE ... AS ENUM`, resolved by `user_types.rs`).
        D::Enum(members, _) if pg => {
            exact(ColumnType::PgEnum { members: members.len().clamp(1, 65_535) as u16 })
        }
        D::Enum(members, _) => {
            exact(ColumnType::Enum { members: members.len().clamp(1, 65_535) as u16 })
        }
        D::Set(members) => exact(ColumnType::Set { members: members.len().clamp(1, 64) as u8 }),
        D::Custom(name, _) if custom_name(name) == "year" => exact(ColumnType::Year),
        D::Bit(n) | D::BitVarying(n) | D::VarBit(n) => {
            exact(ColumnType::Bit { bits: n.unwrap_or(1).clamp(1, 64) as u8 })
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
            Some(chars) => exact(ColumnType::Char { chars: chars.max(1), charset }),
            None if l.is_none() => exact(ColumnType::Char { chars: 1, charset }),
            None => Err("a CHAR length keylab cannot read".into()),
        },
        D::Varchar(l) | D::CharacterVarying(l) | D::Nvarchar(l) => match char_len(l) {
            Some(chars) => exact(ColumnType::VarChar { chars, charset }),
            // PostgreSQL's unbounded `character varying` stores like text.
            None => exact(ColumnType::Text { charset }),
        },
        D::Binary(n) => exact(ColumnType::Binary { bytes: n.unwrap_or(1) as u32 }),
        D::Varbinary(Some(BinaryLength::IntegerLength { length })) => {
            exact(ColumnType::VarBinary { bytes: *length as u32 })
        }
        D::Text | D::TinyText | D::MediumText | D::LongText => exact(ColumnType::Text { charset }),
        D::Blob(_) | D::TinyBlob | D::MediumBlob | D::LongBlob | D::Bytea => {
            exact(ColumnType::Blob)
        }
        // PostgreSQL's uuid is 16 bytes, byte-aligned, compared bytewise: BINARY(16) on
        // InnoDB, `uuid` on PostgreSQL.
        D::Uuid if pg => exact(ColumnType::Binary { bytes: 16 }),
        D::Uuid => near(
            ColumnType::Binary { bytes: 16 },
            "MariaDB's UUID type, modelled (and created) as BINARY(16), its 16 stored bytes \
             (MariaDB orders UUID values by their time fields first, BINARY(16) bytewise)",
        ),
        D::Date => exact(ColumnType::Date),
        D::Time(p, tz) => {
            let kind = if with_zone(tz) { TemporalKind::TimeTz } else { TemporalKind::Time };
            exact(ColumnType::Temporal { kind, fsp: fsp(p, default_fsp) })
        }
        D::Datetime(None | Some(0)) => exact(ColumnType::DateTime),
        D::Datetime(p) => {
            exact(ColumnType::Temporal { kind: TemporalKind::DateTime, fsp: fsp(p, 0) })
        }
        D::Timestamp(p, tz) if with_zone(tz) => {
            exact(ColumnType::Temporal { kind: TemporalKind::TimestampTz, fsp: fsp(p, 6) })
        }
        // PostgreSQL's timestamp has no zone, like DATETIME; timestamp(0) is keylab's own.
        D::Timestamp(p, _) if pg => match fsp(p, 6) {
            0 => exact(ColumnType::DateTime),
            n => exact(ColumnType::Temporal { kind: TemporalKind::DateTime, fsp: n }),
        },
        D::Timestamp(None | Some(0), _) => exact(ColumnType::Timestamp),
        D::Timestamp(p, _) => {
            exact(ColumnType::Temporal { kind: TemporalKind::Timestamp, fsp: fsp(p, 0) })
        }
        D::Interval { .. } => exact(ColumnType::Temporal { kind: TemporalKind::Interval, fsp: 6 }),
        // PostgreSQL's numeric without a precision holds any number, in a varlena.
        D::Numeric(ExactNumberInfo::None) | D::Decimal(ExactNumberInfo::None) if pg => {
            exact(ColumnType::Numeric)
        }
        D::Decimal(i) | D::Numeric(i) | D::DecimalUnsigned(i) | D::Dec(i) | D::DecUnsigned(i) => {
            let (p, s) = precision(i);
            exact(ColumnType::Decimal { precision: p.max(1), scale: s.min(p) })
        }
        D::Double(_)
        | D::DoublePrecision
        | D::Float8
        | D::Float64
        | D::DoubleUnsigned(_)
        | D::DoublePrecisionUnsigned => exact(ColumnType::Float { double: true }),
        // FLOAT(p) with p over 24 digits is a DOUBLE (`Field_double`); PostgreSQL's bare
        // `float` is double precision.
        D::Float(ExactNumberInfo::Precision(p)) if *p > 24 => {
            exact(ColumnType::Float { double: true })
        }
        D::Float(ExactNumberInfo::None) if pg => exact(ColumnType::Float { double: true }),
        D::Real | D::Float4 | D::Float(_) | D::FloatUnsigned(_) | D::RealUnsigned => {
            exact(ColumnType::Float { double: false })
        }
        D::JSON if pg => exact(ColumnType::Json { binary: false }),
        // MariaDB's JSON is LONGTEXT in utf8mb4_bin (with a JSON_VALID check).
        D::JSON => exact(ColumnType::Text { charset: Charset::Utf8mb4Bin }),
        D::JSONB => exact(ColumnType::Json { binary: true }),
        D::TsVector => exact(ColumnType::TsVector),
        D::Array(
            ArrayElemTypeDef::SquareBracket(elem, _) | ArrayElemTypeDef::AngleBracket(elem),
        ) => match array_elem(elem, pg) {
            Some(elem) => exact(ColumnType::Array { elem }),
            None => near(
                ColumnType::Array { elem: ArrayElem::Text },
                &format!(
                    "an array of `{elem}`, whose elements keylab does not model: built as \
                         text[] (each element its own text)"
                ),
            ),
        },
        D::Custom(name, _) => custom_type(&custom_name(name), pg),
        D::GeometricType(_) | D::TsQuery | D::Regclass => near(
            ColumnType::Opaque,
            &format!("type `{ty}` has no storage rule in keylab: {OPAQUE_NOTE}"),
        ),
        other => Err(format!(
            "type `{other}` is not modelled; valid: integer types, decimal, numeric, float, \
             double, char, varchar, binary, varbinary, text, blob, bytea, json, jsonb, date, \
             time, year, datetime, timestamp, interval, uuid, inet, cidr, macaddr, inet4, \
             inet6, enum, set, bit, money, tsvector, arrays, serial types"
        )),
    }
}

/// What an extension type is built as.
const OPAQUE_NOTE: &str = "built as a variable-length value of its --width bytes (64 unless \
                           given), created as bytea on PostgreSQL and BLOB on MariaDB/MySQL \
                           (keylab's servers have no extensions)";

/// True for a time zone (`WITH TIME ZONE`, `timestamptz`, `timetz`).
fn with_zone(tz: &TimezoneInfo) -> bool {
    matches!(tz, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz)
}

/// An array's element type, `None` for one keylab does not model.
fn array_elem(elem: &DataType, pg: bool) -> Option<ArrayElem> {
    Some(match map_type(elem, Charset::Utf8mb4, pg).ok()? {
        Mapped::Exact(ColumnType::Int) => ArrayElem::Int4,
        Mapped::Exact(ColumnType::Integer { bytes: 2, unsigned: false }) => ArrayElem::Int2,
        Mapped::Exact(ColumnType::BigInt { unsigned: false }) => ArrayElem::Int8,
        Mapped::Exact(ColumnType::Float { double: false }) => ArrayElem::Float4,
        Mapped::Exact(ColumnType::Float { double: true }) => ArrayElem::Float8,
        Mapped::Exact(ColumnType::Bool) => ArrayElem::Bool,
        Mapped::Exact(
            ColumnType::Text { .. } | ColumnType::VarChar { .. } | ColumnType::Char { .. },
        ) => ArrayElem::Text,
        _ => return None,
    })
}

/// The integer type of a serial type's name (`serial`, `bigserial`, `smallserial` and
/// their `serialN` spellings; MySQL's `SERIAL` is `BIGINT UNSIGNED NOT NULL AUTO_INCREMENT
/// UNIQUE`), `None` for other names.
pub(crate) fn serial_type(ty: &DataType, pg: bool) -> Option<ColumnType> {
    let DataType::Custom(name, _) = ty else { return None };
    serial_named(&custom_name(name), pg)
}

/// The integer type of the serial type named `name` (lower case), `None` for other names.
fn serial_named(name: &str, pg: bool) -> Option<ColumnType> {
    Some(match name {
        "serial" if !pg => ColumnType::BigInt { unsigned: true },
        "serial" | "serial4" => ColumnType::Int,
        "bigserial" | "serial8" => ColumnType::BigInt { unsigned: false },
        "smallserial" | "serial2" => ColumnType::Integer { bytes: 2, unsigned: false },
        _ => return None,
    })
}

/// A type named by a word sqlparser does not know: PostgreSQL's network, money and serial
/// types, else an extension's type.
fn custom_type(name: &str, pg: bool) -> Result<Mapped, String> {
    if let Some(t) = serial_named(name, pg) {
        return Ok(Mapped::Exact(t));
    }
    let bare = name.rsplit('.').next().unwrap_or(name);
    Ok(Mapped::Exact(match bare {
        "inet" => ColumnType::Inet { cidr: false },
        "cidr" => ColumnType::Inet { cidr: true },
        "macaddr" => ColumnType::MacAddr { bytes: 6 },
        "macaddr8" => ColumnType::MacAddr { bytes: 8 },
        "money" => ColumnType::Money,
        "float4" => ColumnType::Float { double: false },
        "bool" => ColumnType::Bool,
        _ => {
            return Ok(Mapped::Near(
                ColumnType::Opaque,
                format!(
                "type `{name}` has no storage rule in keylab (an extension's type?): {OPAQUE_NOTE}"
            ),
            ))
        }
    }))
}

/// The member labels of an `ENUM` or `SET`, empty for other types.
pub(crate) fn member_labels(ty: &DataType) -> Vec<String> {
    match ty {
        DataType::Enum(members, _) => members
            .iter()
            .map(|m| match m {
                EnumMember::Name(n) | EnumMember::NamedValue(n, _) => n.clone(),
            })
            .collect(),
        DataType::Set(members) => members.clone(),
        _ => Vec::new(),
    }
}

/// A custom type's name, lower case (`year`, `inet6`).
fn custom_name(name: &sqlparser::ast::ObjectName) -> String {
    name.to_string().trim_matches(['`', '"']).to_ascii_lowercase()
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

    fn mapped(ty: &DataType, pg: bool) -> ColumnType {
        match map_type(ty, Charset::Utf8mb4, pg).unwrap() {
            Mapped::Exact(t) => t,
            Mapped::Near(t, why) => panic!("{ty} built as {t:?}: {why}"),
        }
    }

    #[test]
    fn postgres_types_are_built_as_declared() {
        assert_eq!(mapped(&DataType::JSONB, true), ColumnType::Json { binary: true });
        assert_eq!(mapped(&DataType::JSON, true), ColumnType::Json { binary: false });
        assert_eq!(
            mapped(&DataType::JSON, false),
            ColumnType::Text { charset: Charset::Utf8mb4Bin }
        );
        assert_eq!(mapped(&DataType::Bytea, true), ColumnType::Blob);
        assert_eq!(mapped(&DataType::Boolean, true), ColumnType::Bool);
        assert_eq!(
            mapped(&DataType::Boolean, false),
            ColumnType::Integer { bytes: 1, unsigned: false }
        );
        let ts = DataType::Timestamp(None, TimezoneInfo::WithTimeZone);
        assert_eq!(
            mapped(&ts, true),
            ColumnType::Temporal { kind: TemporalKind::TimestampTz, fsp: 6 }
        );
        let ts = DataType::Timestamp(None, TimezoneInfo::None);
        assert_eq!(mapped(&ts, false), ColumnType::Timestamp);
        assert_eq!(
            mapped(&ts, true),
            ColumnType::Temporal { kind: TemporalKind::DateTime, fsp: 6 }
        );
        let arr = DataType::Array(ArrayElemTypeDef::SquareBracket(
            Box::new(DataType::BigInt(None)),
            None,
        ));
        assert_eq!(mapped(&arr, true), ColumnType::Array { elem: ArrayElem::Int8 });
        assert_eq!(mapped(&DataType::Numeric(ExactNumberInfo::None), true), ColumnType::Numeric);
    }

    #[test]
    fn extension_types_are_noted_not_refused() {
        let vector = DataType::Custom(
            sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::new("vector")]),
            vec!["3".into()],
        );
        match map_type(&vector, Charset::Utf8mb4, true).unwrap() {
            Mapped::Near(ColumnType::Opaque, why) => assert!(why.contains("--width"), "{why}"),
            _ => panic!("vector is an opaque varlena"),
        }
    }
}
