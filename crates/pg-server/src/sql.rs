//! SQL text for PostgreSQL: the table as keylab creates it, row values as INSERT literals and
//! as `COPY` text, and the two halves of the load checksum.
//!
//! Column types: an identity key is `bigint GENERATED ALWAYS AS IDENTITY`; 16-byte binary ids
//! are the native `uuid` type, other binary ids `bytea`; text ids `varchar(n)` under the
//! collation the engine runs with ([`TextCollation`]), or `"C"` where the id needs byte
//! order. This module does not connect.
//!
//! Parts: `names` (identifiers as the server stores them), `rows` (INSERT and `COPY` text,
//! the load checksum), `value_text` (a value's text form).

use keylab_core::FillFactors;
use keylab_schema::{Charset, ColumnType, Table};

mod names;
mod rows;
mod value_text;
#[cfg(test)]
use names::MAX_IDENTIFIER_BYTES;
pub use names::{enum_type_name, index_name, pkey_name, qualified, quote_ident, table_name};
pub use rows::{
    checksum_sql, copy_sql, multi_insert_sql, prepared_insert_sql, row_hash, sent_columns,
    text_param, write_copy_line, write_values_tuple,
};
pub use value_text::cell_text;
#[cfg(test)]
use value_text::value_text;

/// The collation text ids are created under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextCollation {
    /// The database's default collation (what a user's `varchar` gets).
    #[default]
    Default,
    /// `COLLATE "C"`: byte order, PostgreSQL's fastest comparisons.
    C,
}

impl TextCollation {
    /// The setting as shown (`default` or `C`).
    pub fn token(self) -> &'static str {
        match self {
            TextCollation::Default => "default",
            TextCollation::C => "C",
        }
    }
}

impl std::str::FromStr for TextCollation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "default" => Ok(TextCollation::Default),
            "C" | "c" => Ok(TextCollation::C),
            _ => Err(format!("unknown collation `{s}`; valid: default, C")),
        }
    }
}

/// The PostgreSQL type of a column; `collation` applies to text columns whose ids do not
/// need byte order (those always get `"C"`).
pub fn column_type(ty: &ColumnType, collation: TextCollation) -> String {
    let collate = |charset: Charset| match (charset, collation) {
        (Charset::Utf8mb4Bin, _) | (_, TextCollation::C) => " COLLATE \"C\"",
        _ => "",
    };
    match *ty {
        ColumnType::Int => "integer".into(),
        ColumnType::BigInt { unsigned: false } => "bigint".into(),
        // No unsigned integers: numeric(20) holds every u64.
        ColumnType::BigInt { unsigned: true } => "numeric(20)".into(),
        ColumnType::Binary { bytes: 16 } => "uuid".into(),
        ColumnType::Binary { .. } => "bytea".into(),
        ColumnType::Char { chars, charset } => format!("char({chars}){}", collate(charset)),
        ColumnType::VarChar { chars, charset } => format!("varchar({chars}){}", collate(charset)),
        ColumnType::Text { charset } => format!("text{}", collate(charset)),
        ColumnType::Timestamp | ColumnType::DateTime => "timestamp(0)".into(),
        ColumnType::Date => "date".into(),
        ColumnType::Decimal { precision, scale } => format!("numeric({precision},{scale})"),
        other => other.pg_sql(),
    }
}

/// The PostgreSQL type column `col` of `table` is created with: its enum type (in `schema`)
/// for an enum, else [`column_type`].
fn declared_type(table: &Table, col: usize, schema: &str, collation: TextCollation) -> String {
    match table.columns[col].ty {
        ColumnType::PgEnum { .. } => qualified(schema, &enum_type_name(table, col)),
        ty => column_type(&ty, collation),
    }
}

/// The enum columns of `table`, with their labels (`m1`, `m2`... when the file gave none).
fn enum_columns(table: &Table) -> impl Iterator<Item = (usize, Vec<String>)> + '_ {
    table.columns.iter().enumerate().filter_map(|(i, c)| match c.ty {
        ColumnType::PgEnum { members } if c.labels.is_empty() => {
            Some((i, (1..=members.max(1)).map(|n| format!("m{n}")).collect()))
        }
        ColumnType::PgEnum { .. } => Some((i, c.labels.clone())),
        _ => None,
    })
}

/// `DROP TYPE` for each enum type of `table` (after its `DROP TABLE`).
pub fn drop_type_statements(table: &Table, schema: &str) -> Vec<String> {
    enum_columns(table)
        .map(|(i, _)| {
            format!("DROP TYPE IF EXISTS {} CASCADE", qualified(schema, &enum_type_name(table, i)))
        })
        .collect()
}

/// ` WITH (fillfactor = N)` when a fillfactor is given, else nothing.
fn with_fill_factor(pct: Option<u8>) -> String {
    pct.map(|p| format!(" WITH (fillfactor = {p})")).unwrap_or_default()
}

/// `CREATE TABLE` and `CREATE INDEX` statements for `table` in `schema`, the table and each
/// index with its `fillfactor` from `fill_factors` where one is given.
pub fn create_statements(
    table: &Table,
    schema: &str,
    collation: TextCollation,
    fill_factors: &FillFactors,
) -> Vec<String> {
    let name = |i: usize| quote_ident(&table.columns[i].name);
    let mut cols: Vec<String> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut s = format!("{} {}", name(i), declared_type(table, i, schema, collation));
            if table.auto_increment && table.primary_key == [i] {
                s.push_str(" GENERATED ALWAYS AS IDENTITY");
            } else if !c.nullable {
                s.push_str(" NOT NULL");
            }
            s
        })
        .collect();
    let pk: Vec<String> = table.primary_key.iter().map(|&i| name(i)).collect();
    // A table without a key is a plain heap.
    if !pk.is_empty() {
        cols.push(format!(
            "CONSTRAINT {} PRIMARY KEY ({}){}",
            quote_ident(&pkey_name(table)),
            pk.join(", "),
            with_fill_factor(fill_factors.primary_key_pct)
        ));
    }
    // A leftover type of the same name (an interrupted run) goes first.
    let mut out = drop_type_statements(table, schema);
    for (i, labels) in enum_columns(table) {
        let labels: Vec<String> =
            labels.iter().map(|l| format!("'{}'", l.replace('\'', "''"))).collect();
        out.push(format!(
            "CREATE TYPE {} AS ENUM ({})",
            qualified(schema, &enum_type_name(table, i)),
            labels.join(", ")
        ));
    }
    let Some(parts) = &table.partitioning else {
        out.push(format!(
            "CREATE TABLE {} ({}){}",
            qualified(schema, &table_name(table)),
            cols.join(", "),
            with_fill_factor(fill_factors.table_pct)
        ));
        out.extend(index_statements(table, schema, fill_factors));
        return out;
    };
    // A partitioned table: the parent has no storage (nor storage parameters); each
    // partition is a relation of its own, named `Table::partition_name`, with the fillfactor.
    // Each partition's indexes are made first under keylab's names for the partition, and
    // the parent's `CREATE INDEX` attaches them (DefineIndex attaches a matching index of a
    // partition rather than building another), so they are measured by those names.
    out.push(format!(
        "CREATE TABLE {} ({}) {}",
        qualified(schema, &table_name(table)),
        cols.join(", "),
        parts.postgres_clause(&quoted_columns(table))
    ));
    for (k, p) in parts.partitions.iter().enumerate() {
        out.push(format!(
            "CREATE TABLE {} PARTITION OF {} {}{}",
            qualified(schema, &table.partition_name(k)),
            qualified(schema, &table_name(table)),
            parts.postgres_bound(p, &table.columns),
            with_fill_factor(fill_factors.table_pct)
        ));
        out.extend(index_statements(&table.partition_table(k), schema, fill_factors));
    }
    out.extend(index_statements(table, schema, &FillFactors::default()));
    out
}

/// The columns with their names quoted, for a clause that names them.
fn quoted_columns(table: &Table) -> Vec<keylab_schema::Column> {
    let mut cols = table.columns.clone();
    for c in &mut cols {
        c.name = quote_ident(&c.name);
    }
    cols
}

/// `CREATE INDEX` of each secondary index of `table`.
fn index_statements(table: &Table, schema: &str, fill_factors: &FillFactors) -> Vec<String> {
    let name = |i: usize| quote_ident(&table.columns[i].name);
    let mut out = Vec::new();
    for ix in &table.indexes {
        let cols: Vec<String> = ix
            .columns
            .iter()
            .enumerate()
            .map(|(k, &i)| match ix.key_fn_at(k) {
                Some(f) => f.sql(&name(i)),
                None => name(i),
            })
            .collect();
        let predicate = ix
            .predicate
            .as_ref()
            .map(|p| format!(" WHERE {}", p.sql(&table.columns, &|c| quote_ident(c))))
            .unwrap_or_default();
        out.push(format!(
            "CREATE {}INDEX {} ON {} ({}){}{predicate}",
            if ix.unique { "UNIQUE " } else { "" },
            quote_ident(&index_name(table, &ix.name)),
            qualified(schema, &table_name(table)),
            cols.join(", "),
            with_fill_factor(fill_factors.of_index(&ix.name))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{ArrayElem, Column, Index, RowFormat, TemporalKind, Value};

    #[test]
    fn new_types_are_written_as_the_server_writes_them_back() {
        let text = |v: Value, ty: ColumnType| value_text(&v, &ty).unwrap();
        assert_eq!(text(Value::Int(1_234_567), ColumnType::Money), "$1,234,567.00");
        assert_eq!(text(Value::Int(999), ColumnType::Money), "$999.00");
        assert_eq!(text(Value::Int(1), ColumnType::Bool), "true");
        assert_eq!(
            text(Value::Bytes(vec![10, 0, 0, 1]), ColumnType::Inet { cidr: false }),
            "10.0.0.1/32"
        );
        assert_eq!(
            text(Value::Bytes(vec![8, 0, 0x2b, 1, 2, 3]), ColumnType::MacAddr { bytes: 6 }),
            "08:00:2b:01:02:03"
        );
        let interval = ColumnType::Temporal { kind: TemporalKind::Interval, fsp: 6 };
        assert_eq!(text(Value::Int(90_000), interval), "25:00:00");
        let tz = ColumnType::Temporal { kind: TemporalKind::TimestampTz, fsp: 6 };
        assert_eq!(text(Value::Time(0), tz), "1970-01-01 00:00:00+00");
        let words = ColumnType::Array { elem: ArrayElem::Text };
        assert_eq!(text(Value::Bytes(b"{\"ab\",\"cd\"}".to_vec()), words), "{ab,cd}");
        assert_eq!(text(Value::Int(5), ColumnType::Bit { bits: 5 }), "00101");
        assert_eq!(
            column_type(&ColumnType::Float { double: true }, TextCollation::Default),
            "float8"
        );
    }

    fn table(auto: bool) -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("pk", ColumnType::BigInt { unsigned: false }, false),
                Column::new("id", ColumnType::Binary { bytes: 16 }, false),
                Column::new(
                    "data",
                    ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 },
                    true,
                ),
            ],
            primary_key: vec![0],
            auto_increment: auto,
            indexes: vec![Index::new("k_id", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    #[test]
    fn tables_use_identity_uuid_and_the_chosen_collation() {
        let none = FillFactors::default();
        let s = create_statements(&table(true), "keylab", TextCollation::C, &none);
        assert_eq!(
            s[0],
            "CREATE TABLE \"keylab\".\"t\" (\"pk\" bigint GENERATED ALWAYS AS IDENTITY, \"id\" \
             uuid NOT NULL, \"data\" varchar(255) COLLATE \"C\", CONSTRAINT \"t_pkey\" PRIMARY \
             KEY (\"pk\"))"
        );
        assert_eq!(s[1], "CREATE INDEX \"t_k_id\" ON \"keylab\".\"t\" (\"id\")");
        let d = create_statements(&table(true), "keylab", TextCollation::Default, &none);
        assert!(d[0].contains("\"data\" varchar(255),"), "{}", d[0]);
        let ff = FillFactors {
            table_pct: Some(80),
            primary_key_pct: Some(70),
            index_pct: vec![("k_id".into(), 60)],
        };
        let f = create_statements(&table(true), "keylab", TextCollation::C, &ff);
        assert!(
            f[0].ends_with("PRIMARY KEY (\"pk\") WITH (fillfactor = 70)) WITH (fillfactor = 80)"),
            "{}",
            f[0]
        );
        assert!(f[1].ends_with("(\"id\") WITH (fillfactor = 60)"), "{}", f[1]);
    }

    #[test]
    fn values_render_as_postgres_prints_them() {
        let t = table(true);
        let row =
            vec![Value::Null, Value::Bytes((0..16).collect()), Value::Bytes(b"a'b\tc".to_vec())];
        let cols = sent_columns(&t);
        assert_eq!(cols, vec![1, 2]);
        let mut sql = String::new();
        write_values_tuple(&mut sql, &t, &cols, &row);
        assert_eq!(sql, "('00010203-0405-0607-0809-0a0b0c0d0e0f', 'a''b\tc')");
        let mut copy = Vec::new();
        write_copy_line(&mut copy, &t, &cols, &row);
        assert_eq!(copy, b"00010203-0405-0607-0809-0a0b0c0d0e0f\ta'b\\tc\n");
        let bytea = value_text(&Value::Bytes(vec![1, 255]), &ColumnType::Binary { bytes: 20 });
        assert_eq!(bytea.as_deref(), Some("\\x01ff"));
        assert!(prepared_insert_sql(&t, "s", 2).ends_with(
            "($1::text::uuid, $2::text::varchar(255)), ($3::text::uuid, $4::text::varchar(255))"
        ));
        // MD5("a") starts 0cc175b9.
        let one = Table {
            columns: vec![t.columns[2].clone()],
            primary_key: vec![],
            auto_increment: false,
            indexes: vec![],
            ..t
        };
        assert_eq!(row_hash(&[Value::Bytes(b"a".to_vec())], &one, &[0]), 0x0cc1_75b9);
    }

    #[test]
    fn an_enum_column_gets_its_own_enum_type_and_labels_as_values() {
        let mut t = table(false);
        let mut mood = Column::new("mood", ColumnType::PgEnum { members: 2 }, false);
        mood.labels = vec!["sad".into(), "it's ok".into()];
        t.columns.push(mood);
        let s = create_statements(&t, "k", TextCollation::Default, &FillFactors::default());
        assert_eq!(s[0], "DROP TYPE IF EXISTS \"k\".\"t_mood_enum\" CASCADE");
        assert_eq!(s[1], "CREATE TYPE \"k\".\"t_mood_enum\" AS ENUM ('sad', 'it''s ok')");
        assert!(s[2].contains("\"mood\" \"k\".\"t_mood_enum\" NOT NULL"), "{}", s[2]);
        assert_eq!(drop_type_statements(&t, "k"), [s[0].clone()]);
        assert_eq!(cell_text(&Value::Int(2), &t.columns[3]).as_deref(), Some("it's ok"));
        let sql = prepared_insert_sql(&t, "k", 1);
        assert!(sql.ends_with("$4::text::\"k\".\"t_mood_enum\")"), "{sql}");
        // Without labels (not known): m1, m2...
        t.columns[3].labels.clear();
        let s = create_statements(&t, "k", TextCollation::Default, &FillFactors::default());
        assert!(s[1].ends_with("AS ENUM ('m1', 'm2')"), "{}", s[1]);
        assert_eq!(cell_text(&Value::Int(1), &t.columns[3]).as_deref(), Some("m1"));
    }

    #[test]
    fn long_table_names_stay_distinct_within_63_bytes() {
        let long = |end: &str| Table { name: format!("{}{end}", "t".repeat(70)), ..table(false) };
        let (a, b) = (table_name(&long("a")), table_name(&long("b")));
        assert!(a.len() <= MAX_IDENTIFIER_BYTES && b.len() <= MAX_IDENTIFIER_BYTES);
        assert_ne!(a, b);
        assert_eq!(table_name(&table(false)), "t", "a short name is kept whole");
        let s = create_statements(&long("a"), "k", TextCollation::C, &FillFactors::default());
        assert!(s[0].starts_with(&format!("CREATE TABLE \"k\".\"{a}\" (")), "{}", s[0]);
        assert!(s[1].contains(&format!(" ON \"k\".\"{a}\" (")), "{}", s[1]);
        assert!(copy_sql(&long("a"), "k").contains(&a));
    }

    #[test]
    fn long_index_names_stay_distinct_within_63_bytes() {
        let t = Table { name: "orders".into(), ..table(false) };
        let a = format!("ix_{}_a", "x".repeat(65));
        let b = format!("ix_{}_b", "x".repeat(65));
        let (na, nb) = (index_name(&t, &a), index_name(&t, &b));
        assert!(na.len() <= MAX_IDENTIFIER_BYTES && nb.len() <= MAX_IDENTIFIER_BYTES);
        assert_ne!(na, nb);
        assert_eq!(index_name(&t, "k"), "orders_k", "a short name is kept whole");
        // Cut at a character boundary: no half of a multi-byte letter.
        let c = index_name(&t, &"é".repeat(40));
        assert!(c.len() <= MAX_IDENTIFIER_BYTES && c.starts_with("orders_é"));
    }
}
