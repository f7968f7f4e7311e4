//! Reads and writes of a table's `.ibd` file as performance schema counts them.
//!
//! Not for buffer-pool page requests (the parent's counters); `None` when performance
//! schema or its file instrument is off.

use super::get_u64;
use mysql::prelude::Queryable;
use mysql::Conn;

/// Reads and writes of a table's `.ibd` file, cumulative since the server opened it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileIo {
    /// `COUNT_READ`.
    pub read_requests: u64,
    /// `SUM_NUMBER_OF_BYTES_READ`.
    pub read_bytes: u64,
    /// `COUNT_WRITE`.
    pub write_requests: u64,
    /// `SUM_NUMBER_OF_BYTES_WRITE`.
    pub write_bytes: u64,
}

impl FileIo {
    /// Both counts added.
    pub fn plus(&self, other: &FileIo) -> FileIo {
        FileIo {
            read_requests: self.read_requests + other.read_requests,
            read_bytes: self.read_bytes + other.read_bytes,
            write_requests: self.write_requests + other.write_requests,
            write_bytes: self.write_bytes + other.write_bytes,
        }
    }

    /// The counts since `before` (a count that went down, after a rebuild reopened the
    /// file, counts from zero).
    pub fn since(&self, before: &FileIo) -> FileIo {
        FileIo {
            read_requests: self.read_requests.saturating_sub(before.read_requests),
            read_bytes: self.read_bytes.saturating_sub(before.read_bytes),
            write_requests: self.write_requests.saturating_sub(before.write_requests),
            write_bytes: self.write_bytes.saturating_sub(before.write_bytes),
        }
    }
}

/// Reads and writes of a table's `.ibd` file as performance schema counts them
/// (`file_summary_by_instance`; what `sys.schema_table_statistics` reports as
/// `io_read_requests`, `io_write_requests` and their bytes). `None` when performance schema
/// is off, the instrument is disabled or the table cannot be read.
pub fn table_file_io(conn: &mut Conn, db: &str, table: &str) -> Option<FileIo> {
    let on: Option<u64> = conn.query_first("SELECT @@performance_schema").ok().flatten();
    if on != Some(1) {
        return None;
    }
    let enabled: Option<String> = conn
        .query_first(
            "SELECT ENABLED FROM performance_schema.setup_instruments \
             WHERE NAME = 'wait/io/file/innodb/innodb_data_file'",
        )
        .ok()
        .flatten();
    if !enabled.is_some_and(|e| e.eq_ignore_ascii_case("YES")) {
        return None;
    }
    // File names are as the server opened them (`./db/t.ibd` or an absolute path).
    let suffix = format!("%/{db}/{table}.ibd");
    let row: Option<mysql::Row> = conn
        .exec_first(
            "SELECT SUM(COUNT_READ) AS rc, SUM(SUM_NUMBER_OF_BYTES_READ) AS rb, \
             SUM(COUNT_WRITE) AS wc, SUM(SUM_NUMBER_OF_BYTES_WRITE) AS wb \
             FROM performance_schema.file_summary_by_instance \
             WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_data_file' AND FILE_NAME LIKE ?",
            (suffix,),
        )
        .ok()?;
    // No row, or NULL sums: the file has not been opened through an instrumented call.
    let get = |col| row.as_ref().and_then(|r| get_u64(r, col)).unwrap_or(0);
    Some(FileIo {
        read_requests: get("rc"),
        read_bytes: get("rb"),
        write_requests: get("wc"),
        write_bytes: get("wb"),
    })
}
