//! The WAL a table's work wrote since `create_table`: the flushed LSN, and per measurement
//! either `pg_waldump`'s count of each new stretch of WAL (private instance: records, full-page
//! images, split and new-root records, checkpoints) or `pg_stat_wal`'s server-wide totals (a
//! `--url` server, whose WAL files are out of reach).
//!
//! This module does not read the index's pages (see `crate::metrics`) or decide when a
//! measurement happens.

use super::{PgEngine, Target};
use crate::metrics::{count_wal, WalCounts};
use keylab_core::PostgresFigures;
use keylab_server_common::ServerError;
use std::time::{Duration, Instant};

impl PgEngine {
    /// The insert LSN, once every record before it is flushed (so `pg_waldump` can read it).
    pub(super) fn flushed_lsn(&mut self) -> Result<String, ServerError> {
        let lsn = self.scalar_text("SELECT pg_current_wal_insert_lsn()::text")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let q = format!("SELECT pg_current_wal_flush_lsn() >= '{lsn}'::pg_lsn");
            if self.client.query_one(&q, &[]).map(|r| r.get::<_, bool>(0)).unwrap_or(true) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(lsn)
    }

    /// Flushes this session's pending statistics (PostgreSQL reports them at most once a
    /// second otherwise) and drops the cached snapshot.
    pub(super) fn flush_stats(&mut self) {
        let _ = self.client.batch_execute("SELECT pg_stat_force_next_flush()");
        let _ = self.client.batch_execute("SELECT pg_stat_clear_snapshot()");
    }

    pub(super) fn stat_wal(&mut self) -> Option<(i64, i64)> {
        let r = self.client.query_one("SELECT wal_records, wal_fpi FROM pg_stat_wal", &[]).ok()?;
        Some((r.get(0), r.get(1)))
    }

    pub(super) fn wal_figures(&mut self) -> Result<PostgresFigures, ServerError> {
        let end = self.flushed_lsn()?;
        let start = self.tally.start_lsn.clone();
        let wal_bytes: Option<String> = self
            .client
            .query_one(&format!("SELECT pg_wal_lsn_diff('{end}', '{start}')::text"), &[])
            .ok()
            .map(|r| r.get(0));
        let mut f = PostgresFigures {
            wal_bytes: wal_bytes.and_then(|b| b.split('.').next()?.parse().ok()),
            ..PostgresFigures::default()
        };
        match &self.target {
            Target::Private(instance) => {
                let waldump = instance.binaries().program("pg_waldump");
                let counted =
                    count_wal(&waldump, &instance.waldir(), &self.tally.counted_lsn, &end)
                        .map_err(ServerError::Io)?;
                let total = self.tally.wal.get_or_insert_with(WalCounts::default);
                total.records += counted.records;
                total.full_page_images += counted.full_page_images;
                total.full_page_image_bytes += counted.full_page_image_bytes;
                total.split_left += counted.split_left;
                total.split_right += counted.split_right;
                total.new_roots += counted.new_roots;
                total.checkpoints += counted.checkpoints;
                self.tally.counted_lsn = end;
                let t = total.clone();
                f.wal_records = Some(t.records);
                f.full_page_images = Some(t.full_page_images);
                f.full_page_image_bytes = Some(t.full_page_image_bytes);
                f.split_left = Some(t.split_left);
                f.split_right = Some(t.split_right);
                f.new_roots = Some(t.new_roots);
                f.checkpoints = Some(t.checkpoints);
            }
            Target::Url { .. } => {
                self.flush_stats();
                if let (Some(now), Some(then)) = (self.stat_wal(), self.tally.stat_wal_start) {
                    f.wal_records = Some((now.0 - then.0).max(0) as u64);
                    f.full_page_images = Some((now.1 - then.1).max(0) as u64);
                }
            }
        }
        Ok(f)
    }
}
