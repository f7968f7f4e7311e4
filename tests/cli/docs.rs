//! The docs name every crate: each workspace member under `crates/` has a row in
//! `docs/architecture.md`'s crate table (its package name and folder) and in the README's
//! layout table, so a crate added or renamed in `Cargo.toml` cannot leave the pages behind.

use std::path::Path;

/// (folder under `crates/`, package name) of every workspace member there.
fn workspace_crates() -> Vec<(String, String)> {
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
        crates.push((dir.file_name().unwrap().to_string_lossy().into_owned(), name));
    }
    crates.sort();
    assert!(crates.len() >= 5, "{crates:?}");
    crates
}

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn architecture_page_has_a_row_for_every_crate() {
    let page = read("docs/architecture.md");
    for (folder, name) in workspace_crates() {
        let row = format!("| `{name}` (`crates/{folder}`) |");
        assert!(page.contains(&row), "docs/architecture.md has no crate-table row {row}");
    }
}

#[test]
fn readme_layout_has_a_row_for_every_crate() {
    let readme = read("README.md");
    for (folder, _) in workspace_crates() {
        let row = format!("| `crates/{folder}` |");
        assert!(readme.contains(&row), "README.md's layout has no row {row}");
    }
}
