//! A partitioned candidate on the models: one model table per partition (each partition is
//! its own set of trees on both servers), every generated row routed to its partition
//! (`partitions::route`), in insert order. The figures of each partition are reported as
//! the run's `shards` (`keylab_core::ShardsResult`: rows, sizes and every index's pages per
//! partition, and which partition took the inserts of each tenth of the load), the table's
//! as their sums. It renders nothing and starts no server.

use super::figures::WorkingSet;
use super::partitions::route;
use super::rows::ColumnValues;
use super::sim::{load_counting, row_plan};
use super::{rows_of, run_result, Candidate};
use crate::args::advise::AdviseArgs;
use crate::progress::LoadProgress;
use anyhow::Result;
use keylab_core::{
    windows_of, Engine, EngineError, Measurement, RunResult, ShardResult, ShardsResult,
};
use keylab_nbtree_model::NbtreeSettings;
use keylab_schema::Table;
use keylab_sim::{NbtreeEngine, SimEngine};

/// Page numbers of partition `k` are offset by `k << PAGE_SHIFT` in the working set, so
/// that the partitions' pages (each numbered from 0) stay apart.
const PAGE_SHIFT: u32 = 22;

/// The run's figures from each partition's measurement and the partition of every row.
fn partitioned_measurement(
    table: &Table,
    measured: Vec<Measurement>,
    placements: &[u32],
) -> Measurement {
    let parts = table.partitioning.as_ref().expect("a partitioned table");
    let n = parts.partitions.len();
    // PostgreSQL: each partition has its own heap; the table's is their sum (as the server's
    // measurement sums them).
    let heap_pages = measured
        .iter()
        .map(|m| m.postgres.as_ref().map(|p| p.heap_pages))
        .collect::<Option<Vec<_>>>()
        .map(|pages| pages.into_iter().sum::<Option<u64>>());
    let window = (placements.len() as u64 / 10).max(1);
    let windows = windows_of(placements.iter().map(|&k| k as usize), window, n);
    let shards = measured
        .into_iter()
        .enumerate()
        .map(|(k, m)| ShardResult {
            shard: k as u32,
            bound: Some(parts.describe(k, &table.columns)),
            rows: Some(placements.iter().filter(|&&p| p as usize == k).count() as u64),
            counters: m.counters,
            table: m.table,
            indexes: m.indexes,
        })
        .collect();
    let partitioning = if table.partitioning.as_ref().is_some_and(|p| {
        p.partitions.iter().any(|q| matches!(q.bound, keylab_schema::PartitionBound::FromTo(..)))
    }) {
        parts.postgres_clause(&table.columns)
    } else {
        parts.mysql_clause(&table.columns)
    };
    let mut m = ShardsResult {
        sharding: parts.method.sql().to_ascii_lowercase(),
        partitioning,
        shards,
        windows,
        windows_from: "simulated: each row routed by the partitioning, counted in tenths of the \
                       rows loaded"
            .into(),
        partitions: true,
        ..ShardsResult::default()
    }
    .into_measurement();
    if let Some(heap_pages) = heap_pages {
        let pg = m.postgres.get_or_insert_with(Default::default);
        pg.heap_pages = heap_pages;
    }
    m
}

/// Candidate `c` on one InnoDB model per partition; `table` and `plan` are its InnoDB form.
pub fn run_sim_partitions(
    c: &Candidate,
    (table, plan): (&Table, &[ColumnValues]),
    args: &AdviseArgs,
    make: &dyn Fn() -> SimEngine,
    progress: &mut LoadProgress,
) -> Result<(RunResult, WorkingSet)> {
    let n = table.partitioning.as_ref().map_or(0, |p| p.partitions.len());
    let parts: Vec<Table> = (0..n).map(|k| table.partition_table(k)).collect();
    let mut engines: Vec<SimEngine> = Vec::new();
    for part in &parts {
        let mut e = make();
        e.create_table(part).map_err(anyhow::Error::from)?;
        engines.push(e);
    }
    let mut placements: Vec<u32> = Vec::new();
    let mut shifted: Vec<u32> = Vec::new();
    let ws = {
        let mut sims = engines
            .iter_mut()
            .map(|e| e.sim_table_mut())
            .collect::<Result<Vec<_>, EngineError>>()?;
        load_counting(c, (table, plan), args, progress, |rows, after| {
            for (i, row) in rows.iter().enumerate() {
                let k = route(table, row).expect("rows are routed when made");
                placements.push(k as u32);
                sims[k]
                    .insert_batch_each(std::slice::from_ref(row), &mut |leaves| {
                        shifted.clear();
                        shifted.extend(leaves.iter().map(|&p| p | ((k as u32) << PAGE_SHIFT)));
                        after(&shifted);
                    })
                    .map_err(|(_, e)| (i, EngineError::Rejected(e.to_string()).into()))?;
            }
            Ok(())
        })?
        .0
    };
    let mut measured = Vec::new();
    for (e, part) in engines.iter_mut().zip(&parts) {
        measured.push(e.measure(part)?);
    }
    let m = partitioned_measurement(table, measured, &placements);
    Ok((run_result(c, rows_of(args), m, keylab_core::LoadResult::unmeasured(&row_plan())), ws))
}

/// Candidate `c` on one nbtree model of PostgreSQL 15 per partition (each row its own
/// transaction).
pub fn run_nbtree_partitions(
    c: &Candidate,
    args: &AdviseArgs,
    settings: NbtreeSettings,
    progress: &mut LoadProgress,
) -> Result<(RunResult, WorkingSet)> {
    let table = &c.table;
    let n = table.partitioning.as_ref().map_or(0, |p| p.partitions.len());
    let parts: Vec<Table> = (0..n).map(|k| table.partition_table(k)).collect();
    let mut engines: Vec<NbtreeEngine> = Vec::new();
    for part in &parts {
        let mut e = NbtreeEngine::new(settings);
        e.set_fill_factors(&c.fill_factors)?;
        e.create_table(part).map_err(anyhow::Error::from)?;
        engines.push(e);
    }
    let mut placements: Vec<u32> = Vec::new();
    let mut leaves: Vec<u32> = Vec::new();
    let ws = {
        let mut trees = engines
            .iter_mut()
            .map(|e| e.nbtree_table_mut())
            .collect::<Result<Vec<_>, EngineError>>()?;
        load_counting(c, (table, &c.plan), args, progress, |rows, after| {
            for (i, row) in rows.iter().enumerate() {
                let k = route(table, row).expect("rows are routed when made");
                placements.push(k as u32);
                let t = &mut trees[k];
                t.insert(row).map_err(|e| (i, EngineError::Rejected(e.to_string()).into()))?;
                t.commit();
                leaves.clear();
                leaves.extend(t.last_insert_leaves().map(|p| p | ((k as u32) << PAGE_SHIFT)));
                after(&leaves);
            }
            Ok(())
        })?
        .0
    };
    let mut measured = Vec::new();
    for (e, part) in engines.iter_mut().zip(&parts) {
        measured.push(e.measure(part)?);
    }
    let m = partitioned_measurement(table, measured, &placements);
    Ok((run_result(c, rows_of(args), m, keylab_core::LoadResult::unmeasured(&row_plan())), ws))
}
