//! A TMPDIR holding characters that mean something in a server's configuration (`#` starts
//! a comment, `'` and `"` quote, a space separates) still gives a private server whose files
//! stay inside it: keylab quotes every path it writes into my.cnf and postgresql.conf. A
//! space (and a few shell characters) MariaDB's initialiser script cannot take: refused, exit
//! 2, before anything is made.

use crate::util::{server_installed, Dir};
use std::process::Command;

/// `keylab ARGS` with TMPDIR `tmp`; its exit code and stderr.
fn keylab_in(d: &Dir, tmp: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keylab"))
        .args(args)
        .env("TMPDIR", tmp)
        .current_dir(d.root())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_tmpdir_with_hash_quote_and_space_keeps_the_servers_inside_it() {
    let engines: Vec<&str> = [
        server_installed("a_tmpdir_with_hash_quote_and_space (mariadb)").then_some("mariadb"),
        keylab_pg_server::installed_or_skip("a_tmpdir_with_hash_quote_and_space (postgres)")
            .then_some("postgres"),
    ]
    .into_iter()
    .flatten()
    .collect();
    for engine in engines {
        let args = ["compare", "--engine", engine, "--rows", "2000", "--keys", "uuid4:bin"];
        let d = Dir::new();
        let mut name = "a #b'c \"d";
        if engine == "mariadb" {
            let tmp = d.path(name);
            std::fs::create_dir(&tmp).unwrap();
            let (code, stderr) = keylab_in(&d, &tmp, &args);
            assert_eq!(code, Some(2), "{stderr}");
            assert!(stderr.contains("TMPDIR") && stderr.contains("TMPDIR=/tmp"), "{stderr}");
            assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
            std::fs::remove_dir(&tmp).unwrap();
            name = "a#b'c";
        }
        let tmp = d.path(name);
        std::fs::create_dir(&tmp).unwrap();
        let (code, stderr) = keylab_in(&d, &tmp, &args);
        assert_eq!(code, Some(0), "{engine}: {stderr}");
        let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(left.is_empty(), "{engine} left {left:?}");
        let beside: Vec<_> = std::fs::read_dir(d.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_str() != Some(name))
            .collect();
        assert!(beside.is_empty(), "{engine} wrote outside TMPDIR: {beside:?}");
    }
}
