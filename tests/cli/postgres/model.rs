//! The nbtree model (`--model postgres-15`) against a real private PostgreSQL 15 on the same
//! ids: leaf pages within 0.5 %, `avg_leaf_density` within 0.3 points, internal pages, height
//! and heap pages equal. The server side is driven with PostgreSQL's own binaries (`initdb`,
//! `pg_ctl`, `psql`'s `\copy`, pgstattuple's `pgstatindex`) until keylab's PostgreSQL engine
//! takes this over (`keylab validate --engine postgres`). Without PostgreSQL 15 the test
//! prints SKIPPED, except under `CI=true`, where that fails. Run as root, the server runs as
//! the `postgres` user (PostgreSQL refuses root).

use crate::util::Dir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = "/usr/lib/postgresql/15/bin";

/// A throwaway PostgreSQL 15 on a Unix socket in a temporary directory; stopped and removed
/// on drop.
struct Pg {
    dir: tempfile::TempDir,
    port: u16,
    as_postgres: bool,
}

impl Pg {
    fn start() -> Option<Pg> {
        if !Path::new(BIN).join("initdb").exists() {
            let ci = std::env::var("CI").unwrap_or_default();
            assert!(
                ci != "true" && ci != "1",
                "CI={ci} but PostgreSQL 15 is not installed in {BIN}"
            );
            eprintln!("SKIPPED: pg_model: PostgreSQL 15 is not installed ({BIN}/initdb)");
            return None;
        }
        let dir = tempfile::Builder::new().prefix("keylab-pgtest-").tempdir().expect("temp dir");
        let root =
            Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
        if root {
            let ok = Command::new("chown").arg("postgres").arg(dir.path()).status();
            assert!(ok.is_ok_and(|s| s.success()), "chown to postgres");
        }
        let port = 20_000 + (std::process::id() % 20_000) as u16;
        let pg = Pg { dir, port, as_postgres: root };
        let data = pg.data();
        pg.server(&[
            "initdb",
            "-D",
            &data,
            "-A",
            "trust",
            "-U",
            "postgres",
            "--locale=C",
            "-E",
            "UTF8",
        ]);
        let opts = format!(
            "-k {} -p {} -c listen_addresses='' -c autovacuum=off -c fsync=off",
            pg.dir.path().display(),
            pg.port
        );
        let log = pg.dir.path().join("log").display().to_string();
        pg.server(&["pg_ctl", "-D", &data, "-l", &log, "-w", "-o", &opts, "start"]);
        pg.sql("create extension pgstattuple");
        Some(pg)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn server(&self, args: &[&str]) {
        let exe = PathBuf::from(BIN).join(args[0]);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        };
        let out = cmd.args(&args[1..]).output().expect("run a PostgreSQL binary");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn sql(&self, sql: &str) -> String {
        let out = Command::new(PathBuf::from(BIN).join("psql"))
            .args(["-h", &self.dir.path().display().to_string(), "-p", &self.port.to_string()])
            .args(["-U", "postgres", "-Atq", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .output()
            .expect("run psql");
        assert!(out.status.success(), "{sql}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        let data = self.data();
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.server(&["pg_ctl", "-D", &data, "-m", "immediate", "-w", "stop"])
        }));
    }
}

/// Figures of one index: leaf pages, internal pages, levels, density.
#[derive(Debug, Clone, Copy)]
struct Shape {
    leaf: f64,
    internal: u64,
    height: u64,
    density: f64,
}

/// One case on both sides; returns (model, server) shapes per index and heap pages.
fn case(
    pg: &Pg,
    d: &Dir,
    variant: &str,
    pg_type: &str,
    gen: &[&str],
    placement: &str,
) -> (Vec<(Shape, Shape)>, u64, u64) {
    const ROWS: usize = 100_000;
    let identity = variant == "auto-inc";
    let keys = d.path(&format!("{}.txt", variant.replace(':', "_")));
    let mut args = vec!["compare", "--model", "postgres-15", "--keys", variant, "--rows", "100000"];
    args.extend(["--placement", placement, "--format", "json"]);
    let keys_s = keys.display().to_string();
    if !identity {
        let mut k = vec!["keys", variant, "--count", "100000"];
        k.extend_from_slice(gen);
        let ids = d.keylab(&k).expect_code(0).stdout;
        std::fs::write(&keys, ids.lines().map(|id| format!("{id}\tdata\n")).collect::<String>())
            .unwrap();
        std::fs::write(d.path("ids.txt"), &ids).unwrap();
        args.extend(["--keys-file", "ids.txt"]);
    } else {
        std::fs::write(&keys, "data\n".repeat(ROWS)).unwrap();
    }
    let v: Value = serde_json::from_str(&d.keylab(&args).expect_code(0).stdout).unwrap();
    let run = &v["runs"][0];
    let id_col = if identity {
        "id bigint generated always as identity".to_string()
    } else {
        format!("id {pg_type} not null")
    };
    let ddl = if placement == "pk" {
        format!("drop table if exists t; create table t ({id_col} primary key, data varchar(255))")
    } else {
        let id_col = if identity { "id bigint not null".into() } else { id_col };
        format!(
            "drop table if exists t; create table t (pk bigint generated always as identity \
             primary key, {id_col}, data varchar(255)); create index k_id on t (id)"
        )
    };
    pg.sql(&ddl);
    let cols = if identity && placement == "pk" { "(data)" } else { "(id, data)" };
    if identity && placement == "secondary" {
        // The id as keylab's auto-inc sends it there: 1, 2, 3...
        let lines: String = (1..=ROWS).map(|i| format!("{i}\tdata\n")).collect();
        std::fs::write(&keys, lines).unwrap();
    }
    pg.sql(&format!("\\copy t{cols} from '{keys_s}'"));
    let mut out = Vec::new();
    let names: &[&str] = if placement == "pk" { &["t_pkey"] } else { &["t_pkey", "k_id"] };
    for (i, name) in names.iter().enumerate() {
        let row = pg.sql(&format!(
            "select leaf_pages, internal_pages, tree_level, avg_leaf_density from pgstatindex('{name}')"
        ));
        let f: Vec<f64> = row.split('|').map(|x| x.parse().unwrap()).collect();
        let server =
            Shape { leaf: f[0], internal: f[1] as u64, height: f[2] as u64 + 1, density: f[3] };
        let ix = &run["indexes"][i];
        let model = Shape {
            leaf: ix["leaf_pages"].as_f64().unwrap(),
            internal: ix["nonleaf_pages"].as_u64().unwrap(),
            height: ix["height"].as_u64().unwrap(),
            density: ix["avg_leaf_density"].as_f64().unwrap(),
        };
        out.push((model, server));
    }
    let heap_server: u64 = pg.sql("select pg_relation_size('t') / 8192").parse().unwrap();
    let heap_model = run["postgres"]["heap_pages"].as_u64().unwrap();
    (out, heap_model, heap_server)
}

#[test]
fn the_nbtree_model_builds_the_servers_tree() {
    let Some(pg) = Pg::start() else { return };
    let d = Dir::new();
    let cases: [(&str, &str, &[&str]); 5] = [
        ("uuid4:bin", "uuid", &[]),
        ("uuid7:bin", "uuid", &[]),
        ("uuid7:bin", "uuid", &["--ids-per-ms", "100", "--within-ms", "random"]),
        ("auto-inc", "bigint", &[]),
        ("uuid4:text", "varchar(36) collate \"C\"", &[]),
    ];
    let mut failures = Vec::new();
    eprintln!("case | index | leaf model/server | density model/server | internal | height");
    for (variant, ty, gen) in cases {
        for placement in ["pk", "secondary"] {
            let (shapes, heap_m, heap_s) = case(&pg, &d, variant, ty, gen, placement);
            let name = format!("{variant} {} {placement}", gen.join(" "));
            for (i, (m, s)) in shapes.iter().enumerate() {
                eprintln!(
                    "{name} | {i} | {}/{} | {:.2}/{:.2} | {}/{} | {}/{}",
                    m.leaf,
                    s.leaf,
                    m.density,
                    s.density,
                    m.internal,
                    s.internal,
                    m.height,
                    s.height
                );
                let ok = (m.leaf - s.leaf).abs() <= s.leaf * 0.005
                    && (m.density - s.density).abs() <= 0.3
                    && m.internal == s.internal
                    && m.height == s.height;
                if !ok {
                    failures.push(format!("{name} index {i}: model {m:?} server {s:?}"));
                }
            }
            if heap_m != heap_s {
                failures.push(format!("{name}: heap pages model {heap_m} server {heap_s}"));
            }
        }
    }
    assert!(failures.is_empty(), "outside the bounds:\n{}", failures.join("\n"));
}
