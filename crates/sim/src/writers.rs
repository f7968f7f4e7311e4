//! The simulator's model of parallel writers: the order in which a server sees the rows of
//! `writers` connections loading at once, so that the model's tree reflects their interleaving.
//!
//! What keylab controls is the same on both engines: statement `n` (of `batch` rows, or of
//! the seeded sizes of [`LoadPlan::statement_rows`] when statements vary, in row-stream order) goes to writer `n % writers`, through a queue of
//! [`WRITER_QUEUE_STATEMENTS`] statements the sender waits on (`crates/mariadb/src/load.rs`).
//! What the server decides is modelled: while several writers have a statement running, the
//! next row inserted is from one of them picked at random (a fixed seed, so the model is
//! deterministic); a writer that finishes takes its next queued statement at once.
//!
//! `AUTO_INCREMENT` values follow `innodb_autoinc_lock_mode` (`ha_innobase::innobase_lock_autoinc`,
//! `ha_innobase::get_auto_increment`, `handler::update_auto_increment`): a multi-row or
//! prepared INSERT reserves one consecutive block of its row count at its first row, a
//! single-row INSERT or a `LOAD DATA` row takes the next value when it is inserted. Mode 0
//! holds the table's AUTO-INC lock to the end of every INSERT, mode 1 (MariaDB's default) to
//! the end of a `LOAD DATA` ("bulk insert": its row count is unknown), mode 2 never: a statement
//! holding it runs alone. The values handed out are the stream's own, in the order taken.
//!
//! How the running statements' rows mix is the server's scheduling, not a rule, so the model
//! has three mixes ([`Interleave`]): `rows`, the next row from any running statement (the
//! finest mix, the lowest fill: the band's lower bound); `statements`, each statement's rows
//! inserted together while `AUTO_INCREMENT` blocks are still taken when statements start, so
//! blocks land out of order; and `serial`, one statement at a time in the order they take
//! their values (the band's upper bound, the one-writer tree for auto-increment keys).
//!
//! This module does not time anything and does not model CPU cores or lock waits.

use keylab_core::{LoadMethod, LoadPlan, Row, WRITER_QUEUE_STATEMENTS};
use keylab_schema::{Table, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Seed of the model's choice of the next writer (the server's own order is not seeded).
const INTERLEAVE_SEED: u64 = 0x6b65_796c_6162_5732;

/// How the rows of statements running at once mix in the model (the binary's
/// `--interleave`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interleave {
    /// The next row comes from any running statement, picked at random (seeded).
    #[default]
    Rows,
    /// A statement that inserted its first row inserts all of them before another does;
    /// statements that start together take their `AUTO_INCREMENT` blocks at their start.
    Statements,
    /// One statement at a time, taking its `AUTO_INCREMENT` values as it inserts them.
    Serial,
}

impl Interleave {
    /// The CLI and report token.
    pub fn token(self) -> &'static str {
        match self {
            Interleave::Rows => "rows",
            Interleave::Statements => "statements",
            Interleave::Serial => "serial",
        }
    }
}

/// One writer connection in the model.
#[derive(Default)]
struct Writer {
    /// Statements sent to it and not started yet.
    queued: VecDeque<Vec<Row>>,
    /// Rows of the statement it runs, in statement order.
    running: VecDeque<Row>,
}

/// Calls `apply` with every row of `rows`, in the order `plan.writers` writers would insert
/// them; returns the rows applied. One writer applies the stream as it comes.
pub fn interleave<E>(
    table: &Table,
    plan: &LoadPlan,
    autoinc_lock_mode: u8,
    mix: Interleave,
    rows: &mut dyn Iterator<Item = Row>,
    mut apply: impl FnMut(Row) -> Result<(), E>,
) -> Result<u64, E> {
    let n_writers = plan.writers.max(1) as usize;
    let mut applied = 0u64;
    if n_writers == 1 {
        for row in rows {
            apply(row)?;
            applied += 1;
        }
        return Ok(applied);
    }
    let mut sizes = plan.statement_rows();
    let auto_inc = match table.primary_key.as_slice() {
        [c] if table.auto_increment => Some(*c),
        _ => None,
    };
    let serial = mix == Interleave::Serial;
    let table_lock = serial
        || auto_inc.is_some()
            && match autoinc_lock_mode {
                0 => true,
                1 => plan.method == LoadMethod::LoadData,
                _ => false,
            };
    // When a statement's AUTO_INCREMENT values are taken: a block at its start, or one value
    // per row as it is inserted (the same under the table lock: nothing runs in between).
    let block_at_start = !table_lock
        && matches!(
            plan.method,
            LoadMethod::Multi | LoadMethod::Prepared | LoadMethod::PreparedUncached
        );
    let mut writers: Vec<Writer> = (0..n_writers).map(|_| Writer::default()).collect();
    // AUTO_INCREMENT values of the rows read so far and not yet handed out, in stream order.
    let mut ids: VecDeque<Value> = VecDeque::new();
    let mut next_statement = 0u64;
    let mut stream_done = false;
    let mut lock_holder: Option<usize> = None;
    let mut rng = ChaCha8Rng::seed_from_u64(INTERLEAVE_SEED);
    let mut ready: Vec<usize> = Vec::with_capacity(n_writers);
    loop {
        // The sender: statements in order, each to its writer, while that writer has room.
        while !stream_done {
            let w = plan.writer_of(next_statement);
            if writers[w].queued.len() >= WRITER_QUEUE_STATEMENTS {
                break;
            }
            let size = sizes.next().unwrap_or(1).max(1);
            let statement: Vec<Row> = (&mut *rows).take(size).collect();
            if statement.len() < size {
                stream_done = true;
            }
            if statement.is_empty() {
                break;
            }
            if let Some(c) = auto_inc {
                ids.extend(statement.iter().map(|r| r[c].clone()));
            }
            writers[w].queued.push_back(statement);
            next_statement += 1;
        }
        // Idle writers start their next statement.
        for w in writers.iter_mut().filter(|w| w.running.is_empty()) {
            if let Some(mut statement) = w.queued.pop_front() {
                if let (Some(c), true) = (auto_inc, block_at_start) {
                    for row in &mut statement {
                        row[c] = ids.pop_front().expect("one value per row read");
                    }
                }
                w.running = statement.into();
            }
        }
        ready.clear();
        match lock_holder {
            Some(h) => ready.push(h),
            None => ready.extend((0..n_writers).filter(|&i| !writers[i].running.is_empty())),
        }
        if ready.is_empty() {
            break;
        }
        let w = ready[rng.random_range(0..ready.len())];
        let mut row = writers[w].running.pop_front().expect("a ready writer has a row");
        if let (Some(c), false) = (auto_inc, block_at_start) {
            row[c] = ids.pop_front().expect("one value per row read");
        }
        apply(row)?;
        applied += 1;
        // The AUTO-INC table lock, or a whole-statement mix: the statement runs to its end.
        if table_lock || mix != Interleave::Rows {
            lock_holder = (!writers[w].running.is_empty()).then_some(w);
        }
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_schema::{Column, ColumnType, RowFormat};

    fn table(auto_increment: bool) -> Table {
        Table {
            name: "t".into(),
            columns: vec![
                Column::new("id", ColumnType::BigInt { unsigned: false }, false),
                Column::new("w", ColumnType::BigInt { unsigned: false }, false),
            ],
            primary_key: vec![0],
            auto_increment,
            indexes: Vec::new(),
            row_format: RowFormat::Dynamic,
            partitioning: None,
        }
    }

    /// Rows `id = 1..=n`, `w` = the statement number it was generated in.
    fn rows(n: i64, batch: i64) -> Vec<Row> {
        (1..=n).map(|i| vec![Value::Int(i), Value::Int((i - 1) / batch)]).collect()
    }

    fn order(auto_increment: bool, method: LoadMethod, writers: u32) -> Vec<Row> {
        order_in_mode(auto_increment, method, writers, 1)
    }

    fn order_in_mode(auto_increment: bool, method: LoadMethod, writers: u32, mode: u8) -> Vec<Row> {
        let plan = LoadPlan { method, batch: 10, writers, batch_max: None };
        let mut out = Vec::new();
        let mut it = rows(95, 10).into_iter();
        let n =
            interleave::<()>(&table(auto_increment), &plan, mode, Interleave::Rows, &mut it, |r| {
                out.push(r);
                Ok(())
            })
            .unwrap();
        assert_eq!(n, 95);
        out
    }

    fn id(row: &Row) -> i64 {
        if let Value::Int(i) = row[0] {
            i
        } else {
            -1
        }
    }

    fn ids(rows: &[Row]) -> Vec<i64> {
        rows.iter().map(id).collect()
    }

    #[test]
    fn one_writer_keeps_the_stream() {
        assert_eq!(order(true, LoadMethod::Multi, 1), rows(95, 10));
    }

    #[test]
    fn writers_interleave_rows_but_keep_each_statement_in_order() {
        let out = order(false, LoadMethod::Multi, 4);
        assert_ne!(out, rows(95, 10), "4 writers interleave");
        let mut sorted = ids(&out);
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=95).collect::<Vec<_>>(), "every row once");
        for s in 0..10 {
            let of_s: Vec<i64> = out.iter().filter(|r| r[1] == Value::Int(s)).map(id).collect();
            assert!(of_s.windows(2).all(|p| p[0] < p[1]), "statement {s} in order: {of_s:?}");
        }
        assert_eq!(out, order(false, LoadMethod::Multi, 4), "seeded: the same every time");
    }

    #[test]
    fn multi_row_auto_increment_reserves_a_block_per_statement() {
        let out = order(true, LoadMethod::Multi, 3);
        // Each statement's rows carry consecutive values.
        for s in 0..10 {
            let of_s: Vec<i64> = out.iter().filter(|r| r[1] == Value::Int(s)).map(id).collect();
            assert!(of_s.windows(2).all(|p| p[1] == p[0] + 1), "statement {s}: {of_s:?}");
        }
        assert_ne!(ids(&out), (1..=95).collect::<Vec<_>>(), "blocks interleave");
    }

    #[test]
    fn single_row_inserts_and_load_data_take_values_in_insert_order() {
        for method in [LoadMethod::Row, LoadMethod::LoadData] {
            let out = order(true, method, 3);
            assert_eq!(ids(&out), (1..=95).collect::<Vec<_>>(), "{method}");
        }
        // LOAD DATA on an AUTO_INCREMENT table: one statement at a time (the AUTO-INC lock).
        let out = order(true, LoadMethod::LoadData, 3);
        let statements: Vec<i64> =
            out.iter().map(|r| if let Value::Int(s) = r[1] { s } else { -1 }).collect();
        let runs = 1 + statements.windows(2).filter(|p| p[0] != p[1]).count();
        assert_eq!(runs, 10, "each statement's rows together: {statements:?}");
    }

    #[test]
    fn lock_mode_0_runs_auto_increment_statements_one_at_a_time() {
        let out = order_in_mode(true, LoadMethod::Multi, 3, 0);
        assert_eq!(ids(&out), (1..=95).collect::<Vec<_>>(), "appended in order");
        // Mode 2 lets LOAD DATA statements interleave; values still follow insert order.
        let out = order_in_mode(true, LoadMethod::LoadData, 3, 2);
        assert_eq!(ids(&out), (1..=95).collect::<Vec<_>>());
        let statements: Vec<Value> = out.iter().map(|r| r[1].clone()).collect();
        assert!(statements.windows(2).filter(|p| p[0] != p[1]).count() > 9, "interleaved");
    }

    #[test]
    fn whole_statements_keep_each_statements_rows_together_with_blocks_out_of_order() {
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 10, writers: 3, batch_max: None };
        let mut out = Vec::new();
        let mut it = rows(95, 10).into_iter();
        interleave::<()>(&table(true), &plan, 1, Interleave::Statements, &mut it, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        let statements: Vec<Value> = out.iter().map(|r| r[1].clone()).collect();
        let runs = 1 + statements.windows(2).filter(|p| p[0] != p[1]).count();
        assert_eq!(runs, 10, "each statement's rows together: {statements:?}");
        // Blocks are reserved when statements start, so they need not arrive in order.
        let firsts: Vec<i64> = out.chunks(10).map(|c| id(&c[0])).collect();
        assert!(firsts.windows(2).any(|p| p[1] < p[0]), "{firsts:?}");
    }

    #[test]
    fn serial_statements_give_the_one_writer_ids() {
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 10, writers: 3, batch_max: None };
        let mut out = Vec::new();
        let mut it = rows(95, 10).into_iter();
        interleave::<()>(&table(true), &plan, 1, Interleave::Serial, &mut it, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(ids(&out), (1..=95).collect::<Vec<_>>());
    }

    #[test]
    fn every_mix_gives_the_same_order_on_every_call() {
        let plan = LoadPlan { method: LoadMethod::Multi, batch: 7, writers: 4, batch_max: None };
        for mix in [Interleave::Rows, Interleave::Statements, Interleave::Serial] {
            let run = || {
                let mut out = Vec::new();
                let mut it = rows(200, 7).into_iter();
                interleave::<()>(&table(true), &plan, 2, mix, &mut it, |r| {
                    out.push(r);
                    Ok(())
                })
                .unwrap();
                ids(&out)
            };
            assert_eq!(run(), run(), "{}", mix.token());
        }
    }
}
