//! The reads and mixed phases of a scenario run on a test engine: reads name rows the load
//! inserted, a kind the table cannot serve and an engine that cannot read give
//! `not_applicable` with a reason (never a figure), a mixed phase inserts the rows that follow
//! the load's; and the TOML's errors point at the value.

use crate::plan::{PhasePlan, Scenario};
use keylab_core::{
    Engine, EngineError, EngineInfo, LoadOutcome, LoadPlan, Measurement, NoProgress, PhaseResult,
    PhaseStatus, ReadOp, Row, WorkOp, WorkOutcome,
};
use keylab_schema::{Table, Value};

/// An engine that keeps the keys loaded and answers reads by counting them.
#[derive(Default)]
struct Reader {
    reads_work: bool,
    loaded: Vec<Value>,
    read: Vec<Value>,
    inserted: Vec<Value>,
}

impl Engine for Reader {
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
        t: &Table,
        _: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        _: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, EngineError> {
        let pk = t.primary_key[0];
        let before = self.loaded.len();
        self.loaded.extend(rows.map(|r| r[pk].clone()));
        Ok(LoadOutcome { rows: (self.loaded.len() - before) as u64, ..LoadOutcome::default() })
    }
    fn measure(&mut self, _: &Table) -> Result<Measurement, EngineError> {
        Ok(Measurement::default())
    }
    fn drop_table(&mut self, _: &Table) -> Result<(), EngineError> {
        Ok(())
    }
    fn work(
        &mut self,
        t: &Table,
        ops: &mut dyn Iterator<Item = WorkOp>,
        _: &mut dyn FnMut(u64),
    ) -> Result<WorkOutcome, EngineError> {
        if !self.reads_work {
            return Err(EngineError::Unsupported("this engine cannot read".into()));
        }
        let mut o = WorkOutcome::default();
        for op in ops {
            match op {
                WorkOp::Read(ReadOp::Point { key }) => {
                    o.reads += 1;
                    self.read.push(key[0].clone());
                }
                WorkOp::Read(_) => o.reads += 1,
                WorkOp::Insert(row) => {
                    o.inserts += 1;
                    self.inserted.push(row[t.primary_key[0]].clone());
                }
            }
        }
        o.page_requests = Some(3 * (o.reads + o.inserts));
        Ok(o)
    }
}

const SRC: &str = r#"name = "t"
variants = ["uuid7:bin"]
[[tables]]
name = "t"
[[phases]]
load = { rows = 1000 }
[[phases]]
reads = ["point:200:latest=10%", "secondary:50"]
[[phases]]
mixed = { ops = 100, insert_share = 0.25, reads = "point:latest=1%" }
"#;

fn run(reads_work: bool) -> (Reader, Vec<PhaseResult>) {
    let plan = &Scenario::parse(SRC, "t").unwrap().plan(1.0).unwrap()[0];
    let mut engine = Reader { reads_work, ..Reader::default() };
    let r = super::execute(&mut engine, plan, 1, &mut NoProgress).unwrap();
    (engine, r.phases)
}

#[test]
fn reads_name_loaded_rows_and_unserved_kinds_say_why() {
    let (e, phases) = run(true);
    // Point reads of the latest 10% name rows 900..1000 of the load; then the mix's reads.
    assert_eq!(e.read.len(), 200 + 75);
    assert!(e.read[..200].iter().all(|k| e.loaded[900..].contains(k)));
    assert_eq!(e.inserted.len(), 25);
    assert!(e.inserted.iter().all(|k| !e.loaded.contains(k)), "new rows, after the load's");
    let PhaseResult::Reads(r) = &phases[2] else { panic!("{:?}", phases[2]) };
    let specs = r.specs.get().unwrap();
    assert_eq!(specs[0].page_requests_per_read.value(), Some(3.0));
    assert_eq!(specs[0].misses_per_1000_reads, keylab_core::Figure::Null);
    assert_eq!(specs[1].status.value(), Some(PhaseStatus::NotApplicable));
    assert!(specs[1].reason.get().unwrap().contains("secondary index"));
    let PhaseResult::Mixed(m) = &phases[3] else { panic!() };
    assert_eq!((m.ops.value(), m.inserts.value()), (Some(100), Some(25)));
}

#[test]
fn an_engine_that_cannot_read_gives_not_applicable_with_its_reason() {
    let (_, phases) = run(false);
    for p in &phases[2..] {
        assert!(!p.applicable(), "{p:?}");
        let json = serde_json::to_string(p).unwrap();
        assert!(json.contains("this engine cannot read"), "{json}");
    }
}

#[test]
fn bad_reads_point_at_the_value_with_the_valid_choices() {
    let bad = SRC.replace("secondary:50", "scan:50");
    let e = Scenario::parse(&bad, "s.toml").and_then(|s| s.plan(1.0)).unwrap_err().to_string();
    assert!(e.starts_with("s.toml:8:34:"), "{e}");
    assert!(e.contains("valid: point, secondary"), "{e}");
    let bad = SRC.replace("insert_share = 0.25", "insert_share = 1.5");
    let e = Scenario::parse(&bad, "s.toml").and_then(|s| s.plan(1.0)).unwrap_err().to_string();
    assert!(e.starts_with("s.toml:10:") && e.contains("0 <= share < 1"), "{e}");
    let bad = SRC.replace("point:latest=1%", "point:latest=0%");
    let e = Scenario::parse(&bad, "s.toml").and_then(|s| s.plan(1.0)).unwrap_err().to_string();
    assert!(e.contains("latest=PCT%"), "{e}");
    let scaled = Scenario::parse(SRC, "s").unwrap().plan(0.5).unwrap();
    let PhasePlan::Reads { specs } = &scaled[0].phases[1] else { panic!() };
    assert_eq!(specs[0].count, 100);
    let PhasePlan::Mixed { mix } = &scaled[0].phases[2] else { panic!() };
    assert_eq!(mix.ops, 50);
}
