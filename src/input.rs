//! Reading a text file named on the command line (`keylab advise FILE.sql`) with a size
//! bound, so `/dev/zero`, an endless FIFO or a data dump is refused at once instead of filling
//! memory. Scenario files (`keylab-scenario`) and result files (`keylab-report`) are bounded
//! the same way in their crates; a `--keys-file` is read as a stream, line by line.

use crate::UsageError;
use std::io::Read;
use std::path::Path;

/// Reads `path` as UTF-8 text of at most `limit` bytes, reading no more than `limit + 1`, and
/// drops a leading UTF-8 byte-order mark (editors on Windows write one; it is not text).
/// Errors name the file and `what` it is; past the limit, the limit and `why` it holds.
pub fn read_text(path: &Path, limit: u64, what: &str, why: &str) -> Result<String, UsageError> {
    let origin = path.display();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| UsageError(format!("{origin}: cannot read {what}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(UsageError(format!("{origin}: larger than {} MiB; {why}", limit >> 20)));
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    std::str::from_utf8(text).map(str::to_string).map_err(|e| {
        UsageError(format!(
            "{origin}: cannot read {what}: not UTF-8 text (byte {})",
            e.valid_up_to() + bytes.len() - text.len()
        ))
    })
}
