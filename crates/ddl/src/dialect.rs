//! Which dialect a file is written in, from marks in its code (never in its comments or
//! strings): each side's marks are counted and the side with more wins; a file with none
//! of either is read as MySQL. The reason names the marks found, for the report.

use crate::scanner::{self, Rules};
use crate::SourceDialect;

/// Marks only PostgreSQL DDL has (searched in lower-case code, strings and comments
/// blanked), with how they are shown.
const PG_MARKS: [(&str, &str); 21] = [
    ("::", "`::` casts"),
    ("pg_catalog", "`pg_catalog`"),
    ("set search_path", "`SET search_path`"),
    ("alter table only", "`ALTER TABLE ONLY`"),
    ("owner to", "`OWNER TO`"),
    ("character varying", "`character varying`"),
    ("time zone", "`WITH/WITHOUT TIME ZONE`"),
    ("timestamptz", "`timestamptz`"),
    ("serial", "`serial`"),
    ("bigserial", "`serial`"),
    ("smallserial", "`serial`"),
    ("bytea", "`bytea`"),
    ("jsonb", "`jsonb`"),
    ("create type", "`CREATE TYPE`"),
    ("create domain", "`CREATE DOMAIN`"),
    ("create extension", "`CREATE EXTENSION`"),
    ("create sequence", "`CREATE SEQUENCE`"),
    (" $$ ", "dollar quotes"),
    ("as identity", "identity columns"),
    ("nextval(", "`nextval(`"),
    ("using btree (", "`USING btree (`"),
];

/// Marks only MySQL/MariaDB DDL has.
const MYSQL_MARKS: [(&str, &str); 15] = [
    ("`", "backquoted names"),
    ("engine=", "`ENGINE=`"),
    ("engine =", "`ENGINE=`"),
    ("auto_increment", "`AUTO_INCREMENT`"),
    ("unsigned", "`UNSIGNED`"),
    ("charset", "`CHARSET`"),
    ("tinyint", "`TINYINT`"),
    ("mediumint", "`MEDIUMINT`"),
    ("datetime", "`DATETIME`"),
    ("longtext", "`LONGTEXT`"),
    ("mediumtext", "`MEDIUMTEXT`"),
    ("/*!", "`/*!...*/` conditional comments"),
    ("lock tables", "`LOCK TABLES`"),
    ("set names", "`SET NAMES`"),
    ("@@", "`@@` system variables"),
];

/// The marks of `marks` found in `masked`, each shown once.
fn found(masked: &str, marks: &[(&'static str, &'static str)]) -> Vec<&'static str> {
    let mut shown: Vec<&'static str> = Vec::new();
    for (mark, show) in marks {
        if contains_mark(masked, mark) && !shown.contains(show) {
            shown.push(show);
        }
    }
    shown
}

/// `mark` in `text`, as a whole word where it starts or ends with a letter (`serial` is not
/// in `myserialno`).
fn contains_mark(text: &str, mark: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let alpha = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphabetic());
    text.match_indices(mark).any(|(i, _)| {
        let end = i + mark.len();
        let after_ok = !alpha(mark.chars().next_back()) || !word(text[end..].chars().next());
        let before_ok = !alpha(mark.chars().next()) || !word(text[..i].chars().next_back());
        after_ok && before_ok
    })
}

/// The dialect of `source` and why, said as the report says it; a file without marks of
/// either dialect goes by its name, `origin` ([`from_file_name`]).
pub(crate) fn detect(source: &str, origin: &str) -> (SourceDialect, String) {
    // Masked with PostgreSQL's rules plus `#` comments: marks inside either dialect's
    // comments and strings do not count.
    let (_, masked) = scanner::split(source, Rules { mysql: false });
    let masked: String = masked
        .lines()
        .map(|l| if l.trim_start().starts_with('#') { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let (_, mysql_masked) = scanner::split(source, Rules { mysql: true });
    let pg = found(&masked, &PG_MARKS);
    let my = found(&mysql_masked, &MYSQL_MARKS);
    let list = |m: &[&str]| m.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if pg.len() > my.len() {
        let also =
            if my.is_empty() { String::new() } else { format!("; MySQL marks {}", list(&my)) };
        (SourceDialect::Postgres, format!("PostgreSQL marks ({}){also}", list(&pg)))
    } else if my.is_empty() {
        from_file_name(origin).unwrap_or((
            SourceDialect::Mysql,
            "no mark of either dialect (the default; --dialect postgres reads it as PostgreSQL)"
                .into(),
        ))
    } else {
        let also =
            if pg.is_empty() { String::new() } else { format!("; PostgreSQL marks {}", list(&pg)) };
        (SourceDialect::Mysql, format!("MySQL marks ({}){also}", list(&my)))
    }
}

/// The dialect a file's name says, for a file without marks (portable DDL, such as a
/// benchmark's `ddl-postgres.sql`): a word of its name (split at anything not a letter or a
/// digit) that names one dialect, and not the other.
fn from_file_name(origin: &str) -> Option<(SourceDialect, String)> {
    let name = origin.rsplit(['/', '\\']).next().unwrap_or(origin).to_ascii_lowercase();
    let words: Vec<&str> = name.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
    let pg = has(&["postgres", "postgresql", "pg", "pgsql", "psql"]);
    let my = has(&["mysql", "mariadb"]);
    let why = |d: &str| format!("no mark of either dialect; the file name `{name}` says {d}");
    match (pg, my) {
        (true, false) => Some((SourceDialect::Postgres, why("PostgreSQL"))),
        (false, true) => Some((SourceDialect::Mysql, why("MySQL"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_marks_goes_by_its_name() {
        let src = "CREATE TABLE t (id int PRIMARY KEY, v varchar(20000));";
        assert!(detect(src, "t.sql").1.starts_with("no mark of either dialect"));
        let f = crate::parse(src, "bench/ddl-postgres.sql").unwrap();
        assert_eq!(f.dialect, SourceDialect::Postgres, "{}", f.dialect_reason);
        assert!(f.dialect_reason.contains("file name"), "{}", f.dialect_reason);
        assert_eq!(crate::parse(src, "x/schema_mysql.sql").unwrap().dialect, SourceDialect::Mysql);
        // No word of either: the default; a word inside another word does not count.
        assert_eq!(crate::parse(src, "spgist.sql").unwrap().dialect, SourceDialect::Mysql);
        // Marks outrank the name.
        let marked = "CREATE TABLE t (id int AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB;";
        assert_eq!(crate::parse(marked, "t-postgres.sql").unwrap().dialect, SourceDialect::Mysql);
    }

    #[test]
    fn hand_written_postgres_is_postgres() {
        let (d, why) =
            detect("CREATE TABLE t (id serial PRIMARY KEY, at timestamptz, b bytea);", "");
        assert_eq!(d, SourceDialect::Postgres, "{why}");
        assert!(why.contains("`serial`"), "{why}");
    }

    #[test]
    fn a_backquote_in_a_comment_or_string_is_no_mark() {
        let src = "-- see `notes`\nCREATE TABLE t (id bigserial PRIMARY KEY, n text DEFAULT '`');";
        assert_eq!(detect(src, "").0, SourceDialect::Postgres);
        let src = "/* `x` */ CREATE TABLE t (id bigserial PRIMARY KEY, n text DEFAULT 'a'::text);";
        assert_eq!(detect(src, "").0, SourceDialect::Postgres);
    }

    #[test]
    fn mysql_marks_outweigh_one_postgres_word() {
        let src = "CREATE TABLE `t` (id INT UNSIGNED AUTO_INCREMENT, s varchar(8) COMMENT 'a::b', PRIMARY KEY (id)) ENGINE=InnoDB;";
        let (d, why) = detect(src, "");
        assert_eq!(d, SourceDialect::Mysql, "{why}");
        assert!(why.contains("backquoted names"), "{why}");
    }

    #[test]
    fn no_marks_is_mysql_and_says_so() {
        let (d, why) = detect("CREATE TABLE t (id int PRIMARY KEY);", "");
        assert_eq!(d, SourceDialect::Mysql);
        assert!(why.contains("no mark"), "{why}");
    }
}
