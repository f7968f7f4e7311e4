//! Reads and mixed work on the `postgres-15` model (`NbtreeEngine::work`): each read is the
//! index scan PostgreSQL runs for it (`keylab_nbtree_model`'s `read_range`: descent, leaf
//! pages, heap pages in index order), each insert an autocommitted INSERT, every page through
//! the model's shared buffers. Figures are the call's differences: page requests always
//! (pages touched), pages read and written only under `--buffer-pool` (without it every
//! page is cached and nothing is read), and the working set of each index and of `heap`.
//! A point read goes through the primary key; a secondary lookup and a time range through
//! their index, then the heap (PostgreSQL has no clustered index to visit); a key range is
//! `pk >= v ORDER BY pk LIMIT n`. Server time is `null`: the model has no clock.
//!
//! It does not plan (no bitmap or sequential scans) and does not model hint-bit writes.

use keylab_core::{EngineError, ReadOp, WorkOp, WorkOutcome};
use keylab_nbtree_model::{ModelError, NbtreeTable};
use keylab_schema::Table;
use std::collections::BTreeMap;

/// Operations between progress reports.
const PROGRESS_EVERY: u64 = 16_384;

fn unsupported(e: ModelError) -> EngineError {
    match e {
        ModelError::Rejected(m) => EngineError::Rejected(m),
        e => EngineError::Unsupported(e.to_string()),
    }
}

/// The model's index number of the table's index `name` (as in `Table::indexes`).
fn secondary(model: &NbtreeTable, table: &Table, name: &str) -> Result<usize, EngineError> {
    let own = table.indexes.iter().position(|ix| ix.name == name).ok_or_else(|| {
        EngineError::Rejected(format!("table `{}` has no index `{name}`", table.name))
    })?;
    Ok(own + usize::from(model.has_primary_key()))
}

/// Runs one read; returns the rows it read.
fn read(model: &mut NbtreeTable, table: &Table, op: &ReadOp) -> Result<u64, EngineError> {
    let pk = || {
        if model.has_primary_key() {
            Ok(0)
        } else {
            Err(EngineError::Unsupported(format!("table `{}` has no primary key", table.name)))
        }
    };
    match op {
        ReadOp::Point { key } => model.read_equal(pk()?, key).map_err(unsupported),
        ReadOp::Secondary { index, key } => {
            let i = secondary(model, table, index)?;
            model.read_equal(i, key).map_err(unsupported)
        }
        ReadOp::KeyRange { from, rows } => {
            model.read_range(pk()?, from, None, u64::from(*rows)).map_err(unsupported)
        }
        ReadOp::TimeRange { index, from, to } => {
            let i = secondary(model, table, index)?;
            let (from, to) = (std::slice::from_ref(from), std::slice::from_ref(to));
            model.read_range(i, from, Some(to), u64::MAX).map_err(unsupported)
        }
    }
}

/// The report name of the model's index `i`: `PRIMARY` for the primary key, else the
/// table's own index name.
fn index_name(model: &NbtreeTable, table: &Table, i: usize) -> String {
    if model.has_primary_key() && i == 0 {
        return "PRIMARY".into();
    }
    let own = i - usize::from(model.has_primary_key());
    table.indexes.get(own).map_or_else(|| format!("index {i}"), |ix| ix.name.clone())
}

/// `Engine::work` on the model.
pub(crate) fn work(
    model: &mut NbtreeTable,
    table: &Table,
    ops: &mut dyn Iterator<Item = WorkOp>,
    on_ops: &mut dyn FnMut(u64),
) -> Result<WorkOutcome, EngineError> {
    model.count_pages();
    let before = model.buffers().map(|b| b.counters()).unwrap_or_default();
    if let Some(b) = model.buffers_mut() {
        b.start_working_set();
    }
    let mut out = WorkOutcome::default();
    let mut done = 0u64;
    for op in ops {
        match op {
            WorkOp::Read(r) => {
                out.rows_returned += read(model, table, &r)?;
                out.reads += 1;
            }
            WorkOp::Insert(row) => {
                model.insert(&row).map_err(unsupported)?;
                model.commit();
                out.inserts += 1;
            }
        }
        done += 1;
        if done % PROGRESS_EVERY == 0 {
            on_ops(PROGRESS_EVERY);
        }
    }
    on_ops(done % PROGRESS_EVERY);
    let b = model.buffers_mut().expect("count_pages sets the buffers up");
    let after = b.counters();
    let bounded = b.bounded();
    let sets = b.take_working_set();
    out.page_requests = Some(after.requests - before.requests);
    if bounded {
        out.pages_read = Some(after.reads - before.reads);
        out.pages_written = Some(after.pages_written() - before.pages_written());
    } else {
        out.notes
            .push("no --buffer-pool: every page is cached, so nothing is read or written".into());
    }
    let mut ws: BTreeMap<String, u64> = BTreeMap::new();
    for (rel, n) in sets {
        let name = match rel.index_number() {
            // A free space map's pages count with their relation's.
            None => "heap".to_string(),
            Some(i) => index_name(model, table, i),
        };
        *ws.entry(name).or_default() += n;
    }
    out.working_set_pages = Some(ws);
    out.notes.push("server time: not applicable on a model (no clock)".into());
    Ok(out)
}
