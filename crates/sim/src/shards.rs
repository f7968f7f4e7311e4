//! The simulator's sharded topology (`--engine sim --shards N`): N model tables, each row
//! routed to one by the rule the Spider head uses (range bounds at the quantiles of the keys
//! loaded, or MariaDB's `PARTITION BY KEY` hash, see `keylab_core::key_shard`), so that the
//! per-shard trees and the per-window shares of the hotspot curve are predictions of the
//! Spider run's. Each shard model receives its rows in stream order, as a backend does from
//! one head connection. Every figure is simulated; nothing is timed.
//!
//! This module does not model Spider's own costs (its connections, bulk-insert buffering), and
//! writes no SQL itself: how a bound is written is the caller's ([`SpiderShape`]).

use crate::innodb::SimEngine;
use keylab_core::{
    key_shard, range_bounds, range_shard, windows_of, Engine, EngineError, EngineInfo, LoadOutcome,
    LoadPlan, LoadVerification, Measurement, Row, ShardResult, ShardWindow, Sharding, ShardsResult,
};
use keylab_innodb_model::SimSettings;
use keylab_schema::{ColumnType, Table, Value};

/// What a sharded model's result takes from the Spider run it predicts, given by the caller
/// that drives the server: so the two results read the same.
#[derive(Debug, Clone, Copy)]
pub struct SpiderShape {
    /// Windows of the hotspot curve (the server engine's count).
    pub windows: u64,
    /// Appends a range bound as the server's SQL literal for a column of that type.
    pub write_literal: fn(&mut String, &Value, &ColumnType),
}

/// N simulator tables behind one routing rule.
pub struct ShardedSim {
    shards: Vec<SimEngine>,
    sharding: Sharding,
    /// The routing as a partitioning clause, and each shard's bound, for the result.
    routing: Option<(String, Vec<Option<String>>)>,
    windows: Vec<ShardWindow>,
    shape: SpiderShape,
}

impl ShardedSim {
    /// `shards` model tables with `settings`, their result shaped as the Spider run's.
    pub fn new(
        settings: SimSettings,
        autoinc_lock_mode: Option<u8>,
        shards: u32,
        sharding: Sharding,
        shape: SpiderShape,
    ) -> Self {
        let shards = (0..shards)
            .map(|_| SimEngine::new(settings).with_autoinc_lock_mode(autoinc_lock_mode))
            .collect();
        ShardedSim { shards, sharding, routing: None, windows: Vec::new(), shape }
    }

    /// The shard of every row, in stream order.
    fn route(&mut self, table: &Table, rows: &[Row]) -> Result<Vec<usize>, EngineError> {
        let n = self.shards.len();
        let col = table.primary_key[0];
        let ty = &table.columns[col].ty;
        // A server-assigned key: the head's counter hands out 1, 2, 3... in stream order.
        let key = |i: usize, r: &Row| {
            if table.auto_increment {
                Value::Int(i as i64 + 1)
            } else {
                r[col].clone()
            }
        };
        let name = &table.columns[col].name;
        let write_literal = self.shape.write_literal;
        match self.sharding {
            Sharding::Range => {
                let keys: Vec<Value> = if table.auto_increment {
                    vec![Value::Null; rows.len()]
                } else {
                    rows.iter().map(|r| r[col].clone()).collect()
                };
                let bounds = range_bounds(&keys, n);
                let mut texts: Vec<Option<String>> = bounds
                    .iter()
                    .map(|b| {
                        let mut s = String::new();
                        write_literal(&mut s, b, ty);
                        Some(s)
                    })
                    .collect();
                texts.push(None);
                self.routing = Some((
                    format!("RANGE COLUMNS(`{name}`) at the quantiles of the keys loaded"),
                    texts,
                ));
                Ok(rows.iter().enumerate().map(|(i, r)| range_shard(&key(i, r), &bounds)).collect())
            }
            Sharding::Hash => {
                self.routing = Some((
                    format!("KEY(`{name}`) PARTITIONS {n} (MariaDB's key hash)"),
                    vec![None; n],
                ));
                rows.iter()
                    .enumerate()
                    .map(|(i, r)| {
                        key_shard(&key(i, r), ty, n).ok_or_else(|| {
                            EngineError::Unsupported(format!(
                                "the simulator routes --sharding hash for integer, BINARY and \
                                 ASCII text keys in utf8mb4 (general_ci or bin); `{name}` is \
                                 {ty:?} with key {:?}, whose partition hash follows a \
                                 collation keylab does not model",
                                key(i, r)
                            ))
                        })
                    })
                    .collect()
            }
        }
    }
}

impl Engine for ShardedSim {
    fn info(&self) -> EngineInfo {
        let mut info = self.shards[0].info();
        info.settings.insert("shards".into(), self.shards.len().into());
        info.settings.insert("sharding".into(), self.sharding.token().into());
        info
    }

    fn create_table(&mut self, table: &Table) -> Result<(), EngineError> {
        self.routing = None;
        self.shards.iter_mut().try_for_each(|s| s.create_table(table))
    }

    fn load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        let all: Vec<Row> = rows.collect();
        let route = self.route(table, &all)?;
        let n = self.shards.len();
        // The windows as the server's are cut: by rows sent.
        let window = keylab_core::window_rows(all.len() as u64, self.shape.windows, plan.batch);
        self.windows = windows_of(route.iter().copied(), window, n);
        let mut per: Vec<Vec<Row>> = vec![Vec::new(); n];
        for (row, s) in all.into_iter().zip(&route) {
            per[*s].push(row);
        }
        let (mut loaded, mut expected, mut found) = (0, 0, Some(0u64));
        for (shard, rows) in self.shards.iter_mut().zip(per) {
            let out = shard.load(table, plan, &mut rows.into_iter(), on_rows)?;
            loaded += out.rows;
            if let Some(v) = out.verification {
                expected += v.rows_expected;
                found = found.zip(v.rows_found).map(|(a, b)| a + b);
            }
        }
        let verification = LoadVerification {
            rows_expected: expected,
            rows_found: found,
            checksum_equal: None,
            checked: "rows: the shard models' PRIMARY record counts, summed; no checksum".into(),
        };
        Ok(LoadOutcome { rows: loaded, verification: Some(verification), ..LoadOutcome::default() })
    }

    fn measure(&mut self, table: &Table) -> Result<Measurement, EngineError> {
        let (clause, bounds) = self.routing.clone().unwrap_or_default();
        let mut shards = Vec::new();
        for (k, s) in self.shards.iter_mut().enumerate() {
            let m = s.measure(table)?;
            let rows = self.windows.iter().map(|w| w.inserts[k]).sum();
            shards.push(ShardResult {
                shard: k as u32,
                bound: bounds.get(k).cloned().flatten(),
                rows: Some(rows),
                counters: m.counters,
                table: m.table,
                indexes: m.indexes,
            });
        }
        let windows = self.shape.windows;
        Ok(ShardsResult {
            sharding: self.sharding.token().into(),
            partitioning: clause,
            shards,
            windows: self.windows.clone(),
            windows_from: format!(
                "simulated: each row routed by the partitioning rule, counted in about {windows} \
                 windows of rows sent (whole statements each)"
            ),
            ..ShardsResult::default()
        }
        .into_measurement())
    }

    fn work(
        &mut self,
        _table: &Table,
        _ops: &mut dyn Iterator<Item = keylab_core::WorkOp>,
        _on_ops: &mut dyn FnMut(u64),
    ) -> Result<keylab_core::WorkOutcome, EngineError> {
        // A point read would go to its key's shard, but a secondary or time-range read goes
        // to every shard through the Spider head, whose own reads are not modelled.
        Err(EngineError::Unsupported(
            "reads on the sharded model: Spider's fan-out of secondary and range reads over \
             the shards is not modelled; run reads on one table (no --shards)"
                .into(),
        ))
    }

    fn drop_table(&mut self, table: &Table) -> Result<(), EngineError> {
        self.shards.iter_mut().try_for_each(|s| s.drop_table(table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, RowFormat};

    fn table() -> Table {
        Table {
            name: "t".into(),
            columns: vec![Column::new("id", ColumnType::BigInt { unsigned: false }, false)],
            primary_key: vec![0],
            auto_increment: false,
            indexes: Vec::new(),
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    fn shape() -> SpiderShape {
        fn literal(out: &mut String, v: &Value, _: &ColumnType) {
            out.push_str(&format!("{v:?}"));
        }
        SpiderShape { windows: 20, write_literal: literal }
    }

    #[test]
    fn every_row_goes_to_exactly_one_shard() {
        let t = table();
        let rows = || (0..5_000i64).map(|i| vec![Value::Int(i.wrapping_mul(7_919) % 100_003)]);
        for sharding in [Sharding::Range, Sharding::Hash] {
            let mut e = ShardedSim::new(SimSettings::default(), None, 3, sharding, shape());
            e.create_table(&t).unwrap();
            let out = e.load(&t, &LoadPlan::default(), &mut rows(), &mut |_| {}).unwrap();
            assert_eq!(out.rows, 5_000);
            let v = out.verification.unwrap();
            assert_eq!((v.rows_expected, v.rows_found), (5_000, Some(5_000)));
            let s = e.measure(&t).unwrap().shards.unwrap();
            let per: Vec<u64> = s.shards.iter().map(|k| k.rows.unwrap()).collect();
            assert_eq!(per.iter().sum::<u64>(), 5_000, "{}: {per:?}", sharding.token());
            assert!(per.iter().all(|&n| n > 0), "{}: {per:?}", sharding.token());
            // The model tables hold what was routed to them, each row once.
            let by_table: Vec<u64> =
                e.shards.iter_mut().map(|k| k.sim_table_mut().unwrap().primary_records()).collect();
            assert_eq!(by_table, per, "{}", sharding.token());
        }
    }
}
