//! A private PostgreSQL admits only keylab: no login, on TCP or on the socket, without the
//! password generated for it (so no other local user reaches the superuser's `COPY ... TO
//! PROGRAM`), a socket in a directory only the server's user enters, and no secret of
//! keylab's environment in the server process.
//!
//! One test in its own binary: it sets secrets in the process environment first.

use keylab_pg_server::{installed_or_skip, PgEngine, PgInstance, PgSettings};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::Duration;

const PLANTED: &str = "pw-Planted-7c1";

/// The error of a login that must fail.
fn refused(login: Result<postgres::Client, postgres::Error>, what: &str) -> String {
    match login {
        Ok(_) => panic!("{what} was accepted"),
        Err(e) => format!("{e:?}"),
    }
}

#[test]
fn only_keylab_gets_in_and_no_secret_reaches_the_server() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    for name in ["KEYLAB_PASSWORD", "PGPASSWORD", "MYSQL_PWD"] {
        std::env::set_var(name, PLANTED);
    }
    let inst = PgInstance::start(&PgSettings::default()).expect("start");
    let superuser = PgEngine::superuser();
    let secret = inst.secret().expose().to_string();

    let pid = inst.pid().expect("running");
    let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("environ");
    let environ = String::from_utf8_lossy(&environ);
    assert!(!environ.contains(PLANTED), "a secret reached the server: {environ}");
    assert!(!environ.contains(&secret), "the instance's password is in its environment");

    let dir = std::fs::metadata(inst.dir()).unwrap();
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    let socket = inst.dir().join(format!(".s.PGSQL.{}", inst.port()));
    let socket_mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(socket_mode & 0o077, 0, "socket mode {socket_mode:o}");
    assert_eq!(std::fs::metadata(&socket).unwrap().uid(), dir.uid());
    assert!(!inst.dir().join("pwfile").exists(), "initdb's password file was left");
    let hba = std::fs::read_to_string(inst.datadir().join("pg_hba.conf")).unwrap();
    let rules: Vec<&str> = hba.lines().filter(|l| !l.trim_start().starts_with('#')).collect();
    assert!(rules.iter().all(|l| !l.contains("trust")), "{rules:?}");

    let tcp = |user: &str, password: Option<&str>| {
        let mut c = postgres::Config::new();
        c.host("127.0.0.1")
            .port(inst.port())
            .user(user)
            .dbname("postgres")
            .connect_timeout(Duration::from_secs(5));
        if let Some(p) = password {
            c.password(p);
        }
        c.connect(postgres::NoTls)
    };
    for user in [superuser, "postgres", "nobody"] {
        let e = refused(tcp(user, None), "a TCP login without the password");
        assert!(e.contains("password"), "{user}: {e}");
        refused(tcp(user, Some("wrong")), "a TCP login with a wrong password");
    }
    let mut no_password = postgres::Config::new();
    no_password
        .host_path(inst.dir())
        .port(inst.port())
        .user(superuser)
        .dbname("postgres")
        .connect_timeout(Duration::from_secs(5));
    refused(no_password.connect(postgres::NoTls), "a socket login without the password");

    // keylab gets in, and it is the only role that can log in.
    let mut c = tcp(superuser, Some(&secret)).expect("login with the secret");
    let logins: Vec<String> = c
        .query("SELECT rolname::text FROM pg_roles WHERE rolcanlogin", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(logins, vec![superuser.to_string()]);
    drop(c);
    inst.stop().expect("stop");
}
