//! Running the built binary in a fresh temporary directory, and what most tests need around
//! it: its JSON output parsed, and whether a MariaDB server is installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What a run of `keylab` printed and returned.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Panics with both streams unless the exit code is `code`.
    #[track_caller]
    pub fn expect_code(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "expected exit {code}, got {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }
}

/// A temporary working directory for one test.
pub struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    pub fn new() -> Dir {
        Dir { dir: tempfile::tempdir().expect("temp dir") }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `keylab ARGS` in this directory (no `COLUMNS`: piped output is not fitted to a
    /// width).
    pub fn keylab(&self, args: &[&str]) -> Run {
        self.keylab_env(args, &[])
    }

    /// Runs `keylab ARGS` in this directory with the environment variables `env` set.
    pub fn keylab_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_keylab"))
            .args(args)
            .current_dir(self.root())
            .env_remove("NO_COLOR")
            .env_remove("COLUMNS")
            // One run per variant on a server unless a test asks for repeats (`--repeat`, or
            // KEYLAB_REPEAT in `env`): the default of 3 would triple every live test's time.
            .env("KEYLAB_REPEAT", "1")
            .envs(env.iter().copied())
            .output()
            .expect("run keylab");
        Run::from(out)
    }
}

/// `keylab`'s JSON output; panics with the text when it is not JSON.
/// The folder `sub` of `../shared` (the corpus, the tablespace fixtures; `KEYLAB_SHARED`
/// names another `shared`, since a git worktree has none beside it), or `None` after
/// printing SKIPPED for `test` (a panic under `CI=true`, where `../shared` is always beside
/// the clone).
pub fn shared_dir(sub: &str, test: &str) -> Option<String> {
    let shared = std::env::var("KEYLAB_SHARED")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared").to_string());
    let dir = Path::new(&shared).join(sub);
    if dir.is_dir() {
        return Some(dir.to_string_lossy().into_owned());
    }
    let why = format!("{test}: no {} (../shared beside the repository)", dir.display());
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("SKIPPED: {why}");
    None
}

pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("bad JSON ({e}):\n{stdout}"))
}

/// True when MariaDB's server binaries are installed; SKIPPED otherwise (a failure under
/// `CI=true`).
pub fn server_installed(test: &str) -> bool {
    keylab_mariadb::installed_or_skip(test)
}

/// A private MariaDB standing in for a user's server (default settings), with a root
/// connection over its socket to set it up and to check it afterwards.
pub fn users_server() -> (keylab_mariadb::PrivateServer, mysql::Conn) {
    let server = keylab_mariadb::PrivateServer::start(&keylab_mariadb::ServerSettings::default())
        .expect("user's server");
    let admin =
        mysql::Conn::new(server.socket_opts()).expect("root connection to the user's server");
    (server, admin)
}
