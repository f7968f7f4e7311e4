//! Checks of `compare`'s `--reads` and `--mix` against the run before any engine starts:
//! each variant's table must have what the read kinds go through, and a mixed workload needs
//! new rows (not a `--keys-file` replay, which holds only the load's ids). Bad input exits 2
//! naming the flag.
//!
//! Not for: parsing the specs (`args/work.rs`) or running them (`keylab_core::WorkPlan`).

use crate::args::CompareArgs;
use crate::UsageError;
use keylab_core::{ReadSource, WorkPlan};
use keylab_keys::Variant;
use keylab_schema::Table;

/// Refuses reads a variant's table cannot serve, and `--mix` with `--keys-file`.
pub fn check_work(
    work: &WorkPlan,
    args: &CompareArgs,
    table_of: &dyn Fn(&Variant) -> Table,
) -> Result<(), UsageError> {
    if work.mix.is_some() && args.keys_file.is_some() {
        return Err(UsageError(
            "--mix inserts new rows, and --keys-file holds only the ids of the load; leave out \
             one of them"
                .into(),
        ));
    }
    let kinds = |flag: &str, kinds: Vec<keylab_core::ReadKind>| {
        for variant in &args.keys {
            if let Err(why) = ReadSource::new(&table_of(variant), &kinds) {
                let hint = if args.placement == keylab_core::Placement::Pk {
                    " (--placement secondary puts the id in a secondary index)"
                } else {
                    ""
                };
                return Err(UsageError(format!("{flag}: {why}{hint}")));
            }
        }
        Ok(())
    };
    kinds("--reads", work.reads.iter().map(|r| r.kind).collect())?;
    kinds("--mix", work.mix.iter().map(|m| m.kind).collect())
}
