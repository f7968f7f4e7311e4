//! The scenario's numbering of a server-assigned key on an engine whose `LOAD DATA` reserves
//! blocks of `AUTO_INCREMENT` values: the rows a load sends and the churn after it carry the
//! values the server gives them, gaps included.

use crate::plan::Scenario;
use keylab_core::{
    Engine, EngineError, EngineInfo, LoadOutcome, LoadPlan, Measurement, NoProgress, Op, Row,
};
use keylab_schema::{Table, Value};

/// An engine that keeps the keys it is given.
#[derive(Default)]
struct Keys {
    gaps: bool,
    loaded: Vec<i64>,
    inserted: Vec<i64>,
}

fn key(row: &Row) -> i64 {
    match row[0] {
        Value::Int(v) => v,
        ref other => panic!("an integer key, not {other:?}"),
    }
}

impl Engine for Keys {
    fn bulk_autoinc_gaps(&self) -> bool {
        self.gaps
    }
    fn info(&self) -> EngineInfo {
        EngineInfo {
            kind: "test".into(),
            version: "test".into(),
            model: None,
            settings: Default::default(),
        }
    }
    fn create_table(&mut self, _: &Table) -> Result<(), EngineError> {
        Ok(())
    }
    fn load(
        &mut self,
        _: &Table,
        _: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        _: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        let before = self.loaded.len();
        self.loaded.extend(rows.map(|r| key(&r)));
        Ok(LoadOutcome { rows: (self.loaded.len() - before) as u64, ..LoadOutcome::default() })
    }
    fn measure(&mut self, _: &Table) -> Result<Measurement, EngineError> {
        Ok(Measurement::default())
    }
    fn drop_table(&mut self, _: &Table) -> Result<(), EngineError> {
        Ok(())
    }
    fn apply(
        &mut self,
        _: &Table,
        ops: &mut dyn Iterator<Item = Op>,
        _: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        for op in ops {
            if let Op::Insert(row) = op {
                self.inserted.push(key(&row));
            }
        }
        Ok(())
    }
}

fn run(gaps: bool) -> Keys {
    let src = r#"name = "t"
variants = ["auto-inc"]
[[tables]]
name = "t"
id = { name = "id" }
[[phases]]
load = { rows = 2500, method = "load-data", batch = 1000 }
[[phases]]
churn = { rounds = 1, inserts = 3, deletes = 0 }
"#;
    let plan = &Scenario::parse(src, "t").unwrap().plan(1.0).unwrap()[0];
    let mut engine = Keys { gaps, ..Keys::default() };
    super::execute(&mut engine, plan, 1, &mut NoProgress).unwrap();
    engine
}

#[test]
fn load_data_keys_skip_the_unused_end_of_each_statements_blocks() {
    let e = run(true);
    // 1,000 rows take 1 + 2 + ... + 512 = 1,023 values; the last 500 take 511.
    let expected: Vec<i64> = (1..=1000).chain(1024..=2023).chain(2047..=2546).collect();
    assert_eq!(e.loaded, expected);
    assert_eq!(e.inserted, vec![2558, 2559, 2560], "churn continues after the last block");
    let plain = run(false);
    assert_eq!(plain.loaded, (1..=2500).collect::<Vec<i64>>());
    assert_eq!(plain.inserted, vec![2501, 2502, 2503]);
}
