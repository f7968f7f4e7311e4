//! `keylab advise` on PostgreSQL tables under PostgreSQL's own limits: text keys on the
//! nbtree model (MariaDB's errors 1170 and 1074 only where the table runs on InnoDB),
//! `date` keys and indexes of more than four columns on the nbtree model, and
//! `BTMaxItemSize`.

use crate::util::{json, Dir};

const USERS: &str = include_str!("../../fixtures/advise/pg_users.sql");

fn notes(r: &serde_json::Value) -> String {
    r["engine"]["settings"]["notes"].to_string()
}

/// `pg_users.sql` with `bio text` and a long `character varying` indexed.
fn users_with_text_index() -> String {
    USERS.replace(
        "    bio text\n",
        "    bio text,\n    note character varying COLLATE pg_catalog.\"C\"\n",
    ) + "CREATE INDEX users_bio ON public.users USING btree (bio);\n\
           CREATE INDEX users_note ON public.users USING btree (note);\n"
}

#[test]
fn a_text_index_runs_on_the_nbtree_model_with_the_collation_said() {
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), users_with_text_index()).unwrap();
    for model in [None, Some("postgres-15")] {
        let mut args = vec!["advise", "u.sql", "--rows", "2000", "--keys", "uuid7:bin"];
        args.extend(model.iter().flat_map(|m| ["--model", m]));
        args.extend(["--format", "json"]);
        let run = d.keylab(&args).expect_code(0);
        let r = json(&run.stdout);
        assert_eq!(r["engine"]["model"], "postgres-15", "{model:?}");
        let n = notes(&r);
        assert!(n.contains("text key columns (email, handle, bio, note)"), "{n}");
        assert!(n.contains("as under COLLATE \\\"C\\\""), "{n}");
        assert!(!n.contains("1170"), "{n}");
        assert_eq!(r["runs"][0]["indexes"].as_array().unwrap().len(), 6);
    }
    // On InnoDB the same index is MariaDB's error 1170, said to be MariaDB's.
    let run = d.keylab(&["advise", "u.sql", "--model", "mariadb-10.11"]).expect_code(2);
    assert!(run.stderr.contains("error 1170"), "{}", run.stderr);
    assert!(run.stderr.contains("runs on InnoDB here; --model postgres-15"), "{}", run.stderr);
}

#[test]
fn mariadb_column_limits_do_not_apply_to_postgres() {
    let d = Dir::new();
    // 65,535 characters is over MariaDB's utf8mb4 VARCHAR (error 1074), fine on PostgreSQL.
    let sql = USERS.replace("handle character varying(40)", "handle character varying(65535)");
    std::fs::write(d.path("u.sql"), sql).unwrap();
    let run = d.keylab(&["advise", "u.sql", "--rows", "500", "--format", "json"]).expect_code(0);
    assert_eq!(json(&run.stdout)["engine"]["model"], "postgres-15");
    let run = d.keylab(&["advise", "u.sql", "--model", "mariadb-10.11"]).expect_code(2);
    assert!(run.stderr.contains("error 1074"), "{}", run.stderr);
}

#[test]
fn postgres_limits_refuse_with_their_names() {
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), users_with_text_index()).unwrap();
    // A text value over a third of a page fails the server's insert: refused before the run.
    let run = d
        .keylab(&["advise", "u.sql", "--engine", "postgres", "--width", "bio=3000"])
        .expect_code(2);
    assert!(run.stderr.contains("BTMaxItemSize"), "{}", run.stderr);
    assert!(run.stderr.contains("users_bio"), "{}", run.stderr);
    // The model keeps key values up to what fits in BTMaxItemSize (2692 bytes in a
    // one-column index tuple): a wider one is refused naming --width.
    let run = d.keylab(&["advise", "u.sql", "--width", "bio=3000"]).expect_code(2);
    assert!(run.stderr.contains("--width bio=1..=2692"), "{}", run.stderr);
    d.keylab(&["advise", "u.sql", "--rows", "300", "--width", "bio=2000"]).expect_code(0);
    // A length-less varchar key: its ids' length, not the type's 65,535, is what is checked.
    let sql =
        "CREATE TABLE public.schema_migrations (\n    version character varying NOT NULL\n);\n\
               ALTER TABLE ONLY public.schema_migrations\n    \
               ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);\n";
    std::fs::write(d.path("m.sql"), sql).unwrap();
    let run =
        d.keylab(&["advise", "m.sql", "--rows", "300", "--keys", "uuid4:text"]).expect_code(0);
    assert!(!run.stderr.contains("BTMaxItemSize"), "{}", run.stderr);
    // 33 key columns: over INDEX_MAX_KEYS.
    let cols: Vec<String> = (0..33).map(|i| format!("    c{i} integer NOT NULL")).collect();
    let names: Vec<String> = (0..33).map(|i| format!("c{i}")).collect();
    let sql = format!(
        "CREATE TABLE public.w (\n    id bigint NOT NULL,\n{}\n);\n\
         ALTER TABLE ONLY public.w ADD CONSTRAINT w_pkey PRIMARY KEY (id);\n\
         CREATE INDEX w_all ON public.w USING btree ({});\n",
        cols.join(",\n"),
        names.join(", ")
    );
    std::fs::write(d.path("w.sql"), sql).unwrap();
    let run = d.keylab(&["advise", "w.sql", "--model", "postgres-15"]).expect_code(2);
    assert!(run.stderr.contains("INDEX_MAX_KEYS"), "{}", run.stderr);
}

#[test]
fn date_keys_and_wide_indexes_run_on_the_nbtree_model() {
    let d = Dir::new();
    let sql = USERS.replace("    bio text\n", "    bio text,\n    born date NOT NULL\n")
        + "CREATE INDEX users_born ON public.users USING btree (born);\n\
           CREATE INDEX users_wide ON public.users USING btree \
           (created_at, born, handle, plan, email, id);\n";
    std::fs::write(d.path("u.sql"), sql).unwrap();
    let run = d
        .keylab(&["advise", "u.sql", "--rows", "3000", "--keys", "uuid7:bin", "--format", "json"])
        .expect_code(0);
    let r = json(&run.stdout);
    assert_eq!(r["engine"]["model"], "postgres-15");
    assert!(!notes(&r).contains("modelled as InnoDB"), "{}", notes(&r));
    let ix = r["runs"][0]["indexes"].as_array().unwrap();
    let wide = ix.iter().find(|i| i["name"] == "users_wide").expect("users_wide measured");
    assert!(wide["leaf_pages"].as_u64() > Some(1), "{wide}");
}

/// Two index names of 70 characters sharing their first 63: PostgreSQL cuts identifiers at
/// 63 bytes, so keylab names them on the server shortened with a digest of the whole name
/// and reports them under the user's names (before: exit 1, "relation ... already exists").
#[test]
fn long_index_names_do_not_collide_on_postgres() {
    if !keylab_pg_server::installed_or_skip("long_index_names_do_not_collide_on_postgres") {
        return;
    }
    let d = Dir::new();
    let stem = "users_".to_string() + &"x".repeat(57);
    let (a, b) = (format!("{stem}_handle"), format!("{stem}_create"));
    assert_eq!((a.len(), b.len()), (70, 70));
    let sql = USERS
        .replace("INDEX users_handle ON", &format!("INDEX {a} ON"))
        .replace("INDEX users_created ON", &format!("INDEX {b} ON"));
    std::fs::write(d.path("u.sql"), sql).unwrap();
    let run = |engine: &str| {
        let out = d
            .keylab(&[
                "advise",
                "u.sql",
                "--rows",
                "3000",
                "--keys",
                "uuid7:bin",
                "--engine",
                engine,
                "--format",
                "json",
            ])
            .expect_code(0);
        json(&out.stdout)
    };
    let (sim, server) = (run("sim"), run("postgres"));
    for (s, m) in sim["runs"].as_array().unwrap().iter().zip(server["runs"].as_array().unwrap()) {
        let names = |r: &serde_json::Value| {
            let mut n: Vec<String> = r["indexes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["name"].as_str().unwrap().to_string())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(s), names(m));
        assert!(names(m).contains(&a) && names(m).contains(&b), "{:?}", names(m));
        for ix in s["indexes"].as_array().unwrap() {
            let other = m["indexes"].as_array().unwrap().iter().find(|i| i["name"] == ix["name"]);
            assert_eq!(ix["leaf_pages"], other.unwrap()["leaf_pages"], "{}", ix["name"]);
        }
    }
}

/// Text keys longer than the model's default sort-key width (64 bytes, its limit before):
/// `bio` values of 1,500 bytes (4-byte varlena headers, five tuples a leaf) and `note`
/// values of 300 give the same pages per index and heap pages on the nbtree model and on a
/// private PostgreSQL 15. (Random letters and digits: the server's index tuple compression,
/// tried above 512 bytes, saves nothing and keeps them whole; heap tuples stay under
/// TOAST's 2 KiB.)
#[test]
fn long_text_keys_agree_with_private_postgres() {
    if !keylab_pg_server::installed_or_skip("long_text_keys_agree_with_private_postgres") {
        return;
    }
    let d = Dir::new();
    std::fs::write(d.path("u.sql"), users_with_text_index()).unwrap();
    let run = |engine: &str| {
        let args = [
            "advise",
            "u.sql",
            "--rows",
            "3000",
            "--keys",
            "auto-inc,uuid7:bin",
            "--width",
            "bio=1500",
            "--width",
            "note=300",
            "--engine",
            engine,
            "--format",
            "json",
        ];
        json(&d.keylab(&args).expect_code(0).stdout)
    };
    let (sim, server) = (run("sim"), run("postgres"));
    assert_eq!(sim["engine"]["model"], "postgres-15");
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!((sim.len(), server.len()), (3, 3));
    for (s, m) in sim.iter().zip(server) {
        for a in s["indexes"].as_array().unwrap() {
            let b = m["indexes"].as_array().unwrap().iter().find(|b| b["name"] == a["name"]);
            let b = b.expect("same index names");
            for k in ["size_pages", "leaf_pages"] {
                assert_eq!(a[k], b[k], "{} {} {k}", s["variant"], a["name"]);
            }
        }
        assert_eq!(s["postgres"]["heap_pages"], m["postgres"]["heap_pages"], "{}", s["variant"]);
    }
    let bio = sim[0]["indexes"].as_array().unwrap().iter().find(|i| i["name"] == "users_bio");
    assert!(bio.unwrap()["leaf_pages"].as_u64() > Some(500), "five 1,512-byte tuples a leaf");
}

/// A table name of 70 bytes and an enum (`CREATE TYPE ... AS ENUM`) in a key: PostgreSQL
/// cuts a name at 63 bytes, so keylab names the table on the server shortened with a digest
/// of the whole name (two such names sharing their first 63 bytes stay apart), and creates
/// the enum as an enum type of its own whose values are the labels. The model (4-byte
/// values) and the server give the same pages.
#[test]
fn long_table_names_and_enums_on_private_postgres() {
    if !keylab_pg_server::installed_or_skip("long_table_names_and_enums_on_private_postgres") {
        return;
    }
    let d = Dir::new();
    let long = format!("users_{}", "x".repeat(64));
    let sql =
        format!(
            "CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'it''s fine');\n{}",
            USERS
                .replace("public.users", &format!("public.{long}"))
                .replace("    bio text\n", "    bio text,\n    mood public.mood NOT NULL\n",)
        ) + &format!("CREATE INDEX users_mood ON public.{long} USING btree (mood, created_at);\n");
    std::fs::write(d.path("u.sql"), sql).unwrap();
    let run = |engine: &str| {
        let args = [
            "advise", "u.sql", "--rows", "3000", "--keys", "auto-inc", "--engine", engine,
            "--format", "json",
        ];
        json(&d.keylab(&args).expect_code(0).stdout)
    };
    let (sim, server) = (run("sim"), run("postgres"));
    assert_eq!(sim["engine"]["model"], "postgres-15");
    assert!(!notes(&server).contains("built on PostgreSQL as"), "{}", notes(&server));
    let (sim, server) = (sim["runs"].as_array().unwrap(), server["runs"].as_array().unwrap());
    assert_eq!((sim.len(), server.len()), (2, 2));
    for (s, m) in sim.iter().zip(server) {
        assert_eq!(s["indexes"].as_array().unwrap().len(), 5, "{}", s["variant"]);
        for a in s["indexes"].as_array().unwrap() {
            let b = m["indexes"].as_array().unwrap().iter().find(|b| b["name"] == a["name"]);
            let b = b.unwrap_or_else(|| panic!("{} on the server", a["name"]));
            for k in ["size_pages", "leaf_pages"] {
                assert_eq!(a[k], b[k], "{} {} {k}", s["variant"], a["name"]);
            }
        }
        assert_eq!(s["postgres"]["heap_pages"], m["postgres"]["heap_pages"], "{}", s["variant"]);
    }
}
