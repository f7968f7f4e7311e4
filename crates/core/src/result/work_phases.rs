//! The `reads` and `mixed` phases (issue 28): what reads, and reads interleaved with inserts,
//! cost on an engine. A `reads` phase holds one [`ReadFigures`] per read spec; a `mixed`
//! phase is one [`MixedPhase`]. Every figure comes from the engine's
//! [`WorkOutcome`](crate::WorkOutcome): `null` where the engine gives none (a server's
//! working set, a model's time), never a guess. On a model the figures are predictions of
//! its page and cache rules; the run's `model` says so.
//!
//! Not for: running the operations (`reads/work.rs`) or rendering them (`keylab-report`).

use super::phases::{figures, PhaseStatus};
use super::Figure;
use crate::WorkOutcome;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

figures! {
    /// A `reads` phase: one entry per read spec, in the order asked.
    pub struct ReadsPhase {
        /// `ok` (some specs may be refused: see each spec's `status`), or `not_applicable`
        /// when the engine ran none.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// One entry per read spec.
        pub specs: Vec<ReadFigures>,
        /// Misses per 1,000 reads at several buffer pool sizes (models only; absent when
        /// not asked).
        pub pool_curve: Vec<ReadCurvePoint>,
        /// The hit ratio each spec's `cache_for_hit_target_bytes` is for, 0..1.
        pub hit_target: f64,
    }
}

figures! {
    /// One read spec of a `reads` phase.
    pub struct ReadFigures {
        /// The spec, `KIND:COUNT:DISTRIBUTION` (`point:100000:latest=5%`).
        pub spec: String,
        /// `ok`, or `not_applicable` with the engine's `reason`.
        pub status: PhaseStatus,
        /// Why the engine did not run it.
        pub reason: String,
        /// Reads run.
        pub reads: u64,
        /// Rows the reads returned.
        pub rows_returned: u64,
        /// Logical page requests (hits and misses) per read.
        pub page_requests_per_read: f64,
        /// Pages read from storage (buffer pool misses) per 1,000 reads.
        pub misses_per_1000_reads: f64,
        /// Pages read from storage, in all.
        pub pages_read: u64,
        /// Pages written while the reads ran.
        pub pages_written: u64,
        /// Distinct pages each index touched (its working set), by index name.
        pub working_set_pages: BTreeMap<String, u64>,
        /// Server-side time of the statements, summed, ms (servers only).
        pub server_ms: f64,
        /// Client wall time, s (servers only).
        pub wall_s: f64,
        /// Why a figure is missing, in words.
        pub notes: Vec<String>,
        /// The buffer pool the phase's `hit_target` needs, from the curve.
        pub cache_for_hit_target_bytes: u64,
        /// How it was found (`interpolated from the curve`, ...).
        pub cache_for_hit_target: String,
    }
}

figures! {
    /// One point of a reads curve: the misses of each spec at one pool size.
    pub struct ReadCurvePoint {
        /// Buffer pool size, bytes.
        pub pool_bytes: u64,
        /// The pool against the table's pages (all indexes), percent.
        pub pool_pct_of_table: f64,
        /// Misses per 1,000 reads, one per spec, in the phase's spec order.
        pub misses_per_1000_reads: Vec<Option<f64>>,
        /// Page requests per read, one per spec.
        pub page_requests_per_read: Vec<Option<f64>>,
    }
}

figures! {
    /// A `mixed` phase: inserts of new rows and reads interleaved at a fixed share.
    pub struct MixedPhase {
        /// `ok` or `not_applicable`.
        pub status: PhaseStatus,
        /// Why it did not run.
        pub reason: String,
        /// The reads, `KIND:DISTRIBUTION` (`point:latest=5%`).
        pub read_spec: String,
        /// Share of the operations that are inserts, in [0, 1].
        pub insert_share: f64,
        /// Operations run (reads and inserts).
        pub ops: u64,
        /// Reads run.
        pub reads: u64,
        /// Rows inserted.
        pub inserts: u64,
        /// Rows the reads returned.
        pub rows_returned: u64,
        /// Logical page requests per operation.
        pub page_requests_per_op: f64,
        /// Pages read from storage per 1,000 operations.
        pub misses_per_1000_ops: f64,
        /// Pages read from storage, in all.
        pub pages_read: u64,
        /// Pages written during the phase.
        pub pages_written: u64,
        /// Distinct pages each index touched, by index name.
        pub working_set_pages: BTreeMap<String, u64>,
        /// Server-side time, summed, ms (servers only).
        pub server_ms: f64,
        /// Client wall time, s (servers only).
        pub wall_s: f64,
        /// Why a figure is missing, in words.
        pub notes: Vec<String>,
    }
}

impl ReadFigures {
    /// The figures of `spec` from what the engine reported.
    pub fn from_outcome(spec: &str, o: &WorkOutcome) -> ReadFigures {
        ReadFigures {
            spec: Figure::Value(spec.to_string()),
            status: Figure::Value(PhaseStatus::Ok),
            reads: Figure::Value(o.reads),
            rows_returned: Figure::Value(o.rows_returned),
            page_requests_per_read: Figure::of(o.pages_per_op()),
            misses_per_1000_reads: Figure::of(o.misses_per_1k_ops()),
            pages_read: Figure::of(o.pages_read),
            pages_written: Figure::of(o.pages_written),
            working_set_pages: Figure::of(o.working_set_pages.clone()),
            server_ms: Figure::of(o.server_ms),
            wall_s: Figure::of(o.wall_s),
            notes: if o.notes.is_empty() { Figure::Absent } else { Figure::Value(o.notes.clone()) },
            ..ReadFigures::default()
        }
    }

    /// `spec` refused by the engine, with its reason.
    pub fn refused(spec: &str, reason: &str) -> ReadFigures {
        ReadFigures {
            spec: Figure::Value(spec.to_string()),
            status: Figure::Value(PhaseStatus::NotApplicable),
            reason: Figure::Value(reason.to_string()),
            ..ReadFigures::default()
        }
    }

    /// Whether the engine ran it.
    pub fn applicable(&self) -> bool {
        self.status.value() != Some(PhaseStatus::NotApplicable)
    }
}

impl MixedPhase {
    /// The figures of a mixed phase from what the engine reported.
    pub fn from_outcome(read_spec: &str, insert_share: f64, o: &WorkOutcome) -> MixedPhase {
        MixedPhase {
            status: Figure::Value(PhaseStatus::Ok),
            read_spec: Figure::Value(read_spec.to_string()),
            insert_share: Figure::Value(insert_share),
            ops: Figure::Value(o.reads + o.inserts),
            reads: Figure::Value(o.reads),
            inserts: Figure::Value(o.inserts),
            rows_returned: Figure::Value(o.rows_returned),
            page_requests_per_op: Figure::of(o.pages_per_op()),
            misses_per_1000_ops: Figure::of(o.misses_per_1k_ops()),
            pages_read: Figure::of(o.pages_read),
            pages_written: Figure::of(o.pages_written),
            working_set_pages: Figure::of(o.working_set_pages.clone()),
            server_ms: Figure::of(o.server_ms),
            wall_s: Figure::of(o.wall_s),
            notes: if o.notes.is_empty() { Figure::Absent } else { Figure::Value(o.notes.clone()) },
            ..MixedPhase::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PhaseResult;

    #[test]
    fn a_model_without_a_pool_writes_null_misses_and_reads_back_the_same() {
        let o = WorkOutcome {
            reads: 1000,
            rows_returned: 1000,
            page_requests: Some(3000),
            pages_read: None,
            working_set_pages: Some(BTreeMap::from([("PRIMARY".to_string(), 40)])),
            notes: vec!["no bounded pool".into()],
            ..WorkOutcome::default()
        };
        let f = ReadFigures::from_outcome("point:1000:uniform", &o);
        assert_eq!(f.page_requests_per_read.value(), Some(3.0));
        assert_eq!(f.misses_per_1000_reads, Figure::Null);
        let p = PhaseResult::Reads(ReadsPhase {
            status: Figure::Value(PhaseStatus::Ok),
            specs: Figure::Value(vec![f, ReadFigures::refused("secondary:5:uniform", "no index")]),
            ..ReadsPhase::default()
        });
        let json = serde_json::to_string(&p).unwrap();
        assert!(json.starts_with(r#"{"kind":"reads","specs":[{"misses_per_1000_reads":null,"#));
        let back: PhaseResult = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn mixed_counts_reads_and_inserts_as_operations() {
        let o = WorkOutcome {
            reads: 900,
            inserts: 100,
            page_requests: Some(4000),
            pages_read: Some(20),
            ..WorkOutcome::default()
        };
        let m = MixedPhase::from_outcome("point:latest=5%", 0.1, &o);
        assert_eq!(m.ops.value(), Some(1000));
        assert_eq!(m.misses_per_1000_ops.value(), Some(20.0));
        assert_eq!(m.page_requests_per_op.value(), Some(4.0));
        assert_eq!(m.server_ms, Figure::Null);
    }
}
