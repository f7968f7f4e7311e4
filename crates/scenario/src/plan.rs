//! From a parsed scenario to the list of runs it asks for: matrix expansion (each group a
//! product of its dimensions, the runs the union of the groups, then placements × variants
//! in every cell), `--scale`, and each run's table, engine settings and phases.
//!
//! Planning touches no engine: a scenario that plans is a scenario that can run, so parsing
//! plans once at scale 1 to find every error before anything starts. Whether the generators'
//! values fit their columns over all of a run's rows depends on `--scale`, so parsing checks
//! only each generator's first row and [`Scenario::plan`] checks every row.

use crate::error::ScenarioError;
use crate::ranges;
use crate::spec::{BatchSpec, PhaseSpec, ScenarioSpec, TableSpec};
use crate::table::{self, BuiltTable, Ctx};
use keylab_core::{
    ChurnInsert, ChurnStyle, DdlSpec, EngineSettings, LoadMethod, LoadPlan, Placement, QuerySpec,
};
use keylab_keys::{ClockKind, GenConfig, Variant, WithinMs};
use keylab_schema::Table;
use std::num::NonZeroU32;
use toml::Spanned;

/// The smallest buffer pool a scaled scenario asks for (MySQL's and MariaDB's minimum is 5 MiB).
pub const MIN_BUFFER_POOL_BYTES: u64 = 5 << 20;

/// The smallest buffer pool a server starts with at `page_size_bytes`: 5 MiB, and from 16 KiB
/// pages up, 320 pages plus 1 MiB (MariaDB 10.11 refuses less at startup, "innodb_page_size=16384
/// requires innodb_buffer_pool_size >= 6 MiB"; 11 MiB at 32k, 21 MiB at 64k, measured).
pub fn min_buffer_pool_bytes(page_size_bytes: u32) -> u64 {
    MIN_BUFFER_POOL_BYTES.max(u64::from(page_size_bytes) * 320 + (1 << 20))
}

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

type Setter = Box<dyn Fn(&mut Cell)>;

/// A dimension: its name and one setter per value, each with the value's label.
fn dim<T: Clone + 'static>(
    dims: &mut Vec<(String, Vec<(String, Setter)>)>,
    name: &str,
    values: &[T],
    label: impl Fn(&T) -> String,
    set: impl Fn(&mut Cell, T) + Clone + 'static,
) {
    let setters = values
        .iter()
        .map(|v| {
            let (v2, set) = (v.clone(), set.clone());
            (label(v), Box::new(move |c: &mut Cell| set(c, v2.clone())) as Setter)
        })
        .collect();
    dims.push((name.to_string(), setters));
}

fn expand(cx: &Ctx, spec: &ScenarioSpec, scale: f64) -> Result<Vec<Cell>, ScenarioError> {
    let groups: Vec<_> =
        if spec.matrix.is_empty() { vec![None] } else { spec.matrix.iter().map(Some).collect() };
    let mut cells = Vec::new();
    for group in groups {
        let mut dims: Vec<(String, Vec<(String, Setter)>)> = Vec::new();
        if let Some(m) = group {
            let m = m.get_ref();
            macro_rules! empty_check {
                ($field:expr) => {
                    if let Some(list) = &$field {
                        if list.get_ref().is_empty() {
                            return Err(
                                cx.err(list.span(), "a matrix dimension needs at least one value")
                            );
                        }
                    }
                };
            }
            empty_check!(m.table);
            empty_check!(m.variants);
            empty_check!(m.placements);
            empty_check!(m.rows);
            empty_check!(m.method);
            empty_check!(m.batch);
            empty_check!(m.writers);
            empty_check!(m.page_size);
            empty_check!(m.buffer_pool);
            empty_check!(m.fill_factor);
            empty_check!(m.merge_threshold);
            empty_check!(m.change_buffering);
            empty_check!(m.ids_per_ms);
            empty_check!(m.within_ms);
            empty_check!(m.autoinc_lock_mode);
            empty_check!(m.sharding);
            if let Some(names) = &m.table {
                let tables = spec.tables.get_ref();
                let mut idx = Vec::new();
                for n in names.get_ref() {
                    let i = tables
                        .iter()
                        .position(|t| t.name.get_ref() == n.get_ref())
                        .ok_or_else(|| {
                            let valid: Vec<&str> =
                                tables.iter().map(|t| t.name.get_ref().as_str()).collect();
                            cx.err(
                                n.span(),
                                format!(
                                    "unknown table `{}`; valid: {}",
                                    n.get_ref(),
                                    valid.join(", ")
                                ),
                            )
                        })?;
                    idx.push(i);
                }
                dim(
                    &mut dims,
                    "table",
                    &idx,
                    |&i| tables[i].name.get_ref().clone(),
                    |c, i| c.table = Some(i),
                );
            }
            if let Some(v) = &m.rows {
                dim(
                    &mut dims,
                    "rows",
                    v.get_ref(),
                    move |n| scale_count(n.get(), scale).to_string(),
                    |c, n| c.rows = Some(n.get()),
                );
            }
            if let Some(v) = &m.method {
                dim(&mut dims, "method", v.get_ref(), |m| m.to_string(), |c, m| c.method = Some(m));
            }
            if let Some(v) = &m.batch {
                dim(&mut dims, "batch", v.get_ref(), |b| b.to_string(), |c, b| c.batch = Some(b));
            }
            if let Some(v) = &m.writers {
                dim(
                    &mut dims,
                    "writers",
                    v.get_ref(),
                    |n| n.to_string(),
                    |c, n| c.writers = Some(n.get()),
                );
            }
            if let Some(v) = &m.page_size {
                dim(
                    &mut dims,
                    "page_size",
                    v.get_ref(),
                    |p| p.label(),
                    |c, p| c.page_size = Some(p.0),
                );
            }
            if let Some(v) = &m.buffer_pool {
                dim(
                    &mut dims,
                    "buffer_pool",
                    v.get_ref(),
                    |b| b.label(),
                    |c, b| c.buffer_pool = Some(b.0),
                );
            }
            if let Some(v) = &m.fill_factor {
                dim(
                    &mut dims,
                    "fill_factor",
                    v.get_ref(),
                    |f| f.0.to_string(),
                    |c, f| c.fill_factor = Some(f.0),
                );
            }
            if let Some(v) = &m.merge_threshold {
                dim(
                    &mut dims,
                    "merge_threshold",
                    v.get_ref(),
                    |f| f.0.to_string(),
                    |c, f| c.merge_threshold = Some(f.0),
                );
            }
            if let Some(v) = &m.change_buffering {
                dim(
                    &mut dims,
                    "change_buffering",
                    v.get_ref(),
                    |&b| if b { "on" } else { "off" }.into(),
                    |c, b| c.change_buffering = Some(b),
                );
            }
            if let Some(v) = &m.ids_per_ms {
                let set = |c: &mut Cell, n: NonZeroU32| c.ids_per_ms = Some(n.get());
                dim(&mut dims, "ids_per_ms", v.get_ref(), |n| n.to_string(), set);
            }
            if let Some(v) = &m.within_ms {
                let set = |c: &mut Cell, w| c.within_ms = Some(w);
                dim(&mut dims, "within_ms", v.get_ref(), |w| w.to_string(), set);
            }
            if let Some(v) = &m.autoinc_lock_mode {
                dim(
                    &mut dims,
                    "autoinc_lock_mode",
                    v.get_ref(),
                    |m| m.0.to_string(),
                    |c, m| c.autoinc_lock_mode = Some(m.0),
                );
            }
            if let Some(v) = &m.sharding {
                let set = |c: &mut Cell, s| c.sharding = Some(s);
                dim(&mut dims, "sharding", v.get_ref(), |s| s.to_string(), set);
            }
        }
        let base = Cell {
            variants: match group.and_then(|m| m.get_ref().variants.as_ref()) {
                Some(v) => Some(variants(cx, v.get_ref())?),
                None => None,
            },
            placements: group
                .and_then(|m| m.get_ref().placements.as_ref().map(|v| v.get_ref().clone())),
            ..Cell::default()
        };
        cells.extend(product(base, &dims));
    }
    Ok(cells)
}

/// Every combination of `dims` applied to `base`, the first dimension varying slowest.
fn product(base: Cell, dims: &[(String, Vec<(String, Setter)>)]) -> Vec<Cell> {
    let mut out = vec![base];
    for (name, values) in dims {
        let mut next = Vec::with_capacity(out.len() * values.len());
        for cell in &out {
            for (label, set) in values {
                let mut c = cell.clone();
                set(&mut c);
                c.coords.push((name.clone(), label.clone()));
                next.push(c);
            }
        }
        out = next;
    }
    out
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

    /// Reads and parses a scenario file (refused past [`MAX_SCENARIO_BYTES`], so
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
    /// password: never print them; `keylab_server::ServerUrl` masks it).
    pub fn backends(&self) -> Vec<String> {
        self.spec
            .engine
            .backends
            .as_ref()
            .map(|b| b.get_ref().iter().map(|u| u.get_ref().clone()).collect())
            .unwrap_or_default()
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

/// Checks that do not depend on a cell.
fn check_top(cx: &Ctx, spec: &ScenarioSpec) -> Result<(), ScenarioError> {
    if spec.name.get_ref().trim().is_empty() {
        return Err(cx.err(spec.name.span(), "the scenario needs a name"));
    }
    if spec.variants.get_ref().is_empty() {
        return Err(cx.err(spec.variants.span(), "`variants` needs at least one key variant"));
    }
    if let Some(p) = &spec.placements {
        if p.get_ref().is_empty() {
            return Err(cx.err(p.span(), "`placements` needs at least one of pk, secondary"));
        }
    }
    let tables = spec.tables.get_ref();
    if tables.is_empty() {
        return Err(cx.err(spec.tables.span(), "`tables` needs at least one table"));
    }
    for (i, t) in tables.iter().enumerate() {
        if t.name.get_ref().is_empty()
            || !t.name.get_ref().chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(cx.err(t.name.span(), "a table name needs letters, digits and `_` only"));
        }
        if tables[..i].iter().any(|o| o.name.get_ref() == t.name.get_ref()) {
            return Err(
                cx.err(t.name.span(), format!("table `{}` is defined twice", t.name.get_ref()))
            );
        }
        table::check_payload(cx, t)?;
    }
    let node = &spec.generator.node;
    if *node.get_ref() > keylab_keys::MAX_NODE {
        return Err(cx.err(
            node.span(),
            format!("node {} does not fit 10 bits; valid: 0 to 1023", node.get_ref()),
        ));
    }
    check_backends(cx, spec)?;
    let phases = spec.phases.get_ref();
    match phases.first() {
        None => return Err(cx.err(spec.phases.span(), "`phases` needs at least a load phase")),
        Some(p) if !matches!(p.get_ref(), PhaseSpec::Load(_)) => {
            return Err(cx.err(p.span(), "the first phase must be a load"))
        }
        Some(_) => {}
    }
    Ok(())
}

/// `[engine] backends`: 2 to 16 MySQL URLs, agreeing with `shards` when both are given. The
/// URLs are parsed in full when the engine connects (keylab-server); here their form.
fn check_backends(cx: &Ctx, spec: &ScenarioSpec) -> Result<(), ScenarioError> {
    let masked = |e: ScenarioError| ScenarioError {
        source_line: e.source_line.map(|l| mask_passwords(&l)),
        ..e
    };
    check_backend_urls(cx, spec).map_err(masked)
}

/// `line` with the password of every `scheme://user:password@` replaced by `***`.
fn mask_passwords(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("://") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest.find(['"', '\'', ' ', ',', ']']).unwrap_or(rest.len());
        let url = &rest[..end];
        match (url.rfind('@'), url.find(':')) {
            (Some(at), Some(colon)) if colon < at => {
                out.push_str(&url[..=colon]);
                out.push_str("***");
                out.push_str(&url[at..]);
            }
            _ => out.push_str(url),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn check_backend_urls(cx: &Ctx, spec: &ScenarioSpec) -> Result<(), ScenarioError> {
    let Some(list) = &spec.engine.backends else { return Ok(()) };
    let n = list.get_ref().len();
    if !(2..=16).contains(&n) {
        return Err(cx.err(
            list.span(),
            format!("`backends` lists {n} servers; valid: 2 to 16 (one per shard)"),
        ));
    }
    if let Some(shards) = spec.engine.shards.filter(|&s| s as usize != n) {
        return Err(cx.err(
            list.span(),
            format!("`shards = {shards}` but `backends` lists {n} servers; drop `shards`"),
        ));
    }
    for url in list.get_ref() {
        let text = url.get_ref();
        let ok = ["mysql://", "mariadb://"]
            .iter()
            .any(|s| text.strip_prefix(s).is_some_and(|rest| !rest.is_empty()));
        if !ok {
            // Never echo the text: it may hold a password.
            return Err(cx.err(
                url.span(),
                "a backend is a MariaDB URL: mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (or \
                 mariadb://)",
            ));
        }
    }
    Ok(())
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

fn phases(
    cx: &Ctx,
    spec: &ScenarioSpec,
    cell: &Cell,
    settings: &EngineSettings,
    scale: f64,
) -> Result<Vec<PhasePlan>, ScenarioError> {
    let mut out = Vec::new();
    for p in spec.phases.get_ref() {
        out.push(match p.get_ref() {
            PhaseSpec::Load(l) => {
                let batch = cell.batch.unwrap_or(l.batch);
                let method = cell.method.unwrap_or(l.method);
                let shaped = matches!(
                    method,
                    LoadMethod::Multi | LoadMethod::Prepared | LoadMethod::PreparedUncached
                );
                if batch.max.is_some() && !shaped {
                    return Err(cx.err(
                        p.span(),
                        format!(
                            "batch {batch} varies the statement shape, which only multi, \
                             prepared and prepared-uncached have; method {method} needs one \
                             row count"
                        ),
                    ));
                }
                PhasePlan::Load {
                    rows: scale_count(cell.rows.unwrap_or(l.rows.get()), scale),
                    plan: LoadPlan {
                        method,
                        batch: batch.min,
                        writers: cell.writers.unwrap_or(l.writers.get()),
                        batch_max: batch.max,
                    },
                    sample_every: l.sample_every.map(|n| scale_count(n.get(), scale)),
                }
            }
            PhaseSpec::Churn(c) => PhasePlan::Churn {
                rounds: c.rounds.get(),
                inserts: if c.inserts == 0 { 0 } else { scale_count(c.inserts, scale) },
                deletes: if c.deletes == 0 { 0 } else { scale_count(c.deletes, scale) },
                measure_every: c.measure_every.get(),
                style: {
                    if c.writers.get() > 1 && c.insert_method != ChurnInsert::Row {
                        return Err(cx.err(
                            p.span(),
                            "churn writers > 1 needs insert_method = \"row\" (valid: \
                             insert_method = \"row\" with any writers, or \"multi\" with \
                             writers = 1)",
                        ));
                    }
                    ChurnStyle {
                        insert: c.insert_method,
                        writers: c.writers.get(),
                        delete: c.delete_method,
                    }
                },
            },
            PhaseSpec::Rebuild(r) => PhasePlan::Rebuild {
                fill_factor_pct: r.fill_factor.map_or(settings.fill_factor_pct, |f| f.0),
            },
            PhaseSpec::Restart(_) => PhasePlan::Restart,
            PhaseSpec::Queries(q) => {
                let mut queries = Vec::new();
                if let Some(n) = q.point {
                    queries.push(("point".to_string(), QuerySpec::Point { count: n.get() }));
                }
                if let Some(n) = q.pk_range {
                    let rows = u32::try_from(scale_count(n.get(), scale)).unwrap_or(u32::MAX);
                    queries.push(("pk_range".to_string(), QuerySpec::PkRange { rows }));
                }
                if let Some(prefix) = &q.id_prefix {
                    queries.push(("id_prefix".to_string(), QuerySpec::IdPrefix { prefix: prefix.clone() }));
                }
                if let Some(share) = &q.id_share {
                    if q.id_prefix.is_some() {
                        return Err(cx.err(
                            share.span(),
                            "give id_prefix or id_share, not both (both name the query id_prefix)",
                        ));
                    }
                    let v = *share.get_ref();
                    if !(v > 0.0 && v <= 1.0) {
                        return Err(cx.err(
                            share.span(),
                            format!("id_share must be in (0, 1] (a share of the rows), got {v}"),
                        ));
                    }
                    queries.push(("id_prefix".to_string(), QuerySpec::IdShare { share: v }));
                }
                if q.full_scan {
                    queries.push(("full_scan".to_string(), QuerySpec::FullScan));
                }
                if queries.is_empty() {
                    return Err(cx.err(
                        p.span(),
                        "a queries phase needs at least one of point, pk_range, id_prefix, id_share, full_scan",
                    ));
                }
                PhasePlan::Queries { runs: q.runs.get(), queries }
            }
            PhaseSpec::Ddl(d) => {
                // Every column any table of the scenario has (the writers insert into each).
                let spec_columns: Vec<&str> = spec
                    .tables
                    .get_ref()
                    .iter()
                    .flat_map(|t| {
                        [t.id.name.get_ref().as_str(), t.surrogate.get_ref().as_str()]
                            .into_iter()
                            .chain(t.columns.iter().map(|c| c.name.get_ref().as_str()))
                    })
                    .collect();
                if d.steps.get_ref().is_empty() {
                    return Err(cx.err(d.steps.span(), "a ddl phase needs at least one step"));
                }
                if d.steps.get_ref().iter().any(|s| {
                    s.after.is_some() && s.action != keylab_core::DdlAction::AddColumn
                }) {
                    return Err(cx.err(
                        d.steps.span(),
                        "`after` places a new column; only add_column steps take it",
                    ));
                }
                let writers = d.concurrent_writers.as_ref().map_or(0, |w| *w.get_ref());
                if let Some(w) = d.concurrent_writers.as_ref().filter(|_| writers > MAX_DDL_WRITERS)
                {
                    return Err(cx.err(
                        w.span(),
                        format!("concurrent_writers is at most {MAX_DDL_WRITERS}, got {writers}"),
                    ));
                }
                let dropped_table_column = d.steps.get_ref().iter().find(|s| {
                    s.action == keylab_core::DdlAction::DropColumn
                        && spec_columns.contains(&s.column.as_str())
                });
                if let Some(s) = dropped_table_column.filter(|_| writers > 0) {
                    return Err(cx.err(
                        d.steps.span(),
                        format!(
                            "drop_column `{}`: with concurrent_writers the writers insert into \
                             every column of the table, so only a column an earlier step added \
                             can be dropped",
                            s.column
                        ),
                    ));
                }
                PhasePlan::Ddl {
                    concurrent_writers: writers,
                    steps: d
                        .steps
                        .get_ref()
                        .iter()
                        .map(|s| DdlSpec {
                            action: s.action,
                            column: s.column.clone(),
                            algorithm: s.algorithm,
                            after: s.after.clone(),
                            lock: s.lock,
                        })
                        .collect(),
                }
            }
        });
    }
    Ok(out)
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
