//! Memory a run needs, checked before it starts against what the machine has free
//! (`MemAvailable` in `/proc/meminfo`): the simulator's trees (an estimate from the rows and
//! key widths) and a private server's buffer pool. A run past it is refused (exit 2) naming
//! the estimate and the flag to lower, instead of aborting on an allocation failure or a
//! server that cannot start. Where `/proc/meminfo` cannot be read nothing is refused.
//!
//! It reads `/proc/meminfo` only; it does not watch memory while a run goes on.

use crate::UsageError;
use keylab_keys::Variant;
use keylab_schema::Table;

/// The expected fill of a B-tree's pages under random inserts (ln 2, Yao's result): a split
/// leaves two half-full pages, which fill before they split again. Ascending keys fill their
/// pages more; the estimate takes the common case, not the best.
const EXPECTED_FILL: f64 = std::f64::consts::LN_2;

/// Bytes the InnoDB model keeps per index entry besides its key: a 4-byte entry in the
/// page's record order and a 4-byte size and slot header (`Page::recs` and `Page::heap`).
const ENTRY_EXTRA_BYTES: u64 = 8;

/// PostgreSQL's largest `shared_buffers`: `INT_MAX / 2` buffers of 8 KiB (guc_tables.c).
pub const PG_MAX_SHARED_BUFFERS_BYTES: u64 = (i32::MAX as u64 / 2) * 8192;

/// `MemAvailable` of `/proc/meminfo`, in bytes; `None` where it cannot be read.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    mem_available(&text)
}

fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The bytes of a key of `columns` as the model stores it: fixed-length columns at their
/// length, the column of `variant`'s type at the id's stored length, others (variable
/// lengths the generator decides) left out, so the estimate stays a floor there.
fn key_bytes(table: &Table, columns: &[usize], variant: Option<&Variant>) -> u64 {
    let id_type = variant.map(Variant::column_type);
    columns
        .iter()
        .map(|&c| {
            let ty = &table.columns[c].ty;
            match (ty.fixed_len(), variant) {
                (Some(n), _) => u64::from(n),
                (None, Some(v)) if Some(*ty) == id_type => u64::from(v.stored_len()),
                _ => 0,
            }
        })
        .sum()
}

/// The simulator's estimated memory for `table` holding `rows` rows: every tree's entries
/// (the primary key's; each secondary index's, which also holds the primary key) at
/// [`EXPECTED_FILL`], and, with secondary indexes, each row's key and secondary values kept
/// for deletes.
pub fn table_bytes(table: &Table, variant: Option<&Variant>, rows: u64) -> u64 {
    let pk = key_bytes(table, &table.primary_key, variant);
    let mut per_row = (pk + ENTRY_EXTRA_BYTES) as f64 / EXPECTED_FILL;
    for ix in &table.indexes {
        let entry = key_bytes(table, &ix.columns, variant) + pk + ENTRY_EXTRA_BYTES;
        per_row += entry as f64 / EXPECTED_FILL;
    }
    if !table.indexes.is_empty() {
        let secondary: Vec<usize> =
            table.indexes.iter().flat_map(|ix| ix.columns.clone()).collect();
        per_row += (8 + pk + key_bytes(table, &secondary, variant)) as f64;
    }
    (per_row * rows as f64) as u64
}

/// The memory of the `jobs` largest of `tables` (bytes each): what runs on `jobs` threads
/// hold at once at worst.
pub fn held_at_once(mut tables: Vec<u64>, jobs: usize) -> u64 {
    tables.sort_unstable_by(|a, b| b.cmp(a));
    tables.iter().take(jobs.max(1)).fold(0, |a, b| a.saturating_add(*b))
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// Refuses (exit 2) a simulator run needing `need` bytes (the largest tables held at once)
/// when the machine has less available; `what` names the run, `lower` the flags that lower
/// the need.
pub fn check_model(what: &str, need: u64, lower: &str) -> Result<(), UsageError> {
    check_model_against(what, need, lower, available_bytes())
}

fn check_model_against(
    what: &str,
    need: u64,
    lower: &str,
    available: Option<u64>,
) -> Result<(), UsageError> {
    match available {
        Some(free) if need > free => Err(UsageError(format!(
            "{what}: the simulator would need about {} of memory (its trees' entries at the \
             ln 2 fill of random inserts, for the tables held at once), more than the {} this \
             machine has available (MemAvailable in /proc/meminfo); lower {lower}",
            gib(need),
            gib(free)
        ))),
        _ => Ok(()),
    }
}

/// Refuses (exit 2) a private server's buffer pool (`flag` names where it was set) when the
/// machine has less memory available than the pool (the server would fail to start, or be
/// killed), or past PostgreSQL's largest `shared_buffers`.
pub fn check_server_pool(flag: &str, bytes: u64, postgres: bool) -> Result<(), UsageError> {
    check_server_pool_against(flag, bytes, postgres, available_bytes())
}

fn check_server_pool_against(
    flag: &str,
    bytes: u64,
    postgres: bool,
    available: Option<u64>,
) -> Result<(), UsageError> {
    if postgres && bytes > PG_MAX_SHARED_BUFFERS_BYTES {
        return Err(UsageError(format!(
            "{flag} {}: more than PostgreSQL's largest shared_buffers ({}, INT_MAX / 2 \
             buffers of 8 KiB); valid: at most that, and at most the machine's available memory",
            gib(bytes),
            gib(PG_MAX_SHARED_BUFFERS_BYTES)
        )));
    }
    match available {
        Some(free) if bytes > free => Err(UsageError(format!(
            "{flag} {}: more than the {} this machine has available (MemAvailable in \
             /proc/meminfo); the private server could not allocate its pool; valid: a smaller \
             --buffer-pool (64M, 1G, ...)",
            gib(bytes),
            gib(free)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, Index, RowFormat};

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24684096 kB\nMemFree: 1 kB\nMemAvailable:   23320520 kB\n";
        assert_eq!(mem_available(text), Some(23_320_520 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    fn table(indexes: Vec<Index>) -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("id", ColumnType::BigInt { unsigned: false }, false),
                Column::new("k", ColumnType::Int, false),
            ],
            primary_key: vec![0],
            auto_increment: true,
            indexes,
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    #[test]
    fn table_estimate_counts_every_tree_at_the_expected_fill() {
        // One BIGINT tree: (8 + 8) bytes per entry at ln 2: about 23 bytes a row.
        let plain = table_bytes(&table(Vec::new()), None, 1_000_000);
        assert_eq!(plain, (16.0 / std::f64::consts::LN_2 * 1e6) as u64);
        // An INT secondary index holds the BIGINT key too, and the rows keep their values.
        let with = table_bytes(&table(vec![Index::new("k", vec![1], false)]), None, 1);
        let want = 16.0 / std::f64::consts::LN_2 + 20.0 / std::f64::consts::LN_2 + 20.0;
        assert_eq!(with, want as u64);
    }

    #[test]
    fn the_largest_tables_are_held_at_once() {
        assert_eq!(held_at_once(vec![1, 5, 3], 2), 8);
        assert_eq!(held_at_once(vec![1, 5, 3], 9), 9);
        assert_eq!(held_at_once(vec![u64::MAX, 5], 2), u64::MAX);
    }

    #[test]
    fn a_need_past_the_available_memory_is_refused_naming_the_flag() {
        let e = check_model_against("compare", 50 << 30, "--rows", Some(20 << 30)).unwrap_err();
        assert!(e.0.contains("about 50.0 GiB") && e.0.contains("20.0 GiB"), "{e}");
        assert!(e.0.ends_with("lower --rows"), "{e}");
        assert!(check_model_against("compare", 10 << 30, "--rows", Some(20 << 30)).is_ok());
        assert!(check_model_against("compare", u64::MAX, "--rows", None).is_ok());
    }

    #[test]
    fn a_server_pool_past_the_machine_or_postgres_is_refused() {
        let e =
            check_server_pool_against("--buffer-pool", 1 << 40, false, Some(20 << 30)).unwrap_err();
        assert!(e.0.starts_with("--buffer-pool 1024.0 GiB") && e.0.contains("20.0 GiB"), "{e}");
        let e = check_server_pool_against("--buffer-pool", 16 << 40, true, None).unwrap_err();
        assert!(e.0.contains("shared_buffers"), "{e}");
        assert!(check_server_pool_against("--buffer-pool", 1 << 30, true, Some(20 << 30)).is_ok());
    }
}
