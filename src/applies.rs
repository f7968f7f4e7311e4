//! Engine-specific flags given on the command line for a run they do not apply to: refused
//! (exit 2, naming the flag, why, and what it applies to) instead of ignored. One table,
//! [`RULES`], says for every such flag which commands have it and on what it works; a
//! default value (the user did not type the flag) is never refused.
//!
//! This module only decides; the commands call [`check`] once they know the facts (`run`
//! after reading its scenario, whose runs may bound the buffer pool).

use crate::UsageError;
use keylab_core::EngineKind;

/// The flags the user typed (clap argument ids, `page_cleaner` for `--page-cleaner`), as
/// opposed to defaults.
#[derive(Debug, Clone, Default)]
pub struct Given(Vec<String>);

impl Given {
    /// The flags of `matches` (a subcommand's) whose value came from the command line.
    pub fn from_matches(matches: &clap::ArgMatches) -> Given {
        let typed = |id: &&clap::Id| {
            matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
        };
        Given(matches.ids().filter(typed).map(|id| id.as_str().to_string()).collect())
    }

    /// The flags named, for tests.
    #[cfg(test)]
    pub fn of(ids: &[&str]) -> Given {
        Given(ids.iter().map(|s| s.to_string()).collect())
    }

    fn has(&self, id: &str) -> bool {
        self.0.iter().any(|g| g == id)
    }
}

/// What a command's run is, as far as engine-specific flags care.
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    /// `--engine`.
    pub engine: EngineKind,
    /// On the simulator, some run follows an InnoDB model (mariadb-10.11 or mysql-8.0) rather
    /// than the nbtree model of postgres-15.
    pub innodb_model: bool,
    /// Some run has a bounded buffer pool (`--buffer-pool` or a scenario's).
    pub buffer_pool: bool,
    /// A sharded run (`--shards`).
    pub shards: bool,
}

/// One engine-specific flag: the commands that have it, what it applies to (for the
/// message), and whether it applies to a run.
pub struct Rule {
    /// The clap id (the field name).
    pub id: &'static str,
    /// The commands with this flag.
    pub commands: &'static [&'static str],
    /// What the flag applies to, completing "--flag applies to ...".
    pub applies_to: &'static str,
    /// Whether the flag does anything in a run of these facts.
    pub applies: fn(&Facts) -> bool,
}

fn sim_innodb(f: &Facts) -> bool {
    f.engine == EngineKind::Sim && f.innodb_model
}

/// Some run is InnoDB: a MariaDB/MySQL server or an InnoDB model.
pub fn innodb(f: &Facts) -> bool {
    matches!(f.engine, EngineKind::Mariadb | EngineKind::Mysql) || sim_innodb(f)
}

/// Every engine-specific flag. `--model`, `--url`, `--shards` and `--sharding` are refused
/// where they do not apply by the engine builder (`engines::make_engine`), with their own
/// messages; `--perf-schema` on the simulator is noted in the report, as its help says.
pub const RULES: &[Rule] = &[
    Rule {
        id: "collation",
        commands: &["compare", "run", "validate"],
        applies_to: "--engine postgres only (the collation of text ids in PostgreSQL)",
        applies: |f| f.engine == EngineKind::Postgres,
    },
    Rule {
        id: "interleave",
        commands: &["compare", "run"],
        applies_to: "the simulator's InnoDB models only (--engine sim, --model mariadb-10.11 or \
                     mysql-8.0), which mix parallel writers' rows; a server mixes them itself",
        applies: sim_innodb,
    },
    Rule {
        id: "page_cleaner",
        commands: &["compare", "run"],
        applies_to: "the simulator's InnoDB buffer pool only (--engine sim with --buffer-pool, \
                     or a scenario's [engine] buffer_pool, on an InnoDB model)",
        applies: |f| sim_innodb(f) && f.buffer_pool,
    },
    Rule {
        id: "check_every",
        commands: &["compare"],
        applies_to: "the simulator only (--engine sim), whose trees it checks",
        applies: |f| f.engine == EngineKind::Sim,
    },
    Rule {
        id: "database",
        commands: &["compare", "run"],
        applies_to: "a server only (--engine mariadb, mysql or postgres), where keylab creates \
                     its tables",
        applies: |f| f.engine != EngineKind::Sim,
    },
    Rule {
        id: "page_size",
        commands: &["compare"],
        applies_to: "InnoDB only (--engine mariadb or mysql, or the simulator's mariadb-10.11 \
                     and mysql-8.0 models); PostgreSQL's block is its compiled-in 8 KiB",
        applies: innodb,
    },
    Rule {
        id: "perf_schema",
        commands: &["compare"],
        applies_to: "MariaDB and MySQL (performance_schema is theirs) and, as a note, the \
                     simulator",
        applies: |f| f.engine != EngineKind::Postgres,
    },
    Rule {
        id: "skip_pool",
        commands: &["validate"],
        applies_to: "the unsharded validation only (--shards has no buffer pool check)",
        applies: |f| !f.shards,
    },
];

/// Refuses (exit 2) the first flag of `given` that `command` has, that [`RULES`] lists, and
/// that does nothing in a run of `facts`.
pub fn check(command: &str, given: &Given, facts: &Facts) -> Result<(), UsageError> {
    for rule in RULES.iter().filter(|r| r.commands.contains(&command) && given.has(r.id)) {
        if !(rule.applies)(facts) {
            return Err(UsageError(format!(
                "--{}: does nothing on this run (--engine {}{}), so it is refused rather than \
                 ignored; it applies to {}",
                rule.id.replace('_', "-"),
                facts.engine,
                describe(facts),
                rule.applies_to
            )));
        }
    }
    Ok(())
}

/// The facts beyond the engine, for the message.
fn describe(f: &Facts) -> String {
    let mut parts = Vec::new();
    if f.engine == EngineKind::Sim && !f.innodb_model {
        parts.push("the postgres-15 model");
    }
    if f.engine == EngineKind::Sim && !f.buffer_pool {
        parts.push("no buffer pool bound");
    }
    if f.shards {
        parts.push("sharded");
    }
    parts.iter().map(|p| format!(", {p}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIM: Facts =
        Facts { engine: EngineKind::Sim, innodb_model: true, buffer_pool: false, shards: false };

    #[test]
    fn each_rule_refuses_its_flag_only_where_it_does_nothing() {
        let pg = Facts { engine: EngineKind::Postgres, ..SIM };
        let maria = Facts { engine: EngineKind::Mariadb, ..SIM };
        let nbtree = Facts { innodb_model: false, ..SIM };
        let pooled = Facts { buffer_pool: true, ..SIM };
        // (command, flag, facts, refused)
        let cases = [
            ("compare", "collation", maria, true),
            ("compare", "collation", SIM, true),
            ("validate", "collation", pg, false),
            ("run", "interleave", maria, true),
            ("compare", "interleave", nbtree, true),
            ("compare", "interleave", SIM, false),
            ("compare", "page_cleaner", SIM, true),
            ("run", "page_cleaner", pooled, false),
            ("compare", "page_cleaner", Facts { engine: EngineKind::Mysql, ..pooled }, true),
            ("compare", "check_every", pg, true),
            ("compare", "check_every", nbtree, false),
            ("run", "database", SIM, true),
            ("run", "database", pg, false),
            ("compare", "page_size", pg, true),
            ("compare", "page_size", nbtree, true),
            ("compare", "page_size", maria, false),
            ("compare", "perf_schema", pg, true),
            ("compare", "perf_schema", SIM, false),
            ("validate", "skip_pool", Facts { shards: true, ..maria }, true),
            ("validate", "skip_pool", maria, false),
            // A flag the command does not have, or not typed, is never refused here.
            ("advise", "collation", maria, false),
        ];
        for (command, flag, facts, refused) in cases {
            let got = check(command, &Given::of(&[flag]), &facts);
            assert_eq!(got.is_err(), refused, "{command} --{flag} on {facts:?}: {got:?}");
            if let Err(e) = got {
                assert!(e.0.starts_with(&format!("--{}:", flag.replace('_', "-"))), "{e}");
                assert!(e.0.contains("it applies to"), "{e}");
            }
        }
        assert!(check("compare", &Given::default(), &Facts { ..pg }).is_ok());
    }

    #[test]
    fn every_rule_names_a_flag_of_its_commands() {
        use clap::CommandFactory;
        let cli = crate::args::Cli::command();
        for rule in RULES {
            for command in rule.commands {
                let sub = cli.find_subcommand(command).expect("a command");
                assert!(
                    sub.get_arguments().any(|a| a.get_id() == rule.id),
                    "{command} has no --{}",
                    rule.id
                );
            }
        }
    }
}
