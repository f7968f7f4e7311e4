//! A flag typed for another engine than the run's is refused (exit 2) naming the flag, why,
//! and what it applies to, before any engine starts; the same flag where it applies, or a
//! flag left at its default, is not. One table of cases over every engine-specific flag.

use crate::util::Dir;

#[test]
fn engine_specific_flags_are_refused_where_they_do_nothing() {
    let d = Dir::new();
    // (arguments, the flag named, what it applies to)
    let refused: &[(&[&str], &str, &str)] = &[
        (
            &["compare", "--collation", "C", "--engine", "mariadb"],
            "--collation",
            "--engine postgres",
        ),
        (&["compare", "--collation", "C"], "--collation", "--engine postgres"),
        (
            &["compare", "--interleave", "serial", "--engine", "mariadb"],
            "--interleave",
            "InnoDB models",
        ),
        (
            &["compare", "--interleave", "serial", "--model", "postgres-15"],
            "--interleave",
            "InnoDB models",
        ),
        (&["compare", "--page-cleaner", "10.11.0"], "--page-cleaner", "--buffer-pool"),
        (
            &[
                "compare",
                "--page-cleaner",
                "10.11.0",
                "--buffer-pool",
                "64M",
                "--engine",
                "postgres",
            ],
            "--page-cleaner",
            "--buffer-pool",
        ),
        (
            &["compare", "--check-every", "100", "--engine", "postgres"],
            "--check-every",
            "simulator",
        ),
        (&["compare", "--database", "kl"], "--database", "a server only"),
        (&["compare", "--page-size", "8k", "--engine", "postgres"], "--page-size", "InnoDB only"),
        (&["compare", "--page-size", "8k", "--model", "postgres-15"], "--page-size", "InnoDB only"),
        (
            &["compare", "--perf-schema", "--engine", "postgres"],
            "--perf-schema",
            "MariaDB and MySQL",
        ),
        (&["run", "e1-uuid-vs-ulid", "--collation", "C"], "--collation", "--engine postgres"),
        (
            &["run", "e1-uuid-vs-ulid", "--interleave", "rows", "--engine", "mysql"],
            "--interleave",
            "InnoDB models",
        ),
        (
            &["run", "e1-uuid-vs-ulid", "--page-cleaner", "10.11.9"],
            "--page-cleaner",
            "--buffer-pool",
        ),
        (&["run", "e1-uuid-vs-ulid", "--database", "kl"], "--database", "a server only"),
        (&["validate", "--collation", "C"], "--collation", "--engine postgres"),
        (&["validate", "--skip-pool", "--shards", "2"], "--skip-pool", "unsharded"),
    ];
    for (args, flag, applies) in refused {
        let run = d.keylab(args);
        assert_eq!(run.code, 2, "{args:?} was not refused:\n{}", run.stderr);
        let want = format!("keylab: error: {flag}: does nothing on this run");
        assert!(run.stderr.contains(&want), "{args:?}: no {want:?}:\n{}", run.stderr);
        let said = run.stderr.split("it applies to").nth(1).unwrap_or("");
        assert!(said.contains(applies), "{args:?}:\n{}", run.stderr);
    }
    // Where they apply, or at their defaults, they run (on the simulator, small).
    let small = ["--rows", "200", "--keys", "auto-inc", "--format", "json"];
    let ok: &[&[&str]] = &[
        &["compare", "--interleave", "serial", "--writers", "2"],
        &["compare", "--page-cleaner", "10.11.0", "--buffer-pool", "16M"],
        &["compare", "--check-every", "100"],
        &["compare", "--check-every", "100", "--model", "postgres-15"],
        &["compare", "--page-size", "8k"],
        &["compare", "--perf-schema"],
        &["compare", "--interleave", "rows", "--model", "mariadb-10.11,postgres-15"],
    ];
    for args in ok {
        let mut all = args.to_vec();
        all.extend_from_slice(&small);
        let run = d.keylab(&all);
        assert_eq!(run.code, 0, "{all:?}:\n{}", run.stderr);
    }
    // A scenario's [engine] buffer_pool is a bound pool too.
    let scenario = "name = \"p\"\nvariants = [\"auto-inc\"]\n[engine]\nbuffer_pool = \"16M\"\n\
                    [[tables]]\nname = \"t\"\nid = { name = \"id\" }\n[[phases]]\n\
                    load = { rows = 200 }\n";
    std::fs::write(d.path("p.toml"), scenario).unwrap();
    let run = d.keylab(&["run", "p.toml", "--page-cleaner", "10.11.0", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `validate` compares loads only: `--reads` exits 2, and its help says where reads are
/// compared instead.
#[test]
fn validate_takes_no_reads_and_its_help_says_why() {
    let d = Dir::new();
    let run = d.keylab(&["validate", "--reads", "point:10"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--reads"), "{}", run.stderr);
    let help = d.keylab(&["validate", "--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("Reads are not part of it"), "{}", help.stdout);
    assert!(help.stdout.contains("compare --reads"), "{}", help.stdout);
}
