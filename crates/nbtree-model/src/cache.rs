//! The table's side of the buffer model: after each operation the pages the heap and the
//! indexes recorded go to [`SharedBuffers`] in the server's order (the heap tuple first,
//! then each index entry, `ExecInsertIndexTuples`), and the figures come back out.
//!
//! It does not decide which pages an operation requests (`heap.rs`, `trace.rs` do).

use crate::buffers::{Rel, SharedBuffers, Strategy};
use crate::NbtreeTable;

impl NbtreeTable {
    /// Sends the recorded page requests to the buffers (none when they are not modelled).
    pub(crate) fn feed_buffers(&mut self) {
        let Some(b) = &mut self.buffers else { return };
        for (rel, block, access, ring) in self.heap.touches.drain(..) {
            b.request(rel, block, access, ring);
        }
        for (i, ix) in self.indexes.iter_mut().enumerate() {
            for (block, access) in ix.tree.trace.drain() {
                b.request(Rel::index(i), block, access, Strategy::Normal);
            }
        }
    }

    /// The shared buffers, when modelled.
    pub fn buffers(&self) -> Option<&SharedBuffers> {
        self.buffers.as_ref()
    }

    /// The shared buffers, mutably (to count a working set).
    pub fn buffers_mut(&mut self) -> Option<&mut SharedBuffers> {
        self.buffers.as_mut()
    }

    /// Counts page requests from now on: without `shared_buffers` set, through unbounded
    /// buffers (requests and working sets only; nothing is read or evicted).
    pub fn count_pages(&mut self) {
        if self.buffers.is_none() {
            self.buffers = Some(SharedBuffers::unbounded());
            self.heap.tracing = true;
            for ix in &mut self.indexes {
                ix.tree.trace.on = true;
            }
        }
    }

    /// Inserts go through a new bulk insert state from now on (a COPY statement starts,
    /// holding no page yet), or through none.
    pub fn set_bulk_insert(&mut self, bulk: bool) {
        self.heap.bulk = bulk;
        self.heap.bulk_pinned = None;
    }
}

impl NbtreeTable {
    /// A server restart: every buffer empty (counters kept, as the server keeps its
    /// statistics over a clean shutdown), and each index's cached metapage and fast-path leaf
    /// gone with the backend (the heap's target block is kept: the new backend finds the
    /// same last page through the free space map). An error when shared
    /// buffers are not modelled.
    pub fn restart_buffers(&mut self) -> Result<(), crate::ModelError> {
        let Some(b) = self.buffers.as_mut().filter(|b| b.bounded()) else {
            return Err(crate::ModelError::Unsupported(
                "without shared buffers (--buffer-pool) a restart changes nothing the model \
                 predicts"
                    .into(),
            ));
        };
        b.empty();
        for ix in &mut self.indexes {
            ix.tree.trace = crate::trace::Trace { on: true, ..Default::default() };
        }
        Ok(())
    }

    /// Row operations so far (inserts and deletes), the denominator of per-operation figures.
    pub fn row_ops(&self) -> u64 {
        self.ops
    }
}
