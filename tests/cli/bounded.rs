//! Bounded, honest input: oversized or endless files are refused at once, limits are checked
//! when the flags are parsed, and bad usage found from the flags alone exits 2 before any
//! engine starts.

use crate::util::{server_installed, Dir};
use std::time::{Duration, Instant};

/// Runs `keylab ARGS`, failing the test if it takes longer than `limit`.
fn quick(d: &Dir, args: &[&str], limit: Duration) -> crate::util::Run {
    let started = Instant::now();
    let run = capped(d, args);
    assert!(started.elapsed() < limit, "{args:?} took {:?}", started.elapsed());
    run
}

/// Runs `keylab ARGS` in `d` under a 4 GiB address-space cap and a 60 s timeout, so a
/// regression that reads an endless file fails this test instead of exhausting the machine.
fn capped(d: &Dir, args: &[&str]) -> crate::util::Run {
    let script = "ulimit -v 4194304; exec timeout 60 \"$0\" \"$@\"";
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_keylab"))
        .args(args)
        .current_dir(d.root())
        .output()
        .expect("run keylab");
    crate::util::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn endless_files_are_refused_at_once() {
    let d = Dir::new();
    let run = capped(&d, &["run", "/dev/zero"]).expect_code(2);
    assert!(run.stderr.contains("/dev/zero: larger than 1024 KiB"), "{}", run.stderr);
    let run = capped(&d, &["report", "/dev/zero"]).expect_code(2);
    assert!(run.stderr.contains("larger than 64 MiB"), "{}", run.stderr);
    let run = capped(&d, &["compare", "--keys", "ulid", "--keys-file", "/dev/zero"]).expect_code(2);
    assert!(run.stderr.contains("/dev/zero:1:1: line longer than"), "{}", run.stderr);
    let run = capped(&d, &["advise", "/dev/zero"]).expect_code(2);
    assert!(run.stderr.contains("/dev/zero: larger than 64 MiB"), "{}", run.stderr);
}

#[test]
fn a_ddl_file_past_64_mib_is_refused() {
    let d = Dir::new();
    // A sparse file: NUL bytes, no disk.
    std::fs::File::create(d.path("big.sql")).unwrap().set_len((64 << 20) + 1).unwrap();
    let run = capped(&d, &["advise", "big.sql"]).expect_code(2);
    assert!(run.stderr.contains("big.sql: larger than 64 MiB; a DDL file is"), "{}", run.stderr);
}

#[test]
fn a_ddl_file_may_start_with_a_byte_order_mark() {
    let d = Dir::new();
    let sql = include_str!("../fixtures/advise/orders.sql");
    std::fs::write(d.path("plain.sql"), sql).unwrap();
    std::fs::write(d.path("bom.sql"), format!("\u{feff}{sql}")).unwrap();
    let args = |f: &'static str| ["advise", f, "--rows", "300", "--format", "json"];
    let plain = d.keylab(&args("plain.sql")).expect_code(0);
    let bom = d.keylab(&args("bom.sql")).expect_code(0);
    assert_eq!(plain.stdout.replace("plain.sql", "bom.sql"), bom.stdout);
}

#[test]
fn flag_limits_are_refused_when_parsed() {
    let d = Dir::new();
    let limit = Duration::from_secs(20);
    let run = quick(&d, &["compare", "--payload-bytes", "4294967295"], limit).expect_code(2);
    assert!(run.stderr.contains("0..=16383"), "{}", run.stderr);
    for scale in ["1e300", "0", "inf", "NaN", "10001"] {
        let run = quick(&d, &["run", "e1-uuid-vs-ulid", "--scale", scale], limit).expect_code(2);
        assert!(run.stderr.contains("at most 10000"), "{scale}: {}", run.stderr);
    }
    let run = quick(&d, &["compare", "--writers", "257"], limit).expect_code(2);
    assert!(run.stderr.contains("1..=256"), "{}", run.stderr);
}

#[test]
fn a_keys_file_shorter_than_rows_is_refused() {
    let d = Dir::new();
    let ids = d.keylab(&["keys", "ulid", "--count", "50"]).expect_code(0);
    std::fs::write(d.path("ids.txt"), &ids.stdout).unwrap();
    let run = d
        .keylab(&["compare", "--keys", "ulid", "--keys-file", "ids.txt", "--rows", "100"])
        .expect_code(2);
    assert!(run.stderr.contains("ids.txt holds 50 ids, fewer than --rows 100"), "{}", run.stderr);
    // Without --rows every id is loaded; with fewer rows than ids, the first ones.
    let all = d
        .keylab(&["compare", "--keys", "ulid", "--keys-file", "ids.txt", "--format", "json"])
        .expect_code(0);
    assert!(all.stdout.contains("\"rows\": 50"), "{}", all.stdout);
    let some = d
        .keylab(&["compare", "--keys", "ulid", "--keys-file", "ids.txt", "--rows", "20"])
        .expect_code(0);
    assert!(some.stderr.is_empty(), "{}", some.stderr);
}

#[test]
fn a_duplicate_id_is_named_with_its_line() {
    let d = Dir::new();
    let ids = d.keylab(&["keys", "uuid4:text", "--count", "5"]).expect_code(0);
    let lines: Vec<&str> = ids.stdout.lines().collect();
    let text = format!("{}\n{}\n{}\n  {}\n", lines[0], lines[1], lines[2], lines[1]);
    std::fs::write(d.path("ids.txt"), text).unwrap();
    let run = d.keylab(&["compare", "--keys", "uuid4:text", "--keys-file", "ids.txt"]);
    let run = run.expect_code(2);
    let want = format!("ids.txt:4:3: duplicate id `{}` (first on line 2)", lines[1]);
    assert!(run.stderr.contains(&want), "{}", run.stderr);
    // In a non-unique secondary index the same id twice is fine.
    d.keylab(&[
        "compare",
        "--keys",
        "uuid4:text",
        "--keys-file",
        "ids.txt",
        "--placement",
        "secondary",
    ])
    .expect_code(0);
}

/// Checked before any engine starts, so the same on the simulator and on a server (that is
/// never started: these finish in well under a server's start time).
#[test]
fn plans_no_server_can_run_exit_2_before_starting_one() {
    let d = Dir::new();
    let limit = Duration::from_secs(20);
    for engine in ["sim", "mariadb"] {
        let run = quick(
            &d,
            &[
                "compare", "--engine", engine, "--keys", "uuid4", "--rows", "10", "--method",
                "prepared", "--batch", "40000",
            ],
            limit,
        )
        .expect_code(2);
        assert!(run.stderr.contains("at most 32767"), "{}", run.stderr);
    }
    let wide: String = (b'a'..=b'h')
        .map(|c| {
            let c = c as char;
            format!("  {{ name = \"{c}\", type = \"binary(255)\", gen = {{ fixed = \"x\" }} }},\n")
        })
        .collect();
    let toml = format!(
        "name = \"wide\"\nvariants = [\"uuid4:text\"]\n[[tables]]\nname = \"t\"\n\
         id = {{ name = \"id\" }}\ncolumns = [\n{wide}]\n[engine]\npage_size = \"4k\"\n\
         [[phases]]\nload = {{ rows = 10 }}\n"
    );
    std::fs::write(d.path("wide.toml"), toml).unwrap();
    for engine in ["sim", "mariadb"] {
        let run = quick(&d, &["run", "wide.toml", "--engine", engine], limit).expect_code(2);
        assert!(run.stderr.contains("row size too large for index PRIMARY"), "{}", run.stderr);
        assert!(run.stderr.contains("page size 4096"), "{}", run.stderr);
    }
}

#[test]
fn a_truncated_tablespace_is_named_truncated() {
    let d = Dir::new();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ulid-2000.ibd");
    let bytes = std::fs::read(fixture).unwrap();
    std::fs::write(d.path("cut.ibd"), &bytes[..4 * 16384]).unwrap();
    let run = d.keylab(&["inspect", "cut.ibd"]).expect_code(0);
    let want = "cut.ibd is truncated: its header says 13 pages, the file holds 4";
    assert!(run.stderr.contains(want), "{}", run.stderr);
    assert!(run.stdout.contains(want), "{}", run.stdout);
    let json = d.keylab(&["inspect", "cut.ibd", "--json"]).expect_code(0);
    assert!(json.stdout.contains("\"header_pages\": 13"), "{}", json.stdout);
    let whole = d.keylab(&["inspect", fixture]).expect_code(0);
    assert!(!whole.stderr.contains("truncated"), "{}", whole.stderr);
}

/// A port that accepts connections and never answers: the error names the time it waited,
/// and that is how long it took.
#[test]
fn a_silent_url_fails_in_the_time_it_names() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for conn in listener.incoming().take(4) {
            open.push(conn);
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    let url = format!("mysql://u@127.0.0.1:{port}/k");
    let started = Instant::now();
    let run = Dir::new()
        .keylab(&["compare", "--engine", "mariadb", "--url", &url, "--rows", "10"])
        .expect_code(1);
    let took = started.elapsed();
    assert!(run.stderr.contains("within 5 s"), "{}", run.stderr);
    assert!(took >= Duration::from_secs(4) && took < Duration::from_secs(8), "took {took:?}");
    drop(held);
}

/// A listener that accepts connections and never answers, for `secs` seconds.
fn silent_port(secs: u64) -> (u16, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        listener.set_nonblocking(true).unwrap();
        let mut open = Vec::new();
        let end = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < end {
            if let Ok(conn) = listener.accept() {
                open.push(conn);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    (port, held)
}

/// PostgreSQL `--url` compare and validate, and `advise --url` on both engines, against a
/// port that accepts and never answers: each fails within the connect timeout, naming the
/// address and the time, with the exit code of other connection failures (1).
#[test]
fn silent_servers_fail_every_url_command_in_the_time_named() {
    let (port, _held) = silent_port(60);
    let pg = format!("postgres://u@127.0.0.1:{port}/k");
    let my = format!("mysql://u@127.0.0.1:{port}/k");
    let cases: [&[&str]; 4] = [
        &["compare", "--engine", "postgres", "--url", &pg, "--rows", "10"],
        &["validate", "--engine", "postgres", "--url", &pg],
        &["advise", "--url", &pg, "--table", "public.t"],
        &["advise", "--url", &my, "--table", "k.t"],
    ];
    for args in cases {
        let started = Instant::now();
        // Under `timeout 60` (exit 124), so that a hang fails the test instead of stalling it.
        let run = capped(&Dir::new(), args).expect_code(1);
        let took = started.elapsed();
        assert!(run.stderr.contains("within 5 s"), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(&format!("127.0.0.1:{port}")), "{args:?}: {}", run.stderr);
        assert!(took < Duration::from_secs(12), "{args:?} took {took:?}");
    }
}

/// Every accepted `--writers` can connect to a private instance (its `max_connections` was
/// the default 151, so 152 and more failed after the server started).
#[test]
fn the_most_writers_accepted_connect_to_a_private_server() {
    if !server_installed("the_most_writers_accepted_connect") {
        return;
    }
    let run = Dir::new()
        .keylab(&[
            "compare",
            "--engine",
            "mariadb",
            "--keys",
            "ulid",
            "--rows",
            "512",
            "--batch",
            "2",
            "--writers",
            "256",
            "--format",
            "json",
        ])
        .expect_code(0);
    assert!(run.stdout.contains("\"writers\": 256"), "{}", run.stdout);
}
