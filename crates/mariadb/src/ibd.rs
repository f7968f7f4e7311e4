//! A reader of InnoDB tablespace files (`.ibd`): the structure of every index from the page
//! headers, the start of `keylab inspect`.
//!
//! It reads the file page by page: the page size from the FSP header flags on page 0, which
//! pages are allocated from the extent descriptors (on page 0 and every page-size-th page;
//! freed pages keep stale headers, so only allocated pages count), and from each allocated
//! INDEX page its level, record count and used bytes. Per index id it gives pages per level,
//! height, leaf fill, records per leaf and the leaf fill histogram.
//!
//! On MySQL 8.0+ files it also reads the table's own dictionary ([`sdi`]) and names each
//! index; MySQL 5.7 and MariaDB files do not carry one (their server's
//! `INNODB_SYS_INDEXES`/`INNODB_INDEXES` maps ids to names), which it says in a note.
//!
//! It reads uncompressed, unencrypted tablespaces (a file read after `FLUSH TABLES ... FOR
//! EXPORT` is consistent); it counts the pages whose checksum fails and the pages past the
//! header's size (`integrity.rs`), warning of both, and does not decode user records. It
//! never panics on malformed input: every read is bounds-checked and reported as an
//! [`IbdError`], or as a note when only the dictionary is unreadable.
//!
//! This file holds the scan and the format's offsets; the parts: `report` (what the
//! reader gives), `index_pages` (an index's figures from its INDEX page headers), `xdes`
//! (which pages the extent descriptors mark in use), `integrity`, [`sdi`].

mod index_pages;
mod integrity;
mod report;
pub mod sdi;
mod xdes;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

pub use index_pages::IndexPages;
use index_pages::{add_index_page, finish_index};
use report::add_warnings;
pub use report::TablespaceReport;
pub use sdi::{Sdi, SdiColumn, SdiIndex, SdiTable};
pub(crate) use xdes::extent_pages;
use xdes::{read_descriptors, xdes_layout};

/// Why a file could not be read as a tablespace.
#[derive(Debug, thiserror::Error)]
pub enum IbdError {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// What the OS said.
        reason: String,
    },
    /// The bytes are not a tablespace this reader understands.
    #[error("not a readable InnoDB tablespace: {0}")]
    Format(String),
}

/// FIL header offsets (`fil0fil.h`).
const FIL_PAGE_TYPE: usize = 24;
const FIL_PAGE_DATA: usize = 38;
/// Page types.
const FIL_PAGE_INDEX: u16 = 17855;
/// MariaDB's clustered-index root after an instant ALTER (`FIL_PAGE_TYPE_INSTANT`).
const FIL_PAGE_TYPE_INSTANT: u16 = 18;
const FIL_PAGE_TYPE_FSP_HDR: u16 = 8;
/// Index page header fields, relative to `FIL_PAGE_DATA` (`page0page.h`).
const PAGE_HEAP_TOP: usize = 2;
const PAGE_N_HEAP: usize = 4;
const PAGE_GARBAGE: usize = 8;
const PAGE_N_RECS: usize = 16;
const PAGE_LEVEL: usize = 26;
const PAGE_INDEX_ID: usize = 28;
/// End of the supremum record: compact and redundant formats.
const PAGE_NEW_SUPREMUM_END: u64 = 120;
const PAGE_OLD_SUPREMUM_END: u64 = 125;
/// FSP header (`fsp0fsp.h`): flags at +16; the extent descriptor array follows the 112-byte
/// header; each descriptor has its state at +20 and a 2-bit-per-page bitmap at +24.
const FSP_SPACE_FLAGS: usize = 16;
/// `FSP_SIZE`: the tablespace's size in pages, as the header records it.
const FSP_SIZE: usize = 8;
const XDES_ARR_OFFSET: usize = FIL_PAGE_DATA + 112;
const XDES_STATE: usize = 20;
const XDES_BITMAP: usize = 24;
/// Extent states that own no pages (`XDES_FREE`, and 0 beyond the free limit).
const XDES_NOT_INITED: u32 = 0;
const XDES_FREE: u32 = 1;
/// B-trees deeper than this are not InnoDB's; a larger PAGE_LEVEL means a corrupt page.
const MAX_LEVEL: usize = 64;

/// Said of a file without a dictionary.
pub const NO_SDI_NOTE: &str = "index names not in the file (MySQL 5.7 / MariaDB keep them in \
                               the server's dictionary)";
/// SDI pages kept for the dictionary; a table's dictionary needs a handful.
const MAX_SDI_PAGES: usize = 4096;

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Page size from `FSP_SPACE_FLAGS` (`fil_space_t::physical_size`): MariaDB's full_crc32
/// format (marker bit 4) keeps the page-size shift in bits 0..3; the older format keeps it
/// in bits 6..9, where 0 means 16 KiB.
pub fn page_size_from_flags(flags: u32) -> Result<u32, IbdError> {
    let ssize = if flags & (1 << 4) != 0 { flags & 0xf } else { (flags >> 6) & 0xf };
    match ssize {
        0 if flags & (1 << 4) == 0 => Ok(16384),
        3..=7 => Ok(512 << ssize),
        _ => Err(IbdError::Format(format!("page 0 has unknown tablespace flags {flags:#x}"))),
    }
}

/// Reads a tablespace file. A tail past the header's size that holds no data (a sparse
/// file's holes) is counted from the file's length, not read.
pub fn read_tablespace(path: &Path) -> Result<TablespaceReport, IbdError> {
    let io = |e: std::io::Error| IbdError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let hole_tail = header_size(&file)
        .map(|(page_size, pages)| (u64::from(page_size), pages * u64::from(page_size)))
        .filter(|&(page_size, bytes)| bytes > 0 && len > bytes && len % page_size == 0)
        .filter(|&(_, bytes)| integrity::data_after(&file, bytes) == Some(false));
    // `SEEK_DATA` moved the offset: every read below starts at the file's start.
    std::io::Seek::rewind(&mut &file).map_err(io)?;
    let with_path = |e| match e {
        IbdError::Io { reason, .. } => IbdError::Io { path: path.display().to_string(), reason },
        other => other,
    };
    let mut report = match hole_tail {
        Some((page_size, bytes)) => {
            let head = std::io::Read::take(&file, bytes);
            let mut report =
                scan(std::io::BufReader::with_capacity(1 << 20, head)).map_err(with_path)?;
            let tail = (len - bytes) / page_size;
            report.file_pages += tail;
            report.tail_pages += tail;
            report.tail_zero_pages += tail;
            report
        }
        None => scan(std::io::BufReader::with_capacity(1 << 20, &file)).map_err(with_path)?,
    };
    add_warnings(&mut report);
    Ok(report)
}

/// The page size and `FSP_SIZE` of the file's page 0, when it reads as a tablespace header.
fn header_size(file: &std::fs::File) -> Option<(u32, u64)> {
    use std::os::unix::fs::FileExt;
    let mut head = vec![0u8; FIL_PAGE_DATA + FSP_SPACE_FLAGS + 4];
    file.read_exact_at(&mut head, 0).ok()?;
    if be16(&head, FIL_PAGE_TYPE)? != FIL_PAGE_TYPE_FSP_HDR {
        return None;
    }
    let page_size = page_size_from_flags(be32(&head, FIL_PAGE_DATA + FSP_SPACE_FLAGS)?).ok()?;
    Some((page_size, u64::from(be32(&head, FIL_PAGE_DATA + FSP_SIZE)?)))
}

/// Reads exactly `buf.len()` bytes, or fewer at the end of the input; returns the count.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, IbdError> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(IbdError::Io { path: String::new(), reason: e.to_string() }),
        }
    }
    Ok(n)
}

/// Reads a tablespace from any byte stream.
pub fn read_tablespace_from(r: impl Read) -> Result<TablespaceReport, IbdError> {
    let mut report = scan(r)?;
    add_warnings(&mut report);
    Ok(report)
}

/// Every page of `r`, without the warnings.
fn scan(mut r: impl Read) -> Result<TablespaceReport, IbdError> {
    let mut head = vec![0u8; FIL_PAGE_DATA + FSP_SPACE_FLAGS + 4];
    if read_full(&mut r, &mut head)? < head.len() {
        return Err(IbdError::Format("shorter than one page header".into()));
    }
    let page0_type = be16(&head, FIL_PAGE_TYPE).unwrap_or(0);
    if page0_type != FIL_PAGE_TYPE_FSP_HDR {
        return Err(IbdError::Format(format!(
            "page 0 has type {page0_type}, not the tablespace header (8)"
        )));
    }
    let flags = be32(&head, FIL_PAGE_DATA + FSP_SPACE_FLAGS).unwrap_or(0);
    let page_size = page_size_from_flags(flags)?;
    // MariaDB's full_crc32 format (`FSP_FLAGS_FCRC32_MASK_MARKER`).
    let full_crc32 = flags & (1 << 4) != 0;
    let mut page = vec![0u8; page_size as usize];
    page[..head.len()].copy_from_slice(&head);
    let got = read_full(&mut r, &mut page[head.len()..])?;
    if head.len() + got < page.len() {
        return Err(IbdError::Format(format!("file ends inside page 0 (page size {page_size})")));
    }
    let header_pages = u64::from(be32(&page, FIL_PAGE_DATA + FSP_SIZE).unwrap_or(0));
    let mut report =
        TablespaceReport { page_size_bytes: page_size, header_pages, ..Default::default() };
    let mut by_index: BTreeMap<u64, IndexPages> = BTreeMap::new();
    let mut desc = read_descriptors(&page, 0, page_size);
    let (xdes_entries, xdes_bytes) = xdes_layout(page_size);
    let sdi_root = sdi::sdi_root(&page, flags, xdes_entries as usize, xdes_bytes);
    // SDI pages by number, for the dictionary's walk after the scan.
    let mut sdi_pages: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    let mut page_no: u64 = 0;
    loop {
        if page_no > 0 {
            let n = read_full(&mut r, &mut page)?;
            if n == 0 {
                break;
            }
            if n < page.len() {
                return Err(IbdError::Format(format!(
                    "file ends inside page {page_no} ({n} of {page_size} bytes)"
                )));
            }
            if page_no % u64::from(page_size) == 0 {
                desc = read_descriptors(&page, page_no, page_size);
            }
        }
        report.file_pages += 1;
        let zero = integrity::is_zero(&page);
        if header_pages > 0 && page_no >= header_pages {
            report.tail_pages += 1;
            report.tail_zero_pages += u64::from(zero);
        }
        if !zero && !integrity::checksum_ok(&page, full_crc32) {
            report.checksum_failed_pages += 1;
        }
        let ty = be16(&page, FIL_PAGE_TYPE).unwrap_or(0);
        if matches!(sdi_root, sdi::SdiRoot::Page(_))
            && (ty == sdi::FIL_PAGE_SDI || ty == sdi::FIL_PAGE_SDI_BLOB)
            && sdi_pages.len() < MAX_SDI_PAGES
        {
            sdi_pages.insert(page_no, page.clone());
        }
        let used = page_no
            .checked_sub(desc.first_page)
            .and_then(|i| desc.used.get(i as usize).copied())
            .unwrap_or(false);
        if !used {
            report.free_page_numbers.push(page_no);
        }
        if used {
            report.allocated_pages += 1;
            *report.page_types.entry(ty).or_default() += 1;
            let index_page = ty == FIL_PAGE_INDEX || ty == FIL_PAGE_TYPE_INSTANT;
            if index_page && !add_index_page(&page, page_size, &mut by_index) {
                report.corrupt_index_pages += 1;
            }
        }
        page_no += 1;
    }
    report.indexes = by_index.into_values().map(finish_index).collect();
    match sdi_root {
        sdi::SdiRoot::Absent => report.notes.push(NO_SDI_NOTE.into()),
        sdi::SdiRoot::Bad(why) => report.notes.push(format!("SDI: {why}")),
        sdi::SdiRoot::Page(root) => {
            let (dictionary, notes) = sdi::read_sdi(root, &sdi_pages);
            if dictionary.tables.is_empty() && notes.is_empty() {
                report.notes.push("SDI: no table in the file's dictionary".into());
            }
            report.notes.extend(notes);
            for ix in &mut report.indexes {
                ix.name = dictionary.index(ix.index_id).map(|i| i.name.clone());
            }
            report.sdi = (!dictionary.tables.is_empty()).then_some(dictionary);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put16(p: &mut [u8], at: usize, v: u16) {
        p[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
    fn put32(p: &mut [u8], at: usize, v: u32) {
        p[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }

    /// A 4-page 16 KiB tablespace: header, two leaf pages of index 7 (one freed), one root.
    fn synthetic() -> Vec<u8> {
        let ps = 16384usize;
        let mut f = vec![0u8; ps * 4];
        put16(&mut f, FIL_PAGE_TYPE, FIL_PAGE_TYPE_FSP_HDR);
        put32(&mut f, FIL_PAGE_DATA + FSP_SPACE_FLAGS, 0x15); // full_crc32, ssize 5
                                                              // First extent: a fragment extent; pages 0, 1 and 3 used, page 2 free.
        put32(&mut f, XDES_ARR_OFFSET + XDES_STATE, 2);
        let bitmap = XDES_ARR_OFFSET + XDES_BITMAP;
        f[bitmap] = 0b0001_0000; // page 2 free bit (bit 4); pages 0, 1, 3 used
        for p in 4..64 {
            f[bitmap + p * 2 / 8] |= 1 << ((p * 2) % 8);
        }
        for (no, level, recs, heap_top) in
            [(1usize, 0u16, 100u16, 8312u16), (2, 0, 5, 1000), (3, 1, 2, 146)]
        {
            let p = &mut f[no * ps..(no + 1) * ps];
            put16(p, FIL_PAGE_TYPE, FIL_PAGE_INDEX);
            put16(p, FIL_PAGE_DATA + PAGE_HEAP_TOP, heap_top);
            put16(p, FIL_PAGE_DATA + PAGE_N_HEAP, 0x8000 | (recs + 2));
            put16(p, FIL_PAGE_DATA + PAGE_N_RECS, recs);
            put16(p, FIL_PAGE_DATA + PAGE_LEVEL, level);
            p[FIL_PAGE_DATA + PAGE_INDEX_ID + 7] = 7;
        }
        f
    }

    #[test]
    fn reads_allocated_index_pages_only() {
        let r = read_tablespace_from(&synthetic()[..]).unwrap();
        assert_eq!(r.page_size_bytes, 16384);
        assert_eq!(r.file_pages, 4);
        assert_eq!(r.allocated_pages, 3);
        let ix = &r.indexes[0];
        assert_eq!(ix.index_id, 7);
        assert_eq!(ix.pages_per_level, vec![1, 1]);
        assert_eq!(ix.height, 2);
        assert_eq!(ix.leaf_records, 100);
        assert_eq!(ix.leaf_data_bytes, 8192);
        assert_eq!(ix.fill_pct, Some(50.0));
        assert_eq!(ix.fill_histogram[5], 1);
    }

    #[test]
    fn page_size_flags() {
        assert_eq!(page_size_from_flags(0).unwrap(), 16384);
        assert_eq!(page_size_from_flags(0x21).unwrap(), 16384); // old format, ssize 0
        assert_eq!(page_size_from_flags(3 << 6).unwrap(), 4096);
        assert_eq!(page_size_from_flags(0x13).unwrap(), 4096);
        assert_eq!(page_size_from_flags(0x17).unwrap(), 65536);
        assert!(page_size_from_flags(0x11).is_err());
    }

    #[test]
    fn truncated_files_are_errors() {
        let f = synthetic();
        assert!(read_tablespace_from(&f[..100]).is_err());
        assert!(read_tablespace_from(&f[..16384 + 10]).is_err());
        assert!(read_tablespace_from(&[][..]).is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_random_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40_000)) {
            let _ = read_tablespace_from(&bytes[..]);
        }

        #[test]
        fn never_panics_on_corrupted_tablespaces(
            edits in proptest::collection::vec((0usize..65536, proptest::num::u8::ANY), 0..64),
            cut in 0usize..65537,
        ) {
            let mut f = synthetic();
            for (at, v) in edits {
                f[at] = v;
            }
            let _ = read_tablespace_from(&f[..cut.min(f.len())]);
        }
    }
}
