//! The binary's checks of a command before any engine starts, so bad usage exits 2 at once
//! instead of failing (exit 1) after a server was started or part of the work was done: export
//! paths that cannot be written, an engine or key the chosen engine cannot take, a buffer pool
//! below a server's floor, a table no server creates, a row or key that no page of the chosen
//! size can hold, and a load plan no server can run.
//!
//! Each check words the refusal for the command line (naming the flag or the run) around the
//! rule it relies on, which lives in the crate that owns it, called from here only:
//! `keylab_schema::limits::check` (MariaDB's column and row limits), the simulator's
//! record-size rules (`keylab_innodb_model::SimTable::new`, as the simulator applies them when
//! it creates a table), `keylab_mariadb::check_plan` (load plans) and
//! `keylab_innodb_model::min_buffer_pool_bytes` (the pool floor). This module runs nothing.

use crate::args::{CompareArgs, OutputArgs};
use crate::engines::sim_settings;
use crate::output;
use crate::UsageError;
use anyhow::Result;
use keylab_core::{EngineKind, EngineSettings, LoadPlan};
use keylab_innodb_model::SimTable;
use keylab_keys::Variant;
use keylab_schema::Table;
use std::path::Path;

/// Refuses `table` loaded with `loads` under `settings` if it cannot work on any engine;
/// `what` names the run in the message (a variant, or a scenario run's label).
pub fn check_run(
    what: &str,
    table: &Table,
    settings: &EngineSettings,
    loads: &[&LoadPlan],
) -> Result<(), UsageError> {
    let sim = sim_settings(settings)?;
    SimTable::new(table, sim).map_err(|e| {
        UsageError(format!("{what}: {e} (page size {} bytes)", settings.page_size_bytes))
    })?;
    for plan in loads {
        keylab_mariadb::check_plan(table, plan).map_err(|e| UsageError(format!("{what}: {e}")))?;
    }
    Ok(())
}

/// Refuses, before anything runs, an export path that cannot be written as described in
/// `output`'s module doc, or that is one of the command's `inputs` (each named for the
/// message: a flag or what the file is) under any spelling, link or hard link: the export
/// would overwrite the file being read (exit 2, naming both).
pub fn check_exports(args: &OutputArgs, inputs: &[(&str, &Path)]) -> Result<()> {
    for (flag, path, _) in output::targets(args) {
        output::classify(path)
            .map_err(|why| UsageError(format!("{flag} {}: {why}", path.display())))?;
        for (what, input) in inputs {
            if same_regular_file(path, input) {
                return Err(UsageError(format!(
                    "{flag} {}: is {what} {}, which this command reads; the export would \
                     overwrite it: give another export path",
                    path.display(),
                    input.display()
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// Both paths name one existing regular file (same device and inode, links followed). Only a
/// regular file is replaced by an export; a device or FIFO (`/dev/stdin` and `/dev/stdout` on
/// one terminal) is written through, never overwritten.
fn same_regular_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.is_file() && b.is_file() && (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Refuses, before anything starts, an engine kind this build cannot run (exit 2, naming
/// the flag and the engines that work). Every kind is built now; kept as the one place to
/// say so when a kind is not.
pub fn check_engine_built(kind: EngineKind) -> Result<(), UsageError> {
    let _ = kind;
    Ok(())
}

/// Refuses, before anything starts, a key variant `kind` has no column type for (exit 2,
/// naming the valid encodings).
pub fn check_variant_on(kind: EngineKind, variant: &Variant) -> Result<(), UsageError> {
    if kind == EngineKind::Postgres && variant.encoding == keylab_keys::Encoding::BinSwap {
        return Err(UsageError(format!(
            "key {variant}: encoding bin-swap is MySQL's UUID_TO_BIN(u, 1) layout and has no \
             PostgreSQL mapping; valid encodings on --engine postgres: text, hex (varchar), bin \
             (uuid; bytea when not 16 bytes), bigint"
        )));
    }
    Ok(())
}

/// Refuses, before any engine starts, `variant`'s table if the server would refuse it:
/// `--payload-bytes` sizes the `data` column, so a too-long column or row names that flag and
/// the limit.
pub fn check_limits(
    args: &CompareArgs,
    variant: &Variant,
    table: &Table,
    page_size_bytes: u32,
) -> Result<()> {
    let Err(e) = keylab_schema::limits::check(table, page_size_bytes) else {
        return Ok(());
    };
    let column = match e {
        keylab_schema::limits::LimitError::ColumnTooLong { column, .. } => {
            format!("column `{}`: ", table.columns[column].name)
        }
        _ => String::new(),
    };
    Err(UsageError(format!(
        "--payload-bytes {}: the table for {variant} ({} placement) is not one MariaDB \
         creates: {column}{e}",
        args.payload_bytes, args.placement
    ))
    .into())
}

/// PostgreSQL's smallest `shared_buffers`: 16 buffers of 8 kB (the GUC's minimum in
/// `guc_tables.c`), the floor when no run is InnoDB.
pub const PG_MIN_SHARED_BUFFERS_BYTES: u64 = 16 * 8192;

/// The smallest `--buffer-pool` the runs' engines start with: MariaDB's at `page_size_bytes`
/// when some run is InnoDB (a server or a model), so a command that runs on the simulator
/// runs on a server unchanged; else PostgreSQL's.
pub fn pool_floor_bytes(page_size_bytes: u32, innodb: bool) -> u64 {
    if innodb {
        keylab_innodb_model::min_buffer_pool_bytes(page_size_bytes)
    } else {
        PG_MIN_SHARED_BUFFERS_BYTES
    }
}

/// The pool bounds of the runs' engines, for turning shares of a table into pool sizes: the
/// floor of [`pool_floor_bytes`], and on InnoDB the free pages MariaDB's page cleaner keeps.
pub fn pool_bounds(page_size_bytes: u32, innodb: bool) -> keylab_core::PoolBounds {
    keylab_core::PoolBounds {
        floor_bytes: pool_floor_bytes(page_size_bytes, innodb),
        reserved_bytes: if innodb {
            keylab_innodb_model::page_cleaner_free_bytes(page_size_bytes)
        } else {
            0
        },
    }
}

/// `--buffer-pool` below [`pool_floor_bytes`] is refused (exit 2); `at` names the page size
/// for the message.
pub fn check_pool_floor(bytes: u64, page_size_bytes: u32, at: &str, innodb: bool) -> Result<()> {
    let min = pool_floor_bytes(page_size_bytes, innodb);
    if bytes >= min {
        return Ok(());
    }
    let what = if innodb {
        format!("the smallest pool MariaDB starts with at {at}: {} MiB", min.div_ceil(1 << 20))
    } else {
        format!("PostgreSQL's smallest shared_buffers: {} kB (16 buffers of 8 kB)", min / 1024)
    };
    Err(UsageError(format!(
        "--buffer-pool {bytes} bytes is below {what} (write it as 64M, 1G, 16MiB, 512K, ...)"
    ))
    .into())
}
