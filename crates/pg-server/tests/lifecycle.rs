//! Private PostgreSQL instance lifecycle: it starts from the installed binaries, answers,
//! and leaves no process or directory once stopped or dropped (a panic included).
//!
//! Without PostgreSQL these print `SKIPPED: ...` and return, except under `CI=true`.

use keylab_pg_server::{installed_or_skip, PgInstance, PgSettings};
use keylab_server_common::process::processes_naming;

#[test]
fn a_private_instance_starts_answers_and_leaves_nothing() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    let inst = PgInstance::start(&PgSettings::default()).expect("start");
    let dir = inst.dir().to_path_buf();
    assert_eq!(processes_naming(&dir), vec![inst.pid().unwrap()], "the sweep sees the server");
    let mut c = inst.config("postgres").connect(postgres::NoTls).unwrap();
    let v: String = c.query_one("SHOW server_version", &[]).unwrap().get(0);
    assert!(v.starts_with(&inst.binaries().major.to_string()), "{v}");
    let fpw: String = c.query_one("SHOW autovacuum", &[]).unwrap().get(0);
    assert_eq!(fpw, "off", "configured from the settings");
    drop(c);
    inst.stop().unwrap();
    assert!(!dir.exists());
    assert!(processes_naming(&dir).is_empty());
}

#[test]
fn a_panic_stops_the_instance_and_removes_its_directory() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    let dir = std::sync::Mutex::new(None);
    let r = std::panic::catch_unwind(|| {
        let inst = PgInstance::start(&PgSettings::default()).expect("start");
        *dir.lock().unwrap() = Some(inst.dir().to_path_buf());
        panic!("a failure mid-run");
    });
    assert!(r.is_err());
    let dir = dir.into_inner().unwrap().unwrap();
    assert!(!dir.exists(), "{} left behind", dir.display());
    assert!(processes_naming(&dir).is_empty());
}
