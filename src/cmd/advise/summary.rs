//! `keylab advise FILE.sql` without `--table` on a file of several tables: every table
//! advised on in one report (the report's `schema` section). Each table is prepared as the
//! one-table report prepares it (`prepare.rs`), its candidates built on the simulator with
//! the same rule of shared builds; every candidate of every table is one job of one
//! `parallel::run_ordered`, so tables run on every core, the costliest first. Per table the
//! best candidate is chosen by the recommendation's rule (`figures::best_candidate`), and a
//! parent's change is carried to the columns of its children that refer to it
//! (`children.rs`). Tables are ranked by bytes saved, children included.
//!
//! A table that cannot be advised (refused by the reader, no primary key, a limit a
//! candidate breaks, its current key failing) is one line with its reason; the command exits
//! 0 when at least one table was advised, 2 when none was, with every reason.

use super::children::{child_changes, KeyChange, METHOD};
use super::figures::{best_candidate, key_entry_bytes, key_type_sql, total_bytes, WorkingSet};
use super::prepare::{prepare, Prepared};
use super::rows::AdviseRows;
use super::share::shared_builds;
use super::sim::{run_nbtree, run_sim};
use super::{jobs_of, relabel, Candidate};
use crate::args::advise::{candidates_of, AdviseArgs, SUMMARY_CANDIDATES};
use crate::engines::sim_settings;
use crate::output;
use crate::parallel::{self, Failure};
use crate::progress::Bars;
use crate::UsageError;
use anyhow::Result;
use keylab_core::{
    Engine, EngineKind, EngineSettings, RefusedTable, Report, RunResult, SchemaSummary,
    SchemaTable, SimModel,
};
use keylab_ddl::{DdlFile, DdlTable, SourceDialect};
use keylab_innodb_model::SimSettings;
use keylab_schema::{ColumnType, Value};
use keylab_sim::{flavour, nbtree_settings, NbtreeEngine, SimEngine};

/// Rows per table when --rows is not given: a 60-table schema in well under a minute on two
/// cores (docs/benchmarks.md), and enough rows for several levels of every index.
pub const SUMMARY_ROWS: u64 = 100_000;

/// The tables of the file, each read or refused: the one place that asks.
pub fn tables_of(file: &DdlFile) -> Vec<Result<&DdlTable, &keylab_ddl::RefusedTable>> {
    let mut all: Vec<_> = file.tables.iter().map(Ok).chain(file.refused.iter().map(Err)).collect();
    // File order: a read table by its CREATE TABLE, a refused one by the place refused.
    all.sort_by_key(|t| match t {
        Ok(d) => (d.at.line, d.at.column),
        Err(r) => (r.error.at.line, r.error.at.column),
    });
    all
}

/// One candidate's figures, or why it failed.
type CandidateResult = Result<(RunResult, WorkingSet)>;

/// A table prepared to run, and its results as they come.
struct Advised<'a> {
    ddl: &'a DdlTable,
    prepared: Prepared,
    build_of: Vec<Option<usize>>,
    results: Vec<Option<CandidateResult>>,
}

fn refusal(ddl: &DdlTable, origin: &str, e: &anyhow::Error) -> RefusedTable {
    let at = format!("{origin}:{}:{}", ddl.at.line, ddl.at.column);
    let text = format!("{e:#}");
    // A refusal that names its own place keeps it; else the table's CREATE TABLE.
    let (at, reason) = match text.split_once(": ") {
        Some((place, rest)) if place.starts_with(origin) && place.len() > origin.len() => {
            (place.to_string(), rest.to_string())
        }
        _ => (at, text),
    };
    RefusedTable { table: ddl.table.name.clone(), at, reason }
}

/// Runs the summary of every table of `file`.
pub fn run_schema(mut args: AdviseArgs, file: &DdlFile, origin: &str) -> Result<()> {
    if args.engine != EngineKind::Sim {
        return Err(UsageError(format!(
            "--engine {}: a whole schema is advised on the simulator; name one table with \
             --table to measure it on a server",
            args.engine
        ))
        .into());
    }
    let one_table = [
        (!args.workload.is_empty(), "--workload"),
        (args.buffer_pool.is_some(), "--buffer-pool"),
        (!args.pool_sizes.is_empty(), "--pool-sizes"),
        (args.hit_target.is_some(), "--hit-target"),
    ];
    if let Some((_, flag)) = one_table.iter().find(|f| f.0) {
        return Err(UsageError(format!(
            "{flag} weighs one table's workload; name the table with --table"
        ))
        .into());
    }
    for (name, _) in &args.width {
        let known = file.tables.iter().flat_map(|t| &t.table.columns);
        if !known.clone().any(|c| c.name.eq_ignore_ascii_case(name)) {
            return Err(UsageError(format!(
                "--width {name}: no table of the file has a column `{name}`"
            ))
            .into());
        }
    }
    args.rows = Some(args.rows.unwrap_or(SUMMARY_ROWS));
    if args.keys.is_none() {
        args.keys = Some(candidates_of(SUMMARY_CANDIDATES));
    }
    let rows = super::rows_of(&args);
    let settings = EngineSettings::default();
    let mut refused = Vec::new();
    let mut tables: Vec<Advised> = Vec::new();
    let mut notes = Vec::new();
    for t in tables_of(file) {
        let ddl = match t {
            Ok(ddl) => ddl,
            Err(r) => {
                let e = &r.error;
                let at = format!("{}:{}:{}", e.origin, e.at.line, e.at.column);
                let reason = e.message.clone();
                refused.push(RefusedTable { table: r.name.clone(), at, reason });
                continue;
            }
        };
        let has = |c: &str| ddl.table.columns.iter().any(|col| col.name.eq_ignore_ascii_case(c));
        let widths: Vec<(String, u32)> =
            args.width.iter().filter(|(c, _)| has(c)).cloned().collect();
        let mut table_notes = Vec::new();
        match prepare(&args, &widths, ddl, file.dialect, origin, &mut table_notes) {
            Ok(mut prepared) => {
                for c in &mut prepared.candidates {
                    c.progress_prefix = Some(ddl.table.name.clone());
                }
                let n = prepared.candidates.len();
                // Shared builds are found once the memory check has passed (below).
                let build_of = vec![None; n];
                notes.extend(
                    ddl.notes
                        .iter()
                        .map(|n| format!("{origin}:{}:{}: {}", n.at.line, n.at.column, n.message)),
                );
                let results = (0..n).map(|_| None).collect();
                tables.push(Advised { ddl, prepared, build_of, results });
            }
            Err(e) => refused.push(refusal(ddl, origin, &e)),
        }
    }
    let Some(first) = tables.first() else { return Err(none_advised(origin, &refused)) };
    // The report's engine: the first advised table's model.
    let first_model = first.prepared.model;
    let sizes = tables
        .iter()
        .flat_map(|a| &a.prepared.candidates)
        .map(|c| crate::memory::table_bytes(&c.table, c.variant.as_ref(), rows))
        .collect();
    let jobs = jobs_of(&args);
    let need = crate::memory::held_at_once(sizes, jobs);
    let what = format!("--rows {rows} per table on {jobs} job(s)");
    let lower = "--rows (or --jobs: each job holds a candidate's table)";
    crate::memory::check_model(&what, need, lower)?;
    for a in tables.iter_mut() {
        if a.prepared.model != SimModel::Postgres15 && !args.no_shared_builds {
            a.build_of = shared_builds(&a.prepared.candidates, rows, args.seed).build_of;
        }
    }
    run_all(&args, &settings, &mut tables)?;
    let all: Vec<&DdlTable> = tables_of(file).into_iter().flatten().collect();
    let summary = summarise(file.dialect, origin, rows, args.seed, &all, tables, refused);
    let engine = match first_model {
        SimModel::Postgres15 => NbtreeEngine::new(nbtree_settings(&settings, None)).info(),
        m => SimEngine::new(sim_of(m, &settings)?).info(),
    };
    let mut report = Report {
        keylab: env!("CARGO_PKG_VERSION").to_string(),
        schema_version: keylab_core::REPORT_SCHEMA_VERSION,
        scenario: "advise schema".into(),
        seed: args.seed,
        engine,
        runs: Vec::new(),
        schema: None,
    };
    notes.insert(
        0,
        "every figure is a prediction of keylab's page models (InnoDB of MariaDB 10.11 for \
         MySQL tables, nbtree of PostgreSQL 15 for PostgreSQL tables it covers), not a \
         measurement; --table NAME shows one table in full"
            .into(),
    );
    for n in notes {
        super::add_note(&mut report, &n);
    }
    if summary.tables.is_empty() {
        return Err(none_advised(origin, &summary.refused));
    }
    report.schema = Some(summary);
    output::write_exports(&report, &args.output, output::Stage::Final)?;
    output::print(&report, &args.output)
}

/// Exit 2 with every table's reason.
fn none_advised(origin: &str, refused: &[RefusedTable]) -> anyhow::Error {
    let reasons: Vec<String> = refused.iter().map(|r| format!("{}: {}", r.at, r.reason)).collect();
    UsageError(format!("{origin}: no table could be advised:\n  {}", reasons.join("\n  "))).into()
}

fn sim_of(model: SimModel, settings: &EngineSettings) -> Result<SimSettings> {
    // Advise only inserts: the model keeps no per-row copy for deletes.
    Ok(SimSettings {
        flavour: flavour(model).unwrap_or_default(),
        insert_only: true,
        ..sim_settings(settings)?
    })
}

/// Every built candidate of every table, as one series of jobs on --jobs threads.
fn run_all(args: &AdviseArgs, settings: &EngineSettings, tables: &mut [Advised]) -> Result<()> {
    let jobs: Vec<(usize, usize)> = tables
        .iter()
        .enumerate()
        .flat_map(|(t, a)| {
            (0..a.prepared.candidates.len())
                .filter(|&c| a.build_of[c].is_none())
                .map(move |c| (t, c))
        })
        .collect();
    let nb = nbtree_settings(settings, None);
    let sims: Vec<SimSettings> =
        tables.iter().map(|a| sim_of(a.prepared.model, settings)).collect::<Result<_>>()?;
    let bars = Bars::new();
    let mut left: Vec<usize> =
        tables.iter().map(|a| a.build_of.iter().filter(|b| b.is_none()).count()).collect();
    let total = tables.len();
    let mut finished = 0;
    let view: &[Advised] = tables;
    let cost = |j: usize| {
        let (t, c) = jobs[j];
        let cand = &view[t].prepared.candidates[c];
        let per_index = 1 + cand.table.indexes.len() as u64;
        let width = cand.table.columns.len() as u64;
        cand.variant
            .map_or(u64::MAX, |v| parallel::load_cost(&v, 1))
            .saturating_mul(per_index)
            .saturating_add(width)
    };
    let mut out: Vec<(usize, usize, CandidateResult)> = Vec::new();
    parallel::run_ordered(
        jobs_of(args),
        jobs.len(),
        &bars,
        cost,
        |j, progress| {
            let (t, c) = jobs[j];
            let cand: &Candidate = &view[t].prepared.candidates[c];
            Ok(match view[t].prepared.model {
                SimModel::Postgres15 => run_nbtree(cand, args, nb, progress),
                _ => run_sim(cand, args, &|| SimEngine::new(sims[t]), progress),
            })
        },
        |j, r| {
            let (t, c) = jobs[j];
            left[t] -= 1;
            if left[t] == 0 {
                finished += 1;
                bars.println(&format!("[{finished}/{total}] {} done", view[t].ddl.table.name));
            }
            out.push((t, c, r));
            Ok(())
        },
    )
    .map_err(|(Failure::Job(e) | Failure::Sink(e))| e)?;
    for (t, c, r) in out {
        tables[t].results[c] = Some(r);
    }
    for a in tables.iter_mut() {
        for i in 0..a.build_of.len() {
            let Some(j) = a.build_of[i] else { continue };
            let shared = match &a.results[j] {
                Some(Ok((run, ws))) => Ok((relabel(run, &a.prepared.candidates[i]), ws.clone())),
                Some(Err(e)) => {
                    Err(anyhow::anyhow!("built as {}: {e:#}", a.prepared.candidates[j].label))
                }
                None => Err(anyhow::anyhow!(
                    "candidate {} was not built",
                    a.prepared.candidates[j].label
                )),
            };
            a.results[i] = Some(shared);
        }
    }
    Ok(())
}

/// Pages of every index of a run, `None` when one is unknown.
fn pages(run: &RunResult) -> Option<u64> {
    run.indexes.iter().map(|i| i.size_pages).sum()
}

/// The summary of the advised tables, ranked, with their children.
fn summarise(
    dialect: SourceDialect,
    origin: &str,
    rows: u64,
    seed: u64,
    all: &[&DdlTable],
    tables: Vec<Advised>,
    mut refused: Vec<RefusedTable>,
) -> SchemaSummary {
    let candidates: Vec<String> = tables
        .first()
        .map(|a| a.prepared.candidates.iter().skip(1).map(|c| c.label.clone()).collect())
        .unwrap_or_default();
    // Per advised table: its row, the current and best candidates.
    let mut rows_out: Vec<(SchemaTable, Option<KeyChangeOwned>)> = Vec::new();
    // Every table read is a possible child: advised ones with their model and one generated
    // row, the others as their dialect stores them.
    let children: Vec<(&DdlTable, bool, Option<Vec<Value>>)> = all
        .iter()
        .map(|t| match tables.iter().find(|a| std::ptr::eq(a.ddl, *t)) {
            Some(a) => {
                let c = &a.prepared.candidates[0];
                let row = AdviseRows::new(&c.table, &c.plan, c.variant, seed).next();
                (*t, a.prepared.heap_table, row)
            }
            None => (*t, dialect == SourceDialect::Postgres, None),
        })
        .collect();
    for a in &tables {
        let cands = &a.prepared.candidates;
        let mut runs = Vec::new();
        let mut sets = Vec::new();
        let mut done: Vec<&Candidate> = Vec::new();
        let mut failed = Vec::new();
        for (c, r) in cands.iter().zip(&a.results) {
            match r {
                Some(Ok((run, ws))) => {
                    runs.push(run.clone());
                    sets.push(ws.clone());
                    done.push(c);
                }
                Some(Err(e)) => failed.push(format!("candidate {} failed: {e:#}", c.label)),
                None => failed.push(format!("candidate {} did not run", c.label)),
            }
        }
        if done.first().map(|c| c.label.as_str()) != Some("current") {
            let reason =
                failed.first().cloned().unwrap_or_else(|| "the current key did not run".into());
            refused.push(RefusedTable {
                table: a.ddl.table.name.clone(),
                at: format!("{origin}:{}:{}", a.ddl.at.line, a.ddl.at.column),
                reason,
            });
            continue;
        }
        let cur = done[0];
        let t = &cur.table;
        let current_key = match (cur.key.is_empty(), t.innodb_clustered()) {
            // No primary key: say what the rows are clustered on instead of nothing.
            (true, _) if cur.heap_table => "none (a heap)".to_string(),
            (true, keylab_schema::Clustered::Unique(i)) => {
                format!("none (clustered on UNIQUE KEY {})", t.indexes[i].name)
            }
            (true, _) => format!("none (hidden {}-byte row id)", keylab_schema::ROW_ID_BYTES),
            (false, _) => cur
                .key
                .iter()
                .map(|&k| format!("{} {}", t.columns[k].name, key_type_sql(cur, k)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let best = best_candidate(&runs, &sets, a.prepared.page_bytes, &[]);
        let bytes_now = total_bytes(&runs[0]);
        let bytes_best = best.and_then(|b| total_bytes(&runs[b]));
        let bytes_saved = match (bytes_now, bytes_best) {
            (Some(n), Some(b)) => Some(n as i64 - b as i64),
            _ => None,
        };
        let change = best.map(|b| KeyChangeOwned {
            parent: a.ddl.table.name.clone(),
            key_columns: a
                .ddl
                .table
                .primary_key
                .iter()
                .map(|&k| a.ddl.table.columns[k].name.clone())
                .collect(),
            current_bytes: key_entry_bytes(cur),
            candidate_bytes: key_entry_bytes(done[b]),
            candidate_type: done[b].table.columns[done[b].key[0]].ty,
        });
        let row = SchemaTable {
            table: a.ddl.table.name.clone(),
            current_key,
            best: best.map(|b| done[b].label.clone()),
            best_key_type: best.map(|b| {
                done[b].key.iter().map(|&k| key_type_sql(done[b], k)).collect::<Vec<_>>().join(", ")
            }),
            bytes_now,
            bytes_best,
            pages_now: pages(&runs[0]),
            pages_best: best.and_then(|b| pages(&runs[b])),
            bytes_saved,
            child_bytes_added: None,
            bytes_saved_with_children: None,
            children: Vec::new(),
            note: (!failed.is_empty()).then(|| failed.join("; ")),
        };
        rows_out.push((row, change));
    }
    for (row, change) in &mut rows_out {
        let Some(change) = change else { continue };
        let key = KeyChange {
            parent: &change.parent,
            key_columns: change.key_columns.iter().map(String::as_str).collect(),
            current_bytes: change.current_bytes,
            candidate_bytes: change.candidate_bytes,
            candidate_type: change.candidate_type,
        };
        for (child, heap, one_row) in &children {
            row.children.extend(child_changes(
                &key,
                &child.table,
                &child.foreign_keys,
                *heap,
                rows,
                one_row.as_deref(),
            ));
        }
        let added: Option<i64> = row.children.iter().map(|c| c.bytes_added).sum();
        row.child_bytes_added = added;
        row.bytes_saved_with_children = match (row.bytes_saved, added) {
            (Some(s), Some(a)) => Some(s - a),
            _ => None,
        };
    }
    let mut ranked: Vec<SchemaTable> = rows_out.into_iter().map(|(r, _)| r).collect();
    // Most saved first; a table without the figure last, in file order.
    ranked.sort_by_key(|r| {
        std::cmp::Reverse(
            r.bytes_saved_with_children.or(r.bytes_saved).map_or(i128::MIN, i128::from),
        )
    });
    // File order: a table whose current key failed was found last.
    let place = |at: &str| -> Vec<u64> {
        let rest = at.strip_prefix(origin).unwrap_or(at);
        rest.split(':').filter_map(|n| n.parse().ok()).collect()
    };
    refused.sort_by_key(|r| place(&r.at));
    let dialect = match dialect {
        SourceDialect::Mysql => "mysql",
        SourceDialect::Postgres => "postgres",
    };
    SchemaSummary {
        file: origin.to_string(),
        dialect: dialect.into(),
        rows_per_table: rows,
        candidates,
        child_bytes_method: METHOD.into(),
        tables: ranked,
        refused,
    }
}

/// [`KeyChange`] with owned names (kept while the rows are assembled).
struct KeyChangeOwned {
    parent: String,
    key_columns: Vec<String>,
    current_bytes: u32,
    candidate_bytes: u32,
    candidate_type: ColumnType,
}
