//! The rows reads pick from: the columns reads need of every row inserted, in insertion
//! order, and the [`ReadOp`] a read of position `p` makes. The runner records each row it
//! sends to the engine; a reads phase then turns a [`ReadSpec`]'s picks into operations.
//!
//! It stores only what reads use (the primary key, the secondary index's columns, the time
//! column), packed per column ([`ValueStore`]); it does not follow deletes.

use super::{ReadKind, ReadOp, ReadPicker, ReadSpec, WorkOp};
use crate::value_store::ValueStore;
use keylab_schema::{Table, Value};

/// The columns of every inserted row that reads need, in insertion order.
#[derive(Debug, Clone)]
pub struct ReadSource {
    pk: Vec<usize>,
    /// The index secondary reads go through, and its columns.
    secondary: Option<(String, Vec<usize>)>,
    /// The index time ranges go through, and its time column.
    time: Option<(String, usize)>,
    /// (table column, its values), one entry per column kept.
    stores: Vec<(usize, ValueStore)>,
    rows: u64,
}

impl ReadSource {
    /// A source for reads of `kinds` on `table`; an error names what the table lacks (a
    /// secondary index, an index on a time column).
    pub fn new(table: &Table, kinds: &[ReadKind]) -> Result<ReadSource, String> {
        let time_first = |i: &keylab_schema::Index| {
            i.columns.first().is_some_and(|&c| table.columns[c].ty.is_date_or_datetime())
        };
        let mut columns = table.primary_key.clone();
        let mut secondary = None;
        let mut time = None;
        if kinds.contains(&ReadKind::Secondary) {
            let index = table
                .indexes
                .iter()
                .find(|i| !time_first(i))
                .or_else(|| table.indexes.first())
                .ok_or_else(|| {
                    format!(
                        "`secondary` reads need a secondary index; table `{}` has none",
                        table.name
                    )
                })?;
            columns.extend(&index.columns);
            secondary = Some((index.name.clone(), index.columns.clone()));
        }
        if kinds.iter().any(|k| matches!(k, ReadKind::TimeRange { .. })) {
            let index = table.indexes.iter().find(|i| time_first(i)).ok_or_else(|| {
                format!(
                    "`time-range` reads need an index whose first column is a date or time; \
                     table `{}` has none",
                    table.name
                )
            })?;
            columns.push(index.columns[0]);
            time = Some((index.name.clone(), index.columns[0]));
        }
        if table.primary_key.is_empty() {
            return Err(format!("reads need a primary key; table `{}` has none", table.name));
        }
        columns.sort_unstable();
        columns.dedup();
        let stores = columns.into_iter().map(|c| (c, ValueStore::default())).collect();
        Ok(ReadSource { pk: table.primary_key.clone(), secondary, time, stores, rows: 0 })
    }

    /// Notes a row inserted (table column order).
    pub fn record(&mut self, row: &[Value]) {
        for (c, store) in &mut self.stores {
            store.push(&row[*c]);
        }
        self.rows += 1;
    }

    /// Rows recorded.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    fn value(&self, column: usize, position: u64) -> Value {
        let (_, store) = self.stores.iter().find(|(c, _)| *c == column).expect("column kept");
        store.get(position as usize)
    }

    fn values(&self, columns: &[usize], position: u64) -> Vec<Value> {
        columns.iter().map(|&c| self.value(c, position)).collect()
    }

    /// The read of `kind` at row `position` (< [`ReadSource::rows`]).
    pub fn op(&self, kind: ReadKind, position: u64) -> ReadOp {
        match kind {
            ReadKind::Point => ReadOp::Point { key: self.values(&self.pk, position) },
            ReadKind::Secondary => {
                let (index, cols) = self.secondary.as_ref().expect("made for secondary reads");
                ReadOp::Secondary { index: index.clone(), key: self.values(cols, position) }
            }
            ReadKind::KeyRange { rows } => {
                ReadOp::KeyRange { from: self.values(&self.pk, position), rows }
            }
            ReadKind::TimeRange { rows } => {
                let (index, col) = self.time.as_ref().expect("made for time ranges");
                let last = (position + u64::from(rows) - 1).min(self.rows - 1);
                let (a, b) = (self.value(*col, position), self.value(*col, last));
                let (from, to) = if a <= b { (a, b) } else { (b, a) };
                ReadOp::TimeRange { index: index.clone(), from, to }
            }
        }
    }

    /// The reads of `spec` over the rows recorded, picked with `seed`.
    pub fn reads<'a>(&'a self, spec: &ReadSpec, seed: u64) -> impl Iterator<Item = WorkOp> + 'a {
        let mut picker = ReadPicker::new(spec.distribution, seed);
        let kind = spec.kind;
        let n = if self.rows == 0 { 0 } else { spec.count };
        (0..n).map(move |_| WorkOp::Read(self.op(kind, picker.pick(self.rows))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeySource, Placement, ReadDistribution, Workload};

    #[test]
    fn reads_name_the_keys_of_the_rows_recorded() {
        let w = Workload::e1("uuid7:bin", Placement::Secondary, 100, "t");
        let table = w.table();
        let mut src = ReadSource::new(&table, &[ReadKind::Point, ReadKind::Secondary]).unwrap();
        let keys = KeySource::Generated(keylab_keys::GenConfig::default());
        let rows: Vec<_> = w.row_gen(keys).collect();
        for r in &rows {
            src.record(r);
        }
        assert_eq!(src.rows(), 100);
        let pk = table.primary_key[0];
        assert_eq!(src.op(ReadKind::Point, 42), ReadOp::Point { key: vec![rows[42][pk].clone()] });
        let ReadOp::Secondary { index, key } = src.op(ReadKind::Secondary, 7) else { panic!() };
        let ix = table.indexes.iter().find(|i| i.name == index).unwrap();
        assert_eq!(key, ix.columns.iter().map(|&c| rows[7][c].clone()).collect::<Vec<_>>());
        let spec = ReadSpec {
            kind: ReadKind::Point,
            count: 50,
            distribution: ReadDistribution::Latest { pct: 10.0 },
        };
        let picked: Vec<WorkOp> = src.reads(&spec, 9).collect();
        assert_eq!(picked.len(), 50);
        let latest: Vec<WorkOp> =
            (90..100).map(|p| WorkOp::Read(src.op(ReadKind::Point, p))).collect();
        assert!(picked.iter().all(|op| latest.contains(op)), "only the latest 10 rows");
        let e = ReadSource::new(&table, &[ReadKind::TimeRange { rows: 5 }]).unwrap_err();
        assert!(e.contains("date or time"), "{e}");
    }
}
