//! The load check of an identity key: its sequence (`CACHE 1`, one `nextval` per row, none
//! lost without a rollback) hands a load's rows the consecutive values from the one it would
//! give next before the load, whatever the writers' order. The server's `count(*)` and sum of
//! the first 32 bits of `md5(key::text)` over the rows from that value on must equal the sum
//! over those values, so a lost, doubled or renumbered value fails the load.
//!
//! It does not check a key whose sequence cannot be read or steps by other than 1 (the key
//! is then counted only).

use super::{sql_err, PgEngine};
use crate::sql::{qualified, quote_ident, table_name};
use keylab_schema::Table;
use keylab_server_common::key_check::{self, KeyCheckSubject, KeyTally};
use keylab_server_common::ServerError;
use md5::{Digest, Md5};

/// What the check needs from before the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct KeyCheck {
    column: usize,
    /// The value the sequence gives next.
    first: i64,
}

/// The first 32 bits of the MD5 of `v`'s text, as the server's check sums them.
fn key_hash(v: i64) -> u128 {
    let d = Md5::digest(v.to_string().as_bytes());
    u128::from(u32::from_be_bytes([d[0], d[1], d[2], d[3]]))
}

impl KeyCheck {
    fn expected_sum(&self, rows: u64) -> u128 {
        (0..rows as i64).map(|i| key_hash(self.first + i)).sum()
    }
}

impl PgEngine {
    /// The check of `table`'s identity key, read before a load; `None` without one.
    pub(super) fn key_check_before(
        &mut self,
        table: &Table,
    ) -> Result<Option<KeyCheck>, ServerError> {
        let [column] = table.primary_key[..] else { return Ok(None) };
        if !table.auto_increment {
            return Ok(None);
        }
        let t = qualified(&self.schema, &table_name(table));
        let col = &table.columns[column].name;
        let q = "SELECT s.seqincrement, pg_sequence_last_value(c.oid), s.seqstart \
                 FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid \
                 WHERE c.oid = pg_get_serial_sequence($1, $2)::regclass";
        let row = self
            .client
            .query_opt(q, &[&t, &col])
            .map_err(|e| sql_err("reading the identity sequence failed", e))?;
        let Some(row) = row else { return Ok(None) };
        let (step, last, start): (i64, Option<i64>, i64) = (row.get(0), row.get(1), row.get(2));
        if step != 1 {
            return Ok(None);
        }
        // `pg_sequence_last_value` is null until the first nextval.
        let first = last.map_or(start, |l| l + 1);
        Ok(Some(KeyCheck { column, first }))
    }

    /// Fails the load unless the rows from the first value on are `rows` rows holding the
    /// consecutive values.
    pub(super) fn key_check_after(
        &mut self,
        table: &Table,
        check: &KeyCheck,
        rows: u64,
    ) -> Result<(), ServerError> {
        let key = quote_ident(&table.columns[check.column].name);
        let q = format!(
            "SELECT count(*), COALESCE(SUM(('x' || substr(md5({key}::text), 1, 8))::bit(32)\
             ::bigint), 0)::text FROM {} WHERE {key} >= $1::bigint",
            qualified(&self.schema, &table_name(table))
        );
        let row = self
            .client
            .query_one(&q, &[&check.first])
            .map_err(|e| sql_err("checking the loaded keys failed", e))?;
        let (n, sum): (i64, String) = (row.get(0), row.get(1));
        let found = KeyTally { rows: n as u64, checksum: sum.parse::<u128>().unwrap_or(0) };
        let expected = KeyTally { rows, checksum: check.expected_sum(rows) };
        let key = format!("the identity key `{}`", table.columns[check.column].name);
        let subject = KeyCheckSubject {
            table: &table.name,
            key: &key,
            first: i128::from(check.first),
            rule: "consecutive values, as its sequence hands them out",
        };
        key_check::verdict(subject, found, expected)
    }
}

/// How the load check describes the identity key: checked, or counted only.
pub(super) fn key_check_text(table: &Table, check: Option<&KeyCheck>) -> String {
    let Some(&c) = table.primary_key.first().filter(|_| table.auto_increment) else {
        return String::new();
    };
    let name = &table.columns[c].name;
    match check {
        Some(k) => format!(
            "; the identity key `{name}`: count(*) and the same sum of md5(`{name}`) of the rows \
             from {} on, against the consecutive values its sequence hands out",
            k.first
        ),
        None => format!("; the identity key `{name}` is counted, not checksummed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_sum_covers_consecutive_values() {
        let k = KeyCheck { column: 0, first: 7 };
        assert_eq!(k.expected_sum(2), key_hash(7) + key_hash(8));
        assert_eq!(k.expected_sum(0), 0);
        // md5("1") = c4ca4238...
        assert_eq!(key_hash(1), 0xc4ca_4238);
    }
}
