//! The phases after a load on PostgreSQL: churn (inserts and deletes by primary key in
//! transactions of a thousand operations, then `VACUUM`, which is when emptied nbtree pages
//! are deleted and later become recyclable: `_bt_pagedel` runs from `btvacuumscan`), and
//! rebuilds (`REINDEX` after setting each index's `fillfactor`: a sorted build fills leaves
//! to the fillfactor, `_bt_buildadd`). InnoDB's `innodb_fill_factor` becomes the index
//! `fillfactor`; PostgreSQL has no change buffer and no online-DDL algorithms.

use crate::engine::{sql_err, PgEngine};
use crate::metrics::index_names;
use crate::sql::{self, qualified, quote_ident};
use keylab_core::{EngineError, Op};
use keylab_schema::{Table, Value};

/// Operations per transaction, as the MariaDB engine commits its churn.
const OPS_PER_TRANSACTION: usize = 1000;

/// `(pk) IN ((...), ...)` for the keys of `deletes`.
fn key_list(table: &Table, deletes: &[Vec<Value>]) -> String {
    let cols: Vec<usize> = table.primary_key.clone();
    let names: Vec<String> = cols.iter().map(|&c| quote_ident(&table.columns[c].name)).collect();
    let tuples: Vec<String> = deletes
        .iter()
        .map(|key| {
            let mut s = String::new();
            // The key arrives in key column order; render it against a table of those columns.
            let key_table = Table {
                columns: cols.iter().map(|&c| table.columns[c].clone()).collect(),
                primary_key: vec![],
                auto_increment: false,
                indexes: vec![],
                ..table.clone()
            };
            let idx: Vec<usize> = (0..cols.len()).collect();
            sql::write_values_tuple(&mut s, &key_table, &idx, key);
            s
        })
        .collect();
    format!("({}) IN ({})", names.join(", "), tuples.join(", "))
}

/// Churn: the operations in order, committed every `OPS_PER_TRANSACTION`, then `VACUUM`.
pub fn apply(
    engine: &mut PgEngine,
    table: &Table,
    ops: &mut dyn Iterator<Item = Op>,
    on_ops: &mut dyn FnMut(u64),
) -> Result<(), EngineError> {
    let schema = engine.schema().to_string();
    let t = qualified(&schema, &sql::table_name(table));
    let client = engine.client();
    let mut pending: Vec<Op> = Vec::with_capacity(OPS_PER_TRANSACTION);
    let mut flush =
        |client: &mut postgres::Client, pending: &mut Vec<Op>| -> Result<(), EngineError> {
            let mut tx = client.transaction().map_err(|e| sql_err("BEGIN failed", e))?;
            let mut i = 0;
            while i < pending.len() {
                // Consecutive operations of one kind go as one statement, in order.
                let insert = matches!(pending[i], Op::Insert(_));
                let j = (i..pending.len())
                    .find(|&k| matches!(pending[k], Op::Insert(_)) != insert)
                    .unwrap_or(pending.len());
                if insert {
                    let rows: Vec<Vec<Value>> = pending[i..j]
                        .iter()
                        .filter_map(|o| if let Op::Insert(r) = o { Some(r.clone()) } else { None })
                        .collect();
                    tx.batch_execute(&sql::multi_insert_sql(table, &schema, &rows))
                        .map_err(|e| sql_err("INSERT failed", e))?;
                } else {
                    let keys: Vec<Vec<Value>> = pending[i..j]
                        .iter()
                        .filter_map(|o| if let Op::Delete(k) = o { Some(k.clone()) } else { None })
                        .collect();
                    tx.batch_execute(&format!("DELETE FROM {t} WHERE {}", key_list(table, &keys)))
                        .map_err(|e| sql_err("DELETE failed", e))?;
                }
                i = j;
            }
            tx.commit().map_err(|e| sql_err("COMMIT failed", e))?;
            let n = pending.len() as u64;
            pending.clear();
            on_ops(n);
            Ok(())
        };
    for op in ops {
        pending.push(op);
        if pending.len() >= OPS_PER_TRANSACTION {
            flush(client, &mut pending)?;
        }
    }
    if !pending.is_empty() {
        flush(client, &mut pending)?;
    }
    // The deletes are "purged" as on InnoDB: VACUUM removes the dead tuples and deletes
    // the index pages left empty.
    client.batch_execute(&format!("VACUUM {t}")).map_err(|e| sql_err("VACUUM failed", e).into())
}

/// Rebuild: every index's `fillfactor` set to `fill_factor_pct`, then `REINDEX TABLE`.
pub fn rebuild(
    engine: &mut PgEngine,
    table: &Table,
    fill_factor_pct: u8,
) -> Result<(), EngineError> {
    if !(10..=100).contains(&fill_factor_pct) {
        return Err(EngineError::Rejected(format!(
            "index fillfactor {fill_factor_pct} is out of range; valid: 10 to 100"
        )));
    }
    let schema = engine.schema().to_string();
    let indexes = index_names(engine.client(), &schema, &sql::table_name(table));
    let client = engine.client();
    for ix in indexes {
        client
            .batch_execute(&format!(
                "ALTER INDEX {} SET (fillfactor = {fill_factor_pct})",
                qualified(&schema, &ix)
            ))
            .map_err(|e| sql_err("ALTER INDEX failed", e))?;
    }
    client
        .batch_execute(&format!("REINDEX TABLE {}", qualified(&schema, &sql::table_name(table))))
        .map_err(|e| sql_err("REINDEX failed", e).into())
}
