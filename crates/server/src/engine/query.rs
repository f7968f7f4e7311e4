//! Timed queries over a loaded table: point lookups, primary-key ranges, the id-prefix
//! range (E1's `WHERE id LIKE '01J%'`) and a full scan.
//!
//! Each run is timed with a monotonic clock around sending the statement(s) and reading
//! every row back; choosing the keys to look up happens before, untimed, by one pass over
//! the primary key in order that keeps the keys at evenly spread positions, so the same
//! table gives the same keys. Keys travel back exactly as the server returned them (binary
//! protocol), whatever the column type. This module does not judge the timings.

use super::{sql_err, MariaDbEngine};
use crate::error::ServerError;
use crate::sql::{self, quote_ident};
use keylab_core::{QueryOutcome, QuerySpec};
use keylab_schema::Table;
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

impl MariaDbEngine {
    /// Runs `query` `runs` times on `table` and times each run.
    pub(super) fn run_query(
        &mut self,
        table: &Table,
        query: &QuerySpec,
        runs: u32,
    ) -> Result<QueryOutcome, ServerError> {
        let name = self.owned_name(table)?;
        let t = quote_ident(&name);
        let mut run_ms = Vec::with_capacity(runs as usize);
        let mut rows = 0u64;
        match query {
            QuerySpec::Point { count } => {
                let n = self.row_count(&t)?;
                let keys = self.keys_at(table, &spread_positions(n, u64::from(*count)))?;
                let stmt = self
                    .conn
                    .prep(format!(
                        "SELECT * FROM {t} WHERE {}",
                        sql::pk_equals_server_values(table)
                    ))
                    .map_err(|e| sql_err("preparing the point lookup failed", e))?;
                for _ in 0..runs {
                    let t0 = Instant::now();
                    let mut found = 0u64;
                    // `count` lookups, cycling through the keys when the table is smaller.
                    for key in
                        keys.iter().cycle().take(if keys.is_empty() { 0 } else { *count as usize })
                    {
                        let got: Vec<mysql::Row> = self
                            .conn
                            .exec(&stmt, key.clone())
                            .map_err(|e| sql_err("point lookup failed", e))?;
                        found += got.len() as u64;
                    }
                    run_ms.push(t0.elapsed().as_secs_f64() * 1e3);
                    rows = found;
                }
            }
            QuerySpec::PkRange { rows: len } => {
                let n = self.row_count(&t)?;
                let span = n.saturating_sub(u64::from(*len)) + 1;
                let starts = self.keys_at(table, &spread_positions(span, u64::from(runs)))?;
                let stmt = self
                    .conn
                    .prep(format!(
                        "SELECT * FROM {t} WHERE {} ORDER BY {} LIMIT {len}",
                        sql::pk_at_least(table),
                        sql::pk_columns(table)
                    ))
                    .map_err(|e| sql_err("preparing the range query failed", e))?;
                for start in
                    starts.iter().cycle().take(if starts.is_empty() { 0 } else { runs as usize })
                {
                    let t0 = Instant::now();
                    let got: Vec<mysql::Row> = self
                        .conn
                        .exec(&stmt, start.clone())
                        .map_err(|e| sql_err("range query failed", e))?;
                    run_ms.push(t0.elapsed().as_secs_f64() * 1e3);
                    rows = got.len() as u64;
                }
            }
            QuerySpec::IdPrefix { prefix } => {
                let id = quote_ident(&table.columns[id_column(table)].name);
                let stmt = self
                    .conn
                    .prep(format!("SELECT {id} FROM {t} WHERE {id} LIKE ? ESCAPE '!'"))
                    .map_err(|e| sql_err("preparing the prefix query failed", e))?;
                let pattern = sql::like_prefix_pattern(prefix);
                for _ in 0..runs {
                    let t0 = Instant::now();
                    let got: Vec<mysql::Row> = self
                        .conn
                        .exec(&stmt, (pattern.as_str(),))
                        .map_err(|e| sql_err("prefix query failed", e))?;
                    run_ms.push(t0.elapsed().as_secs_f64() * 1e3);
                    rows = got.len() as u64;
                }
            }
            QuerySpec::FullScan => {
                // The clustered index, as a scan of the table (COUNT(*) would otherwise pick
                // the smallest secondary index).
                let stmt = format!("SELECT COUNT(*) FROM {t} FORCE INDEX (PRIMARY)");
                for _ in 0..runs {
                    let t0 = Instant::now();
                    let count: Option<u64> =
                        self.conn.query_first(&stmt).map_err(|e| sql_err("full scan failed", e))?;
                    run_ms.push(t0.elapsed().as_secs_f64() * 1e3);
                    rows = count.unwrap_or(0);
                }
            }
        }
        Ok(QueryOutcome { run_ms, rows })
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
    fn the_id_column_by_placement() {
        let col = |n: &str| Column::new(n, ColumnType::BigInt { unsigned: false }, false);
        let mut t = Table {
            name: "t".into(),
            columns: vec![col("pk"), col("uid"), col("x")],
            primary_key: vec![0],
            auto_increment: true,
            indexes: vec![Index { name: "k_uid".into(), columns: vec![1], unique: false }],
            row_format: RowFormat::Dynamic,
        };
        assert_eq!(id_column(&t), 1);
        t.auto_increment = false;
        assert_eq!(id_column(&t), 0);
    }
}
