//! The JSON Schema of the result (`docs/result.schema.json`) against the results in the
//! repository: the schema itself must be a valid JSON Schema, and every golden JSON result
//! (the fixtures in `tests/fixtures/` and the JSON snapshots in `tests/snapshots/`) must
//! satisfy it. Files are found by listing the folders, so a new fixture is checked without
//! being named here. The `jsonschema` crate does the validation (a hand-written checker would
//! test our reading of the schema, not the schema).

use serde_json::Value;
use std::path::{Path, PathBuf};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema() -> Value {
    let path = manifest_dir().join("../../docs/result.schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every golden JSON result: `(file, its JSON)`. A `.json.snap` holds insta's header between
/// two `---` lines, then the rendered JSON.
fn golden_results() -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    let dirs = [manifest_dir().join("tests/fixtures"), manifest_dir().join("tests/snapshots")];
    for dir in dirs {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            let text = std::fs::read_to_string(&path).expect("a readable file");
            let json = if name.ends_with(".json") {
                text
            } else if name.ends_with(".json.snap") {
                snapshot_body(&path, &text)
            } else {
                continue;
            };
            let value = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
            out.push((path, value));
        }
    }
    out
}

fn snapshot_body(path: &Path, text: &str) -> String {
    let mut parts = text.splitn(3, "---\n");
    let (Some(""), Some(_header), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("{} has no insta header", path.display());
    };
    body.to_string()
}

fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator.iter_errors(value).map(|e| format!("at {}: {e}", e.instance_path())).collect()
}

#[test]
fn the_schema_is_a_valid_json_schema() {
    let schema = schema();
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("docs/result.schema.json is not a valid JSON Schema: {e}");
    }
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

#[test]
fn every_golden_result_satisfies_the_schema() {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let results = golden_results();
    // 7 fixtures and their 7 JSON snapshots at the time of writing; more may come.
    assert!(results.len() >= 14, "found only {} golden results", results.len());
    let mut failures = Vec::new();
    for (path, value) in &results {
        for error in errors(&validator, value) {
            failures.push(format!("{}: {error}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_schema_requires_fixed_fields_and_allows_extensions() {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let (_, good) = golden_results().into_iter().next().expect("a golden result");

    let mut extended = good.clone();
    extended["engine"]["model"] = "a field another version adds".into();
    extended["runs"][0]["load"]["something_new"] = 1.into();
    assert!(errors(&validator, &extended).is_empty(), "{:?}", errors(&validator, &extended));

    let mut missing = good.clone();
    missing["runs"][0]["counters"].as_object_mut().expect("counters").remove("page_splits");
    assert!(!errors(&validator, &missing).is_empty(), "a fixed field may not go missing");

    let mut guessed = good;
    guessed["runs"][0]["indexes"][0]["fill_pct"] = "about 90".into();
    assert!(!errors(&validator, &guessed).is_empty(), "a figure is a number or null");
}
