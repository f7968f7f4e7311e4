//! Partitions attached to the tables of a file: a `PARTITION BY` clause on the table just
//! read, and each `PARTITION OF` / `ATTACH PARTITION` on its parent (a note when the file has
//! no such partitioned table before it). Resolved against the columns at `finish`.

use super::FileBuilder;
use crate::partitions::{RawPartition, RawPartitioning};
use crate::Note;

impl FileBuilder {
    /// A `PARTITION BY` clause of table `name` (just read).
    pub(crate) fn set_partitioning(&mut self, name: &str, raw: RawPartitioning) {
        if let Some(t) = self.table_named(name) {
            t.partitioning = Some(raw);
        }
    }

    /// A partition of `parent` (`PARTITION OF`, `ATTACH PARTITION`): one more partition of
    /// it; a note when the file has no such partitioned table before it.
    pub(crate) fn add_partition(&mut self, parent: &str, p: RawPartition) {
        let at = p.at;
        let name = p.name.clone();
        let declared = match self.table_named(parent) {
            Some(t) => match t.partitioning.as_mut() {
                Some(raw) => {
                    raw.partitions.push(p);
                    return;
                }
                None => true,
            },
            None => false,
        };
        match declared {
            true => self.note_on(
                Some(parent),
                Note {
                    at,
                    message: format!(
                        "partition `{name}` not applied: `{parent}` is not declared PARTITION BY"
                    ),
                },
            ),
            false => self.loose.push(Note {
                at,
                message: format!(
                    "partition `{name}` of `{parent}` not applied: the file creates no table \
                     `{parent}` before it"
                ),
            }),
        }
    }
}
