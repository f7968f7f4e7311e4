//! The table's buffer counters (`pg_statio_user_tables`: heap, its free space and visibility
//! maps, and every index), and the part of them keylab's own checks caused. PostgreSQL counts
//! a page as read whenever `ReadBufferExtended` misses shared buffers, which includes every
//! page a load adds to a relation (`P_NEW`): so the load's figures are extensions plus
//! evicted pages read again. The load check (`count(*)`, the checksum, the identity key's
//! sum) scans the table after the writers are done; its reads are kept apart here, so a
//! phase's figures are the workload's alone.
//!
//! It does not read the WAL or the index pages (see `wal` and `crate::metrics`).

use super::PgEngine;
use keylab_schema::Table;

/// Buffer reads and hits of one table, all its relations and forks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Statio {
    /// `*_blks_read`: requests that missed shared buffers (relation extension included).
    pub reads: u64,
    /// `*_blks_hit`.
    pub hits: u64,
}

impl Statio {
    /// `self` less `earlier`, never below zero.
    pub fn since(self, earlier: Statio) -> Statio {
        Statio {
            reads: self.reads.saturating_sub(earlier.reads),
            hits: self.hits.saturating_sub(earlier.hits),
        }
    }

    /// The sum of both.
    pub fn plus(self, other: Statio) -> Statio {
        Statio { reads: self.reads + other.reads, hits: self.hits + other.hits }
    }
}

impl PgEngine {
    /// The table's settled counters: this session's pending statistics are flushed first
    /// (PostgreSQL 15 keeps them in the backend until `pgstat_report_stat`).
    pub(super) fn statio(&mut self, table: &Table) -> Option<Statio> {
        self.flush_stats();
        let t = self.table_ref(table);
        let q = format!(
            "SELECT COALESCE(heap_blks_read, 0) + COALESCE(idx_blks_read, 0) \
             + COALESCE(toast_blks_read, 0) + COALESCE(tidx_blks_read, 0), \
             COALESCE(heap_blks_hit, 0) + COALESCE(idx_blks_hit, 0) \
             + COALESCE(toast_blks_hit, 0) + COALESCE(tidx_blks_hit, 0) \
             FROM pg_statio_user_tables WHERE relid = '{t}'::regclass"
        );
        let r = self.client.query_opt(&q, &[]).ok().flatten()?;
        Some(Statio { reads: r.get::<_, i64>(0) as u64, hits: r.get::<_, i64>(1) as u64 })
    }

    /// Runs keylab's own check `f` on `table`, and keeps the buffer reads and hits it caused
    /// out of the table's figures (in `tally.check_io`).
    pub(super) fn keep_apart<T>(&mut self, table: &Table, f: impl FnOnce(&mut Self) -> T) -> T {
        let before = self.statio(table);
        let out = f(self);
        if let (Some(b), Some(a)) = (before, self.statio(table)) {
            self.tally.check_io = self.tally.check_io.plus(a.since(b));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Statio;

    #[test]
    fn differences_never_go_below_zero() {
        let a = Statio { reads: 10, hits: 5 };
        let b = Statio { reads: 4, hits: 9 };
        assert_eq!(a.since(b), Statio { reads: 6, hits: 0 });
        assert_eq!(a.plus(b), Statio { reads: 14, hits: 14 });
    }
}
