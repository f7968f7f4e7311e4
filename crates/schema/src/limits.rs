//! What MariaDB 10.11 (InnoDB, strict `sql_mode`, as keylab's sessions run) refuses at
//! `CREATE TABLE`, decided from the table alone, so every engine refuses the same tables
//! before anything runs: a `VARCHAR` longer than its character set allows, a row longer than
//! the SQL layer's 65,535 bytes, a key longer than InnoDB's limit for the page size, an
//! unprefixed `TEXT` key part, a key part over 767 bytes in `ROW_FORMAT=COMPACT` (InnoDB's own
//! check, error 1709). It also finds the one change the server makes silently: a
//! non-unique secondary index on a column longer than a key part may be becomes a prefix
//! index ([`PrefixKey`]).
//!
//! Confirmed on a private MariaDB 10.11.19 (errors 1074, 1118, 1071, 1709; `SHOW CREATE TABLE`
//! showing `KEY kv (v(768))`). It does not check InnoDB's in-page record limit (about half a
//! page, `dict_index_t::rec_potentially_too_big`), which a keylab table reaches only with
//! dozens of long fixed-length columns.

use crate::{ColumnType, RowFormat, Table};
use std::fmt;

/// The SQL layer's row limit: the sum of every column's in-row length, not counting BLOB
/// contents (`pack_header` in `sql/unireg.cc` against `handler::max_record_length`).
pub const MAX_ROW_BYTES: u32 = 65_535;

/// InnoDB's most user columns in a table (`REC_MAX_N_USER_FIELDS`): MariaDB 10.11.19 creates
/// 1017 and refuses 1018 (error 1005, errno 185 "Too many columns").
pub const MAX_COLUMNS: usize = 1017;

/// MariaDB's most keys in a table, the primary key included (`MAX_KEY`): 64 (error 1069,
/// measured on 10.11.19: a primary key and 64 secondary indexes are refused).
pub const MAX_KEYS: usize = 64;

/// InnoDB's limit on one key part (`REC_VERSION_56_MAX_INDEX_COL_LEN`, returned by
/// `ha_innobase::max_supported_key_part_length`).
pub const MAX_KEY_PART_BYTES: u32 = 3072;

/// InnoDB's limit on one key part of a `ROW_FORMAT=COMPACT` (or REDUNDANT) table: 767 bytes
/// (`DICT_MAX_FIELD_LEN_BY_FORMAT`, `REC_ANTELOPE_MAX_INDEX_COL_LEN - 1`).
pub const MAX_COMPACT_KEY_PART_BYTES: u32 = 767;

/// InnoDB's limit on a whole key at `page_size_bytes` (`ha_innobase::max_supported_key_length`),
/// as MariaDB 10.11.19 reports it in error 1071: 1173 bytes at 4 KiB pages, 1536 at 8 KiB,
/// 3072 from 16 KiB.
pub fn max_key_bytes(page_size_bytes: u32) -> u32 {
    match page_size_bytes {
        0..=4096 => 1173,
        4097..=8192 => 1536,
        _ => 3072,
    }
}

/// The longest `VARCHAR` in characters a column of `max_bytes_per_char` may declare: 65,535
/// bytes less two length bytes (`Column_definition::check_length` in `sql/field.cc`, error
/// 1074): 16383 in utf8mb4, 21844 in utf8mb3, 65532 in latin1.
pub fn max_varchar_chars(max_bytes_per_char: u32) -> u32 {
    (MAX_ROW_BYTES - 3) / max_bytes_per_char.max(1)
}

/// A column's length in the SQL layer's row (`Field::pack_length`): its bytes, plus 1 or 2
/// length bytes for `VARCHAR`, and a 2-byte length plus an 8-byte pointer for `TEXT`.
fn row_bytes(ty: &ColumnType) -> u32 {
    match ty {
        ColumnType::VarChar { .. } | ColumnType::VarBinary { .. } | ColumnType::Inet { .. } => {
            let b = ty.max_bytes();
            b + if b < 256 { 1 } else { 2 }
        }
        // BLOB-family columns: a length and a pointer (LONGTEXT/LONGBLOB: 4 + 8 = 12).
        ColumnType::Text { .. } => 10,
        ColumnType::Json { .. } | ColumnType::Array { .. } => 12,
        ColumnType::Blob | ColumnType::TsVector | ColumnType::Opaque => 10,
        _ => ty.max_bytes(),
    }
}

/// The SQL layer's row length of `table`: its columns' lengths and one NULL bit per nullable
/// column, rounded up to bytes.
pub fn sql_row_bytes(table: &Table) -> u32 {
    let cols: u32 = table.columns.iter().map(|c| row_bytes(&c.ty)).sum();
    let nullable = table.columns.iter().filter(|c| c.nullable).count() as u32;
    cols + nullable.div_ceil(8)
}

/// A key part the server silently shortens: `column` of secondary index `index` keeps only
/// its first `chars` characters (`KEY index (column(chars))`, with a warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixKey {
    /// Index name.
    pub index: String,
    /// Column position in the table.
    pub column: usize,
    /// Characters the index keeps.
    pub chars: u32,
    /// Declared in the index (`KEY ix (c(10))`), not cut by the server.
    pub declared: bool,
}

impl PrefixKey {
    /// The note both engines give for it in the result's engine `notes`.
    pub fn note(&self, table: &Table) -> String {
        if self.declared {
            return format!(
                "table `{}`: index `{}` keeps the first {} characters of `{}` (a declared \
                 prefix key part; both engines store and compare only those)",
                table.name, self.index, self.chars, table.columns[self.column].name
            );
        }
        format!(
            "table `{}`: index `{}` is a prefix index on the first {} characters of `{}` \
             (MariaDB shortens a plain KEY part past {MAX_KEY_PART_BYTES} bytes, with a warning; \
             the simulator models the same prefix)",
            table.name, self.index, self.chars, table.columns[self.column].name
        )
    }
}

/// What the server refuses, with where: a column, or an index (`None` for the primary key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitError {
    /// More columns than [`MAX_COLUMNS`] (error 1005, errno 185).
    TooManyColumns {
        /// The table's columns.
        columns: usize,
    },
    /// More keys than [`MAX_KEYS`] (error 1069).
    TooManyKeys {
        /// The table's keys, the primary key included.
        keys: usize,
    },
    /// A `VARCHAR` longer than its character set allows (error 1074).
    ColumnTooLong {
        /// Column position.
        column: usize,
        /// The longest allowed, in characters.
        max_chars: u32,
    },
    /// The row is longer than [`MAX_ROW_BYTES`] (error 1118).
    RowTooLong {
        /// The row's length.
        bytes: u32,
    },
    /// A key longer than the limit (error 1071): the primary key, a unique key (MariaDB would
    /// build a hash index instead, which no engine here models) or a multi-column key.
    KeyTooLong {
        /// Index name (`PRIMARY` for the primary key).
        index: String,
        /// Secondary index position in `Table::indexes`; `None` for the primary key.
        position: Option<usize>,
        /// The key's length in bytes.
        bytes: u32,
        /// The limit.
        limit: u32,
    },
    /// A key part longer than [`MAX_COMPACT_KEY_PART_BYTES`] in a `ROW_FORMAT=COMPACT` table
    /// (error 1709): InnoDB refuses the index, where DYNAMIC allows 3072 bytes.
    CompactKeyPartTooLong {
        /// Index name (`PRIMARY` for the primary key).
        index: String,
        /// Secondary index position; `None` for the primary key.
        position: Option<usize>,
        /// Column position.
        column: usize,
        /// The part's length in bytes (declared characters × bytes per character).
        bytes: u32,
        /// Bytes per character of the column (1 for a binary column).
        bytes_per_char: u32,
    },
    /// A `TEXT` column in a key (error 1170: it needs a prefix length).
    TextKey {
        /// Index name.
        index: String,
        /// Secondary index position; `None` for the primary key.
        position: Option<usize>,
        /// Column position.
        column: usize,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::TooManyColumns { columns } => write!(
                f,
                "the table has {columns} columns, more than InnoDB's {MAX_COLUMNS} (MariaDB error \
                 1005: errno 185 \"Too many columns\"); valid: at most {MAX_COLUMNS} columns"
            ),
            LimitError::TooManyKeys { keys } => write!(
                f,
                "the table has {keys} keys (its primary key and secondary indexes), more than \
                 MariaDB's {MAX_KEYS} (error 1069: Too many keys specified; max {MAX_KEYS} keys \
                 allowed); valid: at most {MAX_KEYS} keys"
            ),
            LimitError::ColumnTooLong { max_chars, .. } => write!(
                f,
                "this VARCHAR is longer than MariaDB allows in its character set (error 1074); \
                 valid: at most {max_chars} characters"
            ),
            LimitError::RowTooLong { bytes } => write!(
                f,
                "the row takes {bytes} bytes, more than MariaDB's {MAX_ROW_BYTES}-byte row \
                 limit (error 1118; TEXT columns count 10 bytes); valid: shorter columns"
            ),
            LimitError::KeyTooLong { index, bytes, limit, position } => {
                let what = if position.is_none() { "primary key" } else { "key" };
                write!(
                    f,
                    "{what} `{index}` takes {bytes} bytes, more than MariaDB's {limit}-byte key \
                     limit at this page size (error 1071{}); valid: at most {limit} bytes",
                    if position.is_some() {
                        "; a long UNIQUE key would become a hash index"
                    } else {
                        ""
                    }
                )
            }
            LimitError::CompactKeyPartTooLong { index, bytes, bytes_per_char, .. } => write!(
                f,
                "key `{index}` has a part of {bytes} bytes, more than the \
                 {MAX_COMPACT_KEY_PART_BYTES} bytes InnoDB allows a key part in \
                 ROW_FORMAT=COMPACT (error 1709); valid: ROW_FORMAT=DYNAMIC, or a prefix of at \
                 most {} characters",
                MAX_COMPACT_KEY_PART_BYTES / bytes_per_char
            ),
            LimitError::TextKey { index, .. } => write!(
                f,
                "key `{index}` has a TEXT column, which MariaDB indexes only with a prefix \
                 length (error 1170); valid: a char, varchar, binary or numeric column"
            ),
        }
    }
}

impl std::error::Error for LimitError {}

/// Checks `table` against MariaDB's limits at `page_size_bytes`; returns the key parts the
/// server would silently shorten to a prefix.
pub fn check(table: &Table, page_size_bytes: u32) -> Result<Vec<PrefixKey>, LimitError> {
    if table.columns.len() > MAX_COLUMNS {
        return Err(LimitError::TooManyColumns { columns: table.columns.len() });
    }
    let keys = table.indexes.len() + usize::from(!table.primary_key.is_empty());
    if keys > MAX_KEYS {
        return Err(LimitError::TooManyKeys { keys });
    }
    for (i, c) in table.columns.iter().enumerate() {
        if let ColumnType::VarChar { chars, charset } = c.ty {
            let max_chars = max_varchar_chars(charset.max_bytes_per_char());
            if chars > max_chars {
                return Err(LimitError::ColumnTooLong { column: i, max_chars });
            }
        }
    }
    let bytes = sql_row_bytes(table);
    if bytes > MAX_ROW_BYTES {
        return Err(LimitError::RowTooLong { bytes });
    }
    let limit = max_key_bytes(page_size_bytes);
    // The part limit does not shrink with the page: at 8 KiB a 2000-character utf8mb4 part
    // is cut to 3072 bytes and then refused as a 1536-byte key (measured).
    let part_limit = MAX_KEY_PART_BYTES;
    let mut prefixes = Vec::new();
    for (index, position, cols, unique, ix) in keys_of(table) {
        let mut total = 0u32;
        for (k, &c) in cols.iter().enumerate() {
            let ty = &table.columns[c].ty;
            if ty.is_blob() {
                return Err(LimitError::TextKey { index: index.into(), position, column: c });
            }
            let mut part = ty.max_bytes();
            // A declared prefix part keeps its characters at their widest (`KEY (c(10))`).
            if let (
                Some(chars),
                ColumnType::VarChar { charset, .. } | ColumnType::Char { charset, .. },
            ) = (ix.and_then(|ix| ix.prefix_at(k)), *ty)
            {
                prefixes.push(PrefixKey { index: index.into(), column: c, chars, declared: true });
                total += part.min(chars * charset.max_bytes_per_char());
                continue;
            }
            // `mysql_prepare_create_table` (sql_table.cc): a too-long part of a plain KEY is
            // cut to the longest whole-character prefix with a warning; PRIMARY/UNIQUE are not.
            if part > part_limit && !unique {
                if let ColumnType::VarChar { charset, .. } | ColumnType::Char { charset, .. } = *ty
                {
                    let chars = part_limit / charset.max_bytes_per_char();
                    prefixes.push(PrefixKey {
                        index: index.into(),
                        column: c,
                        chars,
                        declared: false,
                    });
                    part = chars * charset.max_bytes_per_char();
                }
            }
            total += part;
        }
        if total > limit {
            prefixes.retain(|p| p.index != index);
            return Err(LimitError::KeyTooLong {
                index: index.into(),
                position,
                bytes: total,
                limit,
            });
        }
    }
    if table.row_format == RowFormat::Compact {
        compact_key_parts(table)?;
    }
    Ok(prefixes)
}

/// InnoDB's own check once the SQL layer has passed the table: in ROW_FORMAT=COMPACT every key
/// part, declared prefix or whole column (a plain KEY's part cut to 3072 bytes included), must
/// fit 767 bytes (`row_create_index_for_mysql` against `DICT_MAX_FIELD_LEN_BY_FORMAT`).
fn compact_key_parts(table: &Table) -> Result<(), LimitError> {
    for (index, position, cols, _, ix) in keys_of(table) {
        for (k, &column) in cols.iter().enumerate() {
            let ty = table.columns[column].ty;
            let bytes_per_char = match ty {
                ColumnType::VarChar { charset, .. } | ColumnType::Char { charset, .. } => {
                    charset.max_bytes_per_char()
                }
                _ => 1,
            };
            let bytes = match ix.and_then(|ix| ix.prefix_at(k)) {
                Some(chars) => ty.max_bytes().min(chars * bytes_per_char),
                None => ty.max_bytes(),
            };
            if bytes > MAX_COMPACT_KEY_PART_BYTES {
                return Err(LimitError::CompactKeyPartTooLong {
                    index: index.into(),
                    position,
                    column,
                    bytes,
                    bytes_per_char,
                });
            }
        }
    }
    Ok(())
}

/// Every key of `table`, PRIMARY first: its name, its position among the secondary indexes
/// (`None` for PRIMARY), its columns, whether it is unique, and the secondary index (`None`
/// for PRIMARY, which has no prefix parts).
fn keys_of(table: &Table) -> impl Iterator<Item = KeyOf<'_>> {
    std::iter::once(("PRIMARY", None, &table.primary_key, true, None)).chain(
        table
            .indexes
            .iter()
            .enumerate()
            .map(|(p, ix)| (ix.name.as_str(), Some(p), &ix.columns, ix.unique, Some(ix))),
    )
}

/// One item of [`keys_of`].
type KeyOf<'t> = (&'t str, Option<usize>, &'t Vec<usize>, bool, Option<&'t crate::Index>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Charset, Column, Index, RowFormat};

    fn table(cols: Vec<Column>, indexes: Vec<Index>) -> Table {
        Table {
            name: "t".into(),
            columns: cols,
            primary_key: vec![0],
            auto_increment: false,
            indexes,
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn vc(chars: u32, charset: Charset) -> ColumnType {
        ColumnType::VarChar { chars, charset }
    }

    #[test]
    fn varchar_limits_per_charset_match_the_server() {
        assert_eq!(max_varchar_chars(4), 16383);
        assert_eq!(max_varchar_chars(3), 21844);
        assert_eq!(max_varchar_chars(1), 65532);
        let t = table(vec![bigint(), Column::new("d", vc(16384, Charset::Utf8mb4), true)], vec![]);
        assert_eq!(
            check(&t, 16384),
            Err(LimitError::ColumnTooLong { column: 1, max_chars: 16383 })
        );
    }

    fn bigint() -> Column {
        Column::new("id", ColumnType::BigInt { unsigned: false }, false)
    }

    #[test]
    fn the_row_limit_counts_length_bytes_and_null_bits() {
        // Measured on MariaDB 10.11.19: varchar(36) utf8mb4 key + varchar(16346) nullable
        // is accepted (65,532 bytes), varchar(16347) nullable refused, NOT NULL accepted.
        let id = Column::new("id", vc(36, Charset::Utf8mb4), false);
        let ok =
            table(vec![id.clone(), Column::new("d", vc(16346, Charset::Utf8mb4), true)], vec![]);
        assert!(check(&ok, 16384).is_ok());
        let bad =
            table(vec![id.clone(), Column::new("d", vc(16347, Charset::Utf8mb4), true)], vec![]);
        assert_eq!(check(&bad, 16384), Err(LimitError::RowTooLong { bytes: 65_536 }));
        let ok = table(vec![id, Column::new("d", vc(16347, Charset::Utf8mb4), false)], vec![]);
        assert!(check(&ok, 16384).is_ok());
    }

    #[test]
    fn a_declared_prefix_counts_its_characters_and_lets_a_unique_key_through() {
        // UNIQUE KEY (v(100)) on a utf8mb4 VARCHAR(2000): 400 bytes, not 8000.
        let t = table(
            vec![bigint(), Column::new("v", vc(2000, Charset::Utf8mb4), false)],
            vec![Index {
                name: "uv".into(),
                columns: vec![1],
                unique: true,
                prefix_chars: vec![Some(100)],
                descending: Vec::new(),
                key_fns: Vec::new(),
                predicate: None,
            }],
        );
        let got = check(&t, 16384).unwrap();
        assert_eq!(
            got,
            vec![PrefixKey { index: "uv".into(), column: 1, chars: 100, declared: true }]
        );
        assert!(got[0].note(&t).contains("first 100 characters of `v`"));
        assert!(t.create_sql(crate::Dialect::Mariadb).contains("UNIQUE KEY uv (v(100))"));
        // 1000 utf8mb4 characters are 4000 bytes: over the 3072-byte key limit.
        let mut long = t.clone();
        long.indexes[0].prefix_chars = vec![Some(1000)];
        assert!(matches!(check(&long, 16384), Err(LimitError::KeyTooLong { bytes: 4000, .. })));
    }

    #[test]
    fn compact_refuses_a_key_part_over_767_bytes() {
        // Measured on MariaDB 10.11.19: `KEY (title)` on a utf8mb4 VARCHAR(255) (1,020 bytes)
        // in ROW_FORMAT=COMPACT fails with error 1709; VARCHAR(191) (764 bytes) is created.
        let t = |chars, prefix: Option<u32>, row_format| Table {
            row_format,
            partitioning: None,
            ..table(
                vec![bigint(), Column::new("title", vc(chars, Charset::Utf8mb4), false)],
                vec![Index {
                    name: "ix_title".into(),
                    columns: vec![1],
                    unique: false,
                    prefix_chars: vec![prefix],
                    descending: Vec::new(),
                    key_fns: Vec::new(),
                    predicate: None,
                }],
            )
        };
        let err = check(&t(255, None, RowFormat::Compact), 16384).unwrap_err();
        assert_eq!(
            err,
            LimitError::CompactKeyPartTooLong {
                index: "ix_title".into(),
                position: Some(0),
                column: 1,
                bytes: 1020,
                bytes_per_char: 4,
            }
        );
        assert!(err.to_string().contains("error 1709"), "{err}");
        assert!(err.to_string().contains("at most 191 characters"), "{err}");
        assert!(check(&t(191, None, RowFormat::Compact), 16384).is_ok());
        assert!(check(&t(255, None, RowFormat::Dynamic), 16384).is_ok());
        assert!(check(&t(255, Some(191), RowFormat::Compact), 16384).is_ok());
        // A plain KEY the SQL layer cuts to 3072 bytes is still over 767.
        assert!(check(&t(2000, None, RowFormat::Compact), 16384).is_err());
        let mut pk = t(191, None, RowFormat::Compact);
        pk.columns[0] = Column::new("id", vc(200, Charset::Utf8mb4), false);
        assert!(matches!(
            check(&pk, 16384),
            Err(LimitError::CompactKeyPartTooLong { position: None, bytes: 800, .. })
        ));
    }

    #[test]
    fn long_keys_are_refused_or_prefixed_as_the_server_does() {
        let pk = |chars| table(vec![Column::new("id", vc(chars, Charset::Utf8mb4), false)], vec![]);
        assert!(check(&pk(768), 16384).is_ok());
        assert!(matches!(check(&pk(769), 16384), Err(LimitError::KeyTooLong { bytes: 3076, .. })));
        assert!(check(&pk(200), 4096).is_ok());
        assert!(matches!(check(&pk(300), 4096), Err(LimitError::KeyTooLong { limit: 1173, .. })));
        let ix = |unique, cols: Vec<usize>| {
            table(
                vec![
                    bigint(),
                    Column::new("v", vc(2000, Charset::Utf8mb4), true),
                    Column::new("w", vc(10, Charset::Utf8mb4), true),
                ],
                vec![Index {
                    name: "kv".into(),
                    columns: cols,
                    unique,
                    prefix_chars: Vec::new(),
                    descending: Vec::new(),
                    key_fns: Vec::new(),
                    predicate: None,
                }],
            )
        };
        assert_eq!(
            check(&ix(false, vec![1]), 16384),
            Ok(vec![PrefixKey { index: "kv".into(), column: 1, chars: 768, declared: false }])
        );
        assert!(matches!(check(&ix(true, vec![1]), 16384), Err(LimitError::KeyTooLong { .. })));
        assert!(matches!(
            check(&ix(false, vec![1]), 8192),
            Err(LimitError::KeyTooLong { bytes: 3072, limit: 1536, .. })
        ));
        // (w, v): v is cut to 3072 bytes, and with w's 40 the key is too long (error 1071).
        assert!(matches!(
            check(&ix(false, vec![2, 1]), 16384),
            Err(LimitError::KeyTooLong { bytes: 3112, .. })
        ));
        let text = table(
            vec![bigint(), Column::new("t", ColumnType::Text { charset: Charset::Utf8mb4 }, true)],
            vec![Index::new("kt", vec![1], false)],
        );
        assert!(matches!(check(&text, 16384), Err(LimitError::TextKey { column: 1, .. })));
    }
}
