//! Control characters in input (a DDL file's table, column and index names holding ESC, BEL
//! and a C1 control) never reach standard output, standard error or an export raw: every
//! `--format` and the HTML report show them escaped, and errors quoting them too.

use crate::util::Dir;

/// ESC [2J clears a terminal, ESC ] 0 ; ... BEL retitles it, U+009B is the one-character CSI.
const SQL: &str = "CREATE TABLE `t\u{1b}[2Jx` (\n  `id\u{7}c` BIGINT NOT NULL AUTO_INCREMENT,\n  \
                   `n\u{9b}m` VARCHAR(40) NOT NULL,\n  PRIMARY KEY (`id\u{7}c`),\n  \
                   KEY `ix\u{1b}]0;pwn\u{7}` (`n\u{9b}m`)\n) ENGINE=InnoDB;\n";

/// The control characters of `text` other than line breaks (and CSV's carriage returns).
#[track_caller]
fn assert_no_controls(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let raw: Vec<char> = text.chars().filter(|&c| c.is_control() && c != '\n').collect();
    assert!(raw.is_empty(), "{what}: raw control characters {raw:?}:\n{text}");
}

#[test]
fn control_characters_in_names_are_escaped_in_every_format() {
    let d = Dir::new();
    std::fs::write(d.path("t.sql"), SQL).unwrap();
    for format in ["table", "json", "csv", "markdown"] {
        let html = format!("{format}.html");
        let args = [
            "advise",
            "t.sql",
            "--rows",
            "500",
            "--keys",
            "uuid7:bin",
            "--format",
            format,
            "--export-html",
            &html,
        ];
        let run = d.keylab(&args).expect_code(0);
        assert_no_controls(&format!("--format {format}: stdout"), run.stdout.as_bytes());
        assert_no_controls(&format!("--format {format}: stderr"), run.stderr.as_bytes());
        assert_no_controls(&html, &std::fs::read(d.path(&html)).unwrap());
        if format == "json" {
            // JSON keeps the names, escaped the JSON way.
            let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            assert!(run.stdout.contains("\\u001b[2J"), "{}", run.stdout);
            assert!(r["runs"][0]["indexes"].to_string().contains("\\u001b]0;pwn\\u0007"));
        } else if format != "csv" {
            // CSV has figures only, no names; Markdown escapes the backslash itself.
            assert!(run.stdout.contains("x1b"), "{format}: {}", run.stdout);
        }
    }
    // Re-rendered from the saved JSON, too.
    let run = d
        .keylab(&["advise", "t.sql", "--rows", "500", "--keys", "uuid7:bin", "--format", "json"])
        .expect_code(0);
    std::fs::write(d.path("r.json"), &run.stdout).unwrap();
    let run = d.keylab(&["report", "r.json"]).expect_code(0);
    assert_no_controls("keylab report", run.stdout.as_bytes());
}

#[test]
fn errors_quoting_control_characters_show_them_escaped() {
    let d = Dir::new();
    std::fs::write(d.path("t.sql"), SQL).unwrap();
    // A TINYINT key cannot take the default 1,000,000 rows: refused, naming the column.
    let bad = SQL.replace("BIGINT NOT NULL AUTO_INCREMENT", "TINYINT NOT NULL");
    std::fs::write(d.path("bad.sql"), bad).unwrap();
    for (args, want) in [
        (&["advise", "bad.sql"][..], "`id\\x07c`"),
        (&["advise", "t.sql", "--table", "zz\u{1b}[2J"][..], "zz\\x1b[2J"),
        (&["advise", "t.sql", "--width", "q\u{9b}=3"][..], "q\\u{9b}"),
        (&["advise", "t.sql", "--keys", "uu\u{1b}[2J\u{7}"][..], "uu\\x1b[2J\\x07"),
    ] {
        let run = d.keylab(args).expect_code(2);
        assert_no_controls(&format!("{args:?}"), run.stderr.as_bytes());
        assert!(run.stderr.contains(want), "{want}: {}", run.stderr);
    }
}
