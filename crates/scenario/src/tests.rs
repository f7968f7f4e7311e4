//! Parser, planning and scale tests.

use crate::plan::{PhasePlan, Scenario};
use crate::{builtin, BUILTINS};
use keylab_core::{ChurnStyle, LoadMethod, Placement, SimModel};
use keylab_keys::WithinMs;

const MINIMAL: &str = r#"name = "t"
variants = ["uuid4:text", "ulid"]
[[tables]]
name = "t"
columns = [{ name = "data", type = "varchar(255)", gen = { fixed = "data" } }]
[[phases]]
load = { rows = 1000 }
"#;

fn err(src: &str) -> String {
    Scenario::parse(src, "s.toml").unwrap_err().to_string()
}

/// The first line of an error: `file:line:col: message`.
fn head(src: &str) -> String {
    err(src).lines().next().unwrap().to_string()
}

#[test]
fn minimal_scenario_plans_one_run_per_variant() {
    let s = Scenario::parse(MINIMAL, "s.toml").unwrap();
    let runs = s.plan(1.0).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].label, "uuid4:text pk");
    assert_eq!(runs[1].label, "ulid:text pk");
    assert_eq!(runs[0].table().name, "t_uuid4_text");
    assert_eq!(runs[0].table().columns[0].name, "id");
    let PhasePlan::Load { rows, plan, sample_every } = &runs[0].phases[0] else { panic!() };
    assert_eq!((*rows, plan.method, plan.batch, plan.writers), (1000, LoadMethod::Multi, 1000, 1));
    assert_eq!(*sample_every, None);
}

#[test]
fn engine_model_chooses_the_simulator_model() {
    let runs = Scenario::parse(MINIMAL, "s.toml").unwrap().plan(1.0).unwrap();
    assert_eq!(runs[0].settings.model, None, "no model: the engine's default");
    let src = format!("{MINIMAL}[engine]\nmodel = \"mysql-8.0\"\n");
    let runs = Scenario::parse(&src, "s.toml").unwrap().plan(1.0).unwrap();
    assert!(runs.iter().all(|r| r.settings.model == Some(SimModel::Mysql80)));
    let pg = Scenario::parse(&src.replace("mysql-8.0", "postgres-15"), "s.toml").unwrap();
    assert!(pg.plan(1.0).unwrap().iter().all(|r| r.settings.model == Some(SimModel::Postgres15)));
    let e = head(&src.replace("mysql-8.0", "mysql-9.2"));
    assert!(e.starts_with("s.toml:9:9: unknown simulator model `mysql-9.2`"), "{e}");
    assert!(e.contains("mariadb-10.11, mysql-8.0, postgres-15"), "{e}");
    // A list is refused, saying a scenario runs under one model and what to do instead.
    let e = head(&src.replace("\"mysql-8.0\"", "[\"mariadb-10.11\", \"postgres-15\"]"));
    assert!(e.starts_with("s.toml:9:9: a scenario runs under one model"), "{e}");
    assert!(e.contains("not a list of 2") && e.contains("keylab compare --model"), "{e}");
}

#[test]
fn unknown_field_names_line_column_and_choices() {
    let src = MINIMAL.replace("load = { rows = 1000 }", "load = { rowz = 1000 }");
    let e = head(&src);
    assert!(e.starts_with("s.toml:7:10: unknown field `rowz`, expected one of `rows`"), "{e}");
    assert!(e.contains("`sample_every`"), "{e}");
}

#[test]
fn unknown_top_level_field() {
    let e = head(&format!("colour = 1\n{MINIMAL}"));
    assert!(e.starts_with("s.toml:1:1: unknown field `colour`, expected one of `name`"), "{e}");
    let e = head(&format!("{MINIMAL}colour = 1\n"));
    assert!(
        e.starts_with("s.toml:6:1: expected exactly one key here: a phase is one of load"),
        "{e}"
    );
}

#[test]
fn unknown_key_strategy_lists_the_strategies() {
    let e = head(&MINIMAL.replace("\"ulid\"", "\"uuid9\""));
    assert!(
        e.starts_with("s.toml:2:27: unknown key strategy `uuid9`; valid: auto-inc, seq"),
        "{e}"
    );
}

#[test]
fn unknown_phase_kind_lists_the_kinds() {
    let e = head(&MINIMAL.replace("load = {", "lod = {"));
    assert!(
        e.starts_with("s.toml:7:1: unknown variant `lod`, expected one of `load`, `churn`"),
        "{e}"
    );
}

#[test]
fn bad_column_type_lists_the_types() {
    let e = head(&MINIMAL.replace("varchar(255)", "string"));
    assert!(e.starts_with("s.toml:5:36: unknown column type `string`; valid: int, bigint"), "{e}");
}

#[test]
fn bad_enum_values_list_the_choices() {
    let e = head(&MINIMAL.replace("rows = 1000", "rows = 1000, method = \"bulk\""));
    assert!(
        e.starts_with("s.toml:7:32: unknown variant `bulk`, expected one of `row`, `multi`"),
        "{e}"
    );
    let e = head(&format!("{MINIMAL}[engine]\npage_size = \"12k\"\n"));
    assert!(e.starts_with("s.toml:9:13: not an InnoDB page size; valid: 4k, 8k, 16k"), "{e}");
    let e = head(&format!("{MINIMAL}[engine]\nfill_factor = 5\n"));
    assert!(e.starts_with("s.toml:9:15: fill factor 5 is out of range; valid: 10 to 100"), "{e}");
    let e = head(&MINIMAL.replace("rows = 1000", "rows = 1000, batch = \"9..3\""));
    assert!(e.contains("batch `9..3` is not valid; valid: a row count (1000) or a range"), "{e}");
    let e =
        head(&MINIMAL.replace("rows = 1000", "rows = 1000, method = \"row\", batch = \"3..9\""));
    assert!(e.contains("batch 3..9 varies the statement shape, which only multi"), "{e}");
    let ddl = "[[phases]]\nddl = { steps = [{ action = \"drop_column\", column = \"c\", \
               algorithm = \"copy\", after = \"id\" }] }\n";
    let e = head(&format!("{MINIMAL}{ddl}"));
    assert!(e.contains("only add_column steps take it"), "{e}");
    let ddl = "[[phases]]\nddl = { concurrent_writers = 2, steps = [{ action = \"drop_column\", \
               column = \"data\", algorithm = \"inplace\" }] }\n";
    let e = head(&format!("{MINIMAL}{ddl}"));
    assert!(e.contains("drop_column `data`: with concurrent_writers the writers insert"), "{e}");
    let ddl = "[[phases]]\nddl = { concurrent_writers = 65, steps = [{ action = \"add_column\", \
               column = \"x\", algorithm = \"copy\", lock = \"shared\" }] }\n";
    let e = head(&format!("{MINIMAL}{ddl}"));
    assert!(e.starts_with("s.toml:9:30: concurrent_writers is at most 64, got 65"), "{e}");
    let ddl = "[[phases]]\nddl = { steps = [{ action = \"add_column\", column = \"x\", \
               algorithm = \"copy\", lock = \"open\" }] }\n";
    let e = head(&format!("{MINIMAL}{ddl}"));
    assert!(
        e.contains("unknown variant `open`, expected one of `none`, `shared`, `exclusive`"),
        "{e}"
    );
    let e = head(&format!("{MINIMAL}[engine]\nautoinc_lock_mode = 3\n"));
    assert!(e.starts_with("s.toml:9:21: autoinc_lock_mode 3 is not valid; valid: 0"), "{e}");
    let e = head(&MINIMAL.replace("gen = { fixed", "charset = \"utf8\", gen = { fixed"));
    assert!(e.contains("unknown variant `utf8`, expected one of `utf8mb4`"), "{e}");
    let e = head(&MINIMAL.replace("gen = { fixed = \"data\" }", "gen = { random = 1 }"));
    assert!(e.contains("unknown variant `random`, expected one of `fixed`, `ascii`"), "{e}");
}

#[test]
fn semantic_errors_point_at_the_value() {
    let src = MINIMAL
        .replace("[[phases]]", "indexes = [{ name = \"k\", columns = [\"dta\"] }]\n[[phases]]");
    let e = head(&src);
    assert!(
        e.starts_with(
            "s.toml:6:37: unknown column `dta` in index `k` (pk placement); valid: id, data"
        ),
        "{e}"
    );
    let e = head(&MINIMAL.replace("{ fixed = \"data\" }", "{ int = [1, 5] }"));
    assert!(
        e.starts_with("s.toml:5:58: `seq` and `int` need an int, bigint or decimal column"),
        "{e}"
    );
    let e =
        head(&MINIMAL.replace(
            "name = \"t\"\ncolumns",
            "name = \"t\"\nid = { type = \"binary(16)\" }\ncolumns",
        ));
    assert!(
        e.starts_with("s.toml:5:15: this id type cannot hold uuid4:text ids; valid: char(36)"),
        "{e}"
    );
    let e = head(&format!("{MINIMAL}[[matrix]]\ntable = [\"nope\"]\n"));
    assert!(e.starts_with("s.toml:9:10: unknown table `nope`; valid: t"), "{e}");
    let e = head(&format!("{MINIMAL}[[matrix]]\nrows = []\n"));
    assert!(e.starts_with("s.toml:9:8: a matrix dimension needs at least one value"), "{e}");
    let e = head(&MINIMAL.replace("load = { rows = 1000 }", "rebuild = {}"));
    assert!(e.starts_with("s.toml:6:1: the first phase must be a load"), "{e}");
    let e = head(&MINIMAL.replace("rows = 1000", "rows = 0"));
    assert!(e.starts_with("s.toml:7:17: invalid value: integer `0`"), "{e}");
}

#[test]
fn syntax_errors_and_missing_fields_have_positions() {
    let e = head("name = \"t\"\nvariants = [\n");
    assert!(e.starts_with("s.toml:3:1:"), "{e}");
    let e = head("name = \"t\"\n");
    assert!(e.starts_with("s.toml:1:1: missing field `variants`"), "{e}");
}

#[test]
fn error_display_quotes_the_line_with_a_caret() {
    let e = err(&MINIMAL.replace("load = { rows = 1000 }", "load = { rowz = 1000 }"));
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines[2], " 7 | load = { rowz = 1000 }");
    assert_eq!(lines[3], "   |          ^");
}

#[test]
fn matrix_groups_are_products_and_the_runs_their_union() {
    let src = format!(
        "{MINIMAL}[[matrix]]\nmethod = [\"row\", \"multi\"]\nbatch = [10, 100, 1000]\n\
         [[matrix]]\nvariants = [\"auto-inc\"]\nplacements = [\"pk\", \"secondary\"]\n\
         page_size = [\"4k\"]\n"
    );
    let runs = Scenario::parse(&src, "s.toml").unwrap().plan(1.0).unwrap();
    // 2 methods x 3 batches x 2 variants, then 2 placements x 1 variant.
    assert_eq!(runs.len(), 12 + 2);
    assert_eq!(runs[0].label, "uuid4:text pk method=row batch=10");
    assert_eq!(runs[1].label, "ulid:text pk method=row batch=10");
    assert_eq!(runs[2].label, "uuid4:text pk method=row batch=100");
    assert_eq!(runs[11].label, "ulid:text pk method=multi batch=1000");
    let PhasePlan::Load { plan, .. } = &runs[11].phases[0] else { panic!() };
    assert_eq!((plan.method, plan.batch), (LoadMethod::Multi, 1000));
    assert_eq!(runs[12].label, "auto-inc pk page_size=4k");
    assert_eq!(runs[13].placement, Placement::Secondary);
    assert_eq!(runs[13].settings.page_size_bytes, 4096);
    assert_eq!(runs[13].table().columns[0].name, "pk");
    assert!(runs[13].table().auto_increment);
    assert_eq!(runs[13].table().indexes[0].name, "k_id");
    assert_eq!(runs[0].settings.page_size_bytes, 16_384);
}

#[test]
fn a_matrix_group_can_replace_the_generator_settings() {
    let src = format!(
        "{MINIMAL}[generator]\nids_per_ms = 10\n[[matrix]]\nrows = [500]\n\
         [[matrix]]\nids_per_ms = [100, 1000]\nwithin_ms = [\"random\"]\n"
    );
    let runs = Scenario::parse(&src, "s.toml").unwrap().plan(1.0).unwrap();
    assert_eq!(runs.len(), 2 + 4);
    // The first group keeps [generator]'s settings.
    assert_eq!(runs[0].label, "uuid4:text pk rows=500");
    assert_eq!(
        (runs[0].generator.ids_per_ms, runs[0].generator.within_ms),
        (10, WithinMs::Monotonic)
    );
    assert_eq!(runs[5].label, "ulid:text pk ids_per_ms=1000 within_ms=random");
    let g = runs[5].gen_config(3);
    assert_eq!((g.ids_per_ms, g.within_ms), (1000, WithinMs::Random));
    let e = err(&format!("{MINIMAL}[[matrix]]\nwithin_ms = [\"sometimes\"]\n"));
    assert!(e.contains("unknown variant `sometimes`, expected `monotonic` or `random`"), "{e}");
    let e = err(&format!("{MINIMAL}[[matrix]]\nids_per_ms = []\n"));
    assert!(e.contains("a matrix dimension needs at least one value"), "{e}");
}

#[test]
fn scale_multiplies_every_row_count_at_least_one() {
    let src = MINIMAL
        .replace("load = { rows = 1000 }", "load = { rows = 1000, sample_every = 100 }")
        + "[[phases]]\nchurn = { rounds = 7, inserts = 300, deletes = 0 }\n\
           [[phases]]\nqueries = { pk_range = 50, point = 9 }\n";
    let s = Scenario::parse(&src, "s.toml").unwrap();
    let runs = s.plan(0.02).unwrap();
    assert_eq!(
        runs[0].phases,
        vec![
            PhasePlan::Load {
                rows: 20,
                plan: keylab_core::LoadPlan::default(),
                sample_every: Some(2)
            },
            PhasePlan::Churn {
                rounds: 7,
                inserts: 6,
                deletes: 0,
                measure_every: 1,
                style: ChurnStyle::default()
            },
            PhasePlan::Queries {
                runs: 10,
                queries: vec![
                    ("point".into(), keylab_core::QuerySpec::Point { count: 9 }),
                    ("pk_range".into(), keylab_core::QuerySpec::PkRange { rows: 1 }),
                ]
            },
        ]
    );
    let tiny = s.plan(1e-9).unwrap();
    let PhasePlan::Load { rows, .. } = tiny[0].phases[0] else { panic!() };
    assert_eq!(rows, 1);
    assert!(s.plan(0.0).unwrap_err().to_string().contains("not a positive number"));
    assert!(s.plan(f64::NAN).is_err());
}

#[test]
fn scaled_buffer_pool_has_a_floor() {
    let src = format!("{MINIMAL}[engine]\nbuffer_pool = \"1G\"\nscale_buffer_pool = true\n");
    let s = Scenario::parse(&src, "s.toml").unwrap();
    assert_eq!(s.plan(0.5).unwrap()[0].settings.buffer_pool_bytes, Some(512 << 20));
    // The floor is the server's minimum for the page size: 6 MiB at the default 16k.
    assert_eq!(s.plan(0.001).unwrap()[0].settings.buffer_pool_bytes, Some(6 << 20));
    assert_eq!(s.plan(0.5).unwrap()[0].requested, vec!["innodb_buffer_pool_size"]);
    for (page_size, floor_mib) in [("4k", 5), ("8k", 5), ("32k", 11), ("64k", 21)] {
        let src = src.replace("[engine]\n", &format!("[engine]\npage_size = \"{page_size}\"\n"));
        let s = Scenario::parse(&src, "s.toml").unwrap();
        let bytes = s.plan(0.001).unwrap()[0].settings.buffer_pool_bytes;
        assert_eq!(bytes, Some(floor_mib << 20), "{page_size}");
    }
}

#[test]
fn every_builtin_parses_and_plans_at_small_scale() {
    for b in BUILTINS {
        let s = b.scenario().unwrap_or_else(|e| panic!("{}: {e}", b.name));
        assert_eq!(s.name(), b.name);
        assert!(!s.description().is_empty());
        let runs = s.plan(0.02).unwrap();
        assert!(!runs.is_empty());
    }
    crate::validate_scenario().unwrap();
}

#[test]
fn builtins_follow_the_experiments() {
    let runs = |name: &str| builtin(name).unwrap().scenario().unwrap().plan(1.0).unwrap();
    let e1 = runs("e1-uuid-vs-ulid");
    // 2 sizes x 2 placements x 2 variants, then heavy rows: 2 placements x ULID.
    assert_eq!(e1.len(), 10);
    assert_eq!(
        e1[0].table().columns[0].ty.sql(keylab_schema::Dialect::Mysql),
        "VARCHAR(36) CHARACTER SET utf8mb4"
    );
    assert_eq!(
        e1[1].table().columns[0].ty.sql(keylab_schema::Dialect::Mysql),
        "VARCHAR(26) CHARACTER SET utf8mb4"
    );
    let PhasePlan::Load { rows, plan, .. } = &e1[4].phases[0] else { panic!() };
    assert_eq!((*rows, plan.method), (300_000, LoadMethod::Row));
    assert!(e1[8].label.contains("table=e1_heavy"));
    let e3: Vec<String> = runs("e3-id-storage").iter().map(|r| r.variant.to_string()).collect();
    for v in [
        "auto-inc",
        "seq",
        "sequence",
        "table",
        "uuid1:text",
        "uuid1:bin-swap",
        "uuid4:text",
        "uuid4:hex",
        "uuid4:bin",
        "uuid6:text",
        "uuid7:text",
    ] {
        assert!(e3.contains(&v.to_string()), "{v} missing from {e3:?}");
    }
    let e5 = runs("e5-fill-factor-churn");
    assert_eq!(e5.len(), 6);
    assert_eq!(e5[5].settings.fill_factor_pct, 75);
    assert_eq!(e5[0].table().columns.len(), 8);
    assert_eq!(e5[0].table().indexes.len(), 3);
    assert_eq!(e5[5].phases[1], PhasePlan::Rebuild { fill_factor_pct: 75 });
    assert_eq!(e5[0].phases[2], PhasePlan::Restart);
    assert_eq!(
        e5[0].phases[3],
        PhasePlan::Churn {
            rounds: 200,
            inserts: 10_000,
            deletes: 10_000,
            measure_every: 10,
            style: ChurnStyle {
                insert: keylab_core::ChurnInsert::Row,
                writers: 1,
                delete: keylab_core::ChurnDelete::OneTransaction
            }
        }
    );
    let e4 = runs("e4-change-buffer");
    assert_eq!(e4.len(), 4);
    assert_eq!(e4[3].settings.page_size_bytes, 4096);
    assert_eq!(e4[3].settings.change_buffering, Some(false));
}

#[test]
fn unknown_builtin_or_missing_file_lists_the_builtins() {
    let e = crate::load("e9-nothing").unwrap_err().to_string();
    assert!(
        e.starts_with("e9-nothing: no such scenario file or built-in; built-ins: e1-uuid-vs-ulid"),
        "{e}"
    );
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Any text: the parser answers, never panics, and every error has a position.
        #[test]
        fn arbitrary_text_never_panics(src in "\\PC{0,200}") {
            if let Err(e) = Scenario::parse(&src, "f.toml") {
                prop_assert!(e.to_string().starts_with("f.toml:"));
            }
        }

        /// Mutations of a valid scenario: bytes replaced, cut or inserted.
        #[test]
        fn mutated_builtins_never_panic(
            which in 0usize..5,
            at in any::<prop::sample::Index>(),
            cut in 0usize..40,
            insert in "[\\x00-\\x7f]{0,12}",
        ) {
            let src = BUILTINS[which].toml;
            let mut i = at.index(src.len());
            while !src.is_char_boundary(i) { i -= 1; }
            let mut j = (i + cut).min(src.len());
            while !src.is_char_boundary(j) { j -= 1; }
            let mutated = format!("{}{}{}", &src[..i], insert, &src[j..]);
            let _ = Scenario::parse(&mutated, "m.toml").map(|s| s.plan(0.01));
        }

        /// Arbitrary bytes read as UTF-8 lossily.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let src = String::from_utf8_lossy(&bytes);
            let _ = Scenario::parse(&src, "b.toml");
        }
    }
}

#[test]
fn the_documented_example_parses() {
    let lib = include_str!("lib.rs");
    let start = lib.find("//! ```toml\n").unwrap() + "//! ```toml\n".len();
    let end = start + lib[start..].find("//! ```\n").unwrap();
    let example: String = lib[start..end]
        .lines()
        .map(|l| l.strip_prefix("//!").unwrap().strip_prefix(' ').unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let s = Scenario::parse(&example, "lib.rs").unwrap_or_else(|e| panic!("{e}"));
    // 2 fill factors x 2 page sizes x 2 placements x 2 variants.
    assert_eq!(s.plan(1.0).unwrap().len(), 16);
}

#[test]
fn every_builtin_makes_only_values_its_columns_hold_at_full_scale() {
    for b in BUILTINS {
        let s = b.scenario().unwrap();
        for scale in [1.0, 0.01] {
            s.plan(scale).unwrap_or_else(|e| panic!("{} at --scale {scale}: {e}", b.name));
        }
    }
    let v = crate::validate_scenario().unwrap();
    v.plan(1.0).unwrap();
}

#[test]
fn existing_backends_set_the_shards_and_are_checked_where_written() {
    let with = |engine: &str| format!("{MINIMAL}[engine]\n{engine}\n");
    let s = Scenario::parse(
        &with(r#"backends = ["mysql://u:pw@10.0.0.1:3306/kl", "mariadb://u@10.0.0.2"]"#),
        "s.toml",
    )
    .unwrap();
    assert_eq!(s.backends().len(), 2);
    assert_eq!(s.plan(1.0).unwrap()[0].settings.shards, Some(2));
    let e = head(&with(r#"backends = ["mysql://u@h"]"#));
    assert!(e.starts_with("s.toml:9:12: `backends` lists 1 servers; valid: 2 to 16"), "{e}");
    let e = head(&with("shards = 3\nbackends = [\"mysql://a@h\", \"mysql://b@h\"]"));
    assert!(e.starts_with("s.toml:10:12: `shards = 3` but `backends` lists 2"), "{e}");
    let e = err(&with(r#"backends = ["mysql://a@h", "http://u:hunter2@h"]"#));
    assert!(e.starts_with("s.toml:9:28: a backend is a MariaDB URL: mysql://"), "{e}");
    assert!(!e.contains("hunter2"), "the password is never shown: {e}");
    assert!(e.contains(r#"["mysql://a@h", "http://u:***@h"]"#), "{e}");
    // TOML's own errors on a backends line (syntax, a value of the wrong type) mask it too.
    for line in [
        r#"backends = ["mysql://u:hunter2@h" "mysql://v:hunter2@h"]"#,
        r#"backends = ["mysql://u:hunter2@h", 5]"#,
        r#"backends = "mysql://u:hunter2@h""#,
        r#"backends = ["mysql://u:hunter2@h", "mysql://v:hunter2@h"] shards = 2"#,
    ] {
        let e = err(&with(line));
        assert!(e.starts_with("s.toml:9:"), "{e}");
        assert!(!e.contains("hunter2"), "the password is never shown: {e}");
        assert!(e.contains("mysql://u:***@h"), "{e}");
    }
}

#[test]
fn a_ddl_phase_under_writes_plans_its_writers_and_locks() {
    let ddl = "[[phases]]\nddl = { concurrent_writers = 2, steps = [\
               { action = \"add_column\", column = \"x\", algorithm = \"copy\", lock = \"shared\" },\
               { action = \"drop_column\", column = \"x\", algorithm = \"inplace\" }] }\n";
    let s = Scenario::parse(&format!("{MINIMAL}{ddl}"), "s.toml").unwrap();
    let runs = s.plan(1.0).unwrap();
    let PhasePlan::Ddl { steps, concurrent_writers } = &runs[0].phases[1] else {
        panic!("{:?}", runs[0].phases)
    };
    assert_eq!(*concurrent_writers, 2);
    assert_eq!(steps[0].lock, Some(keylab_core::DdlLock::Shared));
    assert_eq!(steps[1].lock, None);
}
