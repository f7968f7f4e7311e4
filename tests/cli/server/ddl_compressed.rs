//! The instant-DDL restrictions of a `ROW_FORMAT=COMPRESSED` table (issue 32, item 9): no
//! instant column change (ER 1845 "Try ALGORITHM=INPLACE", an indexed column's DROP
//! included), INPLACE rebuilds online, COPY as on any table. The InnoDB model loads no rows
//! into a compressed table (its load is not applicable, with the reason) but answers every DDL
//! step as a private MariaDB does: accepted or refused with the same error number, and a
//! rebuild exactly where the server's tablespace changed. Without MariaDB's server binaries
//! the live part prints SKIPPED, except under `CI=true`. Temporary tables, which keylab's
//! scenarios cannot hold (one session's), are checked in `crates/mariadb/tests/ddl_kinds.rs`.

use crate::util::{json, server_installed, Dir};
use serde_json::Value;

const SCENARIO: &str = r#"name = "zip"
variants = ["seq"]
[[tables]]
name = "t"
row_format = "compressed"
columns = [
  { name = "k", type = "int", nullable = false, gen = { seq = 1 } },
  { name = "name", type = "varchar(64)", gen = { ascii = [5, 20] } },
]
indexes = [ { name = "ix_k", columns = ["k"] } ]
[[phases]]
load = { rows = 500 }
[[phases]]
ddl = { steps = [
  { action = "add_column", column = "a1", algorithm = "instant" },
  { action = "add_column", column = "a1", after = "id", algorithm = "instant" },
  { action = "add_column", column = "a1", algorithm = "inplace", lock = "none" },
  { action = "drop_column", column = "a1", algorithm = "instant" },
  { action = "drop_column", column = "k", algorithm = "instant" },
  { action = "drop_column", column = "a1", algorithm = "inplace" },
  { action = "add_column", column = "a2", algorithm = "copy", lock = "none" },
  { action = "add_column", column = "a2", algorithm = "copy" },
] }
"#;

/// One DDL step: supported, error code, rebuilt (when supported and said).
type StepAnswer = (bool, Option<u64>, Option<bool>);

/// The load phase and each DDL step's answer.
fn steps(d: &Dir, engine: &str) -> (Value, Vec<StepAnswer>) {
    let out = d.keylab(&["run", "zip.toml", "--engine", engine, "--format", "json"]);
    let v = json(&out.expect_code(0).stdout);
    let phases = &v["runs"][0]["phases"];
    let ddl = &phases[2];
    assert_eq!(ddl["kind"], "ddl", "{ddl}");
    let steps = ddl["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s: &Value| {
            let message = s["message"].as_str().unwrap_or_default();
            let rebuilt = if message.contains("does not rebuild") || message.contains("not rebuilt")
            {
                Some(false)
            } else if message.contains("rebuilds the table") || message.contains("was rebuilt") {
                Some(true)
            } else {
                None
            };
            let supported = s["supported"].as_bool().unwrap();
            (supported, s["error_code"].as_u64(), rebuilt.filter(|_| supported))
        })
        .collect();
    (phases[1].clone(), steps)
}

#[test]
fn compressed_tables_ddl_steps_on_the_model_answer_as_mariadb_does() {
    let d = Dir::new();
    std::fs::write(d.path("zip.toml"), SCENARIO).unwrap();
    let (load, model) = steps(&d, "sim");
    assert_eq!(load["status"], "not_applicable", "{load}");
    assert!(load["reason"].as_str().unwrap().contains("ROW_FORMAT=COMPRESSED"), "{load}");
    let expected = [
        (false, Some(1845), None),
        (false, Some(1845), None),
        (true, None, Some(true)),
        (false, Some(1845), None),
        (false, Some(1845), None),
        (true, None, Some(true)),
        (false, Some(1846), None),
        (true, None, Some(true)),
    ];
    assert_eq!(model, expected);
    if !server_installed("compressed_tables_ddl_steps_on_the_model_answer_as_mariadb_does") {
        return;
    }
    let (load, server) = steps(&d, "mariadb");
    assert_eq!(load["status"], "ok", "{load}");
    assert_eq!(server, expected);
}
