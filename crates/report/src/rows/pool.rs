//! The buffer pool rows of the side-by-side table: page requests, hit ratio, misses per
//! operation, evictions, change buffer activity, and the device model's estimated I/O time.
//!
//! Rows appear only when some run carries the figure, so reports of engines (or simulator
//! runs without a pool size) that give none are drawn exactly as before. The `est.` rows are
//! the simulator's device model, never a measurement; the section says so in a note. This
//! module formats nothing itself; `table.rs` owns the table model.

use crate::table::{Better, Builder, Value};
use keylab_core::{BufferPoolResult, ChangeBufferResult, RunResult};

/// Section note for the estimated rows.
pub(crate) const ESTIMATE_NOTE: &str = "est. = estimated by keylab's device model from page \
     reads and writes (HDD: seek-bound; SSD: per-page cost), never measured";

fn count(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Count)
}

fn dec(v: Option<f64>, places: usize) -> Value {
    v.map_or(Value::Null, |value| Value::Decimal { value, places })
}

/// Adds the counters' extension rows (to the current section) for figures some run has.
/// `page_requests` is shown once, in the Buffer pool section.
pub(crate) fn add_counter_extensions(b: &mut Builder, runs: &[RunResult]) {
    if runs.iter().any(|r| r.counters.io_write_requests.is_some()) {
        b.row(
            "counters.io_write_requests",
            "table file write requests",
            Some(Better::Lower),
            |r| count(r.counters.io_write_requests),
        );
    }
    if runs.iter().any(|r| r.counters.io_write_bytes.is_some()) {
        b.row("counters.io_write_bytes", "table file bytes written", Some(Better::Lower), |r| {
            r.counters.io_write_bytes.map_or(Value::Null, Value::Bytes)
        });
    }
    if runs.iter().any(|r| r.counters.io_read_requests.is_some()) {
        b.row("counters.io_read_requests", "table file read requests", Some(Better::Lower), |r| {
            count(r.counters.io_read_requests)
        });
    }
    if runs.iter().any(|r| r.counters.io_read_bytes.is_some()) {
        b.row("counters.io_read_bytes", "table file bytes read", Some(Better::Lower), |r| {
            r.counters.io_read_bytes.map_or(Value::Null, Value::Bytes)
        });
    }
}

/// Adds a `Buffer pool` section when some run has buffer pool figures.
pub(crate) fn add_buffer_pool_section(b: &mut Builder, runs: &[RunResult]) {
    if runs.iter().all(|r| r.buffer_pool.is_none()) {
        return;
    }
    b.section("Buffer pool");
    let bp = |r: &RunResult| r.buffer_pool.clone().unwrap_or_default();
    let cb = |r: &RunResult| bp(r).change_buffer.unwrap_or_default();
    let field = |f: fn(&BufferPoolResult) -> Option<u64>| move |r: &RunResult| count(f(&bp(r)));
    b.row("buffer_pool.pool_bytes", "pool size", None, |r| {
        bp(r).pool_bytes.map_or(Value::Null, Value::Bytes)
    });
    b.row(
        "buffer_pool.page_requests",
        "page requests",
        Some(Better::Lower),
        field(|p| p.page_requests),
    );
    b.row("buffer_pool.hit_ratio", "hit ratio", Some(Better::Higher), |r| dec(bp(r).hit_ratio, 4));
    b.row("buffer_pool.misses_per_op", "misses per row op", Some(Better::Lower), |r| {
        dec(bp(r).misses_per_op, 3)
    });
    b.row(
        "buffer_pool.pages_read",
        "pages read (misses)",
        Some(Better::Lower),
        field(|p| p.pages_read),
    );
    // Of those, B-tree index pages: only where some engine tells them apart (InnoDB).
    if runs
        .iter()
        .any(|r| r.buffer_pool.as_ref().is_some_and(|p| p.index_pages_read.get().is_some()))
    {
        b.row(
            "buffer_pool.index_pages_read",
            "of which index pages",
            Some(Better::Lower),
            field(|p| p.index_pages_read.value()),
        );
    }
    b.row(
        "buffer_pool.pages_written",
        "pages written",
        Some(Better::Lower),
        field(|p| p.pages_written),
    );
    if runs.iter().any(|r| r.buffer_pool.as_ref().is_some_and(|p| p.reads_per_1k_rows.is_some())) {
        b.row(
            "buffer_pool.reads_per_1k_rows",
            "pages read per 1k rows",
            Some(Better::Lower),
            |r| dec(bp(r).reads_per_1k_rows, 1),
        );
        b.row(
            "buffer_pool.writes_per_1k_rows",
            "pages written per 1k rows",
            Some(Better::Lower),
            |r| dec(bp(r).writes_per_1k_rows, 1),
        );
    }
    b.row("buffer_pool.evictions", "evictions", None, field(|p| p.evictions));
    if runs.iter().any(|r| r.buffer_pool.as_ref().is_some_and(|p| p.change_buffer.is_some())) {
        let cb_field =
            move |f: fn(&ChangeBufferResult) -> Option<u64>| move |r: &RunResult| count(f(&cb(r)));
        // Buffered changes are I/O saved now and merged later: no better direction.
        b.row(
            "buffer_pool.change_buffer.buffered",
            "change buffer: buffered",
            None,
            cb_field(|c| c.buffered),
        );
        b.row(
            "buffer_pool.change_buffer.merged",
            "change buffer: merged",
            None,
            cb_field(|c| c.merged),
        );
        b.row(
            "buffer_pool.change_buffer.refused",
            "change buffer: refused",
            None,
            cb_field(|c| c.refused),
        );
    }
    if runs.iter().any(|r| r.buffer_pool.as_ref().is_some_and(|p| p.est_io_s_hdd.is_some())) {
        b.note(ESTIMATE_NOTE);
        b.row(
            "buffer_pool.est_io_s_hdd",
            "est. I/O time, HDD model (s)",
            Some(Better::Lower),
            |r| dec(bp(r).est_io_s_hdd, 2),
        );
        b.row(
            "buffer_pool.est_io_s_ssd",
            "est. I/O time, SSD model (s)",
            Some(Better::Lower),
            |r| dec(bp(r).est_io_s_ssd, 2),
        );
    }
}
