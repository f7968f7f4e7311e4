//! What an installed keylab ships beside the binary: shell completions and a man page that
//! agree with `--help`, and the license files `Cargo.toml` names.

use crate::util::Dir;

#[test]
fn completions_are_printed_for_each_shell() {
    let dir = Dir::new();
    let bash = dir.keylab(&["completions", "bash"]).expect_code(0).stdout;
    assert!(bash.contains("complete -F _keylab"), "{bash}");
    assert!(bash.contains("advise") && bash.contains("--export-html"));
    let zsh = dir.keylab(&["completions", "zsh"]).expect_code(0).stdout;
    assert!(zsh.starts_with("#compdef keylab"), "{zsh}");
    let fish = dir.keylab(&["completions", "fish"]).expect_code(0).stdout;
    assert!(fish.contains("complete -c keylab"), "{fish}");
    let bad = dir.keylab(&["completions", "tcsh"]).expect_code(2).stderr;
    assert!(bad.contains("bash") && bad.contains("zsh") && bad.contains("fish"), "{bad}");
}

/// The subcommands `keylab --help` lists, and the long flags of `keylab SUB --help`.
fn help_items(dir: &Dir, args: &[&str]) -> Vec<String> {
    let help = dir.keylab(args).expect_code(0).stdout;
    let mut items = Vec::new();
    let mut in_commands = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            match line.strip_prefix("  ").and_then(|l| l.split_whitespace().next()) {
                Some(name) if !line.starts_with("    ") => items.push(name.to_string()),
                _ if line.trim().is_empty() => in_commands = false,
                _ => {}
            }
        }
        for word in line.split(|c: char| c.is_whitespace() || c == ',') {
            if let Some(flag) = word
                .strip_prefix("--")
                .filter(|f| !f.is_empty() && f.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
            {
                if line.trim_start().starts_with('-') {
                    items.push(format!("--{flag}"));
                }
            }
        }
    }
    items.sort();
    items.dedup();
    items
}

#[test]
fn man_page_lists_what_help_lists() {
    let dir = Dir::new();
    let man = dir.keylab(&["man"]).expect_code(0).stdout;
    assert!(man.starts_with(".ie") || man.contains(".TH keylab"), "not roff:\n{man}");
    // roff escapes '-' as '\-'.
    let plain = man.replace("\\-", "-");
    let commands = help_items(&dir, &["--help"]);
    let subcommands: Vec<&String> =
        commands.iter().filter(|c| !c.starts_with('-') && *c != "help").collect();
    assert!(subcommands.len() >= 10, "{commands:?}");
    for sub in subcommands {
        assert!(plain.contains(&format!("KEYLAB {}", sub.to_uppercase())), "man: no {sub}");
        for flag in help_items(&dir, &[sub, "--help"]).iter().filter(|f| f.starts_with("--")) {
            assert!(plain.contains(flag.as_str()), "man: `keylab {sub}` has no {flag}");
        }
    }
}

#[test]
fn license_files_match_cargo_toml() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cargo = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    assert!(cargo.contains(r#"license = "MIT OR Apache-2.0""#));
    let mit = std::fs::read_to_string(format!("{root}/LICENSE-MIT")).unwrap();
    assert!(mit.contains("Permission is hereby granted") && mit.contains("keylab authors"));
    let apache = std::fs::read_to_string(format!("{root}/LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0"));
}
