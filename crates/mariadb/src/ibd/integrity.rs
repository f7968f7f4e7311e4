//! Whether a tablespace's pages can be trusted: each page's checksum, and the pages past the
//! size its header records (an extended or sparse tail). `keylab inspect` warns of both with
//! counts; the figures are still read from the pages as they are.
//!
//! It knows the CRC-32C checksums MySQL 5.7+ and MariaDB write by default (`crc32` and
//! MariaDB's `full_crc32`) and the `none` magic; a page written with the legacy `innodb`
//! fold checksum is counted as failing, which the warning says. It does not repair anything.

use std::fs::File;

/// `FIL_PAGE_SPACE_OR_CHKSUM`: the checksum of the `crc32` format, at the page's start.
const FIL_PAGE_SPACE_OR_CHKSUM: usize = 0;
/// The bytes the `crc32` checksum leaves out: the checksum itself (0..4), and the FIL
/// header's flush LSN and space id (26..38), which change without the page changing.
const CRC32_FIRST_END: usize = 26;
const CRC32_SECOND_START: usize = 38;
/// The trailer: 8 bytes, the old checksum and the low 4 bytes of the LSN.
const FIL_PAGE_END_LSN_OLD_CHKSUM: usize = 8;
/// `BUF_NO_CHECKSUM_MAGIC`: the checksum of pages written with `innodb_checksum_algorithm=none`.
const NO_CHECKSUM_MAGIC: u32 = 0xDEAD_BEEF;

fn be32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |s| u32::from_be_bytes(s.try_into().expect("4 bytes")))
}

/// All bytes zero: a page never written (InnoDB's own reader takes it as empty, not
/// corrupt).
pub(crate) fn is_zero(page: &[u8]) -> bool {
    page.iter().all(|&b| b == 0)
}

/// Whether `page` carries a checksum that matches it: MariaDB's `full_crc32` (the CRC-32C of
/// all but the last 4 bytes, stored there; `full_crc32`: the tablespace's flags say so) or
/// the `crc32` format (the CRC-32C of two ranges XORed, at the page's start;
/// `buf_calc_page_crc32`), or the `none` magic. A zero page passes.
pub(crate) fn checksum_ok(page: &[u8], full_crc32: bool) -> bool {
    let n = page.len();
    if n < CRC32_SECOND_START + FIL_PAGE_END_LSN_OLD_CHKSUM || is_zero(page) {
        return true;
    }
    if full_crc32 {
        return crc32c::crc32c(&page[..n - 4]) == be32(page, n - 4);
    }
    let stored = be32(page, FIL_PAGE_SPACE_OR_CHKSUM);
    if stored == NO_CHECKSUM_MAGIC {
        return true;
    }
    let first = crc32c::crc32c(&page[4..CRC32_FIRST_END]);
    let second = crc32c::crc32c(&page[CRC32_SECOND_START..n - FIL_PAGE_END_LSN_OLD_CHKSUM]);
    stored == first ^ second
}

/// Whether `file` holds any data (not a hole) at or after byte `from`: `None` where the file
/// system cannot say (no `SEEK_DATA`).
pub(crate) fn data_after(file: &File, from: u64) -> Option<bool> {
    use nix::unistd::{lseek, Whence};
    let offset = i64::try_from(from).ok()?;
    match lseek(file, offset, Whence::SeekData) {
        Ok(_) => Some(true),
        Err(nix::errno::Errno::ENXIO) => Some(false),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// A 4 KiB page with the `crc32` checksum written as InnoDB writes it.
    fn crc32_page(fill: u8) -> Vec<u8> {
        let mut page = vec![fill; 4096];
        let sum = crc32c::crc32c(&page[4..26]) ^ crc32c::crc32c(&page[38..4096 - 8]);
        page[..4].copy_from_slice(&sum.to_be_bytes());
        page
    }

    #[test]
    fn crc32_and_full_crc32_pages_pass_and_a_flipped_byte_fails() {
        let mut page = crc32_page(7);
        assert!(checksum_ok(&page, false));
        // The LSN and space id fields are outside the checksum.
        page[30] ^= 1;
        assert!(checksum_ok(&page, false));
        page[100] ^= 1;
        assert!(!checksum_ok(&page, false));
        let mut full = vec![9u8; 4096];
        let sum = crc32c::crc32c(&full[..4092]);
        full[4092..].copy_from_slice(&sum.to_be_bytes());
        assert!(checksum_ok(&full, true));
        full[5] ^= 1;
        assert!(!checksum_ok(&full, true));
        assert!(checksum_ok(&[0u8; 4096], true));
        let mut none = vec![3u8; 4096];
        none[..4].copy_from_slice(&NO_CHECKSUM_MAGIC.to_be_bytes());
        assert!(checksum_ok(&none, false));
    }

    #[test]
    fn a_sparse_tail_holds_no_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.ibd");
        let file = File::create(&path).unwrap();
        file.write_all_at(&[1u8; 8192], 0).unwrap();
        file.set_len(1 << 30).unwrap();
        let file = File::open(&path).unwrap();
        // tmpfs and ext4 know holes; a file system that does not says so.
        if let Some(data) = data_after(&file, 8192) {
            assert!(!data);
            assert_eq!(data_after(&file, 0), Some(true));
        }
        let mut buf = vec![0u8; 4096];
        file.read_exact_at(&mut buf, 4096).unwrap();
        assert!(buf.iter().all(|&b| b == 1));
    }
}
