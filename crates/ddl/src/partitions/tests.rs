//! The partition readers on clauses as MySQL, MariaDB and pg_dump write them.

use super::resolve::resolve;
use super::*;
use keylab_schema::{
    BoundValue, Column, ColumnType, PartitionBound, PartitionFn, PartitionMethod, TemporalKind,
    Value,
};
use sqlparser::dialect::{MySqlDialect, PostgreSqlDialect};
use sqlparser::tokenizer::Tokenizer;

fn toks(sql: &str, pg: bool) -> Vec<TokenWithSpan> {
    if pg {
        Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize_with_location().unwrap()
    } else {
        Tokenizer::new(&MySqlDialect {}, sql).tokenize_with_location().unwrap()
    }
}

#[test]
fn mysql_range_with_functions_and_maxvalue() {
    let sql = "PARTITION BY RANGE (TO_DAYS(created)) (PARTITION p0 VALUES LESS THAN \
               (TO_DAYS('2020-01-01')) ENGINE = InnoDB, PARTITION pmax VALUES LESS THAN MAXVALUE)";
    let raw = read_partition_by(&toks(sql, false), false).unwrap();
    assert_eq!(raw.function, PartitionFn::ToDays);
    assert_eq!(raw.columns, ["created"]);
    assert_eq!(raw.partitions.len(), 2);
    assert_eq!(raw.partitions[1].bound, RawBound::LessThan(vec![RawValue::Max]));
    let cols = vec![Column::new("created", ColumnType::DateTime, false)];
    let p = resolve(&raw, &cols).unwrap();
    assert_eq!(
        p.partitions[0].bound,
        PartitionBound::LessThan(vec![BoundValue::Value(Value::Int(737_790))])
    );
}

#[test]
fn mysql_list_columns_hash_and_key() {
    let raw = read_partition_by(
        &toks("PARTITION BY LIST COLUMNS(region) (PARTITION pe VALUES IN ('eu','uk'), PARTITION pa VALUES IN ('us'))", false),
        false,
    )
    .unwrap();
    assert!(raw.columns_form);
    assert_eq!(
        raw.partitions[0].bound,
        RawBound::In(vec![vec![RawValue::Text("eu".into())], vec![RawValue::Text("uk".into())]])
    );
    let raw =
        read_partition_by(&toks("PARTITION BY HASH (id) PARTITIONS 4", false), false).unwrap();
    let cols = vec![Column::new("id", ColumnType::Int, false)];
    assert_eq!(resolve(&raw, &cols).unwrap().partitions.len(), 4);
    let raw =
        read_partition_by(&toks("PARTITION BY KEY ALGORITHM=2 (id) PARTITIONS 3", false), false)
            .unwrap();
    assert_eq!(raw.method, PartitionMethod::Key);
    let e = read_partition_by(&toks("PARTITION BY LINEAR HASH (id)", false), false).unwrap_err();
    assert!(e.1.contains("LINEAR"), "{}", e.1);
    let e = read_partition_by(
        &toks("PARTITION BY RANGE (id * 2) (PARTITION p VALUES LESS THAN (3))", false),
        false,
    )
    .unwrap_err();
    assert!(e.1.contains("expression"), "{}", e.1);
}

#[test]
fn postgres_partition_of_and_attach() {
    let (parent, p) = read_partition_of(&toks(
        "CREATE TABLE m_2024 PARTITION OF public.m FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
        true,
    ))
    .unwrap()
    .unwrap();
    assert_eq!((parent.as_str(), p.name.as_str()), ("m", "m_2024"));
    let (parent, p) = read_attach(&toks(
        "ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_p2022_03 FOR VALUES FROM ('2022-03-01 00:00:00+00') TO ('2022-04-01 01:00:00+01')",
        true,
    ))
    .unwrap()
    .unwrap();
    assert_eq!((parent.as_str(), p.name.as_str()), ("payment", "payment_p2022_03"));
    let raw = RawPartitioning {
        method: PartitionMethod::Range,
        columns_form: false,
        columns: vec!["d".into()],
        function: PartitionFn::Column,
        count: None,
        partitions: vec![p],
        at: Position::default(),
        postgres: true,
    };
    let cols = vec![Column::new(
        "d",
        ColumnType::Temporal { kind: TemporalKind::TimestampTz, fsp: 6 },
        false,
    )];
    let got = resolve(&raw, &cols).unwrap();
    assert_eq!(
        got.partitions[0].bound,
        PartitionBound::FromTo(
            vec![BoundValue::Value(Value::Time(1_646_092_800))],
            vec![BoundValue::Value(Value::Time(1_648_771_200))]
        )
    );
    let (_, h) = read_partition_of(&toks(
        "CREATE TABLE h1 PARTITION OF h FOR VALUES WITH (MODULUS 4, REMAINDER 1)",
        true,
    ))
    .unwrap()
    .unwrap();
    assert_eq!(h.bound, RawBound::Remainder(4, 1));
    assert!(read_partition_of(&toks("CREATE TABLE t (id int)", true)).is_none());
}
