//! `--export-*` paths: what the path names is written, never clobbered (regular files are
//! replaced atomically, links followed, modes kept; devices and FIFOs written through; an
//! input never overwritten; a FIFO with no reader an error, not a hang).

use crate::util::Dir;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};

const SMALL: [&str; 5] = ["compare", "--rows", "300", "--keys", "ulid,uuid4"];

fn with(extra: &[&str]) -> Vec<String> {
    SMALL.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn keylab(d: &Dir, args: &[String]) -> crate::util::Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    d.keylab(&args)
}

fn runs_in(json: &str) -> usize {
    let v: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not a JSON report ({e}): {json}"));
    v["runs"].as_array().expect("runs").len()
}

#[test]
fn a_symlink_is_followed_and_kept() {
    let d = Dir::new();
    std::fs::write(d.path("real.json"), "old").unwrap();
    std::os::unix::fs::symlink("real.json", d.path("link.json")).unwrap();
    keylab(&d, &with(&["--export-json", "link.json"])).expect_code(0);
    let link = std::fs::symlink_metadata(d.path("link.json")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced by a file");
    assert_eq!(runs_in(&std::fs::read_to_string(d.path("real.json")).unwrap()), 2);
    // A link to a file not there yet creates the file where it points.
    std::os::unix::fs::symlink("new.json", d.path("dangling.json")).unwrap();
    keylab(&d, &with(&["--export-json", "dangling.json"])).expect_code(0);
    assert!(std::fs::symlink_metadata(d.path("dangling.json")).unwrap().is_symlink());
    assert_eq!(runs_in(&std::fs::read_to_string(d.path("new.json")).unwrap()), 2);
}

#[test]
fn an_existing_file_keeps_its_mode() {
    let d = Dir::new();
    let path = d.path("private.json");
    std::fs::write(&path, "old").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    keylab(&d, &with(&["--export-json", "private.json"])).expect_code(0);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600);
    assert_eq!(runs_in(&std::fs::read_to_string(&path).unwrap()), 2);
}

#[test]
fn a_fifo_is_written_through_once() {
    let d = Dir::new();
    let fifo = d.path("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
    };
    keylab(&d, &with(&["--export-json", "pipe"])).expect_code(0);
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by a {kind:?}");
    // A reader still waiting means nothing was written: end its wait, and fail below.
    std::thread::sleep(std::time::Duration::from_millis(200));
    if !reader.is_finished() {
        drop(std::fs::OpenOptions::new().write(true).open(&fifo));
    }
    let got = reader.join().unwrap();
    // One whole report with both runs, not one report per finished run.
    assert_eq!(runs_in(&got), 2, "{got}");
}

#[test]
fn dev_null_stays_a_device() {
    let d = Dir::new();
    keylab(&d, &with(&["--export-json", "/dev/null", "--export-csv", "/dev/null"])).expect_code(0);
    let meta = std::fs::symlink_metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device(), "/dev/null was replaced");
    assert_eq!(meta.permissions().mode() & 0o777, 0o666);
}

#[test]
fn dev_stdout_gets_the_export() {
    let run = Dir::new()
        .keylab(&["compare", "--rows", "100", "--keys", "ulid", "--export-csv", "/dev/stdout"])
        .expect_code(0);
    assert!(run.stdout.contains("variant,"), "{}", run.stdout);
}

#[test]
fn unwritable_kinds_are_refused_before_the_run() {
    let d = Dir::new();
    std::fs::create_dir(d.path("dir")).unwrap();
    let run = d.keylab(&["compare", "--rows", "10", "--export-json", "dir"]).expect_code(2);
    assert!(run.stderr.contains("--export-json dir: is a directory"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "ran anyway:\n{}", run.stdout);
    let run =
        d.keylab(&["compare", "--rows", "10", "--export-html", "no/such/r.html"]).expect_code(2);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
}

#[test]
fn an_export_onto_an_input_is_refused_before_the_run() {
    let d = Dir::new();
    let ids = d.keylab(&["keys", "ulid", "--count", "50"]).expect_code(0).stdout;
    std::fs::write(d.path("ids.txt"), &ids).unwrap();
    std::os::unix::fs::symlink("ids.txt", d.path("link.txt")).unwrap();
    std::fs::hard_link(d.path("ids.txt"), d.path("hard.txt")).unwrap();
    let keys = ["compare", "--keys", "ulid", "--keys-file", "ids.txt"];
    for (flag, path) in [
        ("--export-csv", "ids.txt"),
        ("--export-json", "./ids.txt"),
        ("--export-markdown", "link.txt"),
        ("--export-html", "hard.txt"),
    ] {
        let args: Vec<&str> = keys.iter().copied().chain([flag, path]).collect();
        let run = d.keylab(&args).expect_code(2);
        let want = format!("{flag} {path}: is --keys-file ids.txt, which this command reads");
        assert!(run.stderr.contains(&want), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "ran anyway:\n{}", run.stdout);
    }
    assert_eq!(std::fs::read_to_string(d.path("ids.txt")).unwrap(), ids);

    let sql = "CREATE TABLE t (id INT PRIMARY KEY, v INT);";
    std::fs::write(d.path("t.sql"), sql).unwrap();
    let run = d.keylab(&["advise", "t.sql", "--export-json", "t.sql"]).expect_code(2);
    assert!(run.stderr.contains("--export-json t.sql: is the DDL file t.sql"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(d.path("t.sql")).unwrap(), sql);

    let toml = d.keylab(&["scenarios", "show", "e1-uuid-vs-ulid"]).expect_code(0).stdout;
    std::fs::write(d.path("my.toml"), &toml).unwrap();
    let run = d.keylab(&["run", "my.toml", "--export-html", "my.toml"]).expect_code(2);
    assert!(
        run.stderr.contains("--export-html my.toml: is the scenario file my.toml"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(d.path("my.toml")).unwrap(), toml);

    keylab(&d, &with(&["--export-json", "r.json"])).expect_code(0);
    let saved = std::fs::read_to_string(d.path("r.json")).unwrap();
    let run = d.keylab(&["report", "r.json", "--export-json", "r.json"]).expect_code(2);
    assert!(run.stderr.contains("is the result file r.json"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(d.path("r.json")).unwrap(), saved);
}

#[test]
fn a_fifo_nobody_reads_fails_instead_of_hanging() {
    let d = Dir::new();
    let made = std::process::Command::new("mkfifo").arg(d.path("out.json")).status();
    assert!(made.expect("mkfifo").success());
    // `timeout` ends a hang (exit 124) so the suite cannot stall.
    let out = std::process::Command::new("timeout")
        .args(["60", env!("CARGO_BIN_EXE_keylab")])
        .args(["compare", "--rows", "1000", "--export-json", "out.json"])
        .current_dir(d.root())
        .output()
        .expect("run keylab");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write out.json: a FIFO no process reads (waited 5 s)"),
        "{stderr}"
    );
}
