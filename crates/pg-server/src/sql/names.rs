//! Identifiers as keylab writes them for PostgreSQL: quoting, schema-qualified names, and
//! the names of tables, indexes and enum types kept within the server's 63 bytes (a longer
//! one is shortened with a hash, so that two long names stay distinct).
//!
//! Not for statements (the parent and `rows` build those).

use keylab_schema::Table;
use md5::{Digest, Md5};
use std::fmt::Write as _;

/// `name` quoted as a PostgreSQL identifier.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `"schema"."name"`.
pub fn qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", quote_ident(schema), quote_ident(name))
}

/// PostgreSQL's longest identifier in bytes (`NAMEDATALEN - 1`): a longer one is cut.
pub const MAX_IDENTIFIER_BYTES: usize = 63;

/// The name keylab gives index `ix` of `table` (PostgreSQL index names are per schema):
/// `TABLE_IX`, shortened as [`server_identifier`] says.
pub fn index_name(table: &Table, ix: &str) -> String {
    server_identifier(format!("{}_{ix}", table.name))
}

/// The name `table` has on the server: its own name, shortened as [`server_identifier`]
/// says (a table name of 64 bytes or more, which PostgreSQL would cut).
pub fn table_name(table: &Table) -> String {
    server_identifier(table.name.clone())
}

/// `full` when it fits in [`MAX_IDENTIFIER_BYTES`], else its first bytes and `_` and 8 hex
/// digits of its MD5: unique per full name and not cut by the server (which cuts a longer
/// name, so that two long names sharing their first 63 bytes collide).
fn server_identifier(full: String) -> String {
    if full.len() <= MAX_IDENTIFIER_BYTES {
        return full;
    }
    let digest = Md5::digest(full.as_bytes());
    let mut keep = MAX_IDENTIFIER_BYTES - 9;
    while !full.is_char_boundary(keep) {
        keep -= 1;
    }
    let mut out = full[..keep].to_string();
    out.push('_');
    for b in &digest[..4] {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The name of the enum type keylab creates for column `col` of `table` (a PostgreSQL enum,
/// [`ColumnType::PgEnum`](keylab_schema::ColumnType::PgEnum)): `TABLE_COLUMN_enum`,
/// shortened as [`server_identifier`] says.
pub fn enum_type_name(table: &Table, col: usize) -> String {
    server_identifier(format!("{}_{}_enum", table.name, table.columns[col].name))
}

/// The name of the primary key's index.
pub fn pkey_name(table: &Table) -> String {
    index_name(table, "pkey")
}
