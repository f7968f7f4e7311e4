//! The built-in scenarios: the five published experiments of `docs/experiments.md`, embedded from
//! `builtin/*.toml` so `keylab scenarios show NAME` prints exactly what runs, plus the
//! matrix `keylab validate` runs (not listed among the experiments).

use crate::error::ScenarioError;
use crate::plan::Scenario;

/// A built-in scenario's name and TOML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// Name (`e1-uuid-vs-ulid`).
    pub name: &'static str,
    /// The TOML source.
    pub toml: &'static str,
}

/// The five experiments, in order (E4's time-boxed run beside E4), then PostgreSQL's own (`pg-wal-fpi`) and the sharding scenario.
pub const BUILTINS: [Builtin; 8] = [
    Builtin { name: "e1-uuid-vs-ulid", toml: include_str!("../builtin/e1-uuid-vs-ulid.toml") },
    Builtin { name: "e2-bulk-load", toml: include_str!("../builtin/e2-bulk-load.toml") },
    Builtin { name: "e3-id-storage", toml: include_str!("../builtin/e3-id-storage.toml") },
    Builtin { name: "e4-change-buffer", toml: include_str!("../builtin/e4-change-buffer.toml") },
    Builtin { name: "e4-throughput", toml: include_str!("../builtin/e4-throughput.toml") },
    Builtin {
        name: "e5-fill-factor-churn",
        toml: include_str!("../builtin/e5-fill-factor-churn.toml"),
    },
    Builtin { name: "pg-wal-fpi", toml: include_str!("../builtin/pg-wal-fpi.toml") },
    Builtin { name: "shards-hotspot", toml: include_str!("../builtin/shards-hotspot.toml") },
];

/// The matrix of `keylab validate`.
pub const VALIDATE_TOML: &str = include_str!("../builtin/validate.toml");

/// The matrix of `keylab validate --shards N`.
pub const VALIDATE_SHARDS_TOML: &str = include_str!("../builtin/validate-shards.toml");

/// The names of the built-ins, comma-separated (for error messages).
pub fn builtin_names() -> String {
    BUILTINS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

/// The built-in called `name`.
pub fn builtin(name: &str) -> Option<Builtin> {
    BUILTINS.iter().copied().find(|b| b.name == name)
}

impl Builtin {
    /// Parses it (every built-in parses: a test checks).
    pub fn scenario(&self) -> Result<Scenario, ScenarioError> {
        Scenario::parse(self.toml, &format!("builtin:{}", self.name))
    }
}

/// The scenario `keylab validate` runs.
pub fn validate_scenario() -> Result<Scenario, ScenarioError> {
    Scenario::parse(VALIDATE_TOML, "builtin:validate")
}

/// The scenario `keylab validate --shards N` runs.
pub fn validate_shards_scenario() -> Result<Scenario, ScenarioError> {
    Scenario::parse(VALIDATE_SHARDS_TOML, "builtin:validate-shards")
}

/// A built-in by name, else a scenario file at that path. An argument that is neither
/// names the built-ins.
pub fn load(name_or_path: &str) -> Result<Scenario, ScenarioError> {
    if let Some(b) = builtin(name_or_path) {
        return b.scenario();
    }
    let path = std::path::Path::new(name_or_path);
    if path.exists() {
        return Scenario::from_file(path);
    }
    Err(ScenarioError::file(
        name_or_path,
        format!("no such scenario file or built-in; built-ins: {}", builtin_names()),
    ))
}
