//! A run's phases, typed: [`PhaseResult`] has one variant per phase kind (`settings`, `load`,
//! `churn`, `rebuild`, `restart`, `queries`, `ddl`, `advice`, `reads`, `mixed`, `timed`), each a struct
//! of named figures (in `result/phase_kinds.rs`; `reads` and `mixed` in `result/work_phases.rs`).
//! The figures that several kinds share (counter deltas, buffer pool deltas, the table's shape)
//! are in `result/phase_figures.rs`.
//!
//! The JSON shape is the one keylab always wrote: an object with `kind` first and the figures
//! after it, sorted by name (they were a sorted map). A figure is a [`Figure`]: absent (older
//! results, another engine), `null` (the engine cannot give it) or a value, so a saved result
//! reads back and writes out byte-identical. Keys built from data (a settings phase's
//! `cell_{dimension}`, a ddl phase's `{statement}_ms`) are typed maps of their own. A kind
//! this keylab does not know is kept as written ([`PhaseResult::Other`]); a figure it does not
//! know within a known kind is dropped on reading.
//!
//! A phase an engine could not run is its kind with `status: not_applicable` and the engine's
//! `reason` (see [`PhaseResult::not_applicable`]).
//!
//! Not for: computing any figure (the scenario runner writes phases; `keylab advise` its
//! `advice` phase) or rendering them (`keylab-report`).

pub use super::phase_figures::{CounterFigures, Figure, PoolFigures, SeriesPoint, ShapeFigures};
pub use super::phase_kinds::{
    AdvicePhase, ChurnPhase, DdlPhase, DdlStep, LoadPhase, QueriesPhase, RebuildPhase,
    RestartPhase, SettingsPhase, WorkloadCurvePoint,
};
pub use super::timed_phase::TimedPhase;
pub use super::work_phases::{MixedPhase, ReadCurvePoint, ReadFigures, ReadsPhase};
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// Declares a phase's figure struct: every field a [`Figure`] left out of the JSON while
/// absent; fields after `;` (groups of shared figures, typed maps) are written as given.
macro_rules! figures {
    ($(#[$sm:meta])* pub struct $name:ident {
        $($(#[$fm:meta])* pub $f:ident: $t:ty,)*
        $(; $($(#[$gm:meta])* pub $g:ident: $gt:ty,)*)?
    }) => {
        $(#[$sm])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct $name {
            $($(#[$fm])* #[serde(skip_serializing_if = "Figure::is_absent")] pub $f: Figure<$t>,)*
            $($($(#[$gm])* pub $g: $gt,)*)?
        }
    };
}
pub(crate) use figures;

/// Whether a phase ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    /// It ran (some statements may have been refused: see the phase's `not_applicable`).
    Ok,
    /// The engine could not run it; `reason` says why.
    NotApplicable,
}

/// One phase of a run, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PhaseResult {
    /// The run's cell and settings (always first in a scenario run).
    Settings(SettingsPhase),
    /// Rows loaded.
    Load(LoadPhase),
    /// Rounds of inserts and deletes.
    Churn(ChurnPhase),
    /// `OPTIMIZE TABLE` (or the engine's rebuild) at a fill factor.
    Rebuild(RebuildPhase),
    /// A server restart.
    Restart(RestartPhase),
    /// Timed queries (their timings are the run's `queries`).
    Queries(QueriesPhase),
    /// DDL statements.
    Ddl(DdlPhase),
    /// `keylab advise`'s figures of a candidate key.
    Advice(AdvicePhase),
    /// Reads, one entry per read spec (`result/work_phases.rs`).
    Reads(ReadsPhase),
    /// Inserts and reads interleaved (`result/work_phases.rs`).
    Mixed(MixedPhase),
    /// Inserts for a fixed time from client threads (`result/timed_phase.rs`).
    Timed(TimedPhase),
    /// A kind this keylab does not know, kept as written.
    Other {
        /// Its `kind`.
        kind: String,
        /// Its other keys.
        figures: BTreeMap<String, Json>,
    },
}

/// The kind of a phase, without its figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// See [`PhaseResult::Settings`].
    Settings,
    /// See [`PhaseResult::Load`].
    Load,
    /// See [`PhaseResult::Churn`].
    Churn,
    /// See [`PhaseResult::Rebuild`].
    Rebuild,
    /// See [`PhaseResult::Restart`].
    Restart,
    /// See [`PhaseResult::Queries`].
    Queries,
    /// See [`PhaseResult::Ddl`].
    Ddl,
    /// See [`PhaseResult::Advice`].
    Advice,
    /// See [`PhaseResult::Reads`].
    Reads,
    /// See [`PhaseResult::Mixed`].
    Mixed,
    /// See [`PhaseResult::Timed`].
    Timed,
    /// See [`PhaseResult::Other`].
    Other,
}

impl PhaseKind {
    /// The `kind` the JSON gives a phase of this kind (`other` stands for any unknown one;
    /// such a phase keeps its own, [`PhaseResult::kind_name`]).
    pub fn name(self) -> &'static str {
        match self {
            PhaseKind::Settings => "settings",
            PhaseKind::Load => "load",
            PhaseKind::Churn => "churn",
            PhaseKind::Rebuild => "rebuild",
            PhaseKind::Restart => "restart",
            PhaseKind::Queries => "queries",
            PhaseKind::Ddl => "ddl",
            PhaseKind::Advice => "advice",
            PhaseKind::Reads => "reads",
            PhaseKind::Mixed => "mixed",
            PhaseKind::Timed => "timed",
            PhaseKind::Other => "other",
        }
    }
}

impl PhaseResult {
    /// The phase's kind.
    pub fn kind(&self) -> PhaseKind {
        match self {
            PhaseResult::Settings(_) => PhaseKind::Settings,
            PhaseResult::Load(_) => PhaseKind::Load,
            PhaseResult::Churn(_) => PhaseKind::Churn,
            PhaseResult::Rebuild(_) => PhaseKind::Rebuild,
            PhaseResult::Restart(_) => PhaseKind::Restart,
            PhaseResult::Queries(_) => PhaseKind::Queries,
            PhaseResult::Ddl(_) => PhaseKind::Ddl,
            PhaseResult::Advice(_) => PhaseKind::Advice,
            PhaseResult::Reads(_) => PhaseKind::Reads,
            PhaseResult::Mixed(_) => PhaseKind::Mixed,
            PhaseResult::Timed(_) => PhaseKind::Timed,
            PhaseResult::Other { .. } => PhaseKind::Other,
        }
    }

    /// The `kind` the JSON gives it (`load`, `churn`, ...).
    pub fn kind_name(&self) -> &str {
        match self {
            PhaseResult::Other { kind, .. } => kind,
            known => known.kind().name(),
        }
    }

    /// `kind` as the phase a plan asks for, run by an engine that could not run it.
    pub fn not_applicable(kind: PhaseKind, reason: &str) -> PhaseResult {
        let status = Figure::Value(PhaseStatus::NotApplicable);
        let reason = Figure::Value(reason.to_string());
        match kind {
            PhaseKind::Settings => {
                PhaseResult::Settings(SettingsPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Load => {
                PhaseResult::Load(LoadPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Churn => {
                PhaseResult::Churn(ChurnPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Rebuild => {
                PhaseResult::Rebuild(RebuildPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Restart => PhaseResult::Restart(RestartPhase { status, reason }),
            PhaseKind::Queries => {
                PhaseResult::Queries(QueriesPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Ddl => PhaseResult::Ddl(DdlPhase { status, reason, ..Default::default() }),
            PhaseKind::Reads => {
                PhaseResult::Reads(ReadsPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Mixed => {
                PhaseResult::Mixed(MixedPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Timed => {
                PhaseResult::Timed(TimedPhase { status, reason, ..Default::default() })
            }
            PhaseKind::Advice | PhaseKind::Other => unreachable!("{kind:?} is never run"),
        }
    }

    /// The phase's `status` (`None` where it has none: advice, other kinds, older results).
    pub fn status(&self) -> Option<PhaseStatus> {
        match self {
            PhaseResult::Settings(p) => p.status.value(),
            PhaseResult::Load(p) => p.status.value(),
            PhaseResult::Churn(p) => p.status.value(),
            PhaseResult::Rebuild(p) => p.status.value(),
            PhaseResult::Restart(p) => p.status.value(),
            PhaseResult::Queries(p) => p.status.value(),
            PhaseResult::Ddl(p) => p.status.value(),
            PhaseResult::Advice(_) => None,
            PhaseResult::Reads(p) => p.status.value(),
            PhaseResult::Mixed(p) => p.status.value(),
            PhaseResult::Timed(p) => p.status.value(),
            PhaseResult::Other { figures, .. } => match figures.get("status") {
                Some(Json::String(s)) if s == "not_applicable" => Some(PhaseStatus::NotApplicable),
                Some(Json::String(s)) if s == "ok" => Some(PhaseStatus::Ok),
                _ => None,
            },
        }
    }

    /// Whether the engine ran the phase (its status is not `not_applicable`).
    pub fn applicable(&self) -> bool {
        self.status() != Some(PhaseStatus::NotApplicable)
    }

    /// The phase's figures as the JSON writes them after `kind`: name → value, by name.
    pub fn figures(&self) -> BTreeMap<String, Json> {
        let value = match self {
            PhaseResult::Settings(p) => serde_json::to_value(p),
            PhaseResult::Load(p) => serde_json::to_value(p),
            PhaseResult::Churn(p) => serde_json::to_value(p),
            PhaseResult::Rebuild(p) => serde_json::to_value(p),
            PhaseResult::Restart(p) => serde_json::to_value(p),
            PhaseResult::Queries(p) => serde_json::to_value(p),
            PhaseResult::Ddl(p) => serde_json::to_value(p),
            PhaseResult::Advice(p) => serde_json::to_value(p),
            PhaseResult::Reads(p) => serde_json::to_value(p),
            PhaseResult::Mixed(p) => serde_json::to_value(p),
            PhaseResult::Timed(p) => serde_json::to_value(p),
            PhaseResult::Other { figures, .. } => return figures.clone(),
        };
        match value {
            Ok(Json::Object(m)) => m.into_iter().collect(),
            _ => BTreeMap::new(),
        }
    }
}

impl Serialize for PhaseResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let figures = self.figures();
        if figures.contains_key("kind") {
            return Err(S::Error::custom("a phase figure is named `kind`"));
        }
        let mut m = s.serialize_map(Some(figures.len() + 1))?;
        m.serialize_entry("kind", self.kind_name())?;
        for (k, v) in &figures {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for PhaseResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut figures: BTreeMap<String, Json> = BTreeMap::deserialize(d)?;
        let kind = match figures.remove("kind") {
            Some(Json::String(k)) => k,
            _ => return Err(D::Error::custom("a phase needs a `kind`")),
        };
        fn typed<'de, T: Deserialize<'de>, E: serde::de::Error>(
            kind: &str,
            figures: BTreeMap<String, Json>,
        ) -> Result<T, E> {
            let object: serde_json::Map<String, Json> = figures.into_iter().collect();
            T::deserialize(Json::Object(object))
                .map_err(|e| E::custom(format!("{kind} phase: {e}")))
        }
        Ok(match kind.as_str() {
            "settings" => PhaseResult::Settings(typed(&kind, figures)?),
            "load" => PhaseResult::Load(typed(&kind, figures)?),
            "churn" => PhaseResult::Churn(typed(&kind, figures)?),
            "rebuild" => PhaseResult::Rebuild(typed(&kind, figures)?),
            "restart" => PhaseResult::Restart(typed(&kind, figures)?),
            "queries" => PhaseResult::Queries(typed(&kind, figures)?),
            "ddl" => PhaseResult::Ddl(typed(&kind, figures)?),
            "advice" => PhaseResult::Advice(typed(&kind, figures)?),
            "reads" => PhaseResult::Reads(typed(&kind, figures)?),
            "mixed" => PhaseResult::Mixed(typed(&kind, figures)?),
            "timed" => PhaseResult::Timed(typed(&kind, figures)?),
            _ => PhaseResult::Other { kind, figures },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(json: &str) -> PhaseResult {
        let p: PhaseResult = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), json);
        p
    }

    #[test]
    fn kind_first_then_figures_by_name_absent_and_null_kept_apart() {
        let p = round_trip(
            r#"{"kind":"churn","merges":null,"page_splits":3,"primary_leaf_pages_after":9,"primary_leaf_pages_before":7,"status":"ok"}"#,
        );
        let PhaseResult::Churn(c) = &p else { panic!("{p:?}") };
        assert_eq!(c.counters.page_splits, Figure::Value(3));
        assert_eq!(c.counters.merges, Figure::Null);
        assert_eq!(c.counters.merge_attempts, Figure::Absent);
        assert_eq!(
            (c.before.primary_leaf_pages.value(), c.after.primary_leaf_pages.value()),
            (Some(7), Some(9))
        );
    }

    #[test]
    fn keys_built_from_data_are_typed_maps() {
        let p = round_trip(
            r#"{"kind":"ddl","add_column_instant_ms":1.5,"add_column_instant_writers_stall_ms":null,"concurrent_writers":2,"status":"ok","steps":[]}"#,
        );
        let PhaseResult::Ddl(d) = &p else { panic!("{p:?}") };
        assert_eq!(d.statement_ms.get("add_column_instant"), Some(&Some(1.5)));
        assert_eq!(d.writers_stall_ms.get("add_column_instant"), Some(&None));
        let p = round_trip(r#"{"kind":"settings","cell_fill_factor":"75","status":"ok"}"#);
        let PhaseResult::Settings(s) = &p else { panic!("{p:?}") };
        assert_eq!(s.cell.get("fill_factor").map(String::as_str), Some("75"));
    }

    #[test]
    fn not_applicable_and_unknown_kinds() {
        let p = PhaseResult::not_applicable(PhaseKind::Restart, "no server");
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"kind":"restart","reason":"no server","status":"not_applicable"}"#
        );
        assert!(!p.applicable());
        let p = round_trip(r#"{"kind":"vacuum","pages":3,"status":"not_applicable"}"#);
        assert_eq!((p.kind(), p.kind_name(), p.applicable()), (PhaseKind::Other, "vacuum", false));
    }
}
