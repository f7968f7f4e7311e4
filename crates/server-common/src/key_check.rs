//! The verdict of a load check on a server-assigned key (MariaDB's `AUTO_INCREMENT`,
//! PostgreSQL's identity sequence): the rows from the first value the load got on must be as
//! many, with the same checksum, as the values the server's rule hands out.
//!
//! Each engine reads its counter, sums its own checksum in SQL and knows its rule; this only
//! compares the two sides and words the failure, so both engines say it the same way.

use crate::ServerError;

/// Rows and checksum over the key values from the first one the load got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyTally {
    /// Rows holding a value from the first one on.
    pub rows: u64,
    /// The engine's checksum of those values.
    pub checksum: u128,
}

/// What was checked: `key` (e.g. "the identity key `id`") of `table`, whose values start at
/// `first` and follow `rule` (e.g. "as its sequence hands them out").
#[derive(Debug, Clone, Copy)]
pub struct KeyCheckSubject<'a> {
    /// The table's name.
    pub table: &'a str,
    /// The key, worded for its server.
    pub key: &'a str,
    /// The first value the load's rows got.
    pub first: i128,
    /// How the server hands the values out.
    pub rule: &'a str,
}

/// Fails the load when `found` is not `expected`, naming both.
pub fn verdict(
    subject: KeyCheckSubject<'_>,
    found: KeyTally,
    expected: KeyTally,
) -> Result<(), ServerError> {
    if found == expected {
        return Ok(());
    }
    let KeyCheckSubject { table, key, first, rule } = subject;
    Err(ServerError::Sql(format!(
        "load check failed on `{table}`: {key} from {first} on holds {} values (checksum \
         {:#x}), keylab expected {} (checksum {:#x}) {rule}; values were lost, doubled or \
         numbered otherwise",
        found.rows, found.checksum, expected.rows, expected.checksum
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_tallies_pass_and_others_name_both_sides() {
        let s = KeyCheckSubject { table: "t", key: "the key `id`", first: 5, rule: "in a row" };
        let t = KeyTally { rows: 2, checksum: 0x10 };
        assert!(verdict(s, t, t).is_ok());
        let e = verdict(s, KeyTally { rows: 1, checksum: 0x7 }, t).unwrap_err().to_string();
        assert!(e.contains("`t`: the key `id` from 5 on holds 1 values (checksum 0x7)"), "{e}");
        assert!(e.contains("expected 2 (checksum 0x10) in a row"), "{e}");
    }
}
