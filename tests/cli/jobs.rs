//! `--jobs`: simulator runs in parallel give the same output, byte for byte, as one at a
//! time (the simulator times nothing, so there are no timing fields to leave out).

use crate::util::Dir;

#[test]
fn compare_gives_the_same_json_and_exports_with_one_job_or_four() {
    let d = Dir::new();
    let out = |jobs: &str| {
        let json = d.path(&format!("jobs{jobs}.json"));
        let csv = d.path(&format!("jobs{jobs}.csv"));
        let run = d
            .keylab(&[
                "compare",
                "--rows",
                "20000",
                "--keys",
                "auto-inc,uuid4:text,uuid7:bin,ulid:text,snowflake",
                "--format",
                "json",
                "--jobs",
                jobs,
                "--export-json",
                json.to_str().unwrap(),
                "--export-csv",
                csv.to_str().unwrap(),
            ])
            .expect_code(0);
        let read = |p| std::fs::read_to_string(p).expect("export written");
        (run.stdout, read(json), read(csv))
    };
    let one = out("1");
    let four = out("4");
    assert!(one.0.contains("\"snowflake\""), "{}", one.0);
    assert_eq!(one, four);
}

/// One variant with two jobs (one of them idle) gives the same output as with one job.
#[test]
fn one_variant_gives_the_same_output_with_one_job_or_two() {
    let d = Dir::new();
    let out = |jobs: &str| {
        let args = ["compare", "--rows", "50000", "--keys", "uuid4:text", "--format", "json"];
        let mut args = args.to_vec();
        args.extend(["--jobs", jobs]);
        d.keylab(&args).expect_code(0).stdout
    };
    let one = out("1");
    assert!(one.contains("\"uuid4:text\""), "{one}");
    assert_eq!(one, out("2"));
}

#[test]
fn a_scenario_gives_the_same_json_with_one_job_or_four() {
    let d = Dir::new();
    let out = |jobs: &str| {
        d.keylab(&["run", "e3-id-storage", "--scale", "0.05", "--format", "json", "--jobs", jobs])
            .expect_code(0)
            .stdout
    };
    let one = out("1");
    assert!(one.matches("\"variant\"").count() > 4, "{one}");
    assert_eq!(one, out("4"));
}

#[test]
fn a_bad_jobs_value_exits_2_naming_the_flag() {
    for (cmd, bad) in [("compare", "0"), ("run", "two"), ("validate", "1.5")] {
        let mut args = vec![cmd];
        if cmd == "run" {
            args.push("e3-id-storage");
        }
        args.extend(["--jobs", bad]);
        let run = Dir::new().keylab(&args).expect_code(2);
        assert!(
            run.stderr.contains("--jobs") && run.stderr.contains("whole number from 1"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn help_says_servers_run_one_job_at_a_time() {
    let run = Dir::new().keylab(&["compare", "--help"]).expect_code(0);
    assert!(run.stdout.contains("--jobs <N>"), "{}", run.stdout);
    assert!(run.stdout.contains("one job"), "{}", run.stdout);
}
