//! The advice figures of one candidate (an `advice` phase of its run, so every report format
//! renders them): bytes per index and in total, bytes per row, splits per 1,000 inserts, the
//! insert working set and the buffer pool it needs, the change against the current key; and
//! the plain-language recommendation over all candidates (which, with a workload, weighs its
//! reads too: `weigh.rs`).
//!
//! Nothing here runs an engine; every figure is arithmetic on what the engine reported.

use super::rows::AdviseRows;
use super::weigh::{read_local, ReadNeed, Weighed};
use super::Candidate;
use keylab_core::{AdvicePhase, Figure, PhaseResult, RunResult};
use keylab_schema::{Clustered, Value, ROW_ID_BYTES, ROW_ID_COLUMN};

/// Distinct leaf pages per index (PRIMARY first) that inserts touched in the last window of
/// `window` rows and in the window before it too: the pages a stream of inserts keeps
/// coming back to. `None` where the engine cannot say (a server).
#[derive(Debug, Clone)]
pub struct WorkingSet {
    /// Pages per index.
    pub pages: Option<Vec<u64>>,
    /// Rows per window.
    pub window: u64,
}

/// Stored bytes of a key in one secondary-index entry (the primary-key columns every
/// secondary record carries, with their length bytes), from the candidate's first row.
pub fn key_entry_bytes(c: &Candidate) -> u32 {
    if c.heap_table && c.key.is_empty() {
        return 0;
    }
    // Without a PRIMARY KEY, the clustered index's columns: a UNIQUE key's or the row id.
    let (table, plan) = super::sim::innodb_form(c);
    let row = AdviseRows::new(&table, &plan, c.variant, 1).next().unwrap_or_default();
    table
        .primary_key
        .iter()
        .map(|&k| {
            let ty = &table.columns[k].ty;
            let v = row.get(k).cloned().unwrap_or(Value::Null);
            let v = if v.is_null() { Value::Int(1) } else { v };
            let len_bytes = match ty.fixed_len() {
                Some(_) => 0,
                None if ty.is_big() && v.stored_len(ty) > 127 => 2,
                None => 1,
            };
            v.stored_len(ty) + len_bytes
        })
        .sum()
}

/// The SQL type of column `k` as the candidate's server creates it (PostgreSQL: `uuid` for
/// 16-byte ids, as keylab's PostgreSQL engine creates them).
pub fn key_type_sql(c: &Candidate, k: usize) -> String {
    let ty = &c.table.columns[k].ty;
    if c.heap_table {
        keylab_pg_server::column_type(ty, keylab_pg_server::TextCollation::Default)
    } else {
        ty.sql(keylab_schema::Dialect::Mariadb)
    }
}

/// How much bigger (+) or smaller (-) a secondary-index entry is under `c` than under the
/// current key `cur`: InnoDB's secondary records carry the primary key; a PostgreSQL heap
/// table's carry a TID of 6 bytes whatever the key (`IndexTupleData.t_tid`), so 0 there.
fn secondary_entry_change(c: &Candidate, cur: &Candidate) -> i64 {
    if c.heap_table {
        0
    } else {
        i64::from(key_entry_bytes(c)) - i64::from(key_entry_bytes(cur))
    }
}

pub fn total_bytes(run: &RunResult) -> Option<u64> {
    Some(run.table.data_length? + run.table.index_length?)
}

fn pct(new: u64, old: u64) -> Option<f64> {
    (old > 0).then(|| ((new as f64 / old as f64) - 1.0) * 100.0)
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Bytes of buffer pool the insert working set needs: its leaves plus every non-leaf page
/// (each insert descends through them).
fn pool_bytes(run: &RunResult, ws: &WorkingSet, page_bytes: u64) -> Option<u64> {
    let pages = ws.pages.as_ref()?;
    let nonleaf: u64 = run.indexes.iter().map(|i| i.nonleaf_pages.unwrap_or(0)).sum();
    Some((pages.iter().sum::<u64>() + nonleaf) * page_bytes)
}

/// The `advice` phase of `run` (candidate `c`), against `current` when it ran.
pub fn advice_phase(
    c: &Candidate,
    run: &RunResult,
    ws: &WorkingSet,
    current: Option<(&Candidate, &RunResult)>,
    page_bytes: u64,
) -> PhaseResult {
    let key_sql: Vec<String> = match (c.key.is_empty(), c.heap_table) {
        (false, _) => c.key.iter().map(|&k| key_type_sql(c, k)).collect(),
        (true, true) => vec!["none (a heap)".into()],
        (true, false) => match c.table.innodb_clustered() {
            Clustered::Unique(i) => {
                c.table.indexes[i].columns.iter().map(|&k| key_type_sql(c, k)).collect()
            }
            _ => vec![format!("hidden {ROW_ID_COLUMN} ({ROW_ID_BYTES} bytes)")],
        },
    };
    let row_id = !c.heap_table && c.table.innodb_clustered() == Clustered::RowId;
    let ids_from = match (c.table.auto_increment, c.heap_table) {
        _ if row_id => "the database (hidden row id)",
        _ if c.key.is_empty() && c.heap_table => "none (no key)",
        (true, false) => "the database (AUTO_INCREMENT)",
        (true, true) => "the database (identity)",
        (false, _) => "the application",
    };
    let total = total_bytes(run);
    let splits = run.counters.page_splits.filter(|_| run.rows > 0);
    let mut f = AdvicePhase {
        key_type: Figure::Value(key_sql.join(", ")),
        ids_from: Figure::Value(ids_from.to_string()),
        total_bytes: Figure::of(total),
        bytes_per_row: Figure::of(
            total.filter(|_| run.rows > 0).map(|t| round1(t as f64 / run.rows as f64)),
        ),
        index_bytes: Figure::Value(
            run.indexes
                .iter()
                .map(|ix| (ix.name.clone(), ix.size_pages.map(|p| p * page_bytes)))
                .collect(),
        ),
        splits_per_1000_inserts: Figure::of(
            splits.map(|s| round1(s as f64 * 1000.0 / run.rows as f64)),
        ),
        insert_working_set_pages: Figure::Value(
            run.indexes
                .iter()
                .enumerate()
                .map(|(i, ix)| (ix.name.clone(), ws.pages.as_ref().and_then(|p| p.get(i).copied())))
                .collect(),
        ),
        insert_working_set_pool_bytes: Figure::of(pool_bytes(run, ws, page_bytes)),
        working_set_window_rows: Figure::Value(ws.window),
        key_entry_bytes: Figure::Value(key_entry_bytes(c).into()),
        ..AdvicePhase::default()
    };
    if let Some((cc, cr)) = current {
        let change = match (total, total_bytes(cr)) {
            (Some(t), Some(o)) => pct(t, o).map(round1),
            _ => None,
        };
        f.total_bytes_change_pct = Figure::of(change);
        f.secondary_entry_bytes_change = Figure::Value(secondary_entry_change(c, cc));
    }
    PhaseResult::Advice(f)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

/// The candidate to choose (an index into `runs`, never 0, the current key): of the
/// candidates whose inserts stay local (working set within twice the smallest) and, with a
/// workload (`needs` per run; empty without), whose reads stay local too
/// ([`read_local`]), the smallest in total bytes; when no candidate is both, the smallest of
/// those whose reads stay local (the workload's misses count its inserts too). `None` when
/// no candidate ran besides the current key.
pub fn best_candidate(
    runs: &[RunResult],
    sets: &[WorkingSet],
    page_bytes: u64,
    needs: &[ReadNeed],
) -> Option<usize> {
    let ws_of = |i: usize| pool_bytes(&runs[i], &sets[i], page_bytes);
    let min_ws = (1..runs.len()).filter_map(ws_of).min();
    let local = |i: usize| match (ws_of(i), min_ws) {
        (Some(w), Some(m)) => w <= m.saturating_mul(2).max(m + 16 * page_bytes),
        _ => true,
    };
    let reads = read_local(needs);
    let reads_local = |i: usize| reads.get(i).copied().unwrap_or(true);
    let smallest = |ok: &dyn Fn(usize) -> bool| {
        (1..runs.len())
            .filter(|&i| ok(i))
            .min_by_key(|&i| total_bytes(&runs[i]).unwrap_or(u64::MAX))
    };
    smallest(&|i| local(i) && reads_local(i)).or_else(|| smallest(&reads_local))
}

/// The plain-language recommendation: the candidate to choose and what it trades.
pub fn recommendation(
    cands: &[&Candidate],
    runs: &[RunResult],
    sets: &[WorkingSet],
    page_bytes: u64,
    weighed: Option<&Weighed>,
) -> String {
    let Some(cur) = runs.first() else { return String::new() };
    let needs = weighed.map(Weighed::needs).unwrap_or_default();
    let cur_total = total_bytes(cur).unwrap_or(0);
    let ws_of = |i: usize| pool_bytes(&runs[i], &sets[i], page_bytes);
    let Some(b) = best_candidate(runs, sets, page_bytes, &needs) else {
        return "no candidate ran besides the current key".into();
    };
    let bt = total_bytes(&runs[b]).unwrap_or(0);
    let mut s = format!("Recommendation: {}", runs[b].variant);
    match pct(bt, cur_total) {
        Some(p) if p.abs() >= 0.05 => s.push_str(&format!(
            " ({:+.1}% total bytes against the current key, {} against {}",
            p,
            mib(bt),
            mib(cur_total)
        )),
        _ => s.push_str(" (the same total bytes as the current key"),
    }
    let d = secondary_entry_change(cands[b], cands[0]);
    if !cands[b].table.indexes.is_empty() && d != 0 {
        let word = if d < 0 { "smaller" } else { "larger" };
        s.push_str(&format!("; every secondary index {} bytes per entry {word}", d.abs()));
    }
    s.push(')');
    if let (Some(w), Some(cw)) = (ws_of(b), ws_of(0)) {
        s.push_str(&format!(
            ". Its inserts keep {} of buffer pool busy (the current key: {})",
            mib(w),
            mib(cw)
        ));
    }
    if let Some(w) = weighed {
        s.push_str(&w.sentence(runs, b));
    }
    s.push_str(". Trade-offs: ");
    let mut t = Vec::new();
    for r in runs.iter().skip(1) {
        let what = match r.strategy.as_str() {
            "auto-inc" => {
                "auto-inc is the densest, but the database assigns ids (known only \
                           after the insert, one counter per table, guessable)"
            }
            "uuid4" => {
                "uuid4 is made anywhere and reveals nothing, but scatters inserts over \
                        every leaf, so its working set is the whole index"
            }
            "uuid7" => {
                "uuid7 is made by the application and time-ordered (its creation time \
                        is readable from the id)"
            }
            "ulid" => "ulid is made by the application and time-ordered, like uuid7",
            "snowflake" => {
                "snowflake is 8 bytes and time-ordered, but every generator needs \
                            its own node id"
            }
            _ => continue,
        };
        if !t.contains(&what) {
            t.push(what);
        }
    }
    s.push_str(&t.join("; "));
    s.push('.');
    s
}
