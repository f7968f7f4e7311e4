//! `keylab advise` on the simulator: which model runs the candidates (the nbtree model of
//! PostgreSQL 15 for a PostgreSQL table it covers, else the InnoDB model), and one candidate
//! on its own model with the insert working set counted from the leaf of every insert.
//! It renders nothing and starts no server (`advise.rs` does both).

use super::figures::WorkingSet;
use super::partitioned::{run_nbtree_partitions, run_sim_partitions};
use super::partitions::Routed;
use super::rows::{AdviseRows, ColumnValues};
use super::{rows_of, run_result, Candidate, PROGRESS_ROWS};
use crate::args::advise::AdviseArgs;
use crate::progress::LoadProgress;
use crate::UsageError;
use anyhow::Result;
use bit_set::BitSet;
use keylab_core::{
    Engine, EngineError, EngineKind, LoadMethod, LoadPlan, Progress, Row, RunResult, SimModel,
};
use keylab_ddl::SourceDialect;
use keylab_nbtree_model::{NbtreeSettings, NbtreeTable};
use keylab_schema::Table;
use keylab_sim::NbtreeEngine;
use keylab_sim::SimEngine;

/// Why the nbtree model cannot hold `table`, or `None` when it can. The one place that
/// decides: it asks the model itself (which keys on one or more columns of its key types),
/// so when the model takes more types PostgreSQL tables with such indexes move to it with no
/// change here.
pub fn nbtree_gap(table: &Table) -> Option<String> {
    NbtreeTable::new(table, NbtreeSettings::default()).err().map(|e| e.to_string())
}

/// The model the candidates run on: `--model` if given (refused, exit 2, when the nbtree
/// model cannot hold a candidate), else the nbtree model for PostgreSQL input it covers,
/// else MariaDB 10.11's InnoDB, with a note saying why a PostgreSQL table is not on its own
/// model.
pub fn choose_model(
    args: &AdviseArgs,
    dialect: SourceDialect,
    candidates: &[Candidate],
    notes: &mut Vec<String>,
) -> Result<SimModel> {
    if let (Some(m), false) = (args.model, args.engine == EngineKind::Sim) {
        return Err(UsageError(format!(
            "--model {m} chooses the server the simulator models, so it needs --engine sim; \
             --engine {} is measured on the server itself",
            args.engine
        ))
        .into());
    }
    let gap = || candidates.iter().find_map(|c| Some((c, nbtree_gap(&c.table)?)));
    match args.model {
        Some(SimModel::Postgres15) => match gap() {
            Some((c, why)) => Err(UsageError(format!(
                "--model postgres-15: candidate {}: {why}; valid here: {}, {}",
                c.label,
                SimModel::Mariadb1011.token(),
                SimModel::Mysql80.token()
            ))
            .into()),
            None => Ok(SimModel::Postgres15),
        },
        Some(m) => Ok(m),
        None if dialect == SourceDialect::Postgres && args.engine == EngineKind::Sim => {
            match gap() {
                None => Ok(SimModel::Postgres15),
                Some((c, why)) => {
                    notes.push(format!(
                        "PostgreSQL input modelled as InnoDB (MariaDB 10.11) would store it, \
                         not on the nbtree model of PostgreSQL 15: candidate {}: {why}",
                        c.label
                    ));
                    Ok(SimModel::Mariadb1011)
                }
            }
        }
        None => Ok(SimModel::Mariadb1011),
    }
}

/// Rows handed to the model at a time (the InnoDB model looks ahead within a batch).
pub(super) const BATCH_ROWS: usize = 512;

/// Distinct leaves per index that inserts touched in the last window of a tenth of the rows
/// and in the window before it too. `insert(rows, after)` inserts rows in order, calling
/// `after` with the leaf of each index (primary key first) after each row, and on a failure
/// returns the index of the failing row in `rows`. The candidate's generator is returned
/// too, at the row after the load (a workload's inserts go on from there).
pub(super) fn load_counting<'t>(
    c: &Candidate,
    (table, plan): (&'t Table, &[ColumnValues]),
    args: &AdviseArgs,
    progress: &mut LoadProgress,
    mut insert: impl FnMut(&[Row], &mut dyn FnMut(&[u32])) -> Result<(), (usize, anyhow::Error)>,
) -> Result<(WorkingSet, Routed<'t>)> {
    let n_idx = 1 + table.indexes.len();
    let rows = rows_of(args);
    let window = (rows / 10).max(1);
    let first = rows.saturating_sub(2 * window);
    // Page numbers are dense (a tablespace's pages from 0): a bitmap costs less than hashing.
    let mut before: Vec<BitSet> = vec![BitSet::new(); n_idx];
    let mut last: Vec<BitSet> = vec![BitSet::new(); n_idx];
    let gen = AdviseRows::new(table, plan, c.variant, args.seed);
    let mut gen = Routed::new(gen, table, rows);
    // Filled in place batch after batch (their buffers reused).
    let mut batch: Vec<Row> = Vec::new();
    progress.start(&c.progress_label(), rows);
    let mut n = 0u64;
    while n < rows {
        let len = (rows - n).min(BATCH_ROWS as u64) as usize;
        batch.resize_with(len, Vec::new);
        for row in &mut batch {
            gen.fill(row).map_err(|e| anyhow::anyhow!("candidate {}: {e}", c.label))?;
        }
        let start = n;
        let mut record = |leaves: &[u32]| {
            if (n + 1) % PROGRESS_ROWS == 0 {
                progress.advance(PROGRESS_ROWS);
            }
            if n >= first {
                let sets = if n < rows - window { &mut before } else { &mut last };
                for (s, &p) in sets.iter_mut().zip(leaves) {
                    s.insert(p as usize);
                }
            }
            n += 1;
        };
        insert(&batch, &mut record).map_err(|(i, e)| {
            e.context(format!("row {} of candidate {}", start + i as u64 + 1, c.label))
        })?;
    }
    progress.finish();
    // At least the page being written: an ascending key's right edge moves on, so a window
    // boundary at a page boundary shares no page with the window before.
    let pages: Vec<u64> =
        before.iter().zip(&last).map(|(b, l)| (l.intersection(b).count() as u64).max(1)).collect();
    Ok((WorkingSet { pages: Some(pages), window }, gen))
}

/// The rows after the load, for a workload's inserts (a table without partitions: every
/// row fits).
fn more_rows<'a, 't: 'a>(gen: &'a mut Routed<'t>) -> Box<dyn Iterator<Item = Row> + 'a> {
    Box::new(std::iter::from_fn(move || {
        let mut row = Vec::new();
        gen.fill(&mut row).ok().map(|_| row)
    }))
}

/// Row by row, one transaction each (as the reported load plan says).
pub(super) fn row_plan() -> LoadPlan {
    LoadPlan { method: LoadMethod::Row, batch: 1, writers: 1, batch_max: None }
}

/// The table as InnoDB stores candidate `c` (its clustered index as the primary key: a
/// promoted UNIQUE key or the hidden row id when it has none) and how each column is filled
/// (the row id last, as InnoDB assigns it, in insert order).
pub fn innodb_form(c: &Candidate) -> (Table, Vec<ColumnValues>) {
    let table = c.table.innodb_clustered_form();
    let mut plan = c.plan.clone();
    if table.innodb_clustered() != c.table.innodb_clustered() {
        plan.resize(table.columns.len(), ColumnValues::RowId);
    }
    (table, plan)
}

/// One candidate on its own InnoDB model (`make` gives a model; a partitioned table takes
/// one per partition).
pub fn run_sim(
    c: &Candidate,
    args: &AdviseArgs,
    make: &dyn Fn() -> SimEngine,
    progress: &mut LoadProgress,
) -> Result<(RunResult, WorkingSet)> {
    let (table, plan) = innodb_form(c);
    if table.partitioning.is_some() {
        return run_sim_partitions(c, (&table, &plan), args, make, progress);
    }
    let mut engine = make();
    engine.create_table(&table).map_err(anyhow::Error::from)?;
    let mut source = super::workload::source(&table, args);
    let sim = engine.sim_table_mut()?;
    let (ws, mut gen) = load_counting(c, (&table, &plan), args, progress, |rows, after| {
        super::workload::record(source.as_mut(), rows);
        sim.insert_batch_each(rows, after)
            .map_err(|(i, e)| (i, EngineError::Rejected(e.to_string()).into()))
    })?;
    let m = engine.measure(&table)?;
    let mut run = run_result(c, rows_of(args), m, keylab_core::LoadResult::unmeasured(&row_plan()));
    let rows = &mut more_rows(&mut gen);
    let src = source.as_mut();
    super::workload::run_workload(&mut engine, &table, src, rows, args, c, &mut run, progress)?;
    Ok((run, ws))
}

/// One candidate on its own nbtree model of PostgreSQL 15 (each row its own transaction).
pub fn run_nbtree(
    c: &Candidate,
    args: &AdviseArgs,
    settings: NbtreeSettings,
    progress: &mut LoadProgress,
) -> Result<(RunResult, WorkingSet)> {
    // Sort keys as wide as this candidate's longest text key value (no figure changes).
    let key_value_bytes = super::limits::key_value_bytes(c);
    let settings = NbtreeSettings { key_value_bytes, ..settings };
    if c.table.partitioning.is_some() {
        return run_nbtree_partitions(c, args, settings, progress);
    }
    let mut engine = NbtreeEngine::new(settings);
    engine.set_fill_factors(&c.fill_factors)?;
    engine.create_table(&c.table).map_err(anyhow::Error::from)?;
    let mut source = super::workload::source(&c.table, args);
    let t = engine.nbtree_table_mut()?;
    let mut leaves = Vec::new();
    let (ws, mut gen) = load_counting(c, (&c.table, &c.plan), args, progress, |rows, after| {
        super::workload::record(source.as_mut(), rows);
        for (i, row) in rows.iter().enumerate() {
            t.insert(row).map_err(|e| (i, EngineError::Rejected(e.to_string()).into()))?;
            t.commit();
            leaves.clear();
            leaves.extend(t.last_insert_leaves());
            after(&leaves);
        }
        Ok(())
    })?;
    let m = engine.measure(&c.table)?;
    let mut run = run_result(c, rows_of(args), m, keylab_core::LoadResult::unmeasured(&row_plan()));
    let rows = &mut more_rows(&mut gen);
    let src = source.as_mut();
    super::workload::run_workload(&mut engine, &c.table, src, rows, args, c, &mut run, progress)?;
    Ok((run, ws))
}
