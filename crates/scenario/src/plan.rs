//! From a parsed scenario to the list of runs it asks for: matrix expansion (each group a
//! product of its dimensions, the runs the union of the groups, then placements × variants
//! in every cell), `--scale`, and each run's table, engine settings and phases.
//!
//! Planning touches no engine: a scenario that plans is a scenario that can run, so parsing
//! plans once at scale 1 to find every error before anything starts. Whether the generators'
//! values fit their columns over all of a run's rows depends on `--scale`, so parsing checks
//! only each generator's first row and [`Scenario::plan`] checks every row.
//!
//! Not for: reading the TOML (`spec.rs`) or running a plan (`execute.rs`). The matrix, the
//! checks that need no cell and the phases have their own files beside this one.

mod checks;
mod matrix;
mod phase_plans;
mod work_plans;

use self::checks::check_top;
use self::matrix::expand;
use self::phase_plans::phases;
use crate::error::ScenarioError;
use crate::ranges;
use crate::spec::{BatchSpec, ScenarioSpec, TableSpec};
use crate::table::{self, BuiltTable, Ctx};
use keylab_core::{
    ChurnStyle, DdlSpec, EngineSettings, LoadMethod, LoadPlan, Placement, QuerySpec,
};
use keylab_innodb_model::min_buffer_pool_bytes;
use keylab_keys::{ClockKind, GenConfig, Variant, WithinMs};
use keylab_schema::Table;
use toml::Spanned;

/// One run: a variant in a placement, in one matrix cell, on one table, through the phases.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// `uuid4:text pk rows=100000`: variant, placement and the cell's coordinates.
    pub label: String,
    /// The matrix coordinates of this run's cell (dimension, value), in file order.
    pub cell: Vec<(String, String)>,
    /// The key variant.
    pub variant: Variant,
    /// Where the id lives.
    pub placement: Placement,
    /// Engine settings of the cell.
    pub settings: EngineSettings,
    /// Engine variables the scenario sets explicitly (checked against what the engine
    /// reports it applies).
    pub requested: Vec<&'static str>,
    /// The table and how each column is generated.
    pub table: BuiltTable,
    /// Id generator settings (the seed is given at run time).
    pub generator: GeneratorSettings,
    /// Phases in order; the first is a load.
    pub phases: Vec<PhasePlan>,
}

impl RunPlan {
    /// The table.
    pub fn table(&self) -> &Table {
        &self.table.table
    }

    /// The id generator configuration under `seed`.
    pub fn gen_config(&self, seed: u64) -> GenConfig {
        GenConfig {
            seed,
            ids_per_ms: self.generator.ids_per_ms,
            step_ms: self.generator.step_ms,
            within_ms: self.generator.within_ms,
            clock: self.generator.clock,
            node: self.generator.node,
            block: self.generator.block,
            // The ORM's writers take blocks in turn: as many as the first load's.
            writers: self
                .phases
                .iter()
                .find_map(|p| match p {
                    PhasePlan::Load { plan, .. } => Some(plan.writers),
                    _ => None,
                })
                .unwrap_or(1),
        }
    }
}

/// The id generator settings of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorSettings {
    /// Ids per millisecond of the virtual clock.
    pub ids_per_ms: u32,
    /// Milliseconds per clock step.
    pub step_ms: u32,
    /// Order inside one millisecond.
    pub within_ms: WithinMs,
    /// Virtual or wall clock.
    pub clock: ClockKind,
    /// Snowflake/TSID node.
    pub node: u16,
    /// Values per round trip of the sequence/table generators.
    pub block: u32,
}

/// One phase of a run, with `--scale` applied.
#[derive(Debug, Clone, PartialEq)]
pub enum PhasePlan {
    /// Load `rows` new rows.
    Load {
        /// Rows.
        rows: u64,
        /// Method, batch, writers.
        plan: LoadPlan,
        /// Measure the index shape every this many rows.
        sample_every: Option<u64>,
    },
    /// Rounds of inserts then random deletes.
    Churn {
        /// Rounds.
        rounds: u32,
        /// New rows per round.
        inserts: u64,
        /// Random deletes per round.
        deletes: u64,
        /// Measure every this many rounds.
        measure_every: u32,
        /// How the operations reach a server.
        style: ChurnStyle,
    },
    /// A sorted rebuild (`OPTIMIZE TABLE`).
    Rebuild {
        /// `innodb_fill_factor` of the rebuild.
        fill_factor_pct: u8,
    },
    /// A server restart (the simulator empties its buffer pool).
    Restart,
    /// Timed queries: (name, query).
    Queries {
        /// Runs of each.
        runs: u32,
        /// Named queries.
        queries: Vec<(String, QuerySpec)>,
    },
    /// Online schema changes.
    Ddl {
        /// Statements.
        steps: Vec<DdlSpec>,
        /// Writers inserting while each statement runs (0: none).
        concurrent_writers: u32,
    },
    /// Reads of the rows inserted so far, one entry per spec.
    Reads {
        /// The specs, counts scaled.
        specs: Vec<keylab_core::ReadSpec>,
    },
    /// Inserts and reads interleaved.
    Mixed {
        /// Operations (scaled), share of inserts, reads.
        mix: keylab_core::MixSpec,
    },
    /// Inserts for a fixed time from client threads.
    Timed {
        /// Threads, time and interval.
        plan: keylab_core::TimedPlan,
        /// At most this many rows (scaled).
        max_rows: u64,
    },
}

impl PhasePlan {
    /// The phase kind as reports name it.
    pub fn kind(&self) -> &'static str {
        match self {
            PhasePlan::Load { .. } => "load",
            PhasePlan::Churn { .. } => "churn",
            PhasePlan::Rebuild { .. } => "rebuild",
            PhasePlan::Restart => "restart",
            PhasePlan::Queries { .. } => "queries",
            PhasePlan::Ddl { .. } => "ddl",
            PhasePlan::Reads { .. } => "reads",
            PhasePlan::Mixed { .. } => "mixed",
            PhasePlan::Timed { .. } => "timed",
        }
    }
}

/// The most writers a ddl phase runs beside its statements.
pub const MAX_DDL_WRITERS: u32 = 64;

/// The largest scenario file read (the built-ins are a few KiB).
pub const MAX_SCENARIO_BYTES: u64 = 1024 * 1024;

/// Multiplies a row count by `scale`, at least 1.
pub fn scale_count(n: u64, scale: f64) -> u64 {
    ((n as f64) * scale).round().clamp(1.0, u64::MAX as f64) as u64
}

/// One cell's overrides.
#[derive(Debug, Clone, Default)]
struct Cell {
    coords: Vec<(String, String)>,
    table: Option<usize>,
    variants: Option<Vec<Variant>>,
    placements: Option<Vec<Placement>>,
    rows: Option<u64>,
    method: Option<LoadMethod>,
    batch: Option<BatchSpec>,
    writers: Option<u32>,
    page_size: Option<u32>,
    buffer_pool: Option<u64>,
    fill_factor: Option<u8>,
    merge_threshold: Option<u8>,
    change_buffering: Option<bool>,
    ids_per_ms: Option<u32>,
    within_ms: Option<WithinMs>,
    autoinc_lock_mode: Option<u8>,
    sharding: Option<keylab_core::Sharding>,
}

/// A parsed, checked scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    spec: ScenarioSpec,
    source: String,
    origin: String,
}

impl Scenario {
    /// Parses and checks `source`; errors name `origin` (a path or `builtin:NAME`), line and
    /// column.
    pub fn parse(source: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let spec: ScenarioSpec =
            toml::from_str(source).map_err(|e| ScenarioError::from_toml(origin, source, &e))?;
        let scenario = Scenario { spec, source: source.to_string(), origin: origin.to_string() };
        scenario.plan_runs(1.0, false)?;
        Ok(scenario)
    }

    /// Reads and parses a scenario file (refused past `MAX_SCENARIO_BYTES` (1 MiB), so
    /// `/dev/zero` or a mistaken data file fails at once instead of filling memory).
    pub fn from_file(path: &std::path::Path) -> Result<Scenario, ScenarioError> {
        use std::io::Read;
        let origin = path.display().to_string();
        let cannot = |e: std::io::Error| ScenarioError::file(&origin, format!("cannot read: {e}"));
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_SCENARIO_BYTES + 1).read_to_end(&mut bytes))
            .map_err(cannot)?;
        if bytes.len() as u64 > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::file(
                &origin,
                format!(
                    "larger than {} KiB; a scenario file is a short TOML text",
                    MAX_SCENARIO_BYTES / 1024
                ),
            ));
        }
        let source = String::from_utf8(bytes).map_err(|e| {
            ScenarioError::file(
                &origin,
                format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        Scenario::parse(&source, &origin)
    }

    /// The scenario's name.
    pub fn name(&self) -> &str {
        self.spec.name.get_ref()
    }

    /// `[engine] backends`: existing servers to shard over, as written (they may hold a
    /// password: never print them; `keylab_server_common::ServerUrl` masks it).
    pub fn backends(&self) -> Vec<String> {
        self.spec
            .engine
            .backends
            .as_ref()
            .map(|b| b.get_ref().iter().map(|u| u.get_ref().clone()).collect())
            .unwrap_or_default()
    }

    /// `[engine] repeat`: how many times a server runs each run, where the scenario says.
    pub fn repeat(&self) -> Option<u32> {
        self.spec.engine.repeat.map(|n| n.get())
    }

    /// Its one-line description.
    pub fn description(&self) -> &str {
        &self.spec.description
    }

    /// The TOML it was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Where it came from (a path or `builtin:NAME`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The runs, in order, with every row count multiplied by `scale` (at least 1 each); an
    /// error when a generator would make a value its column cannot hold in any of them.
    pub fn plan(&self, scale: f64) -> Result<Vec<RunPlan>, ScenarioError> {
        self.plan_runs(scale, true)
    }

    /// [`Scenario::plan`]; `all_rows`: check the generators' values over every row of each
    /// run, else over each run's first row only.
    fn plan_runs(&self, scale: f64, all_rows: bool) -> Result<Vec<RunPlan>, ScenarioError> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(ScenarioError::file(
                &self.origin,
                format!("scale {scale} is not a positive number"),
            ));
        }
        let cx = Ctx { origin: &self.origin, source: &self.source };
        let spec = &self.spec;
        check_top(&cx, spec)?;
        let top_placements =
            spec.placements.as_ref().map_or(vec![Placement::Pk], |p| p.get_ref().clone());
        let mut runs = Vec::new();
        for cell in expand(&cx, spec, scale)? {
            let tspec = &spec.tables.get_ref()[cell.table.unwrap_or(0)];
            let (settings, requested) = settings(spec, &cell, scale);
            let phases = phases(&cx, spec, &cell, &settings, scale)?;
            let placements = cell.placements.clone().unwrap_or_else(|| top_placements.clone());
            let variants = match &cell.variants {
                Some(v) => v.clone(),
                None => variants(&cx, spec.variants.get_ref())?,
            };
            for &placement in &placements {
                for &variant in &variants {
                    let name = table_name(tspec, variant, placement);
                    let table = table::build(&cx, tspec, variant, placement, name)?;
                    let mut label = format!("{variant} {placement}");
                    for (k, v) in &cell.coords {
                        label.push_str(&format!(" {k}={v}"));
                    }
                    let rows = all_rows.then(|| generated_rows(&phases));
                    ranges::check(&cx, tspec, &table, rows, &label)?;
                    table::check_limits(&cx, tspec, &table, settings.page_size_bytes, &label)?;
                    runs.push(RunPlan {
                        label,
                        cell: cell.coords.clone(),
                        variant,
                        placement,
                        settings,
                        requested: requested.clone(),
                        table,
                        generator: generator(spec, &cell),
                        phases: phases.clone(),
                    });
                }
            }
        }
        Ok(runs)
    }
}

/// Rows a run generates: its loads' and its churn rounds' inserts.
fn generated_rows(phases: &[PhasePlan]) -> u64 {
    phases
        .iter()
        .map(|p| match *p {
            PhasePlan::Load { rows, .. } => rows,
            PhasePlan::Churn { rounds, inserts, .. } => u64::from(rounds).saturating_mul(inserts),
            PhasePlan::Mixed { mix } => mix.inserts(),
            _ => 0,
        })
        .fold(0u64, u64::saturating_add)
}

/// Parses variant tokens, each error pointing at its token.
fn variants(cx: &Ctx, list: &[Spanned<String>]) -> Result<Vec<Variant>, ScenarioError> {
    list.iter()
        .map(|v| v.get_ref().parse::<Variant>().map_err(|e| cx.err(v.span(), e.to_string())))
        .collect()
}

fn generator(spec: &ScenarioSpec, cell: &Cell) -> GeneratorSettings {
    let g = &spec.generator;
    GeneratorSettings {
        ids_per_ms: cell.ids_per_ms.unwrap_or(g.ids_per_ms.get()),
        step_ms: g.step_ms.get(),
        within_ms: cell.within_ms.unwrap_or(g.within_ms),
        clock: g.clock,
        node: *g.node.get_ref(),
        block: g.block.get(),
    }
}

/// The cell's engine settings and the variables the scenario sets explicitly.
fn settings(spec: &ScenarioSpec, cell: &Cell, scale: f64) -> (EngineSettings, Vec<&'static str>) {
    let e = &spec.engine;
    let d = EngineSettings::default();
    let mut requested = Vec::new();
    let page_size_bytes = cell.page_size.or(e.page_size.map(|p| p.0)).unwrap_or(d.page_size_bytes);
    let buffer_pool = cell.buffer_pool.or(e.buffer_pool.map(|b| b.0)).map(|b| {
        if e.scale_buffer_pool {
            scale_count(b, scale).max(min_buffer_pool_bytes(page_size_bytes))
        } else {
            b
        }
    });
    if buffer_pool.is_some() {
        requested.push("innodb_buffer_pool_size");
    }
    let change_buffering = cell.change_buffering.or(e.change_buffering);
    if change_buffering.is_some() {
        requested.push("innodb_change_buffering");
    }
    if e.performance_schema.is_some() {
        requested.push("performance_schema");
    }
    let autoinc_lock_mode = cell.autoinc_lock_mode.or(e.autoinc_lock_mode.map(|m| m.0));
    if autoinc_lock_mode.is_some() {
        requested.push("innodb_autoinc_lock_mode");
    }
    let settings = EngineSettings {
        page_size_bytes,
        buffer_pool_bytes: buffer_pool,
        fill_factor_pct: cell
            .fill_factor
            .or(e.fill_factor.map(|f| f.0))
            .unwrap_or(d.fill_factor_pct),
        merge_threshold_pct: cell
            .merge_threshold
            .or(e.merge_threshold.map(|m| m.0))
            .unwrap_or(d.merge_threshold_pct),
        change_buffering,
        performance_schema: e.performance_schema,
        model: e.model,
        autoinc_lock_mode,
        checkpoint_every_rows: e.checkpoint_every_rows.map(|n| scale_count(n.get(), scale).max(1)),
        shards: e.shards.or(e.backends.as_ref().map(|b| b.get_ref().len() as u32)),
        sharding: cell.sharding.or(e.sharding),
    };
    (settings, requested)
}

/// `e1_uuid4_text` (`_sec` in secondary placement), at most 64 characters (MySQL's limit).
fn table_name(spec: &TableSpec, variant: Variant, placement: Placement) -> String {
    let v: String = variant
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let suffix = if placement == Placement::Secondary { "_sec" } else { "" };
    let mut name = format!("{}_{v}{suffix}", spec.name.get_ref());
    name.truncate(64);
    name
}
