//! The load check of a server-assigned `AUTO_INCREMENT` key: the values a load's rows got
//! are the ones the server's rule hands out from the counter it had before the load
//! (consecutive, or, for `LOAD DATA` under `innodb_autoinc_lock_mode` 1 or 2, in reserved
//! blocks whose unused end is lost: [`keylab_core::bulk_autoinc_reserved`]). The server's
//! `COUNT(*)` and `SUM(CRC32(key))` over the rows from that counter on must equal the sum over
//! those values, so a lost, doubled or renumbered value fails the load.
//!
//! Not checked (the key is then counted only): several writers' `LOAD DATA` statements under
//! a reserving lock mode (which statement reserves first is the server's timing), a server
//! whose `auto_increment_increment` is not 1, a table not in InnoDB (a Spider head).

use super::{sql_err, MariaDbEngine};
use crate::sql::quote_ident;
use keylab_core::{bulk_autoinc_reserved, LoadMethod, LoadPlan};
use keylab_schema::Table;
use keylab_server_common::key_check::{self, KeyCheckSubject, KeyTally};
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;

/// What the check needs from before the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct KeyCheck {
    /// The key column.
    column: usize,
    /// The table's counter before the load: the first value the load's rows get.
    first: u64,
    /// `Some(batch)`: each `LOAD DATA` statement of `batch` rows reserves blocks and loses
    /// the rest of its last one.
    bulk_batch: Option<u64>,
}

impl KeyCheck {
    /// The values `rows` rows get, in order.
    fn values(&self, rows: u64) -> impl Iterator<Item = u64> {
        let (first, batch) = (self.first, self.bulk_batch);
        let mut next = first;
        let mut in_statement = 0u64;
        let mut left = rows;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            let v = next;
            left -= 1;
            next += 1;
            in_statement += 1;
            if let Some(b) = batch {
                if in_statement == b || left == 0 {
                    // The counter moves past the unused end of the last reserved block.
                    next = next - in_statement + bulk_autoinc_reserved(in_statement);
                    in_statement = 0;
                }
            }
            Some(v)
        })
    }

    /// `SUM(CRC32(value))` over the values `rows` rows get, as the server sums the text.
    fn expected_sum(&self, rows: u64) -> u64 {
        self.values(rows).map(|v| u64::from(crc32fast::hash(v.to_string().as_bytes()))).sum()
    }
}

impl MariaDbEngine {
    /// The check of `table`'s server-assigned key for a load under `plan`, read before the
    /// load; `None` when there is no such key or it cannot be checked (see the module docs).
    pub(super) fn key_check_before(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
    ) -> Result<Option<KeyCheck>, ServerError> {
        let [column] = table.primary_key[..] else { return Ok(None) };
        if !table.auto_increment {
            return Ok(None);
        }
        let gaps =
            plan.method == LoadMethod::LoadData && keylab_core::Engine::bulk_autoinc_gaps(&*self);
        if gaps && plan.writers > 1 {
            return Ok(None);
        }
        let row: Option<(Option<String>, Option<u64>, u64)> = self
            .conn
            .exec_first(
                "SELECT ENGINE, AUTO_INCREMENT, @@auto_increment_increment \
                 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
                (&self.database, &table.name),
            )
            .map_err(|e| sql_err("reading the AUTO_INCREMENT counter failed", e))?;
        let Some((Some(engine), Some(first), 1)) = row else { return Ok(None) };
        if !engine.eq_ignore_ascii_case("InnoDB") {
            return Ok(None);
        }
        let bulk_batch = gaps.then_some(u64::from(plan.batch.max(1)));
        Ok(Some(KeyCheck { column, first, bulk_batch }))
    }

    /// Fails the load unless the rows from the counter on are `rows` rows holding the values
    /// [`KeyCheck`] expects.
    pub(super) fn key_check_after(
        &mut self,
        table: &Table,
        check: &KeyCheck,
        rows: u64,
    ) -> Result<(), ServerError> {
        let key = quote_ident(&table.columns[check.column].name);
        let found: Option<(u64, u64)> = self
            .conn
            .exec_first(
                format!(
                    "SELECT COUNT(*), CAST(COALESCE(SUM(CRC32({key})), 0) AS UNSIGNED) FROM {} \
                     WHERE {key} >= ?",
                    quote_ident(&table.name)
                ),
                (check.first,),
            )
            .map_err(|e| sql_err("checking the loaded keys failed", e))?;
        let (n, sum) = found.unwrap_or_default();
        let found = KeyTally { rows: n, checksum: u128::from(sum) };
        let expected = KeyTally { rows, checksum: u128::from(check.expected_sum(rows)) };
        let key = format!("the server-assigned key `{}`", table.columns[check.column].name);
        let subject = KeyCheckSubject {
            table: &table.name,
            key: &key,
            first: i128::from(check.first),
            rule: "as the server's AUTO_INCREMENT rule hands them out",
        };
        key_check::verdict(subject, found, expected)
    }
}

/// How the load check describes the key: checked, or counted only.
pub(super) fn key_check_text(table: &Table, check: Option<&KeyCheck>) -> String {
    let Some(&c) = table.primary_key.first().filter(|_| table.auto_increment) else {
        return String::new();
    };
    let name = &table.columns[c].name;
    match check {
        Some(k) => format!(
            "; the server-assigned key `{name}`: COUNT(*) and SUM(CRC32(`{name}`)) of the rows \
             from {} on, against the values the server's AUTO_INCREMENT rule hands out{}",
            k.first,
            if k.bulk_batch.is_some() {
                " (LOAD DATA: reserved blocks of 1, 2, 4, ... values per statement, the unused \
                 end of the last one skipped)"
            } else {
                " (consecutive)"
            }
        ),
        None => format!(
            "; the server-assigned key `{name}` is counted, not checksummed (which values it \
             got depends on the server's timing or settings here)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_the_reservation_rule() {
        let plain = KeyCheck { column: 0, first: 5, bulk_batch: None };
        assert_eq!(plain.values(4).collect::<Vec<_>>(), vec![5, 6, 7, 8]);
        // Statements of 3 rows reserve 1 + 2 = 3 values (none lost); of 4 rows, 1 + 2 + 4.
        let bulk = KeyCheck { column: 0, first: 1, bulk_batch: Some(4) };
        assert_eq!(bulk.values(10).collect::<Vec<_>>(), vec![1, 2, 3, 4, 8, 9, 10, 11, 15, 16]);
        // The run: 50 statements of 1,000 rows leave row 50,001 at 51,151.
        let e = KeyCheck { column: 0, first: 1, bulk_batch: Some(1000) };
        assert_eq!(e.values(50_001).last(), Some(51_151));
        assert_eq!(
            plain.expected_sum(2),
            u64::from(crc32fast::hash(b"5")) + u64::from(crc32fast::hash(b"6"))
        );
    }
}
