//! Buffer pool and change buffer figures in `keylab run` results: present and sane where the
//! simulator models a pool (E4), absent where it does not (E1 has no pool size), and the
//! device model's times named as estimates.

use crate::util::Dir;
use serde_json::Value;

fn run_json(args: &[&str]) -> Value {
    let run = Dir::new().keylab(args).expect_code(0);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}):\n{}", run.stdout))
}

#[test]
fn e4_reports_buffer_pool_and_change_buffer_figures() {
    let v = run_json(&["run", "e4-change-buffer", "--scale", "0.001", "--format", "json"]);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for r in runs {
        let bp = &r["buffer_pool"];
        assert!(bp.is_object(), "no buffer_pool in {r}");
        // The scaled pool's floor: the server's minimum for the run's page size.
        let floor: u64 = if r["phases"][0]["page_size_bytes"] == 4096 { 5 << 20 } else { 6 << 20 };
        assert_eq!(bp["pool_bytes"], floor);
        let hit = bp["hit_ratio"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&hit), "{bp}");
        let requests = bp["page_requests"].as_u64().unwrap();
        let reads = bp["pages_read"].as_u64().unwrap();
        assert!(requests > 0 && reads <= requests, "{bp}");
        assert_eq!(bp["pages_read"], r["counters"]["pages_read"]);
        assert_eq!(r["counters"]["page_requests"], requests);
        let per_op = bp["misses_per_op"].as_f64().unwrap();
        let ops = bp["row_ops"].as_u64().unwrap();
        assert!((per_op - reads as f64 / ops as f64).abs() < 1e-9, "{bp}");
        // The device model's times are named as estimates; nothing unprefixed carries them.
        let keys: Vec<&str> = bp.as_object().unwrap().keys().map(String::as_str).collect();
        assert!(keys.iter().filter(|k| k.contains("io_s")).all(|k| k.starts_with("est_")));
        let (hdd, ssd) =
            (bp["est_io_s_hdd"].as_f64().unwrap(), bp["est_io_s_ssd"].as_f64().unwrap());
        assert!(hdd > ssd && ssd > 0.0, "{bp}");
        assert!(bp["change_buffer"]["merged"].as_u64().is_some(), "{bp}");
        // Per phase: the load and churn deltas carry the same figures.
        for p in &r["phases"].as_array().unwrap()[1..] {
            let h = p["hit_ratio"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&h), "{p}");
            assert!(p["est_io_s_hdd"].as_f64().is_some(), "{p}");
        }
    }
    // Change buffering on at 16k pages buffers secondary-index changes; off buffers none.
    assert!(runs[0]["buffer_pool"]["change_buffer"]["buffered"].as_u64().unwrap() > 0);
    assert_eq!(runs[1]["buffer_pool"]["change_buffer"]["buffered"], 0);
}

#[test]
fn no_pool_size_means_no_buffer_pool_figures() {
    let v = run_json(&["compare", "--keys", "uuid4:text", "--rows", "2000", "--format", "json"]);
    let r = &v["runs"][0];
    assert!(r.get("buffer_pool").is_none(), "{r}");
    assert!(r["counters"].get("page_requests").is_none(), "{r}");
    assert!(r["counters"]["pages_read"].is_null(), "{r}");
}

#[test]
fn e4_table_labels_estimates() {
    let run = Dir::new()
        .keylab(&["run", "e4-change-buffer", "--scale", "0.001", "--format", "markdown"])
        .expect_code(0);
    assert!(run.stdout.contains("hit ratio"), "{}", run.stdout);
    assert!(run.stdout.contains("est. I/O time, HDD model (s)"), "{}", run.stdout);
    assert!(run.stdout.contains("never measured"), "{}", run.stdout);
}

#[test]
fn compare_buffer_pool_reports_io_and_a_curve_where_random_keys_turn() {
    let v = run_json(&[
        "compare",
        "--keys",
        "uuid4:text,uuid7:text",
        "--rows",
        "200000",
        "--buffer-pool",
        "6M",
        "--format",
        "json",
    ]);
    assert_eq!(v["engine"]["settings"]["innodb_buffer_pool_size"], 6u64 << 20);
    let runs = v["runs"].as_array().unwrap();
    let curve = |r: &Value| r["buffer_pool"]["curve"].as_array().unwrap().clone();
    for r in runs {
        let bp = &r["buffer_pool"];
        let (reads, ops) = (bp["pages_read"].as_u64().unwrap(), bp["row_ops"].as_u64().unwrap());
        let per_1k = bp["reads_per_1k_rows"].as_f64().unwrap();
        assert!((per_1k - reads as f64 * 1000.0 / ops as f64).abs() < 1e-9, "{bp}");
        assert!(bp["writes_per_1k_rows"].as_f64().is_some(), "{bp}");
        // Of the reads, index pages: all but a few file-space pages (FSP header, inode,
        // extent descriptors), under 1 % of a random key's.
        let index_reads = bp["index_pages_read"].as_u64().unwrap();
        assert!(index_reads <= reads && (reads - index_reads) * 100 <= reads.max(100), "{bp}");
        let c = curve(r);
        assert!((50..=101).contains(&c.len()), "{} points", c.len());
        assert_eq!(c.last().unwrap()["rows"], 200_000);
        assert_eq!(c.last().unwrap()["pages_read"], reads);
    }
    // Random keys read once their leaf level outgrows the pool; ordered keys do not.
    let late = |r: &Value| curve(r).last().unwrap()["reads_per_1k_rows"].as_f64().unwrap();
    assert!(late(&runs[0]) > 100.0, "uuid4:text {}", late(&runs[0]));
    assert!(late(&runs[1]) < 1.0, "uuid7:text {}", late(&runs[1]));
    assert_eq!(curve(&runs[0])[0]["reads_per_1k_rows"], 0.0);
}

#[test]
fn compare_without_buffer_pool_has_no_io_figures() {
    let v = run_json(&["compare", "--keys", "uuid4:text", "--rows", "2000", "--format", "json"]);
    assert_eq!(v["runs"][0]["buffer_pool"], Value::Null);
    assert_eq!(v["runs"][0]["counters"]["pages_read"], Value::Null);
}

#[test]
fn a_bad_buffer_pool_size_exits_2_naming_the_flag_and_the_forms() {
    let cases = [
        (&[][..], "lots", "64M, 1G, 16MiB"),
        (&[][..], "1M", "smallest pool MariaDB starts with"),
        // PostgreSQL alone: its own floor, 16 buffers.
        (&["--model", "postgres-15"][..], "100K", "PostgreSQL's smallest shared_buffers: 128 kB"),
        (&["--model", "postgres-15,mariadb-10.11"][..], "1M", "smallest pool MariaDB"),
    ];
    for (engine, size, says) in cases {
        let mut args = vec!["compare", "--buffer-pool", size];
        args.extend_from_slice(engine);
        let run = Dir::new().keylab(&args).expect_code(2);
        assert!(
            run.stderr.contains("--buffer-pool") && run.stderr.contains(says),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn run_buffer_pool_bounds_every_run_of_a_scenario() {
    let v = run_json(&[
        "run",
        "e1-uuid-vs-ulid",
        "--scale",
        "0.005",
        "--buffer-pool",
        "8M",
        "--format",
        "json",
    ]);
    assert_eq!(v["engine"]["settings"]["innodb_buffer_pool_size"], 8u64 << 20);
    let runs = v["runs"].as_array().unwrap();
    assert!(!runs.is_empty());
    for r in runs {
        assert_eq!(r["buffer_pool"]["pool_bytes"], 8u64 << 20, "{}", r["variant"]);
        assert!(r["buffer_pool"]["pages_read"].as_u64().is_some(), "{}", r["variant"]);
    }
    // Below the floor at the scenario's page size: exit 2 naming the flag and the run.
    let run = Dir::new().keylab(&["run", "e1-uuid-vs-ulid", "--buffer-pool", "1M"]).expect_code(2);
    assert!(run.stderr.contains("--buffer-pool") && run.stderr.contains("6 MiB"), "{}", run.stderr);
}

/// The default page cleaner, 10.11.9's (`--page-cleaner 10.11.9`): a written page stays for
/// the next batch, which under 80 MiB goes down to 5 % of the pool; `--page-cleaner 10.11.0`
/// the earlier rules. A run with a pool says which; one without says nothing. Under a 6 MiB
/// pool a random key's batch then writes pages that inserts dirty again before the next batch
/// frees them: more writes, fewer reads (docs/model-rules.md §9).
#[test]
fn compare_page_cleaner_10_11_9_keeps_written_pages_for_the_next_batch() {
    let run = |extra: &[&str]| {
        let mut args = vec!["compare", "--keys", "uuid4:text", "--rows", "60000"];
        args.extend(["--format", "json"]);
        args.extend(extra);
        run_json(&args)
    };
    let pool = ["--buffer-pool", "6M"];
    let (old, new) = (run(&[&pool[..], &["--page-cleaner", "10.11.0"]].concat()), run(&pool));
    assert_eq!(old["engine"]["settings"]["page_cleaner"], "MariaDB 10.11.0 rules");
    assert_eq!(new["engine"]["settings"]["page_cleaner"], "MariaDB 10.11.9 rules");
    assert_eq!(new, run(&[&pool[..], &["--page-cleaner", "10.11.9"]].concat()));
    assert_eq!(run(&[])["engine"]["settings"]["page_cleaner"], Value::Null);
    let io = |v: &Value, k: &str| v["runs"][0]["buffer_pool"][k].as_u64().unwrap();
    assert!(io(&new, "pages_written") > io(&old, "pages_written"), "{old} {new}");
    assert!(io(&new, "pages_read") < io(&old, "pages_read"), "{old} {new}");
}
