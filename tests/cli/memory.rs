//! What the machine cannot hold is refused before anything starts (exit 2), naming the
//! estimate and the flag to lower: the simulator's trees for too many rows, a private
//! server's buffer pool past the available memory. And the other early refusals of bad
//! usage: a server's own database or schema as `--database`, a backend listed twice.

use crate::util::Dir;
use std::time::{Duration, Instant};

#[track_caller]
fn refused_at_once(d: &Dir, args: &[&str], parts: &[&str]) {
    let start = Instant::now();
    let run = d.keylab(args).expect_code(2);
    assert!(start.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", start.elapsed());
    for p in parts {
        assert!(run.stderr.contains(p), "{args:?}: stderr lacks {p:?}:\n{}", run.stderr);
    }
}

#[test]
fn a_run_past_the_machines_memory_is_refused_before_it_starts() {
    let d = Dir::new();
    // Ten billion rows of a BIGINT key: about 230 GiB of tree entries.
    refused_at_once(
        &d,
        &["compare", "--rows", "10000000000", "--keys", "auto-inc"],
        &["--rows 10000000000 on 1 job(s)", "GiB of memory", "MemAvailable", "lower --rows"],
    );
    let scenario = "name = \"big\"\nvariants = [\"auto-inc\"]\n[[tables]]\nname = \"t\"\n\
                    id = { name = \"id\" }\n[[phases]]\nload = { rows = 1000000 }\n";
    std::fs::write(d.path("big.toml"), scenario).unwrap();
    refused_at_once(
        &d,
        &["run", "big.toml", "--scale", "10000"],
        &["--scale 10000", "GiB of memory", "lower --scale"],
    );
    std::fs::write(d.path("t.sql"), "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT);").unwrap();
    refused_at_once(
        &d,
        &["advise", "t.sql", "--rows", "10000000000", "--keys", "auto-inc"],
        &["--rows 10000000000", "GiB of memory", "lower --rows"],
    );
    // A whole schema: every table's candidates.
    let two = "CREATE TABLE a (id BIGINT PRIMARY KEY);\nCREATE TABLE b (id BIGINT PRIMARY KEY);";
    std::fs::write(d.path("two.sql"), two).unwrap();
    refused_at_once(
        &d,
        &["advise", "two.sql", "--rows", "10000000000"],
        &["--rows 10000000000 per table", "GiB of memory", "lower --rows"],
    );
    // A run that fits is not refused.
    d.keylab(&["compare", "--rows", "1000", "--keys", "auto-inc"]).expect_code(0);
}

#[test]
fn a_server_buffer_pool_past_the_machines_memory_is_refused_naming_the_flag() {
    let d = Dir::new();
    for engine in ["mariadb", "postgres"] {
        refused_at_once(
            &d,
            &["compare", "--engine", engine, "--buffer-pool", "1T", "--rows", "10"],
            &["--buffer-pool 1024.0 GiB", "valid: a smaller --buffer-pool"],
        );
    }
    refused_at_once(
        &d,
        &["compare", "--engine", "postgres", "--buffer-pool", "16T", "--rows", "10"],
        &["largest shared_buffers"],
    );
}

#[test]
fn a_servers_own_database_is_refused_as_database() {
    let d = Dir::new();
    for name in ["pg_toast", "pg_catalog", "PG_whatever", "information_schema", "mysql", "sys"] {
        refused_at_once(
            &d,
            &["compare", "--engine", "postgres", "--database", name],
            &["--database", "a server's own database or schema", "valid: a database of your own"],
        );
    }
    refused_at_once(&d, &["validate", "--database", "performance_schema"], &["--database"]);
}

#[test]
fn a_backend_listed_twice_is_refused_where_written() {
    let d = Dir::new();
    let scenario = "name = \"s\"\nvariants = [\"auto-inc\"]\n[engine]\n\
                    backends = [\"mysql://a:pw@db1:3306/x\", \"mariadb://b@DB1\"]\n\
                    [[tables]]\nname = \"t\"\nid = { name = \"id\" }\n[[phases]]\n\
                    load = { rows = 10 }\n";
    std::fs::write(d.path("s.toml"), scenario).unwrap();
    refused_at_once(
        &d,
        &["run", "s.toml", "--engine", "mariadb"],
        &["s.toml:4:", "backend 2 is db1:3306 again, as backend 1", "valid: distinct HOST:PORT"],
    );
    let run = d.keylab(&["run", "s.toml", "--engine", "mariadb"]);
    assert!(!run.stderr.contains("pw"), "no password shown: {}", run.stderr);
}

/// A PostgreSQL URL that cannot be reached says why (the client's cause), never the password.
#[test]
fn a_postgres_url_failure_gives_its_cause() {
    let d = Dir::new();
    let url = "postgres://u:sekrit@127.0.0.1:1/db";
    for args in [
        vec!["compare", "--engine", "postgres", "--url", url, "--rows", "10"],
        vec!["advise", "--url", url, "--table", "t"],
    ] {
        let run = d.keylab(&args);
        assert!(run.code != 0, "{args:?}");
        assert!(run.stderr.contains("error connecting to server: "), "{args:?}: {}", run.stderr);
        assert!(run.stderr.to_lowercase().contains("refused"), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("sekrit"), "{}", run.stderr);
    }
}
