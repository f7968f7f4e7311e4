//! `advise --url` on PostgreSQL turns the catalog's answers (names, `format_type`, constraint
//! and index definitions, reloptions) into pg_dump text that `keylab-ddl` reads; a hostile or
//! odd server can answer anything. Any answer never panics, and every refusal names the
//! source with a line and a column. (MariaDB's answer is `SHOW CREATE TABLE` text, which the
//! `ddl_file` target covers.)
#![no_main]

use keylab_pg_server::{fill_factor_of, CatalogColumn, CatalogTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    // Fields separated by U+0001, in the order the catalog queries give them.
    let mut fields = src.split('\u{1}');
    let mut next = || fields.next().unwrap_or("").to_string();
    let (schema, name) = (next(), next());
    let mut columns = Vec::new();
    for _ in 0..4 {
        let (col, type_sql, flags) = (next(), next(), next());
        if col.is_empty() && type_sql.is_empty() {
            break;
        }
        let flag = |i: usize| flags.as_bytes().get(i) == Some(&b'1');
        columns.push(CatalogColumn {
            name: col,
            type_sql,
            not_null: flag(0),
            identity: flag(1),
            serial: flag(2),
            generated: flag(3).then(&mut next),
            collation: flag(4).then(&mut next),
        });
    }
    let constraints = vec![(next(), next())];
    let indexes = vec![next()];
    let reloptions = vec![next()];
    let table = CatalogTable {
        schema,
        name,
        columns,
        constraints,
        indexes,
        fill_factor_pct: fill_factor_of(&reloptions),
    };
    let sql = table.create_sql();
    match keylab_ddl::parse_as(&sql, "url", keylab_ddl::SourceDialect::Postgres) {
        Ok(f) => {
            for r in &f.refused {
                assert!(r.error.to_string().starts_with("url:"), "{}", r.error);
            }
            let _ = f.table(Some(&table.name));
        }
        Err(e) => assert!(e.to_string().starts_with("url:"), "{e}"),
    }
});
