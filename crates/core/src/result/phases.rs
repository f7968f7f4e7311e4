//! A run's phases, typed: [`PhaseResult`] has one variant per phase kind (`settings`, `load`,
//! `churn`, `rebuild`, `restart`, `queries`, `ddl`, `advice`, `reads`, `mixed`), each a struct
//! of named figures (`reads` and `mixed` in `result/work_phases.rs`).
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

use super::phase_figures::{cell_keys, shape_after, shape_before, statement_ms, writers_stall_ms};
pub use super::phase_figures::{CounterFigures, Figure, PoolFigures, SeriesPoint, ShapeFigures};
pub use super::work_phases::{MixedPhase, ReadCurvePoint, ReadFigures, ReadsPhase};
use crate::{DdlAction, DdlAlgorithm, DdlLock, LatencyMs};
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
            _ => PhaseResult::Other { kind, figures },
        })
    }
}

figures! {
    /// The `settings` phase: the run's matrix cell and the settings asked for.
    pub struct SettingsPhase {
        /// `ok`.
        pub status: PhaseStatus,
        /// Page size, bytes (PostgreSQL engines: their fixed block size).
        pub page_size_bytes: u64,
        /// Buffer pool size asked for, bytes.
        pub buffer_pool_bytes: u64,
        /// Fill factor asked for, percent.
        pub fill_factor_pct: u64,
        /// Merge threshold asked for, percent.
        pub merge_threshold_pct: u64,
        /// Change buffering asked for.
        pub change_buffering: bool,
        /// `performance_schema` asked for.
        pub performance_schema: bool,
        /// `innodb_autoinc_lock_mode` asked for.
        pub autoinc_lock_mode: u64,
        /// Shards (`--shards`).
        pub shards: u64,
        /// How rows are routed to shards (`range`, `hash`).
        pub sharding: String,
        /// Asked-for engine variables the engine does not report applying.
        pub not_applicable: String,
        /// Why those are not applied.
        pub reason: String,
        /// Settings the server reports differently from what was asked.
        pub engine_not_applied: Vec<String>,
        ;
        /// The run's matrix cell, dimension → value (`cell_{dimension}` in the JSON).
        #[serde(flatten, with = "cell_keys")]
        pub cell: BTreeMap<String, String>,
    }
}

figures! {
    /// A `load` phase: how the rows were loaded, the counter and buffer pool deltas, the shape
    /// after, and shape samples when asked.
    pub struct LoadPhase {
        /// `ok` (or `not_applicable`).
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// Rows loaded.
        pub rows: u64,
        /// Load method token.
        pub method: String,
        /// Rows per statement or transaction.
        pub batch: u64,
        /// The largest statement when statements vary in shape.
        pub batch_max: u64,
        /// Parallel connections.
        pub writers: u64,
        /// Measured wall time, seconds.
        pub wall_s: f64,
        /// Measured rows per second.
        pub rows_per_s: f64,
        /// Measured per-batch latency.
        pub batch_latency_ms: LatencyMs,
        /// Each writer's first batch, ms.
        pub first_batch_ms: Vec<f64>,
        /// Each writer's other batches' median, ms.
        pub other_batch_p50_ms: Vec<Option<f64>>,
        /// Server-side time of the load's statements, ms.
        pub server_statement_ms: f64,
        /// Rows between samples.
        pub sample_every: u64,
        /// The shape every `sample_every` rows.
        pub samples: Vec<SeriesPoint>,
        ;
        /// Counter deltas over the load.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the load.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}

figures! {
    /// A `churn` phase: rounds of inserts and deletes, the deltas over them, the shape before
    /// and after, and a point every `measure_every` rounds.
    pub struct ChurnPhase {
        /// `ok` or `not_applicable` (absent in older results).
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// Rounds.
        pub rounds: u64,
        /// Inserts per round.
        pub inserts_per_round: u64,
        /// Deletes per round.
        pub deletes_per_round: u64,
        /// Rounds between points of `per_round`.
        pub measure_every: u64,
        /// How inserts were sent (`multi`, `row`).
        pub insert_method: String,
        /// Concurrent writers.
        pub writers: u64,
        /// How deletes were sent.
        pub delete_method: String,
        /// Whose order the inserts were applied in (`keylab`, `concurrent_writers`).
        pub insert_order: String,
        /// Rows in the table after the churn.
        pub live_rows: u64,
        /// One point every `measure_every` rounds.
        pub per_round: Vec<SeriesPoint>,
        /// Rows inserted (older results).
        pub rows_inserted: u64,
        /// Rows deleted (older results).
        pub rows_deleted: u64,
        /// Wall time, seconds (older results).
        pub wall_s: f64,
        ;
        /// Counter deltas over the churn.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the churn.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape before (`…_before`).
        #[serde(flatten, with = "shape_before")]
        pub before: ShapeFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}

figures! {
    /// A `rebuild` phase: the fill factor, the deltas, the shape before and after.
    pub struct RebuildPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// The fill factor of the rebuild, percent.
        pub fill_factor_pct: u64,
        ;
        /// Counter deltas over the rebuild.
        #[serde(flatten)]
        pub counters: CounterFigures,
        /// Buffer pool deltas over the rebuild.
        #[serde(flatten)]
        pub pool: PoolFigures,
        /// The shape before (`…_before`).
        #[serde(flatten, with = "shape_before")]
        pub before: ShapeFigures,
        /// The shape after (`…_after`).
        #[serde(flatten, with = "shape_after")]
        pub after: ShapeFigures,
    }
}

figures! {
    /// A `restart` phase.
    pub struct RestartPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
    }
}

figures! {
    /// A `queries` phase: the names run (their timings are the run's `queries`).
    pub struct QueriesPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// The queries run, comma-separated.
        pub queries: String,
        /// The queries the engine refused, with its reasons.
        pub not_applicable: String,
    }
}

figures! {
    /// A `ddl` phase: one entry per statement, and one flat time per statement for tables.
    pub struct DdlPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// Concurrent writers during each statement.
        pub concurrent_writers: u64,
        /// The statements that ran.
        pub steps: Vec<DdlStep>,
        /// The statements the engine refused, with its reasons.
        pub not_applicable: String,
        ;
        /// Wall time per statement (`add_column_instant` → `add_column_instant_ms`; `null`
        /// where refused), ms.
        #[serde(flatten, with = "statement_ms")]
        pub statement_ms: BTreeMap<String, Option<f64>>,
        /// The writers' longest stall per statement (`…_writers_stall_ms`), ms.
        #[serde(flatten, with = "writers_stall_ms")]
        pub writers_stall_ms: BTreeMap<String, Option<f64>>,
    }
}

figures! {
    /// One DDL statement of a `ddl` phase.
    pub struct DdlStep {
        /// What it did.
        pub action: DdlAction,
        /// The column.
        pub column: String,
        /// Where the column went (`AFTER`).
        pub after: String,
        /// The algorithm asked for.
        pub algorithm: DdlAlgorithm,
        /// The lock asked for.
        pub lock: DdlLock,
        /// Whether the engine accepted it.
        pub supported: bool,
        /// The server's error number when refused.
        pub error_code: u64,
        /// The algorithm used.
        pub algorithm_used: String,
        /// The lock held.
        pub lock_used: String,
        /// Wall time, ms.
        pub wall_ms: f64,
        /// The engine's message.
        pub message: String,
        /// Concurrent writers.
        pub concurrent_writers: u64,
        /// Whether the statement blocked the writers.
        pub blocks_writers: bool,
        /// The writers' longest stall, ms.
        pub writers_longest_stall_ms: f64,
        /// Rows the writers inserted while it ran.
        pub rows_inserted_during_ddl: u64,
        /// Rows the writers inserted in all.
        pub rows_inserted: u64,
    }
}

figures! {
    /// The `advice` phase of `keylab advise`: a candidate key's costs, against the current key
    /// where it ran.
    pub struct AdvicePhase {
        /// The key's SQL type(s).
        pub key_type: String,
        /// Who makes the ids.
        pub ids_from: String,
        /// Bytes of all indexes.
        pub total_bytes: u64,
        /// `total_bytes` per row.
        pub bytes_per_row: f64,
        /// Page splits per 1,000 inserts.
        pub splits_per_1000_inserts: f64,
        /// Buffer pool bytes the insert working set needs.
        pub insert_working_set_pool_bytes: u64,
        /// Rows of the working-set window.
        pub working_set_window_rows: u64,
        /// Bytes of one key entry.
        pub key_entry_bytes: u64,
        /// `total_bytes` against the current key, percent.
        pub total_bytes_change_pct: f64,
        /// Bytes of a secondary entry against the current key.
        pub secondary_entry_bytes_change: i64,
        /// Bytes per index, by index name.
        pub index_bytes: BTreeMap<String, Option<u64>>,
        /// Insert working set, pages per index, by index name.
        pub insert_working_set_pages: BTreeMap<String, Option<u64>>,
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
