//! Reads and mixed workloads as phases: a [`MixSpec`] (how many operations, the share of
//! inserts, which reads), the operations of a mixed workload ([`mixed_ops`]: inserts of new
//! rows and reads among the rows present at that moment), and the two phase runners shared by
//! `keylab compare` and scenario runs ([`reads_phase`], [`mixed_phase`]), which call
//! [`Engine::work`] and turn its [`WorkOutcome`](super::WorkOutcome) into a
//! [`PhaseResult`]. An engine that cannot run the reads gives `not_applicable` with its
//! reason, never a figure.
//!
//! Not for: picking positions (`reads.rs`), keeping the rows' keys (`reads/source.rs`) or
//! counting pages (each engine does).

use super::{ReadDistribution, ReadKind, ReadPicker, ReadSource, ReadSpec, WorkOp};
use crate::result::ReadsPhase;
use crate::result::{Figure, MixedPhase, PhaseKind, PhaseResult, PhaseStatus, ReadFigures};
use crate::{Engine, EngineError, Progress, Row};
use keylab_schema::Table;
use std::fmt;
use std::str::FromStr;

/// A mixed workload: `ops` operations, `insert_share` of them inserts of new rows, spread
/// evenly (operation `i` is an insert when `floor((i + 1) * share)` passes an integer), the
/// others reads of `kind` picked by `distribution` among the rows present at that moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixSpec {
    /// Operations in all (reads and inserts).
    pub ops: u64,
    /// Share of inserts, in [0, 1).
    pub insert_share: f64,
    /// What each read does.
    pub kind: ReadKind,
    /// Which rows the reads pick.
    pub distribution: ReadDistribution,
}

impl MixSpec {
    /// The reads as written in a scenario: `KIND:DISTRIBUTION` (`point:latest=5%`).
    pub fn read_token(&self) -> String {
        format!("{}:{}", self.kind.token(), self.distribution)
    }

    /// Whether operation `i` (from 0) is an insert.
    pub fn is_insert(&self, i: u64) -> bool {
        let before = (i as f64 * self.insert_share).floor();
        ((i + 1) as f64 * self.insert_share).floor() > before
    }

    /// Rows the workload inserts.
    pub fn inserts(&self) -> u64 {
        (self.ops as f64 * self.insert_share).floor() as u64
    }

    /// Checks a share: in [0, 1).
    pub fn check_share(share: f64) -> Result<f64, String> {
        if (0.0..1.0).contains(&share) {
            Ok(share)
        } else {
            Err(format!(
                "insert share {share} is not valid; valid: 0 <= share < 1 (0.1 or 10%: one \
                 operation in ten is an insert)"
            ))
        }
    }
}

/// What to run after a load: reads (a `reads` phase, one entry per spec), then a mixed
/// workload (a `mixed` phase), picked with `seed`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkPlan {
    /// Read specs, in order.
    pub reads: Vec<ReadSpec>,
    /// The mixed workload, if any.
    pub mix: Option<MixSpec>,
    /// Seed of the picks (the run's).
    pub seed: u64,
}

impl WorkPlan {
    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty() && self.mix.is_none()
    }

    /// Every read kind the plan uses.
    pub fn kinds(&self) -> Vec<ReadKind> {
        self.reads.iter().map(|r| r.kind).chain(self.mix.map(|m| m.kind)).collect()
    }

    /// The source the plan's reads need on `table` (refused when the table lacks the index a
    /// kind reads through).
    pub fn source(&self, table: &Table) -> Result<ReadSource, EngineError> {
        ReadSource::new(table, &self.kinds()).map_err(EngineError::Rejected)
    }

    /// Runs the reads, then the mix, over `source`; the mix inserts from `rows`.
    pub fn run(
        &self,
        engine: &mut dyn Engine,
        table: &Table,
        source: &mut ReadSource,
        rows: &mut dyn Iterator<Item = Row>,
        label: &str,
        progress: &mut dyn Progress,
    ) -> Result<Vec<PhaseResult>, EngineError> {
        let mut out = Vec::new();
        if !self.reads.is_empty() {
            out.push(reads_phase(engine, table, source, &self.reads, self.seed, label, progress)?);
        }
        if let Some(mix) = &self.mix {
            out.push(mixed_phase(engine, table, source, rows, mix, self.seed, label, progress)?);
        }
        Ok(out)
    }
}

/// Reads of a mixed workload, `KIND[:DISTRIBUTION]` (`point:latest=5%`; the distribution
/// defaults to uniform): the count is the workload's.
pub fn parse_mix_reads(text: &str) -> Result<(ReadKind, ReadDistribution), String> {
    let (kind, dist) = match text.trim().split_once(':') {
        Some((k, d)) => (k, Some(d)),
        None => (text.trim(), None),
    };
    let kind: ReadKind = kind.parse()?;
    let distribution = match dist {
        Some(d) => d.parse()?,
        None => ReadDistribution::Uniform,
    };
    Ok((kind, distribution))
}

/// `SHARE:KIND:OPS[:DISTRIBUTION]` on the command line: `10%:point:1000000:latest=5%` is a
/// million operations, one in ten an insert, the others point reads of the latest 5%.
impl FromStr for MixSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let shape = "a mix is SHARE:KIND:OPS[:DISTRIBUTION], e.g. 10%:point:1000000:latest=5%";
        let (share, rest) =
            s.trim().split_once(':').ok_or_else(|| format!("mix `{s}` has no reads; {shape}"))?;
        let share = match share.strip_suffix('%') {
            Some(p) => p.parse::<f64>().map(|p| p / 100.0),
            None => share.parse::<f64>(),
        }
        .map_err(|_| format!("mix `{s}`: insert share `{share}` is not a number; {shape}"))?;
        let insert_share = MixSpec::check_share(share)?;
        let read: ReadSpec = rest.parse().map_err(|e| format!("{e}; {shape}"))?;
        Ok(MixSpec {
            ops: read.count,
            insert_share,
            kind: read.kind,
            distribution: read.distribution,
        })
    }
}

impl fmt::Display for MixSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = self.insert_share * 100.0;
        write!(f, "{pct}%:{}:{}:{}", self.kind.token(), self.ops, self.distribution)
    }
}

/// The operations of `mix`: each insert takes the next row of `rows` and is recorded in
/// `source` (so later reads may pick it); each read picks among the rows recorded so far.
/// Ends early when `rows` runs out.
pub fn mixed_ops<'a>(
    source: &'a mut ReadSource,
    rows: &'a mut dyn Iterator<Item = Row>,
    mix: &MixSpec,
    seed: u64,
) -> impl Iterator<Item = WorkOp> + 'a {
    let mix = *mix;
    let mut picker = ReadPicker::new(mix.distribution, seed);
    (0..mix.ops).map_while(move |i| {
        // With no row yet there is nothing to read: the operation inserts instead.
        if mix.is_insert(i) || source.rows() == 0 {
            let row = rows.next()?;
            source.record(&row);
            Some(WorkOp::Insert(row))
        } else {
            Some(WorkOp::Read(source.op(mix.kind, picker.pick(source.rows()))))
        }
    })
}

/// Runs each read spec on `engine` over the rows `source` recorded (one
/// [`Engine::work`] call per spec) and records one entry per spec; a spec the engine refuses
/// is `not_applicable` with its reason, and the phase too when it refuses them all.
pub fn reads_phase(
    engine: &mut dyn Engine,
    table: &Table,
    source: &ReadSource,
    specs: &[ReadSpec],
    seed: u64,
    label: &str,
    progress: &mut dyn Progress,
) -> Result<PhaseResult, EngineError> {
    let mut out = Vec::new();
    for spec in specs {
        let name = spec.to_string();
        progress.start(&format!("{label} {name}"), spec.count);
        let mut ops = source.reads(spec, seed);
        let outcome = engine.work(table, &mut ops, &mut |n| progress.advance(n));
        progress.finish();
        out.push(match outcome {
            Ok(o) => ReadFigures::from_outcome(&name, &o),
            Err(EngineError::Unsupported(reason)) => ReadFigures::refused(&name, &reason),
            Err(e) => return Err(e),
        });
    }
    let first_refusal = out.iter().find_map(|f| f.reason.get().cloned());
    let status = if out.iter().any(ReadFigures::applicable) {
        PhaseStatus::Ok
    } else {
        PhaseStatus::NotApplicable
    };
    Ok(PhaseResult::Reads(ReadsPhase {
        status: Figure::Value(status),
        reason: match status {
            PhaseStatus::NotApplicable => Figure::of(first_refusal),
            PhaseStatus::Ok => Figure::Absent,
        },
        specs: Figure::Value(out),
        ..ReadsPhase::default()
    }))
}

/// Runs `mix` on `engine`: new rows from `rows`, reads among the rows `source` holds (and
/// those the phase inserts).
#[allow(clippy::too_many_arguments)]
pub fn mixed_phase(
    engine: &mut dyn Engine,
    table: &Table,
    source: &mut ReadSource,
    rows: &mut dyn Iterator<Item = Row>,
    mix: &MixSpec,
    seed: u64,
    label: &str,
    progress: &mut dyn Progress,
) -> Result<PhaseResult, EngineError> {
    progress.start(&format!("{label} mixed {mix}"), mix.ops);
    let mut ops = mixed_ops(source, rows, mix, seed);
    let outcome = engine.work(table, &mut ops, &mut |n| progress.advance(n));
    progress.finish();
    match outcome {
        Ok(o) => Ok(PhaseResult::Mixed(MixedPhase::from_outcome(
            &mix.read_token(),
            mix.insert_share,
            &o,
        ))),
        Err(EngineError::Unsupported(reason)) => {
            let PhaseResult::Mixed(mut m) = PhaseResult::not_applicable(PhaseKind::Mixed, &reason)
            else {
                unreachable!("a mixed phase")
            };
            m.read_spec = Figure::Value(mix.read_token());
            m.insert_share = Figure::Value(mix.insert_share);
            Ok(PhaseResult::Mixed(m))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeySource, Placement, Workload};

    #[test]
    fn mixes_parse_and_spread_their_inserts_evenly() {
        let m: MixSpec = "10%:point:1000:latest=5%".parse().unwrap();
        assert_eq!(m.ops, 1000);
        assert_eq!(m.insert_share, 0.1);
        assert_eq!(m.read_token(), "point:latest=5%");
        assert_eq!(m.inserts(), 100);
        assert_eq!((0..1000).filter(|&i| m.is_insert(i)).count(), 100);
        assert!((0..10).filter(|&i| m.is_insert(i)).count() == 1, "one in each ten");
        assert_eq!("0.25:secondary:8".parse::<MixSpec>().unwrap().inserts(), 2);
        for bad in ["point:5", "100%:point:5", "x:point:5", "10%:scan:5", "10%:point"] {
            let e = bad.parse::<MixSpec>().unwrap_err();
            assert!(e.contains("valid") || e.contains("SHARE:KIND:OPS"), "{bad}: {e}");
        }
        assert_eq!(
            parse_mix_reads("point:latest=5%").unwrap(),
            (ReadKind::Point, ReadDistribution::Latest { pct: 5.0 })
        );
        assert_eq!(parse_mix_reads("secondary").unwrap().1, ReadDistribution::Uniform);
    }

    #[test]
    fn mixed_reads_pick_among_the_rows_present() {
        let w = Workload::e1("uuid7:bin", Placement::Pk, 200, "t");
        let table = w.table();
        let mut rows = w.row_gen(KeySource::Generated(keylab_keys::GenConfig::default()));
        let mut src = ReadSource::new(&table, &[ReadKind::Point]).unwrap();
        let mut keys = Vec::new();
        for r in (&mut rows).take(100) {
            src.record(&r);
            keys.push(r[0].clone());
        }
        let mix = MixSpec {
            ops: 100,
            insert_share: 0.5,
            kind: ReadKind::Point,
            distribution: ReadDistribution::Latest { pct: 1.0 },
        };
        let ops: Vec<WorkOp> = mixed_ops(&mut src, &mut rows, &mix, 3).collect();
        assert_eq!(ops.len(), 100);
        // Latest 1%: every read names one of the last ceil(n / 100) rows present then.
        for op in &ops {
            match op {
                WorkOp::Insert(r) => keys.push(r[0].clone()),
                WorkOp::Read(crate::ReadOp::Point { key }) => {
                    let at = keys.iter().position(|k| *k == key[0]).expect("a row present");
                    assert!(at >= keys.len() - keys.len().div_ceil(100), "{at} of {}", keys.len());
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(src.rows(), 150);
    }
}
