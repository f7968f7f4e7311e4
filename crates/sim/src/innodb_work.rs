//! [`Engine::work`](keylab_core::Engine::work) on the InnoDB model: every read is answered
//! from the model's pages through its buffer pool model (`SimTable::read_*`, docs/model-rules.md
//! §15), every insert is the model's own autocommitted insert. Figures are the call's own:
//! page requests (the pages each read got, and with a pool every page access the model made,
//! inserts' included), misses and pages written from the pool model (`null` without a pool:
//! every page cached), the working set of each index (the pages the reads requested and the
//! leaves the inserts changed). Nothing is timed.
//!
//! Not here: picking the reads (`keylab_core::ReadSource`), the server's side
//! (`keylab-mariadb`).

use keylab_core::{EngineError, ReadOp, WorkOp, WorkOutcome};
use keylab_innodb_model::{ReadStats, SimTable};
use std::collections::BTreeMap;

/// Operations between progress reports.
const PROGRESS_EVERY: u64 = 16_384;

/// Consecutive point reads handed to the model at once.
const POINT_BATCH: usize = 256;

/// Runs `ops` on `sim` in order and reports what they cost.
pub(crate) fn work(
    sim: &mut SimTable,
    ops: &mut dyn Iterator<Item = WorkOp>,
    on_ops: &mut dyn FnMut(u64),
) -> Result<WorkOutcome, EngineError> {
    // The server's work call first waits for purge to empty the history (its cost is left
    // out there too).
    sim.purge_all();
    let before = sim.pool_counters();
    let mut stats = ReadStats::new();
    let mut out = WorkOutcome::default();
    // Without a pool the model counts no insert's page accesses: its descents are counted
    // instead (one page per level of every index), splits' extra pages left out.
    let mut insert_descents = 0u64;
    let mut since_report = 0u64;
    let failed = |e: keylab_innodb_model::SimError| EngineError::Rejected(e.to_string());
    // Runs of point reads go to the model together (`read_points` prefetches ahead).
    let mut points: Vec<Vec<keylab_schema::Value>> = Vec::with_capacity(POINT_BATCH);
    for op in ops {
        if let WorkOp::Read(ReadOp::Point { key }) = op {
            out.reads += 1;
            points.push(key);
            if points.len() == POINT_BATCH {
                sim.read_points(&points, &mut stats).map_err(failed)?;
                points.clear();
            }
            since_report += 1;
            if since_report == PROGRESS_EVERY {
                on_ops(since_report);
                since_report = 0;
            }
            continue;
        }
        if !points.is_empty() {
            sim.read_points(&points, &mut stats).map_err(failed)?;
            points.clear();
        }
        match op {
            WorkOp::Read(read) => {
                out.reads += 1;
                match &read {
                    ReadOp::Point { .. } => unreachable!("batched above"),
                    ReadOp::Secondary { index, key } => {
                        sim.read_secondary(index, key, &mut stats).map_err(failed)?;
                    }
                    ReadOp::KeyRange { from, rows } => {
                        sim.read_key_range(from, *rows, &mut stats).map_err(failed)?;
                    }
                    ReadOp::TimeRange { index, from, to } => {
                        sim.read_time_range(index, from, to, &mut stats).map_err(failed)?;
                    }
                }
            }
            WorkOp::Insert(row) => {
                insert_descents += sim.descent_pages();
                sim.insert_autocommit(&row).map_err(failed)?;
                out.inserts += 1;
                for (ix, &leaf) in sim.last_insert_leaves().iter().enumerate() {
                    stats.note_page(ix, leaf);
                }
            }
        }
        since_report += 1;
        if since_report == PROGRESS_EVERY {
            on_ops(since_report);
            since_report = 0;
        }
    }
    if !points.is_empty() {
        sim.read_points(&points, &mut stats).map_err(failed)?;
    }
    if since_report > 0 {
        on_ops(since_report);
    }
    out.rows_returned = stats.rows;
    match (before, sim.pool_counters()) {
        (Some(b), Some(a)) => {
            out.page_requests = Some(a.page_accesses - b.page_accesses);
            out.pages_read = Some(a.pages_read - b.pages_read);
            out.pages_written = Some(a.pages_written - b.pages_written);
        }
        _ => {
            out.page_requests = Some(stats.page_requests + insert_descents);
            out.notes.push(
                "no buffer pool size set: every page cached, so no page is read or written \
                 (pages_read and pages_written null); page requests count each insert's \
                 descent, not its splits' pages"
                    .into(),
            );
        }
    }
    let ws = stats.working_set_pages();
    let sets: BTreeMap<String, u64> = sim
        .index_names()
        .into_iter()
        .enumerate()
        .map(|(i, name)| (name, ws.get(i).copied().unwrap_or(0)))
        .collect();
    out.working_set_pages = Some(sets);
    out.notes.push("simulated: page figures are the InnoDB model's predictions".into());
    if out.inserts > 0 {
        // The undo pages and purge are modelled (`SimTable::insert_autocommit`), but when
        // the server's purge runs is set by its clock: see model-rules §15.
        out.notes.push(
            "each insert is autocommitted: its undo log pages (128 rollback segments in the \
             system tablespace) and purge's reads of them are counted, purge running once 127 \
             undo logs wait; a server's purge runs on its own clock, so its figures vary from \
             run to run"
                .into(),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_core::{
        Engine, KeySource, LoadPlan, Placement, ReadDistribution, ReadKind, ReadSource, ReadSpec,
        Workload,
    };
    use keylab_innodb_model::SimSettings;

    /// A model table of `rows` rows of `variant`, and the reads' source.
    fn loaded(
        variant: &str,
        placement: Placement,
        rows: u64,
        pool: Option<u64>,
    ) -> (crate::SimEngine, keylab_schema::Table, ReadSource) {
        let w = Workload::e1(variant, placement, rows, "t");
        let table = w.table();
        let settings = SimSettings { buffer_pool_bytes: pool, ..SimSettings::default() };
        let mut engine = crate::SimEngine::new(settings);
        engine.create_table(&table).unwrap();
        let kinds = [ReadKind::Point, ReadKind::Secondary];
        let kinds = if placement == Placement::Pk { &kinds[..1] } else { &kinds[..] };
        let mut source = ReadSource::new(&table, kinds).unwrap();
        let keys = KeySource::Generated(keylab_keys::GenConfig::default());
        let rows: Vec<_> = w.row_gen(keys).collect();
        for r in &rows {
            source.record(r);
        }
        engine.load(&table, &LoadPlan::default(), &mut rows.into_iter(), &mut |_| {}).unwrap();
        (engine, table, source)
    }

    fn spec(kind: ReadKind, count: u64, distribution: ReadDistribution) -> ReadSpec {
        ReadSpec { kind, count, distribution }
    }

    #[test]
    fn reads_without_a_pool_count_requests_and_working_sets_only() {
        let (mut e, table, src) = loaded("uuid4:bin", Placement::Pk, 20_000, None);
        let s = spec(ReadKind::Point, 5_000, ReadDistribution::Uniform);
        let mut done = 0;
        let out = e.work(&table, &mut src.reads(&s, 1), &mut |n| done += n).unwrap();
        assert_eq!((out.reads, out.rows_returned, done), (5_000, 5_000, 5_000));
        assert_eq!((out.pages_read, out.pages_written), (None, None));
        assert!(out.page_requests.unwrap() >= 10_000);
        assert!(out.working_set_pages.unwrap()["PRIMARY"] > 50);
        assert_eq!((out.server_ms, out.wall_s), (None, None));
    }

    #[test]
    fn recent_rows_of_an_ordered_key_miss_less_than_those_of_a_random_key() {
        let mut misses = Vec::new();
        for variant in ["uuid4:bin", "uuid7:bin"] {
            let (mut e, table, src) = loaded(variant, Placement::Pk, 200_000, Some(6 << 20));
            let s = spec(ReadKind::Point, 20_000, ReadDistribution::Latest { pct: 5.0 });
            let out = e.work(&table, &mut src.reads(&s, 1), &mut |_| {}).unwrap();
            assert_eq!(out.rows_returned, 20_000, "{variant}");
            misses.push(out.misses_per_1k_ops().unwrap());
        }
        assert!(misses[1] * 5.0 < misses[0], "uuid7 {} vs uuid4 {}", misses[1], misses[0]);
    }

    #[test]
    fn secondary_reads_and_inserts_mix() {
        let (mut e, table, src) = loaded("uuid7:bin", Placement::Secondary, 10_000, None);
        let s = spec(ReadKind::Secondary, 1_000, ReadDistribution::Zipf { s: 0.99 });
        let mut ops: Vec<WorkOp> = src.reads(&s, 2).collect();
        let w = Workload::e1("uuid7:bin", Placement::Secondary, 10, "t");
        let keys = KeySource::Generated(keylab_keys::GenConfig { seed: 99, ..Default::default() });
        // New rows after the loaded ones (their AUTO_INCREMENT values follow).
        ops.extend(w.row_gen(keys).enumerate().map(|(i, mut r)| {
            r[0] = keylab_schema::Value::Int(10_001 + i as i64);
            WorkOp::Insert(r)
        }));
        let out = e.work(&table, &mut ops.into_iter(), &mut |_| {}).unwrap();
        assert_eq!((out.reads, out.inserts, out.rows_returned), (1_000, 10, 1_000));
        let ws = out.working_set_pages.unwrap();
        assert!(ws["PRIMARY"] > 0 && ws["k_id"] > 0, "{ws:?}");
    }
}
