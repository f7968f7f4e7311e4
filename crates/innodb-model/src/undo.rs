//! The undo logs of autocommitted single-row inserts, in the system tablespace's pages of the
//! buffer pool (docs/model-rules.md §15): each transaction takes the next of 128 rollback
//! segments, writes its insert undo record on that segment's cached undo page (or on a new
//! undo segment's page), and its commit puts the log in the history. Purge later reads the
//! logs in commit order, removes them from the history and frees an undo page once every log
//! on it is purged. Purge does not visit the inserted rows: measured on MariaDB 10.11.19
//! (16 KiB pages, 8 MiB pool, 300,000 uuid4 rows), purging 464 logs of random-key inserts
//! read 91 system and 135 undo pages and not one index leaf, though their rows' leaves were
//! mostly out of the pool. `table/purge.rs` runs this against a table's pool.
//!
//! Not modelled: undo logs of multi-row load transactions (a load's figures are checked
//! without them), the TRX_SYS page, the doublewrite buffer, undo tablespaces
//! (`innodb_undo_tablespaces=0`, the 10.11 default: every rollback segment is in ibdata1).
//! Page numbers are the model's own: what matters is which pages are the same page.

use crate::pool::{Pool, SYS_PAGE_BASE};
use std::collections::{HashMap, VecDeque};

/// `TRX_SYS_N_RSEGS`: `trx_assign_rseg_low` hands rollback segments out round-robin.
pub(crate) const ROLLBACK_SEGMENTS: u32 = 128;
/// `innodb_purge_batch_size` (127 on 10.11.19): purge runs once this many logs wait (see
/// [`UndoLogs::purge_due`]).
pub(crate) const PURGE_BATCH_LOGS: usize = 127;
/// The system tablespace's FSP header and first inode page (`FSP_FIRST_INODE_PAGE_NO`).
const SYS_FSP_HEADER: u32 = SYS_PAGE_BASE;
const SYS_INODE_PAGE: u32 = SYS_PAGE_BASE + 2;
/// Rollback segment headers, one page each (`FSP_FIRST_RSEG_PAGE_NO` onwards).
const FIRST_RSEG_HEADER: u32 = SYS_PAGE_BASE + 6;
/// Undo pages are numbered from here (a freed number is reused first).
const FIRST_UNDO_PAGE: u32 = FIRST_RSEG_HEADER + ROLLBACK_SEGMENTS;
/// Bytes in use on a new undo segment's header page: the file page header (38), the undo
/// page header (18) and the undo segment header (30).
const UNDO_PAGE_START_BYTES: u32 = 86;
/// `TRX_UNDO_LOG_OLD_HDR_SIZE`: an undo log header without the XA area.
const LOG_HEADER_BYTES: u32 = 46;
/// An insert undo record besides its key: the two next-record offsets, the type byte, the
/// undo number, the table id and the key's length byte (`trx_undo_page_report_insert`).
const INSERT_RECORD_BYTES: u32 = 10;

/// One committed transaction's undo log, waiting for purge.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoggedInsert {
    rseg: u32,
    page: u32,
}

#[derive(Debug, Clone, Copy)]
struct UndoPage {
    rseg: u32,
    used_bytes: u32,
    /// Logs on the page not yet purged.
    unpurged: u32,
}

/// The rollback segments' state and the history.
#[derive(Debug, Clone)]
pub(crate) struct UndoLogs {
    page_bytes: u32,
    next_rseg: u32,
    /// Per rollback segment, its cached undo page (`rseg->undo_cached`).
    cached: Vec<Option<u32>>,
    pages: HashMap<u32, UndoPage>,
    free_pages: Vec<u32>,
    next_page: u32,
    history: VecDeque<LoggedInsert>,
}

impl UndoLogs {
    pub(crate) fn new(page_bytes: u32) -> UndoLogs {
        UndoLogs {
            page_bytes,
            next_rseg: 0,
            cached: vec![None; ROLLBACK_SEGMENTS as usize],
            pages: HashMap::new(),
            free_pages: Vec::new(),
            next_page: FIRST_UNDO_PAGE,
            history: VecDeque::new(),
        }
    }

    fn header(rseg: u32) -> u32 {
        FIRST_RSEG_HEADER + rseg
    }

    /// A system tablespace page allocated or freed (`fseg_create`, `fseg_free_step`): its
    /// inode and FSP header pages change.
    fn file_space_change(pool: &mut Pool) {
        pool.access(SYS_INODE_PAGE, true);
        pool.access(SYS_FSP_HEADER, true);
    }

    /// The undo log of one autocommitted insert of a row whose primary key takes
    /// `key_bytes` in the record: its pages as the server gets them.
    pub(crate) fn log_insert(&mut self, pool: &mut Pool, key_bytes: u32) {
        let rseg = self.next_rseg;
        self.next_rseg = (rseg + 1) % ROLLBACK_SEGMENTS;
        let header = Self::header(rseg);
        let page = match self.cached[rseg as usize].take() {
            // trx_undo_reuse_cached: the cached undo page gets the new log's header.
            Some(p) => {
                pool.access(p, true);
                p
            }
            // trx_undo_create: a new undo segment in the rollback segment's header slot.
            None => {
                pool.access(header, true);
                Self::file_space_change(pool);
                let p = self.free_pages.pop().unwrap_or_else(|| {
                    self.next_page += 1;
                    self.next_page - 1
                });
                pool.create(p);
                let fresh = UndoPage { rseg, used_bytes: UNDO_PAGE_START_BYTES, unpurged: 0 };
                self.pages.insert(p, fresh);
                p
            }
        };
        let state = self.pages.get_mut(&page).expect("a known undo page");
        state.used_bytes += LOG_HEADER_BYTES + INSERT_RECORD_BYTES + key_bytes;
        state.unpurged += 1;
        // Commit, trx_purge_add_undo_to_history: the rollback segment header's history list
        // and the undo log header's state (trx_undo_set_state_at_finish).
        pool.access(header, true);
        pool.access(page, true);
        // TRX_UNDO_CACHED while the page is at most 3/4 full (TRX_UNDO_PAGE_REUSE_LIMIT).
        if state.used_bytes <= self.page_bytes / 4 * 3 {
            self.cached[rseg as usize] = Some(page);
        }
        self.history.push_back(LoggedInsert { rseg, page });
    }

    /// Whether purge runs now: the model's stand-in for the purge coordinator, which the
    /// server wakes on a timer and at commits. It runs a batch once
    /// [`PURGE_BATCH_LOGS`] logs wait; MariaDB 10.11.19 kept 55 to 129 logs in its history
    /// during the mixed phases measured (docs/model-rules.md §15).
    pub(crate) fn purge_due(&self) -> bool {
        self.history.len() >= PURGE_BATCH_LOGS
    }

    /// Logs waiting for purge.
    pub(crate) fn history_len(&self) -> usize {
        self.history.len()
    }

    /// The oldest waiting log, which purge reads from its undo page (`trx_purge_fetch_next_rec`).
    pub(crate) fn next_to_purge(&mut self, pool: &mut Pool) -> Option<LoggedInsert> {
        let log = self.history.pop_front()?;
        pool.access(log.page, false);
        Some(log)
    }

    /// After a purge batch, `trx_purge_truncate_history`: every rollback segment's header is
    /// got (`trx_purge_truncate_rseg_history`, `trx_rsegf_get`; model-rules §9), the batch's
    /// logs are removed from their segments' history (their undo pages change), and an undo
    /// page none of whose logs waits any more is freed, a cached one included
    /// (`trx_purge_free_segment`).
    pub(crate) fn truncate(&mut self, pool: &mut Pool, purged: &[LoggedInsert]) {
        let mut changed = vec![false; ROLLBACK_SEGMENTS as usize];
        for log in purged {
            changed[log.rseg as usize] = true;
        }
        for (rseg, &write) in changed.iter().enumerate() {
            pool.access(Self::header(rseg as u32), write);
        }
        for log in purged {
            pool.access(log.page, true);
            let state = self.pages.get_mut(&log.page).expect("a known undo page");
            state.unpurged -= 1;
            if state.unpurged > 0 {
                continue;
            }
            let rseg = state.rseg as usize;
            if self.cached[rseg] == Some(log.page) {
                self.cached[rseg] = None;
            }
            self.pages.remove(&log.page);
            Self::file_space_change(pool);
            pool.forget(log.page);
            self.free_pages.push(log.page);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::PoolSettings;

    fn pool(pages: usize) -> Pool {
        Pool::new(pages, 16384, PoolSettings::default(), false)
    }

    #[test]
    fn rollback_segments_take_turns_and_reuse_their_cached_page() {
        let (mut p, mut u) = (pool(1000), UndoLogs::new(16384));
        for _ in 0..256 {
            u.log_insert(&mut p, 8);
        }
        // One new page per rollback segment, reused by its second transaction.
        assert_eq!(u.pages.len(), 128);
        // Read: the 128 headers and the system tablespace's inode and FSP header pages; the
        // undo pages are created.
        assert_eq!(p.counters.pages_read, 130);
        // First round: create (header, inode, fsp header) + commit (header, page); second:
        // reuse (page) + commit (header, page).
        assert_eq!(p.counters.page_accesses, 128 * 5 + 128 * 3);
        assert!(u.purge_due());
    }

    #[test]
    fn a_full_page_is_no_longer_cached_and_purge_frees_pages_once_their_logs_are_gone() {
        let (mut p, mut u) = (pool(1000), UndoLogs::new(4096));
        // 4k pages: (3072 - 86) / (46 + 10 + 16) = 41 logs fit under the reuse limit.
        for _ in 0..128 * 45 {
            u.log_insert(&mut p, 16);
        }
        assert_eq!(u.pages.len(), 256, "a second page per segment");
        let mut purged = Vec::new();
        while let Some(log) = u.next_to_purge(&mut p) {
            purged.push(log);
        }
        u.truncate(&mut p, &purged);
        assert!(u.pages.is_empty() && u.cached.iter().all(Option::is_none));
        assert_eq!(u.free_pages.len(), 256);
        assert_eq!(u.history_len(), 0);
    }
}
