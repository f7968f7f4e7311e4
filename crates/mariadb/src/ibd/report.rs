//! What the tablespace reader gives: the [`TablespaceReport`] of a file, and the warnings
//! its counts call for (pages failing their checksum, a tail past the header's size).
//!
//! Not for reading the file (`ibd.rs`) nor for rendering (`keylab inspect`'s report).

use super::{IndexPages, Sdi};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a tablespace holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TablespaceReport {
    /// Page size in bytes, from the FSP header flags.
    pub page_size_bytes: u32,
    /// Pages in the file.
    pub file_pages: u64,
    /// Pages the tablespace header (`FSP_SIZE`) says the file has: a file with fewer was
    /// cut short (a copy that did not finish), and its figures miss the pages not there.
    pub header_pages: u64,
    /// Pages the extent descriptors mark as in use.
    pub allocated_pages: u64,
    /// Allocated pages by FIL page type (17855 = INDEX, 10 = BLOB, 3 = INODE, ...).
    pub page_types: BTreeMap<u16, u64>,
    /// Allocated index pages whose header is implausible (skipped).
    pub corrupt_index_pages: u64,
    /// Per index id, ascending.
    pub indexes: Vec<IndexPages>,
    /// The file's own dictionary (MySQL 8.0+); `null` when the file has none.
    pub sdi: Option<Sdi>,
    /// What could not be told from the file (no dictionary, or an unreadable one).
    pub notes: Vec<String>,
    /// Pages whose checksum does not match them (all-zero pages are not counted); shown
    /// only when some do.
    #[serde(skip_serializing_if = "is_zero_count")]
    pub checksum_failed_pages: u64,
    /// Pages past the `header_pages` the header records (an extended or sparse tail); shown
    /// only when there are some.
    #[serde(skip_serializing_if = "is_zero_count")]
    pub tail_pages: u64,
    /// Of the tail pages, those all zero (holes of a sparse file included).
    #[serde(skip_serializing_if = "is_zero_count")]
    pub tail_zero_pages: u64,
    /// Page numbers the extent descriptors mark free (ascending): pages never used, and pages
    /// freed, whose stale headers still name their old index.
    #[serde(skip)]
    pub free_page_numbers: Vec<u64>,
    /// What makes the figures doubtful (failed checksums, a tail past the header's size),
    /// with counts; shown only when there is something.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl TablespaceReport {
    /// Whether the extent descriptors mark page `page_no` free.
    pub fn is_free(&self, page_no: u64) -> bool {
        self.free_page_numbers.binary_search(&page_no).is_ok()
    }
}

fn is_zero_count(n: &u64) -> bool {
    *n == 0
}
/// The warnings of `report`'s counts.
pub(super) fn add_warnings(report: &mut TablespaceReport) {
    if report.checksum_failed_pages > 0 {
        report.warnings.push(format!(
            "{} of {} pages fail their checksum (neither crc32 nor full_crc32 matches; a page \
             of the legacy innodb checksum counts too): a file copied while the server wrote \
             it, or damaged; their figures may be wrong (copy the file after FLUSH TABLES t \
             FOR EXPORT)",
            report.checksum_failed_pages, report.file_pages
        ));
    }
    if report.tail_pages > 0 {
        let bytes = report.tail_pages * u64::from(report.page_size_bytes);
        report.warnings.push(format!(
            "{} pages ({:.1} MiB) lie past the {} pages the tablespace header records, {} of \
             them all zero (an extended or sparse tail, holding no data); the figures count \
             only allocated pages",
            report.tail_pages,
            bytes as f64 / f64::from(1u32 << 20),
            report.header_pages,
            report.tail_zero_pages
        ));
    }
}
