//! The proptest equivalent of the `url_answers` fuzz target: whatever a PostgreSQL catalog
//! answers for a `--url` table, the pg_dump text keylab writes from it is read or refused by
//! `keylab-ddl` without a panic, every refusal naming the source with a line and a column.

use keylab_pg_server::{fill_factor_of, CatalogColumn, CatalogTable};
use proptest::prelude::*;

fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,12}",
        "(integer|text|bigint|character varying\\(20\\)|numeric\\(4,2\\)|jsonb|inet|text\\[\\])",
        "PRIMARY KEY \\([a-z]{1,4}\\)",
        ".{0,30}",
    ]
}

fn column() -> impl Strategy<Value = CatalogColumn> {
    (
        field(),
        field(),
        any::<[bool; 3]>(),
        proptest::option::of(field()),
        proptest::option::of(field()),
    )
        .prop_map(|(name, type_sql, [not_null, identity, serial], generated, collation)| {
            CatalogColumn { name, type_sql, not_null, identity, serial, generated, collation }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn any_catalog_answer_is_read_or_refused_with_a_place(
        schema in field(),
        name in field(),
        columns in proptest::collection::vec(column(), 0..4),
        constraint in (field(), field()),
        index in field(),
        reloption in field(),
    ) {
        let table = CatalogTable {
            schema,
            name,
            columns,
            constraints: vec![constraint],
            indexes: vec![index],
            fill_factor_pct: fill_factor_of(&[reloption]),
        };
        let sql = table.create_sql();
        match keylab_ddl::parse_as(&sql, "url", keylab_ddl::SourceDialect::Postgres) {
            Ok(f) => {
                for r in &f.refused {
                    prop_assert!(r.error.to_string().starts_with("url:"), "{}", r.error);
                }
                let _ = f.table(Some(&table.name));
            }
            Err(e) => prop_assert!(e.to_string().starts_with("url:"), "{e}"),
        }
    }
}
