//! Timed queries over a loaded table: point lookups, primary-key ranges, the id-prefix
//! range (E1's `WHERE id LIKE '01J%'`, with a fixed prefix or one chosen to select a share
//! of the rows) and a full scan.
//!
//! Each run is timed with a monotonic clock around sending the statement(s) and reading
//! every row back, and on the server from performance_schema where it is on (see
//! [`super::stmt_time`]); the plan is `EXPLAIN`'s, taken before the runs. Choosing the keys
//! to look up happens before, untimed, by one pass over the primary key in order that keeps
//! the keys at evenly spread positions, so the same table gives the same keys. Keys travel
//! back exactly as the server returned them (binary protocol), whatever the column type.
//! This module does not judge the timings.

use super::stmt_time;
use super::{sql_err, MariaDbEngine};
use crate::sql::{self, quote_ident};
use keylab_core::{QueryOutcome, QuerySpec};
use keylab_schema::{ColumnType, Table};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use std::time::Instant;

/// The column holding the generated id: the single column of the first secondary index
/// when the primary key is an `AUTO_INCREMENT` surrogate (secondary placement), otherwise
/// the first primary key column (pk placement). The table model has no marker for it; this
/// follows how keylab's workloads and scenarios build their tables.
pub fn id_column(table: &Table) -> usize {
    if table.auto_increment {
        if let Some(ix) = table.indexes.iter().find(|i| i.columns.len() == 1) {
            return ix.columns[0];
        }
    }
    table.primary_key[0]
}

/// `count` positions spread evenly over `0..span` (each at most once when `count > span`).
pub fn spread_positions(span: u64, count: u64) -> Vec<u64> {
    let count = count.min(span);
    (0..count).map(|i| (i as u128 * span as u128 / count as u128) as u64).collect()
}

type Key = Vec<mysql::Value>;

/// The prefix of the lowest id whose matches come nearest `share` of `ids` (the longer
/// prefix on a tie, a narrower range). For time-ordered ids this is the earliest stretch of
/// the load; for random ids each character narrows the match about 16- or 32-fold, so the
/// share selected is whatever comes nearest, reported beside the rows returned.
pub fn prefix_for_share(ids: &[Vec<u8>], share: f64) -> &[u8] {
    let Some(first) = ids.iter().min() else { return &[] };
    // matches[len] = ids starting with first[..len]; non-increasing in len.
    let mut at_least = vec![0u64; first.len() + 2];
    for id in ids {
        let common = first.iter().zip(id).take_while(|(a, b)| a == b).count();
        at_least[common] += 1;
    }
    let mut matches = vec![0u64; first.len() + 1];
    let mut running = 0u64;
    for len in (0..=first.len()).rev() {
        running += at_least[len];
        matches[len] = running;
    }
    let want = share * ids.len() as f64;
    let best = (0..=first.len())
        .rev()
        .min_by(|&a, &b| {
            (matches[a] as f64 - want).abs().total_cmp(&(matches[b] as f64 - want).abs())
        })
        .unwrap_or(0);
    &first[..best]
}

/// How an `id_share` query selects its rows.
#[derive(Debug, PartialEq, Eq)]
pub enum ShareCondition<'a> {
    /// `LIKE 'prefix%'`, as E1's author wrote it, when a prefix selects the share to 5%.
    Prefix(&'a [u8]),
    /// `BETWEEN lo AND hi`: the lowest ids, exactly the share (a prefix's granularity, 16
    /// or 32 values per character, cannot hit it).
    Between(&'a [u8], &'a [u8]),
}

/// The condition selecting `share` of `ids` (sorted as the server sorts them): a prefix when
/// one comes within 5% of the wanted count, else the range of the lowest ids.
pub fn share_condition(ids: &[Vec<u8>], share: f64) -> ShareCondition<'_> {
    let want = ((share * ids.len() as f64).round() as usize).clamp(1, ids.len().max(1));
    let prefix = prefix_for_share(ids, share);
    let got = ids.iter().filter(|id| id.starts_with(prefix)).count();
    if ids.is_empty() || (got as f64 - want as f64).abs() <= 0.05 * want as f64 {
        return ShareCondition::Prefix(prefix);
    }
    ShareCondition::Between(&ids[0], &ids[want - 1])
}

/// `LIKE` pattern bytes matching `prefix` literally (escape `!`), then anything.
fn like_pattern_bytes(prefix: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(prefix.len() + 1);
    for &b in prefix {
        if matches!(b, b'!' | b'%' | b'_') {
            p.push(b'!');
        }
        p.push(b);
    }
    p.push(b'%');
    p
}

impl MariaDbEngine {
    /// Runs `query` `runs` times on `table`, timing each run on the client and, where
    /// performance_schema allows, on the server; the plan comes from `EXPLAIN` first.
    pub(super) fn run_query(
        &mut self,
        table: &Table,
        query: &QuerySpec,
        runs: u32,
    ) -> Result<QueryOutcome, ServerError> {
        let name = self.owned_name(table)?;
        let t = quote_ident(&name);
        let mut out = QueryOutcome::default();
        // Per run: the statement(s) and their parameters.
        let (sql, run_params): (String, Vec<Vec<Key>>) = match query {
            QuerySpec::Point { count } => {
                let n = self.row_count(&t)?;
                out.table_rows = Some(n);
                let keys = self.keys_at(table, &spread_positions(n, u64::from(*count)))?;
                // `count` lookups, cycling through the keys when the table is smaller.
                let per_run: Vec<Key> = keys
                    .iter()
                    .cycle()
                    .take(if keys.is_empty() { 0 } else { *count as usize })
                    .cloned()
                    .collect();
                let sql = format!("SELECT * FROM {t} WHERE {}", sql::pk_equals_params(table));
                (sql, (0..runs).map(|_| per_run.clone()).collect())
            }
            QuerySpec::PkRange { rows: len } => {
                let n = self.row_count(&t)?;
                out.table_rows = Some(n);
                let span = n.saturating_sub(u64::from(*len)) + 1;
                let starts = self.keys_at(table, &spread_positions(span, u64::from(runs)))?;
                let sql = format!(
                    "SELECT * FROM {t} WHERE {} ORDER BY {} LIMIT {len}",
                    sql::pk_at_least(table),
                    sql::pk_columns(table)
                );
                let take = if starts.is_empty() { 0 } else { runs as usize };
                (sql, starts.iter().cycle().take(take).map(|k| vec![k.clone()]).collect())
            }
            QuerySpec::IdPrefix { prefix } => {
                let id = quote_ident(&table.columns[id_column(table)].name);
                out.table_rows = Some(self.row_count(&t)?);
                let pattern = mysql::Value::from(sql::like_prefix_pattern(prefix));
                let sql = format!("SELECT {id} FROM {t} WHERE {id} LIKE ? ESCAPE '!'");
                (sql, (0..runs).map(|_| vec![vec![pattern.clone()]]).collect())
            }
            QuerySpec::IdShare { share } => {
                let col = &table.columns[id_column(table)];
                let id = quote_ident(&col.name);
                let ids = self.ids_in_order(&t, &id)?;
                out.table_rows = Some(ids.len() as u64);
                let binary = matches!(col.ty, ColumnType::Binary { .. });
                let show = |b: &[u8]| {
                    if binary {
                        format!("0x{}", b.iter().map(|x| format!("{x:02x}")).collect::<String>())
                    } else {
                        format!("'{}'", String::from_utf8_lossy(b))
                    }
                };
                let (sql, params, condition) = match share_condition(&ids, *share) {
                    ShareCondition::Prefix(p) => (
                        format!("SELECT {id} FROM {t} WHERE {id} LIKE ? ESCAPE '!'"),
                        vec![mysql::Value::Bytes(like_pattern_bytes(p))],
                        format!("LIKE {}", show(&[p, b"%"].concat())),
                    ),
                    ShareCondition::Between(lo, hi) => (
                        format!("SELECT {id} FROM {t} WHERE {id} BETWEEN ? AND ?"),
                        vec![mysql::Value::Bytes(lo.to_vec()), mysql::Value::Bytes(hi.to_vec())],
                        format!("BETWEEN {} AND {}", show(lo), show(hi)),
                    ),
                };
                out.condition = Some(condition);
                (sql, (0..runs).map(|_| vec![params.clone()]).collect())
            }
            QuerySpec::FullScan => {
                // Every row read back through the clustered index, as an application's
                // "find all" does (COUNT(*) would scan the smallest secondary index and send
                // one row).
                let sql = format!("SELECT * FROM {t} FORCE INDEX (PRIMARY)");
                (sql, (0..runs).map(|_| vec![vec![]]).collect())
            }
        };
        let stmt = self.conn.prep(&sql).map_err(|e| sql_err("preparing the query failed", e))?;
        if let Some(first) = run_params.first().and_then(|p| p.first()) {
            out.plan = Some(stmt_time::explain(&mut self.conn, &sql, first.clone())?);
        }
        let mut clock = match stmt_time::StatementClock::start(&mut self.conn) {
            Ok(c) => Some(c),
            Err(why) => {
                out.notes.push(why);
                None
            }
        };
        let mut server_ms = Vec::with_capacity(runs as usize);
        for params in &run_params {
            let t0 = Instant::now();
            let mut rows = 0u64;
            for p in params {
                // Rows are read one at a time (a full scan's would not all fit in memory).
                let result = self
                    .conn
                    .exec_iter(&stmt, p.clone())
                    .map_err(|e| sql_err("the timed query failed", e))?;
                for row in result {
                    row.map_err(|e| sql_err("the timed query failed", e))?;
                    rows += 1;
                }
            }
            out.run_ms.push(t0.elapsed().as_secs_f64() * 1e3);
            out.rows = rows;
            if let Some(c) = clock.as_mut() {
                let (ms, statements) = c.read(&mut self.conn)?;
                if statements == params.len() as u64 {
                    server_ms.push(ms);
                } else {
                    // The history dropped some (too small for the run): no figure, not a guess.
                    out.notes.push(format!(
                        "performance_schema's statement history held {statements} of a run's {} \
                         statements, so no server-side times",
                        params.len()
                    ));
                    clock = None;
                }
            }
        }
        if clock.is_some() {
            out.server_ms = Some(server_ms);
        }
        Ok(out)
    }

    /// Every id in index order, as the server sends them (text protocol: bytes).
    fn ids_in_order(
        &mut self,
        quoted_table: &str,
        quoted_id: &str,
    ) -> Result<Vec<Vec<u8>>, ServerError> {
        let rows: Vec<Option<Vec<u8>>> = self
            .conn
            .query(format!("SELECT {quoted_id} FROM {quoted_table} ORDER BY {quoted_id}"))
            .map_err(|e| sql_err("reading the ids failed", e))?;
        Ok(rows.into_iter().map(Option::unwrap_or_default).collect())
    }

    fn row_count(&mut self, quoted_table: &str) -> Result<u64, ServerError> {
        let n: Option<u64> = self
            .conn
            .query_first(format!("SELECT COUNT(*) FROM {quoted_table}"))
            .map_err(|e| sql_err("counting rows failed", e))?;
        Ok(n.unwrap_or(0))
    }

    /// The primary keys at the given positions (ascending) in primary-key order, read in
    /// one pass over the clustered index.
    fn keys_at(&mut self, table: &Table, positions: &[u64]) -> Result<Vec<Key>, ServerError> {
        let pk = sql::pk_columns(table);
        let stmt = format!("SELECT {pk} FROM {} ORDER BY {pk}", quote_ident(&table.name));
        let mut keys = Vec::with_capacity(positions.len());
        let mut want = positions.iter().peekable();
        if want.peek().is_none() {
            return Ok(keys);
        }
        // Prepared, so the values come back typed (integers as integers, dates as dates).
        let mut result =
            self.conn.exec_iter(stmt, ()).map_err(|e| sql_err("reading the keys failed", e))?;
        for (i, row) in result.by_ref().enumerate() {
            let row = row.map_err(|e| sql_err("reading the keys failed", e))?;
            if want.peek() == Some(&&(i as u64)) {
                keys.push(row.unwrap());
                want.next();
                if want.peek().is_none() {
                    break;
                }
            }
        }
        // Read what is left of the result so the connection is ready for the next statement.
        drop(result);
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, Index, RowFormat};

    #[test]
    fn positions_spread_over_the_table() {
        assert_eq!(spread_positions(10, 5), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread_positions(3, 5), vec![0, 1, 2]);
        assert_eq!(spread_positions(0, 5), Vec::<u64>::new());
        assert_eq!(spread_positions(1, 1), vec![0]);
    }

    #[test]
    fn the_prefix_selects_the_nearest_share() {
        let ids: Vec<Vec<u8>> = ["01JA1", "01JA2", "01JB1", "01JB2", "01K00"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        assert_eq!(prefix_for_share(&ids, 1.0), b"01");
        assert_eq!(prefix_for_share(&ids, 0.8), b"01J");
        assert_eq!(prefix_for_share(&ids, 0.4), b"01JA");
        assert_eq!(prefix_for_share(&ids, 0.2), b"01JA1");
        // All ids share a time prefix: the longest one that still selects them all.
        let same: Vec<Vec<u8>> = ["01JA1", "01JA2"].iter().map(|s| s.as_bytes().to_vec()).collect();
        assert_eq!(prefix_for_share(&same, 1.0), b"01JA");
        assert_eq!(prefix_for_share(&[], 0.5), b"");
        // A prefix that misses the share by more than 5% gives way to the exact range.
        assert_eq!(share_condition(&ids, 0.8), ShareCondition::Prefix(b"01J"));
        assert_eq!(share_condition(&ids, 0.6), ShareCondition::Between(b"01JA1", b"01JB1"));
        assert_eq!(like_pattern_bytes(b"a_%!"), b"a!_!%!!%".to_vec());
    }

    #[test]
    fn the_id_column_by_placement() {
        let col = |n: &str| Column::new(n, ColumnType::BigInt { unsigned: false }, false);
        let mut t = Table {
            name: "t".into(),
            columns: vec![col("pk"), col("uid"), col("x")],
            primary_key: vec![0],
            auto_increment: true,
            indexes: vec![Index::new("k_uid", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        };
        assert_eq!(id_column(&t), 1);
        t.auto_increment = false;
        assert_eq!(id_column(&t), 0);
    }
}
