//! The figures derived from the result types: an interval's counters and buffer pool figures
//! from two cumulative readings, hit ratio, misses per row operation, per-1,000-row rates and
//! an I/O share; and how the engine blocks of one report fold into one.
//!
//! Not for: figures an engine did not give (each stays `None`: a ratio without requests or
//! operations is `None`, not 0), or any estimate of I/O time (the simulator's device model
//! gives those; here they are only differenced).

use super::{BufferPoolResult, ChangeBufferResult, Counters, EngineInfo};
use crate::Figure;

/// `part` as a percentage of `all` page reads and writes; `None` without I/O.
pub fn io_share_pct(part: Option<u64>, read: Option<u64>, written: Option<u64>) -> Option<f64> {
    let all = read? + written?;
    (all > 0).then(|| part.map(|p| p as f64 * 100.0 / all as f64)).flatten()
}

/// What an engine block says for a setting that differed between the engines of one report
/// (a scenario matrix over page sizes starts one engine per page size).
pub const VARIES_BY_RUN: &str = "varies by run (each run's settings phase gives its own)";

impl EngineInfo {
    /// Folds in the description of another engine of the same report: a setting both give
    /// alike stays, one they give differently becomes `VARIES_BY_RUN`, lists of notes are
    /// joined, and a setting only `other` gives is added.
    pub fn absorb(&mut self, other: &EngineInfo) {
        if self.model != other.model {
            self.model = Some(VARIES_BY_RUN.into());
        }
        for (key, theirs) in &other.settings {
            match self.settings.get_mut(key) {
                None => {
                    self.settings.insert(key.clone(), theirs.clone());
                }
                Some(ours) if ours == theirs => {}
                Some(serde_json::Value::Array(ours)) => {
                    for note in theirs.as_array().into_iter().flatten() {
                        if !ours.contains(note) {
                            ours.push(note.clone());
                        }
                    }
                }
                Some(ours) => *ours = VARIES_BY_RUN.into(),
            }
        }
    }
}

impl Counters {
    /// The counts of the interval since `before`: `None` where the engine gives no figure
    /// now; a figure it did not give before counts from zero.
    pub fn since(&self, before: &Counters) -> Counters {
        let d = |b: Option<u64>, a: Option<u64>| a.map(|a| a.saturating_sub(b.unwrap_or(0)));
        Counters {
            page_splits: d(before.page_splits, self.page_splits),
            merge_attempts: d(before.merge_attempts, self.merge_attempts),
            merges: d(before.merges, self.merges),
            page_reorgs: d(before.page_reorgs, self.page_reorgs),
            page_discards: d(before.page_discards, self.page_discards),
            pages_read: d(before.pages_read, self.pages_read),
            pages_written: d(before.pages_written, self.pages_written),
            page_requests: d(before.page_requests, self.page_requests),
            io_write_requests: d(before.io_write_requests, self.io_write_requests),
            io_write_bytes: d(before.io_write_bytes, self.io_write_bytes),
            io_read_requests: d(before.io_read_requests, self.io_read_requests),
            io_read_bytes: d(before.io_read_bytes, self.io_read_bytes),
        }
    }
}

/// `after - before`, `None` unless both are given.
fn count_delta(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    Some(after?.saturating_sub(before?))
}

/// Hits / requests from request and miss counts; `None` without requests.
pub fn hit_ratio(page_requests: Option<u64>, pages_read: Option<u64>) -> Option<f64> {
    let (req, read) = (page_requests?, pages_read?);
    (req > 0).then(|| 1.0 - read.min(req) as f64 / req as f64)
}

/// `count` per 1,000 row operations; `None` without operations.
pub fn per_1k_rows(count: Option<u64>, row_ops: Option<u64>) -> Option<f64> {
    let (n, ops) = (count?, row_ops?);
    (ops > 0).then(|| n as f64 * 1000.0 / ops as f64)
}

/// Misses per row operation; `None` without operations.
pub fn misses_per_op(pages_read: Option<u64>, row_ops: Option<u64>) -> Option<f64> {
    let (read, ops) = (pages_read?, row_ops?);
    (ops > 0).then(|| read as f64 / ops as f64)
}

impl BufferPoolResult {
    /// The figures of the interval from `before` to `self` (both cumulative): counts are
    /// differenced, ratios recomputed from the differences, and the device estimates
    /// differenced (the device model is linear in page I/Os).
    pub fn since(&self, before: &BufferPoolResult) -> BufferPoolResult {
        let page_requests = count_delta(before.page_requests, self.page_requests);
        let pages_read = count_delta(before.pages_read, self.pages_read);
        let row_ops = count_delta(before.row_ops, self.row_ops);
        let est = |b: Option<f64>, a: Option<f64>| Some((a? - b?).max(0.0));
        let change_buffer = self.change_buffer.as_ref().map(|a| {
            let b = before.change_buffer.clone().unwrap_or_default();
            let page_io = count_delta(b.page_io, a.page_io);
            ChangeBufferResult {
                buffered: count_delta(b.buffered, a.buffered),
                merged: count_delta(b.merged, a.merged),
                refused: count_delta(b.refused, a.refused),
                page_io,
                io_share_pct: io_share_pct(
                    page_io,
                    count_delta(before.pages_read, self.pages_read),
                    count_delta(before.pages_written, self.pages_written),
                ),
                size_pages: a.size_pages,
                max_size_pages: a.max_size_pages,
                cap_pages: a.cap_pages,
            }
        });
        let pages_written = count_delta(before.pages_written, self.pages_written);
        BufferPoolResult {
            pool_bytes: self.pool_bytes,
            page_requests,
            pages_read,
            index_pages_read: match self.index_pages_read {
                Figure::Absent => Figure::Absent,
                now => Figure::of(count_delta(before.index_pages_read.value(), now.value())),
            },
            pages_written,
            row_ops,
            hit_ratio: hit_ratio(page_requests, pages_read),
            misses_per_op: misses_per_op(pages_read, row_ops),
            evictions: count_delta(before.evictions, self.evictions),
            reads_per_1k_rows: per_1k_rows(pages_read, row_ops),
            writes_per_1k_rows: per_1k_rows(pages_written, row_ops),
            // The load's curve belongs to the load, not to a later interval.
            curve: None,
            change_buffer,
            est_io_s_hdd: est(before.est_io_s_hdd, self.est_io_s_hdd),
            est_io_s_ssd: est(before.est_io_s_ssd, self.est_io_s_ssd),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::pool;
    use super::*;

    #[test]
    fn engine_blocks_of_one_report_fold_into_one() {
        let info = |page: u64, notes: &[&str]| EngineInfo {
            kind: "sim".into(),
            version: "v".into(),
            model: Some("mariadb-10.11".into()),
            settings: [
                ("innodb_page_size".to_string(), serde_json::json!(page)),
                ("row_format".to_string(), serde_json::json!("DYNAMIC")),
                ("notes".to_string(), serde_json::json!(notes)),
            ]
            .into_iter()
            .collect(),
        };
        let mut first = info(16384, &["a"]);
        first.absorb(&info(4096, &["a", "b"]));
        assert_eq!(first.settings["innodb_page_size"], VARIES_BY_RUN);
        assert_eq!(first.settings["row_format"], "DYNAMIC");
        assert_eq!(first.settings["notes"], serde_json::json!(["a", "b"]));
        assert_eq!(first.model.as_deref(), Some("mariadb-10.11"));
        first.absorb(&EngineInfo { model: Some("mysql-8.0".into()), ..info(16384, &[]) });
        assert_eq!(first.model.as_deref(), Some(VARIES_BY_RUN));
    }

    #[test]
    fn buffer_pool_interval_recomputes_ratios() {
        let d = pool(3000, 400, 150, 2.0).since(&pool(1000, 100, 50, 0.5));
        assert_eq!(d.page_requests, Some(2000));
        assert_eq!(d.pages_read, Some(300));
        assert_eq!(d.index_pages_read, Figure::Value(270));
        // Null (the engine cannot tell) stays null; absent (an older result) stays absent.
        let mut unknown = pool(3000, 400, 150, 2.0);
        unknown.index_pages_read = Figure::Null;
        assert_eq!(unknown.since(&pool(1000, 100, 50, 0.5)).index_pages_read, Figure::Null);
        unknown.index_pages_read = Figure::Absent;
        assert_eq!(unknown.since(&pool(1000, 100, 50, 0.5)).index_pages_read, Figure::Absent);
        assert_eq!(d.hit_ratio, Some(0.85));
        assert_eq!(d.misses_per_op, Some(3.0));
        assert_eq!(d.est_io_s_hdd, Some(1.5));
        assert_eq!(d.est_io_s_ssd, None);
        assert_eq!(d.change_buffer.unwrap().buffered, Some(50));
        assert_eq!(hit_ratio(Some(0), Some(0)), None);
    }
}
