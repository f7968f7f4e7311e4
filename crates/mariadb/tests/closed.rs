//! A private instance admits only keylab: no login without the password generated for it (on
//! TCP, as any local user could try), no file written outside its directory, a directory
//! only keylab's user can enter, and no secret of keylab's environment in its server process.
//!
//! One test in its own binary: it sets secrets in the process environment first.

use keylab_mariadb::{url_opts, PrivateServer, ServerSettings};
use mysql::prelude::Queryable;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

const PLANTED: &str = "pw-Planted-9f3";

fn refused(opts: mysql::OptsBuilder) -> String {
    match mysql::Conn::new(opts) {
        Ok(_) => panic!("a login without the instance's password was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn only_keylab_gets_in_and_no_secret_reaches_the_server() {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return;
    }
    for name in ["KEYLAB_PASSWORD", "PGPASSWORD", "MYSQL_PWD"] {
        std::env::set_var(name, PLANTED);
    }
    let server = PrivateServer::start(&ServerSettings::default()).expect("start");
    let secret = server.secret().expose().to_string();

    // The server process: none of keylab's secrets, nor the instance's, in its environment.
    let pid = server.pid().expect("running");
    let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("environ");
    let environ = String::from_utf8_lossy(&environ);
    assert!(!environ.contains(PLANTED), "a secret reached the server: {environ}");
    assert!(!environ.contains(&secret), "the instance's password is in its environment");
    for name in ["KEYLAB_PASSWORD", "PGPASSWORD", "MYSQL_PWD"] {
        assert!(!environ.split('\0').any(|v| v.starts_with(&format!("{name}="))), "{name}");
    }

    // Socket and data in a directory only keylab's user enters; no bootstrap file left.
    let mode = std::fs::metadata(server.dir()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "instance directory mode {mode:o}");
    assert!(!server.dir().join("bootstrap.sql").exists());

    // TCP without the password, with a wrong one, or as another account: refused.
    let tcp = |user: &str, password: Option<&str>| {
        let mut url = server.tcp_url(None);
        url.user = user.into();
        url.password = password.map(str::to_string);
        url_opts(&url, Duration::from_secs(5))
    };
    for user in ["root", "", "mysql", "mariadb.sys", "keylab"] {
        let e = refused(tcp(user, None));
        assert!(e.contains("1045") || e.contains("Access denied"), "{user}: {e}");
    }
    refused(tcp("root", Some("wrong")));
    refused(server.socket_opts().pass(None::<String>));

    // keylab itself gets in, and server-side file SQL reaches no file outside the instance.
    let mut conn = mysql::Conn::new(tcp("root", Some(&secret))).expect("login with the secret");
    let target = std::env::temp_dir().join(format!("keylab-outfile-{}", std::process::id()));
    let sql = format!("SELECT 1 INTO OUTFILE '{}'", target.display());
    let e = conn.query_drop(&sql).expect_err("INTO OUTFILE outside the instance");
    assert!(e.to_string().contains("secure-file-priv"), "{e}");
    assert!(!target.exists());
    let e = conn.query_drop("SELECT 1 INTO OUTFILE '/etc/keylab-probe'").unwrap_err();
    assert!(e.to_string().contains("secure-file-priv"), "{e}");
    let priv_dir: Option<String> = conn.query_first("SELECT @@secure_file_priv").unwrap();
    let priv_dir = priv_dir.expect("secure_file_priv is set");
    assert!(
        std::path::Path::new(&priv_dir).starts_with(server.dir()),
        "secure_file_priv {priv_dir} is outside {}",
        server.dir().display()
    );
    let file_read: Option<Option<Vec<u8>>> =
        conn.query_first("SELECT LOAD_FILE('/etc/passwd')").unwrap();
    assert_eq!(file_read, Some(None), "LOAD_FILE read a file outside the instance");
    drop(conn);
    server.stop().expect("stop");
}
