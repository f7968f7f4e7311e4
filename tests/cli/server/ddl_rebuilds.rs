//! E5's operations that force a rebuild and the instant-DDL restrictions they bring (issue 32,
//! item 9): ADD FULLTEXT INDEX, a primary-key change, and column changes on a table with
//! FULLTEXT indexes, with a typed added column (`type = "datetime"`). The simulator's rules
//! answer every step as a private MariaDB does: accepted or refused with the same error
//! number, and a rebuild exactly where the server's tablespace changed. Without MariaDB's
//! server binaries the live part prints SKIPPED, except under `CI=true`.

use crate::util::{json, server_installed, Dir};
use serde_json::Value;

const SCENARIO: &str = r#"name = "rebuilds"
variants = ["seq"]
[[tables]]
name = "t"
columns = [
  { name = "k", type = "int", nullable = false, gen = { seq = 1 } },
  { name = "name", type = "varchar(64)", gen = { ascii = [5, 20] } },
  { name = "title", type = "varchar(64)", gen = { ascii = [5, 20] } },
]
[[phases]]
load = { rows = 500 }
[[phases]]
ddl = { steps = [
  { action = "add_fulltext_index", column = "name", algorithm = "instant" },
  { action = "add_fulltext_index", column = "name", algorithm = "inplace", lock = "none" },
  { action = "change_primary_key", column = "k", algorithm = "instant" },
  { action = "change_primary_key", column = "k", algorithm = "inplace", lock = "none" },
  { action = "add_fulltext_index", column = "name", algorithm = "inplace" },
  { action = "add_column", column = "created", algorithm = "instant", type = "datetime" },
  { action = "add_column", column = "created", algorithm = "inplace", lock = "none", type = "datetime" },
  { action = "add_column", column = "created", algorithm = "inplace", type = "datetime" },
  { action = "add_fulltext_index", column = "title", algorithm = "inplace" },
  { action = "drop_column", column = "created", algorithm = "instant" },
  { action = "drop_column", column = "created", algorithm = "copy" },
] }
"#;

/// Each step's (supported, error code, rebuilt?) of `engine`'s run.
fn steps(d: &Dir, engine: &str) -> Vec<(bool, Option<u64>, Option<bool>)> {
    let out = d.keylab(&["run", "rebuilds.toml", "--engine", engine, "--format", "json"]);
    let v = json(&out.expect_code(0).stdout);
    let ddl = &v["runs"][0]["phases"][2];
    assert_eq!(ddl["kind"], "ddl", "{ddl}");
    ddl["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s: &Value| {
            let message = s["message"].as_str().unwrap_or_default();
            // The model says "does not rebuild"/"rebuilds the table"; the server whether its
            // tablespace changed.
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
        .collect()
}

#[test]
fn rebuilding_ddl_steps_on_the_model_answer_as_mariadb_does() {
    let d = Dir::new();
    std::fs::write(d.path("rebuilds.toml"), SCENARIO).unwrap();
    let model = steps(&d, "sim");
    let expected = [
        (false, Some(1845), None),
        (false, Some(1846), None),
        (false, Some(1845), None),
        (true, None, Some(true)),
        (true, None, Some(true)),
        (false, Some(1845), None),
        (false, Some(1846), None),
        (true, None, Some(true)),
        (true, None, Some(false)),
        (false, Some(1846), None),
        (true, None, Some(true)),
    ];
    assert_eq!(model, expected);
    if !server_installed("rebuilding_ddl_steps_on_the_model_answer_as_mariadb_does") {
        return;
    }
    assert_eq!(steps(&d, "mariadb"), expected);
}
