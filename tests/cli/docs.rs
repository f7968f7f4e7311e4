//! The docs name every crate: each workspace member under `crates/` has a row in
//! `docs/architecture.md`'s crate table (its package name and folder, and the keylab crates it
//! depends on as its `Cargo.toml` says) and in the README's layout table, so a crate added,
//! renamed or given a new dependency in `Cargo.toml` cannot leave the pages behind.

use std::path::Path;

/// A workspace member under `crates/`.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Member {
    folder: String,
    name: String,
    /// Its `[dependencies]` on other keylab crates, without the `keylab-` prefix, sorted.
    keylab_deps: Vec<String>,
}

/// Every workspace member under `crates/`.
fn workspace_crates() -> Vec<Member> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(r#"members = ["crates/*"]"#),
        "the workspace's members are no longer crates/*: update this test"
    );
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else { continue };
        let value: toml::Value = toml::from_str(&text).unwrap();
        let name = value["package"]["name"].as_str().unwrap().to_string();
        let mut keylab_deps: Vec<String> = value
            .get("dependencies")
            .and_then(|d| d.as_table())
            .map(|d| d.keys().filter_map(|k| k.strip_prefix("keylab-")).map(String::from).collect())
            .unwrap_or_default();
        keylab_deps.sort();
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        crates.push(Member { folder, name, keylab_deps });
    }
    crates.sort();
    assert!(crates.len() >= 5, "{crates:?}");
    crates
}

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn architecture_page_has_a_row_for_every_crate_with_its_dependencies() {
    let page = read("docs/architecture.md");
    for Member { folder, name, keylab_deps } in workspace_crates() {
        let start = format!("| `{name}` (`crates/{folder}`) | ");
        let Some(at) = page.find(&start) else {
            panic!("docs/architecture.md has no crate-table row starting {start}")
        };
        let column = page[at + start.len()..].split(" | ").next().unwrap();
        let mut said: Vec<String> = match column {
            "none" => Vec::new(),
            _ => column.split(", ").map(String::from).collect(),
        };
        said.sort();
        assert_eq!(said, keylab_deps, "docs/architecture.md: the dependencies of {name}");
    }
}

#[test]
fn readme_layout_has_a_row_for_every_crate() {
    let readme = read("README.md");
    for Member { folder, .. } in workspace_crates() {
        let row = format!("| `crates/{folder}` |");
        assert!(readme.contains(&row), "README.md's layout has no row {row}");
    }
}
