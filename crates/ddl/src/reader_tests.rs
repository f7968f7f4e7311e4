//! The whole-file reader: each table judged on its own, every statement of a real schema
//! file read or skipped with a note, user types, dialects, migrations and the column syntax
//! sqlparser lacks.

use super::*;
use keylab_schema::{Charset, ColumnType};
use proptest::prelude::*;

fn read(src: &str) -> DdlFile {
    parse(src, "f.sql").unwrap()
}

fn names(f: &DdlFile) -> Vec<&str> {
    f.tables.iter().map(|t| t.table.name.as_str()).collect()
}

fn all_notes(t: &DdlTable) -> String {
    t.notes.iter().map(|n| n.message.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn one_unmodelled_table_refuses_itself_only() {
    let src = "CREATE TABLE good (id int PRIMARY KEY);\n\
               CREATE TABLE bad (\n  id int PRIMARY KEY,\n  g varchar(9) CHARACTER SET koi8r\n);\n\
               CREATE TABLE broken (id int PRIMARY KEY, ,);\n\
               CREATE TABLE after (id int PRIMARY KEY);";
    let f = read(src);
    assert_eq!(names(&f), ["good", "after"]);
    let refused: Vec<&str> = f.refused.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(refused, ["bad", "broken"]);
    match f.table(Some("bad")) {
        Err(TableError::Refused(e)) => {
            let e = e.to_string();
            assert!(e.starts_with("f.sql:4:") && e.contains("koi8r"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    // The parser's refusal is the table's, at the parser's place.
    let e = f.table(Some("broken")).unwrap_err().to_string();
    assert!(e.starts_with("f.sql:6:"), "{e}");
    let missing = f.table(Some("nope")).unwrap_err().to_string();
    assert!(missing.contains("valid: good, after; refused: bad, broken"), "{missing}");
    // Notes of other statements do not reach a table.
    assert!(f.table(Some("good")).unwrap().notes.is_empty());
}

#[test]
fn a_bare_dash_dash_line_no_longer_eats_the_next_statement() {
    // sqlparser's MySQL tokenizer reads `--` then a newline or TAB as two minus signs, which
    // glued the comment and the next CREATE TABLE into one statement that was skipped.
    let src = "CREATE TABLE `a` (`id` int NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;\n\
               --\n-- Table structure for table `b`\n--\t\n\
               CREATE TABLE `b` (`id` int NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;";
    assert_eq!(names(&read(src)), ["a", "b"]);
}

#[test]
fn mysqldump_and_sakila_statements_are_skipped_and_tables_read() {
    let src = "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n\
               SET NAMES utf8mb4;\n# a hash comment; with a semicolon\n\
               CREATE TABLE `t` (`id` int NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;\n\
               DELIMITER ;;\n\
               /*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `ins` AFTER INSERT ON `t` FOR EACH ROW BEGIN\n\
                 INSERT INTO x VALUES (NEW.id);\nEND */;;\n\
               DELIMITER ;\n\
               CREATE VIEW v AS SELECT 1;\n\
               CREATE TABLE `u` (`id` int NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;";
    let f = read(src);
    assert_eq!(f.dialect, SourceDialect::Mysql);
    assert_eq!(names(&f), ["t", "u"]);
    assert!(f.refused.is_empty() && f.skipped_statements >= 4, "{f:?}");
}

#[test]
fn pg_dump_statements_around_tables_are_skipped() {
    let src = "SET statement_timeout = 0;\nSELECT pg_catalog.set_config('search_path', '', false);\n\
               CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;\n\
               CREATE FUNCTION public.f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  NEW.a := 1; RETURN NEW;\nEND;\n$$;\n\
               CREATE SEQUENCE public.s START WITH 1;\nALTER SEQUENCE public.s OWNED BY public.t.id;\n\
               CREATE TABLE public.t (id integer NOT NULL, a integer);\n\
               COMMENT ON TABLE public.t IS 'x; y';\nALTER TABLE public.t OWNER TO app;\n\
               ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n\
               CREATE TRIGGER tr BEFORE INSERT ON public.t FOR EACH ROW EXECUTE FUNCTION public.f();\n\
               GRANT SELECT ON public.t TO PUBLIC;\nCREATE VIEW public.v AS SELECT 1;";
    let f = read(src);
    assert_eq!(f.dialect, SourceDialect::Postgres);
    assert_eq!(names(&f), ["t"]);
    assert_eq!(f.tables[0].table.primary_key, [0]);
}

#[test]
fn enums_and_domains_are_their_stored_types() {
    let src = "CREATE TYPE public.mpaa_rating AS ENUM ('G', 'PG', 'R');\n\
               CREATE DOMAIN public.year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901);\n\
               CREATE TABLE public.film (id integer PRIMARY KEY, rating public.MPAA_RATING, y year);";
    let f = read(src);
    let t = &f.table(Some("film")).unwrap().table;
    assert_eq!(t.columns[1].ty, ColumnType::PgEnum { members: 3 });
    assert_eq!(t.columns[1].labels, ["G", "PG", "R"]);
    assert_eq!(t.columns[2].ty, ColumnType::Int);
}

#[test]
fn dialect_flag_reads_a_file_as_told() {
    let src = "CREATE TABLE t (id int PRIMARY KEY, v varchar(10));";
    assert_eq!(read(src).dialect, SourceDialect::Mysql);
    let f = parse_as(src, "f.sql", SourceDialect::Postgres).unwrap();
    assert_eq!(f.dialect, SourceDialect::Postgres);
    assert!(read(src).dialect_reason.contains("no mark"));
}

#[test]
fn migrations_are_applied_in_order() {
    let src = "CREATE TABLE t (id int PRIMARY KEY, a int, b varchar(10), c int);\n\
               CREATE INDEX t_a ON t (a);\nCREATE INDEX t_c ON t (c);\n\
               ALTER TABLE t ADD COLUMN d bigint NOT NULL;\n\
               ALTER TABLE t DROP COLUMN a;\n\
               ALTER TABLE t MODIFY b varchar(40) NOT NULL;\n\
               ALTER TABLE t CHANGE c c2 bigint;\n\
               ALTER TABLE t RENAME COLUMN d TO d2;\n\
               ALTER TABLE t ADD UNIQUE KEY t_d (d2);\n\
               DROP INDEX t_c ON t;\n\
               RENAME TABLE t TO t2;\n\
               ALTER TABLE t2 ADD INDEX t_b (b);\n\
               PREPARE s FROM 'ALTER TABLE t2 ADD COLUMN e int';\n\
               SET @q = IF(1, 'CREATE INDEX t_x ON t2 (b)', 'SELECT 1');";
    let f = read(src);
    let d = f.table(Some("t2")).unwrap();
    let t = &d.table;
    let cols: Vec<(&str, &ColumnType, bool)> =
        t.columns.iter().map(|c| (c.name.as_str(), &c.ty, c.nullable)).collect();
    assert_eq!(
        cols,
        [
            ("id", &ColumnType::Int, false),
            ("b", &ColumnType::VarChar { chars: 40, charset: Charset::Utf8mb4 }, false),
            ("c2", &ColumnType::BigInt { unsigned: false }, true),
            ("d2", &ColumnType::BigInt { unsigned: false }, false),
        ]
    );
    let idx: Vec<(&str, &[usize])> =
        t.indexes.iter().map(|i| (i.name.as_str(), i.columns.as_slice())).collect();
    assert_eq!(idx, [("t_d", &[3][..]), ("t_b", &[1][..])]);
    let notes = all_notes(d);
    assert!(notes.contains("indexes on it (t_a)"), "{notes}");
    assert!(notes.contains("in a string (PREPARE ... FROM '...')"), "{notes}");
    assert!(notes.contains("in a string (SET @... = '...')"), "{notes}");
}

#[test]
fn postgres_alter_column_changes_apply() {
    let src = "CREATE TABLE t (id integer NOT NULL, a integer NOT NULL, b text);\n\
               ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n\
               ALTER TABLE t ALTER COLUMN a TYPE bigint, ALTER COLUMN a DROP NOT NULL;\n\
               ALTER TABLE t ALTER COLUMN b SET NOT NULL;\n\
               ALTER TABLE t RENAME TO u;";
    let f = read(src);
    let t = &f.table(Some("u")).unwrap().table;
    assert_eq!(t.columns[1].ty, ColumnType::BigInt { unsigned: false });
    assert!(t.columns[1].nullable && !t.columns[2].nullable);
}

#[test]
fn generated_columns_virtual_out_stored_in() {
    let src = "CREATE TABLE public.t (\n    id integer PRIMARY KEY,\n    a integer,\n    \
               v integer GENERATED ALWAYS AS ((a + 1)) VIRTUAL,\n    \
               s integer GENERATED ALWAYS AS ((a * 2)) STORED\n);";
    let f = parse_as(src, "f.sql", SourceDialect::Postgres).unwrap();
    let d = f.table(Some("t")).unwrap();
    let cols: Vec<&str> = d.table.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["id", "a", "s"]);
    let notes = all_notes(d);
    assert!(notes.contains("`v` is a VIRTUAL generated column"), "{notes}");
    assert!(notes.contains("`s` is a STORED generated column"), "{notes}");
    let my = read(
        "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  v INT AS (id + 1) VIRTUAL,\n  w INT AS (id) \
         STORED,\n  KEY kv (v)\n);",
    );
    let cols: Vec<&str> = my.tables[0].table.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["id", "w"]);
    let notes = all_notes(&my.tables[0]);
    assert!(notes.contains("index `kv` skipped: `v` is a VIRTUAL generated column"), "{notes}");
}

#[test]
fn parser_gaps_are_read() {
    // DEFAULT ('now'::text)::date
    let src = "CREATE TABLE public.c (id integer PRIMARY KEY, d date DEFAULT ('now'::text)::date NOT NULL, \
               n character varying(4) DEFAULT ('x'::character varying)::character varying);";
    let f = parse_as(src, "f.sql", SourceDialect::Postgres).unwrap();
    let t = &f.table(Some("c")).unwrap().table;
    assert!(!t.columns[1].nullable);
    // VARCHAR(n) BINARY and COMMENT "..."
    let src = "CREATE TABLE t (id INT PRIMARY KEY, k VARCHAR(20) BINARY NOT NULL COMMENT \"key\", \
               l VARCHAR(20) NOT NULL) ENGINE=InnoDB;";
    let t = &read(src).tables[0].table;
    assert_eq!(t.columns[1].ty, ColumnType::VarChar { chars: 20, charset: Charset::Utf8mb4Bin });
    assert_eq!(t.columns[2].ty, ColumnType::VarChar { chars: 20, charset: Charset::Utf8mb4 });
    // CREATE TABLE ... LIKE copies; ... AS SELECT refuses its table only.
    let src = "CREATE TABLE a (id INT PRIMARY KEY, v INT, KEY kv (v));\nCREATE TABLE b LIKE a;\n\
               CREATE TABLE c AS SELECT * FROM a;";
    let f = read(src);
    let b = &f.table(Some("b")).unwrap().table;
    assert_eq!((b.columns.len(), b.indexes.len(), b.primary_key.as_slice()), (2, 1, &[0][..]));
    let e = f.table(Some("c")).unwrap_err().to_string();
    assert!(e.starts_with("f.sql:3:1: CREATE TABLE ... AS SELECT"), "{e}");
}

/// A table definition that keylab reads, named `t{i}`.
fn table_sql(i: usize, cols: usize) -> String {
    let extra: String = (0..cols).map(|c| format!(", c{c} varchar({})", 4 + c)).collect();
    format!("CREATE TABLE t{i} (id int PRIMARY KEY{extra});")
}

const JUNK: [&str; 8] = [
    "SET x = 1;",
    "-- a comment\n",
    "--\n",
    "/* block; comment */",
    "CREATE VIEW v AS SELECT 1;",
    "GRANT ALL ON x TO y;",
    "this is not sql at all ;",
    "DROP TABLE IF EXISTS nothing;",
];

const FRAGMENTS: [&str; 30] = [
    "CREATE TABLE ",
    "t ",
    "(",
    ")",
    "id int",
    " PRIMARY KEY",
    ", ",
    ";",
    "\n",
    "--",
    "-- x\n",
    "#",
    "/*",
    "*/",
    "/*!40101 ",
    "'",
    "\"",
    "`",
    "$$",
    "$a$",
    "DELIMITER ;;\n",
    ";;",
    "ALTER TABLE t ",
    "ADD COLUMN c int",
    "DROP COLUMN id",
    "CREATE INDEX i ON t (id)",
    "GENERATED ALWAYS AS (id) VIRTUAL",
    "DEFAULT ('x'::text)::date",
    "VARCHAR(4) BINARY",
    "RENAME TABLE t TO u",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any text: no panic; every refusal names the file with a place.
    #[test]
    fn any_text_reads_without_panic(src in "\\PC{0,300}") {
        let f = parse(&src, "p.sql").unwrap();
        for r in &f.refused {
            prop_assert!(r.error.to_string().starts_with("p.sql:"));
        }
        let _ = f.table(None);
        for t in &f.tables {
            prop_assert!(f.table(Some(&t.table.name)).is_ok(), "{}", t.table.name);
        }
    }

    /// SQL-shaped fragments in any order (unterminated quotes, comments, dollar quotes,
    /// DELIMITER lines, half statements): no panic, in either dialect.
    #[test]
    fn sql_fragments_in_any_order_read_without_panic(
        parts in prop::collection::vec(0usize..FRAGMENTS.len(), 0..40),
        postgres in any::<bool>(),
    ) {
        let src: String = parts.iter().map(|i| FRAGMENTS[*i]).collect();
        let dialect = if postgres { SourceDialect::Postgres } else { SourceDialect::Mysql };
        let f = parse_as(&src, "p.sql", dialect).unwrap();
        for r in &f.refused {
            prop_assert!(r.error.to_string().starts_with("p.sql:"));
        }
        let _ = parse(&src, "p.sql").unwrap();
    }

    /// N tables among junk statements: all N read, in order.
    #[test]
    fn tables_among_junk_are_all_read(
        layout in prop::collection::vec((0usize..4, prop::collection::vec(0usize..JUNK.len(), 0..3)), 1..8)
    ) {
        let mut src = String::new();
        for (i, (cols, junk)) in layout.iter().enumerate() {
            for j in junk {
                src.push_str(JUNK[*j]);
                src.push('\n');
            }
            src.push_str(&table_sql(i, *cols));
            src.push('\n');
        }
        let f = parse(&src, "p.sql").unwrap();
        let want: Vec<String> = (0..layout.len()).map(|i| format!("t{i}")).collect();
        prop_assert_eq!(names(&f), want.iter().map(String::as_str).collect::<Vec<_>>(), "{}", src);
    }
}

#[test]
fn mysql_alter_table_drop_key_engine_and_partitions() {
    // sqlparser reads `DROP KEY kb` as dropping a column named KEY (and stops there).
    let src = "CREATE TABLE t (id int PRIMARY KEY, a int, b int, KEY kb (b));\n\
               ALTER TABLE t ADD KEY ka (a), DROP KEY kb;\nALTER TABLE t ENGINE=InnoDB;\n\
               CREATE TABLE m (id int PRIMARY KEY);\nALTER TABLE m ENGINE=MyISAM;";
    let f = read(src);
    let t = f.table(Some("t")).unwrap();
    let ix: Vec<&str> = t.table.indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(ix, ["ka"]);
    assert!(t.notes.is_empty(), "{:?}", t.notes);
    let m = f.table(Some("m")).unwrap();
    assert_eq!((m.notes[0].at.line, m.notes[0].at.column), (5, 15));
    assert!(
        m.notes[0].message.starts_with("ENGINE=MyISAM: keylab models InnoDB only"),
        "{:?}",
        m.notes
    );
    // A partition (PARTITION OF) is a partition of its parent, not a table of its own; of
    // a parent the file does not create, a note.
    let src = "CREATE TABLE p1 PARTITION OF t FOR VALUES FROM (1) TO (10);";
    let f = parse_as(src, "f.sql", SourceDialect::Postgres).unwrap();
    assert!(f.notes[0].message.contains("partition `p1` of `t` not applied"), "{:?}", f.notes);
    let src =
        "CREATE TABLE t (id int, d date NOT NULL, PRIMARY KEY (id, d)) PARTITION BY RANGE (d);\n\
               CREATE TABLE p1 PARTITION OF t FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');\n\
               CREATE TABLE p2 PARTITION OF t DEFAULT;";
    let f = parse_as(src, "f.sql", SourceDialect::Postgres).unwrap();
    let p = f.table(Some("t")).unwrap().table.partitioning.clone().expect("partitioned");
    let names: Vec<&str> = p.partitions.iter().map(|q| q.name.as_str()).collect();
    assert_eq!(names, ["p1", "p2"]);
    assert!(f.table(Some("p1")).is_err());
}

#[test]
fn partial_and_expression_indexes_are_read_where_keylab_evaluates_them() {
    let src = "CREATE TABLE o (id bigint PRIMARY KEY, status varchar(10) NOT NULL, \
               email varchar(80), n int, gone timestamp);\n\
               CREATE INDEX a ON o (id) WHERE ((status)::text = 'open'::text);\n\
               CREATE INDEX b ON o (email) WHERE gone IS NULL AND n >= 3;\n\
               CREATE INDEX c ON o (lower((email)::text));\n\
               CREATE INDEX d ON o (n) WHERE n % 2 = 0;\n\
               CREATE INDEX e ON o ((n + 1));\n\
               CREATE INDEX f ON o (n) WHERE status = ANY (ARRAY['a'::text, 'b'::text]);";
    let f = parse_as(src, "f.sql", SourceDialect::Postgres).unwrap();
    let t = f.table(Some("o")).unwrap();
    let names: Vec<&str> = t.table.indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "f"]);
    use keylab_schema::{CmpOp, KeyFn, Predicate, Value};
    assert_eq!(
        t.table.indexes[0].predicate,
        Some(Predicate::Cmp(1, CmpOp::Eq, Value::Bytes(b"open".to_vec())))
    );
    assert_eq!(
        t.table.indexes[1].predicate,
        Some(Predicate::And(vec![
            Predicate::IsNull(4),
            Predicate::Cmp(3, CmpOp::Ge, Value::Int(3))
        ]))
    );
    assert_eq!(t.table.indexes[2].key_fns, [Some(KeyFn::Lower)]);
    let skipped: Vec<&str> = t.notes.iter().map(|n| n.message.as_str()).collect();
    assert!(skipped.iter().any(|m| m.starts_with("index `d` skipped")), "{skipped:?}");
    assert!(skipped.iter().any(|m| m.starts_with("index `e` skipped")), "{skipped:?}");
    // MySQL's functional key parts: MariaDB 10.11 has none.
    let f = read("CREATE TABLE m (id int PRIMARY KEY, e varchar(80), KEY k ((lower(e))));");
    let m = f.table(Some("m")).unwrap();
    assert!(m.table.indexes.is_empty());
    assert!(m.notes[0].message.contains("MariaDB 10.11"), "{:?}", m.notes);
}
