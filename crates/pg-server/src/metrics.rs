//! What keylab reads from PostgreSQL after a phase: the shape of every nbtree index, page by
//! page (`pageinspect`'s `bt_metap` and `bt_page_stats` over every block, plus
//! `pgstattuple`'s `pgstatindex` and, where installed, `pg_freespacemap` for recyclable
//! pages); heap and index sizes; buffer hits and reads (`pg_statio_user_tables`); and the WAL
//! of an LSN range, counted record by record by `pg_waldump` (splits, new roots,
//! full-page images, checkpoints).
//!
//! It does not run workloads; a figure it cannot read is `None`.

use crate::sql::quote_ident;
use keylab_core::IndexResult;
use postgres::Client;
use std::path::Path;
use std::process::Command;

/// nbtree's usable bytes per page: the block less the page header (24 bytes) and nbtree's
/// special space (16 bytes), as `pgstatindex` takes it (`pgstatindex_impl`).
fn usable_bytes(page_size: i32) -> f64 {
    f64::from(page_size - 24 - 16)
}

/// The shape of index `index` (schema-qualified, quoted), read page by page. `name` is what
/// the result calls it. Needs `pageinspect` and `pgstattuple`; `None` without them.
pub fn index_shape(client: &mut Client, index: &str, name: &str, fsm: bool) -> Option<IndexResult> {
    let meta = client.query_one(&format!("SELECT level FROM bt_metap('{index}')"), &[]).ok()?;
    let root_level: i64 = meta.get::<_, i64>(0);
    let blocks: i64 = client
        .query_one(
            &format!("SELECT pg_relation_size('{index}') / current_setting('block_size')::bigint"),
            &[],
        )
        .ok()?
        .get(0);
    let rows = client
        .query(
            &format!(
                "SELECT s.type::text, s.live_items, s.free_size, s.page_size, s.btpo_level::bigint, \
                 s.btpo_next::bigint FROM generate_series(1::bigint, {}::bigint) AS b, \
                 LATERAL bt_page_stats('{index}', b) AS s",
                blocks - 1
            ),
            &[],
        )
        .ok()?;
    let mut per_level: Vec<u64> = vec![0; root_level as usize + 1];
    let (mut leaves, mut nonleaf, mut deleted) = (0u64, 0u64, 0u64);
    let mut fill_sum = 0.0;
    let mut records = 0u64;
    let mut hist = vec![0u64; 10];
    for r in &rows {
        let kind: String = r.get(0);
        let live: i32 = r.get(1);
        let free: i32 = r.get(2);
        let page: i32 = r.get(3);
        let level: i64 = r.get(4);
        let next: i64 = r.get(5);
        match kind.as_str() {
            // Deleted, or half-dead (ignored by scans until VACUUM finishes with it).
            "d" | "e" => deleted += 1,
            _ => {
                if let Some(n) = per_level.get_mut(level as usize) {
                    *n += 1;
                }
                if level == 0 {
                    leaves += 1;
                    let fill =
                        (100.0 * (1.0 - f64::from(free) / usable_bytes(page))).clamp(0.0, 100.0);
                    fill_sum += fill;
                    hist[((fill / 10.0) as usize).min(9)] += 1;
                    // Every page but the rightmost of its level holds a high key, which is no record.
                    records += (live - i32::from(next != 0)).max(0) as u64;
                } else {
                    nonleaf += 1;
                }
            }
        }
    }
    let stat = client
        .query_one(
            &format!(
                "SELECT leaf_pages, internal_pages, avg_leaf_density, leaf_fragmentation FROM \
                 pgstatindex('{index}')"
            ),
            &[],
        )
        .ok();
    let finite = |v: f64| v.is_finite().then_some(v);
    let recyclable = if fsm {
        client
            .query_one(
                &format!("SELECT count(*) FROM pg_freespace('{index}') WHERE avail > 0"),
                &[],
            )
            .ok()
            .map(|r| r.get::<_, i64>(0) as u64)
    } else {
        None
    };
    Some(IndexResult {
        name: name.to_string(),
        size_pages: Some(blocks as u64),
        leaf_pages: Some(leaves),
        n_leaf_pages_stat: None,
        nonleaf_pages: Some(nonleaf),
        freed_pages_in_pool: None,
        height: Some(root_level as u32 + 1),
        fill_pct: (leaves > 0).then(|| fill_sum / leaves as f64),
        records_per_leaf: (leaves > 0).then(|| records as f64 / leaves as f64),
        fill_histogram: Some(hist),
        pages_per_level: Some(per_level),
        avg_leaf_density: stat.as_ref().and_then(|r| finite(r.get::<_, f64>(2))),
        leaf_fragmentation: stat.as_ref().and_then(|r| finite(r.get::<_, f64>(3))),
        deleted_pages: Some(deleted),
        recyclable_pages: recyclable,
    })
}

/// An index's name as the engine reports it: `PRIMARY` for the primary key's, the schema's
/// index name (`k_id`) for the others, as on the InnoDB engines.
pub fn report_name(table: &str, index: &str) -> String {
    if index == format!("{table}_pkey") {
        "PRIMARY".into()
    } else {
        index.strip_prefix(&format!("{table}_")).unwrap_or(index).to_string()
    }
}

/// [`report_name`] knowing the table: an index keylab named (`sql::index_name`, shortened
/// when long) is reported under the user's name.
pub fn report_name_of(table: &keylab_schema::Table, index: &str) -> String {
    if index == crate::sql::pkey_name(table) {
        return "PRIMARY".into();
    }
    match table.indexes.iter().find(|ix| crate::sql::index_name(table, &ix.name) == index) {
        Some(ix) => ix.name.clone(),
        None => report_name(&table.name, index),
    }
}

/// The indexes of `schema`.`table`, primary key first.
pub fn index_names(client: &mut Client, schema: &str, table: &str) -> Vec<String> {
    let q = format!(
        "SELECT c.relname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
         WHERE i.indrelid = '{}.{}'::regclass ORDER BY i.indisprimary DESC, c.relname",
        quote_ident(schema),
        quote_ident(table)
    );
    client.query(&q, &[]).map(|rows| rows.iter().map(|r| r.get(0)).collect()).unwrap_or_default()
}

/// What `pg_waldump` counted over an LSN range.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalCounts {
    /// Records.
    pub records: u64,
    /// Full-page images (block references marked `FPW`).
    pub full_page_images: u64,
    /// Bytes of full-page images (`--stats`' FPI size).
    pub full_page_image_bytes: u64,
    /// nbtree splits whose new page is the left / right half, and new roots.
    pub split_left: u64,
    /// See `split_left`.
    pub split_right: u64,
    /// See `split_left`.
    pub new_roots: u64,
    /// Online checkpoints.
    pub checkpoints: u64,
}

/// The WAL segment files that hold `start` and the last byte before `end` (`X/Y` LSNs),
/// named to `pg_waldump`: without them it takes the segment size from the first file it finds
/// in the directory, and a segment a checkpoint has just pre-allocated has no header yet
/// ("WAL segment size must be a power of two", seen when a load checkpoints). Segments are
/// initdb's 16 MiB (256 to a 4 GiB xlogid); the timeline is read off the start segment's name.
fn segment_files(waldir: &Path, start: &str, end: &str) -> Vec<std::path::PathBuf> {
    const SEGMENT_BYTES: u64 = 16 << 20;
    let lsn = |text: &str| -> Option<u64> {
        let (hi, lo) = text.split_once('/')?;
        Some(u64::from_str_radix(hi, 16).ok()? << 32 | u64::from_str_radix(lo, 16).ok()?)
    };
    let (Some(from), Some(to)) = (lsn(start), lsn(end)) else {
        return Vec::new();
    };
    let name = |segno: u64| format!("{:08X}{:08X}", segno / 256, segno % 256);
    let first_suffix = name(from / SEGMENT_BYTES);
    let first = std::fs::read_dir(waldir).ok().and_then(|dir| {
        dir.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.len() == 24 && n.ends_with(&first_suffix))
        })
    });
    let Some(first) = first else {
        return Vec::new();
    };
    let timeline = first.file_name().and_then(|n| n.to_str()).map_or("", |n| &n[..8]).to_string();
    let last = waldir.join(format!("{timeline}{}", name(to.saturating_sub(1) / SEGMENT_BYTES)));
    vec![first, last]
}

/// Counts the WAL records of `[start, end)` in `waldir` with `pg_waldump`: one pass record
/// by record (`FPW` block references, `Btree` `SPLIT_L`/`SPLIT_R`/`NEWROOT`, checkpoints) and
/// one `--stats=record` pass for the bytes of the full-page images.
pub fn count_wal(
    waldump: &Path,
    waldir: &Path,
    start: &str,
    end: &str,
) -> Result<WalCounts, String> {
    let mut c = WalCounts::default();
    if start == end {
        return Ok(c);
    }
    let segments = segment_files(waldir, start, end);
    let run = |extra: &[&str]| -> Result<String, String> {
        let out = Command::new(waldump)
            .arg("--path")
            .arg(waldir)
            .args(["--start", start, "--end", end])
            .args(extra)
            .args(&segments)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", waldump.display()))?;
        if !out.status.success() {
            return Err(format!(
                "pg_waldump failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    for line in run(&[])?.lines() {
        parse_record_line(line, &mut c);
    }
    c.full_page_image_bytes = parse_fpi_bytes(&run(&["--stats=record"])?).unwrap_or(0);
    Ok(c)
}

/// Adds one record line of `pg_waldump`'s output to `c`.
fn parse_record_line(line: &str, c: &mut WalCounts) {
    let Some(rest) = line.strip_prefix("rmgr: ") else { return };
    c.records += 1;
    c.full_page_images += line.matches(" FPW").count() as u64;
    let rmgr = rest.split_whitespace().next().unwrap_or("");
    let desc = line.split("desc: ").nth(1).and_then(|d| d.split_whitespace().next()).unwrap_or("");
    match (rmgr, desc) {
        ("Btree", "SPLIT_L") => c.split_left += 1,
        ("Btree", "SPLIT_R") => c.split_right += 1,
        ("Btree", "NEWROOT") => c.new_roots += 1,
        ("XLOG", "CHECKPOINT_ONLINE") => c.checkpoints += 1,
        _ => {}
    }
}

/// The FPI bytes of the `Total` line of `pg_waldump --stats=record`:
/// `Total  N  RECBYTES [p%]  FPIBYTES [p%]  COMBINED [p%]`.
fn parse_fpi_bytes(stats: &str) -> Option<u64> {
    let total = stats.lines().find(|l| l.trim_start().starts_with("Total"))?;
    let numbers: Vec<u64> = total
        .split_whitespace()
        .filter(|w| !w.starts_with('['))
        .filter_map(|w| w.parse().ok())
        .collect();
    numbers.get(2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waldump_lines_are_counted() {
        let mut c = WalCounts::default();
        for l in [
            "rmgr: Btree       len (rec/tot):     64/  8256, tx:        735, lsn: 0/0155F9B0, prev 0/0155F978, desc: INSERT_LEAF off 2, blkref #0: rel 1663/16384/16389 blk 1 FPW",
            "rmgr: Btree       len (rec/tot):   4000/  4100, tx:        735, lsn: 0/0155FA00, prev 0/0155F9B0, desc: SPLIT_R level 0, firstrightoff 184, newitemoff 20, postingoff 0, blkref #0: rel 1663/16384/16389 blk 1, blkref #1: rel 1663/16384/16389 blk 9 FPW, blkref #3: rel 1663/16384/16389 blk 2 FPW",
            "rmgr: Btree       len (rec/tot):   4000/  4100, tx:        735, lsn: 0/0155FB00, prev 0/0155FA00, desc: SPLIT_L level 0, firstrightoff 184",
            "rmgr: Btree       len (rec/tot):     60/    60, tx:        735, lsn: 0/0155FC00, prev 0/0155FB00, desc: NEWROOT lev 1",
            "rmgr: XLOG        len (rec/tot):    114/   114, tx:          0, lsn: 0/0155FD00, prev 0/0155FC00, desc: CHECKPOINT_ONLINE redo 0/1",
            "pg_waldump: error: something",
        ] {
            parse_record_line(l, &mut c);
        }
        assert_eq!(
            c,
            WalCounts {
                records: 5,
                full_page_images: 3,
                full_page_image_bytes: 0,
                split_left: 1,
                split_right: 1,
                new_roots: 1,
                checkpoints: 1
            }
        );
    }

    #[test]
    fn the_total_line_gives_the_fpi_bytes() {
        let s = "Type  N  (%)  Record size  (%)  FPI size  (%)  Combined size  (%)\n\
                 ----  -  ---  -----------  ---  --------  ---  -------------  ---\n\
                 XLOG/FPI  3 ( 1.00)  150 ( 0.10)  24000 ( 90.00)  24150 ( 50.00)\n\
                 Total                 300     123456 [40.00%]     185000 [60.00%]     308456 [100%]\n";
        assert_eq!(parse_fpi_bytes(s), Some(185_000));
    }

    #[test]
    fn primary_key_indexes_are_called_primary() {
        assert_eq!(report_name("t", "t_pkey"), "PRIMARY");
        assert_eq!(report_name("t", "t_k_id"), "k_id");
    }
}
