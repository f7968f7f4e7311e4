//! A ddl step's `type`: the new column's type (E5's `DATETIME`), as a table column's is
//! written; only `add_column` takes it.

use crate::plan::{PhasePlan, Scenario};
use keylab_schema::{Charset, ColumnType};

const SRC: &str = "name = \"t\"\nvariants = [\"ulid\"]\n[[tables]]\nname = \"t\"\n\
                   [[phases]]\nload = { rows = 10 }\n[[phases]]\n";

fn steps(ddl: &str) -> Vec<Option<ColumnType>> {
    let s = Scenario::parse(&format!("{SRC}{ddl}"), "s.toml").unwrap();
    let runs = s.plan(1.0).unwrap();
    let PhasePlan::Ddl { steps, .. } = &runs[0].phases[1] else { panic!("a ddl phase") };
    steps.iter().map(|s| s.column_type).collect()
}

#[test]
fn add_column_takes_a_type_and_defaults_to_int() {
    let ddl =
        "ddl = { steps = [{ action = \"add_column\", column = \"a\", algorithm = \"instant\", \
               type = \"datetime\" }, { action = \"add_column\", column = \"b\", \
               algorithm = \"instant\", type = \"varchar(64)\" }, { action = \"add_column\", \
               column = \"c\", algorithm = \"instant\" }] }\n";
    let v64 = ColumnType::VarChar { chars: 64, charset: Charset::Utf8mb4 };
    assert_eq!(steps(ddl), [Some(ColumnType::DateTime), Some(v64), None]);
}

#[test]
fn a_type_on_drop_column_or_an_unknown_type_is_refused_at_its_place() {
    let ddl = "ddl = { steps = [{ action = \"drop_column\", column = \"a\", algorithm = \"copy\", \
               type = \"datetime\" }] }\n";
    let e = Scenario::parse(&format!("{SRC}{ddl}"), "s.toml")
        .and_then(|s| s.plan(1.0).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("only add_column steps take it"), "{e}");
    let ddl = "ddl = { steps = [{ action = \"add_column\", column = \"a\", algorithm = \"copy\", \
               type = \"datetime2\" }] }\n";
    let e = Scenario::parse(&format!("{SRC}{ddl}"), "s.toml").unwrap_err().to_string();
    assert!(e.starts_with("s.toml:8:"), "{e}");
}
