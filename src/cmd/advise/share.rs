//! Which `keylab advise` candidates build the same trees on the InnoDB model, so that each
//! distinct table is built once and its figures given to every candidate that would build it.
//!
//! Two candidates build the same trees (every page, split, height, leaf of every insert and
//! tablespace allocation) when their tables are equal apart from the name and the
//! AUTO_INCREMENT flag (advise gives every row its id, so the flag assigns nothing), their key
//! columns have the same fixed-length type, every other column is filled alike (rows differ
//! only in the key), and both key sequences are strictly ascending in insert order: then every
//! insert lands in the same place in both, as the model compares keys only by their order and
//! stores fixed-width keys in the same bytes. The ascent is checked on the generated ids
//! themselves, never assumed from the strategy's name.
//!
//! It decides only; `advise.rs` runs the builds and copies the figures. It does not share
//! secondary indexes between candidates whose primary keys differ in order (see
//! docs/architecture.md, "advise: shared builds").

use super::rows::{key_gen, ColumnValues};
use super::Candidate;
use keylab_keys::Variant;
use keylab_schema::{Dialect, Table};

/// For each candidate, the earlier candidate whose build it takes (`None`: built itself),
/// and a note per shared candidate.
pub struct SharedBuilds {
    pub build_of: Vec<Option<usize>>,
    pub notes: Vec<String>,
}

/// The candidates that need no build of their own: see the module docs for the rule.
pub fn shared_builds(candidates: &[Candidate], rows: u64, seed: u64) -> SharedBuilds {
    // Every candidate that could share (or be shared) is checked, the checks at once on
    // their own threads: each regenerates `rows` ids (about 0.45 s at 10M rows), before
    // any build starts.
    let could_share = |i: usize| {
        fixed_key_sql(&candidates[i]).is_some()
            && (0..candidates.len())
                .any(|j| j != i && same_but_key_order(&candidates[j], &candidates[i]))
    };
    let ascends: Vec<bool> = std::thread::scope(|scope| {
        let checks: Vec<_> = (0..candidates.len())
            .map(|i| {
                let variant = candidates[i].variant.filter(|_| could_share(i));
                scope.spawn(move || variant.is_some_and(|v| keys_ascend_strictly(v, seed, rows)))
            })
            .collect();
        checks.into_iter().map(|c| c.join().expect("ascent check")).collect()
    });
    let ascending = |i: usize| ascends[i];
    let mut build_of = vec![None; candidates.len()];
    let mut notes = Vec::new();
    for i in 0..candidates.len() {
        let Some(key_sql) = fixed_key_sql(&candidates[i]) else { continue };
        for j in 0..i {
            if build_of[j].is_some() || !same_but_key_order(&candidates[j], &candidates[i]) {
                continue;
            }
            if ascending(j) && ascending(i) {
                build_of[i] = Some(j);
                notes.push(format!(
                    "{}: the same trees as {} (both {key_sql}, both ascending in every insert): \
                     built once",
                    candidates[i].label, candidates[j].label
                ));
                break;
            }
        }
    }
    SharedBuilds { build_of, notes }
}

/// The key column's SQL type when the candidate has one key column of fixed length filled by
/// its generator.
fn fixed_key_sql(c: &Candidate) -> Option<String> {
    let [k] = c.key.as_slice() else { return None };
    if c.variant.is_none() || c.plan.get(*k) != Some(&ColumnValues::Key) {
        return None;
    }
    let ty = c.table.columns[*k].ty;
    ty.fixed_len()?;
    Some(ty.sql(Dialect::Mariadb))
}

/// Equal tables (name and AUTO_INCREMENT aside), equal fill plans and storage: the rows
/// differ only in the generated key.
fn same_but_key_order(a: &Candidate, b: &Candidate) -> bool {
    let bare = |t: &Table| Table { name: String::new(), auto_increment: false, ..t.clone() };
    fixed_key_sql(a).is_some()
        && a.key == b.key
        && a.plan == b.plan
        && a.heap_table == b.heap_table
        && a.fill_factors == b.fill_factors
        && bare(&a.table) == bare(&b.table)
}

/// True when the first `rows` ids of `variant` under `seed` (the ones advise inserts) rise
/// strictly in the stored order.
fn keys_ascend_strictly(variant: Variant, seed: u64, rows: u64) -> bool {
    let mut gen = key_gen(variant, seed);
    let mut last = gen.next_key();
    for _ in 1..rows {
        let k = gen.next_key();
        if k <= last {
            return false;
        }
        last = k;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{keys_ascend_strictly, shared_builds};
    use crate::cmd::advise::rows::plan_columns;
    use crate::cmd::advise::Candidate;
    use keylab_core::FillFactors;
    use keylab_keys::Variant;
    use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table};

    fn candidate(token: &str, text_chars: u32) -> Candidate {
        let v: Variant = token.parse().unwrap();
        let text = ColumnType::VarChar { chars: text_chars, charset: Charset::Utf8mb4 };
        let table = Table {
            name: format!("t_{token}"),
            columns: vec![Column::new("id", v.column_type(), false), Column::new("s", text, false)],
            primary_key: vec![0],
            auto_increment: v.strategy.is_engine_assigned(),
            indexes: vec![Index::new("ix_s", vec![1], false)],
            row_format: RowFormat::Dynamic,
            partitioning: None,
        };
        Candidate {
            label: token.into(),
            variant: Some(v),
            plan: plan_columns(&table, &[0], 1000, true, &|_| None),
            key: vec![0],
            table,
            heap_table: false,
            fill_factors: FillFactors::default(),
            progress_prefix: None,
        }
    }

    #[test]
    fn only_equal_tables_with_fixed_ascending_keys_share() {
        let c = [
            candidate("uuid4:bin", 20),
            candidate("uuid7:bin", 20),
            candidate("ulid:bin", 20),
            candidate("uuid7:text", 20),
            candidate("ulid:bin", 30),
            candidate("auto-inc", 20),
            candidate("snowflake", 20),
        ];
        let shared = shared_builds(&c, 1000, 1);
        // uuid4 does not ascend; the text key is not fixed-length; the wider column fills
        // other rows.
        let want = [None, None, Some(1), None, None, None, Some(5)];
        assert_eq!(shared.build_of, want);
        assert_eq!(shared.notes.len(), 2);
        assert!(
            shared.notes[0].starts_with("ulid:bin: the same trees as uuid7:bin (both BINARY(16)")
        );
    }

    #[test]
    fn only_generated_ascent_counts() {
        let v = |s: &str| s.parse().unwrap();
        for s in ["auto-inc", "uuid7:bin", "ulid:bin", "snowflake"] {
            assert!(keys_ascend_strictly(v(s), 1, 50_000), "{s}");
        }
        for s in ["uuid4:bin", "uuid4:text", "uuid4:hex", "md5"] {
            assert!(!keys_ascend_strictly(v(s), 1, 50_000), "{s}");
        }
    }
}
