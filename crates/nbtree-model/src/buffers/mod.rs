//! PostgreSQL 15's shared buffers for one table's pages (`shared_buffers`, 8 KiB buffers):
//! which requests hit, which miss, and which dirty pages are written, following
//! `bufmgr.c` (`ReadBuffer_common`, `BufferAlloc`, `PinBuffer`, `FlushBuffer`,
//! `BufferSync`), `freelist.c` (`StrategyGetBuffer`, the clock sweep, `GetAccessStrategy`'s
//! rings) and `buf_init.c` (every buffer on the free list at start). A miss is counted as
//! `pg_statio_*` counts it: every request `ReadBufferExtended` cannot serve from a buffer,
//! which includes a page the relation is extended by (`P_NEW`), though no page is read then.
//!
//! Pages are named by a relation number ([`Rel`]: the heap, its free space map, each index)
//! and a block. The model holds no other relation (catalogs, other tables), does not pin
//! (a backend holds a pin or two at a time; the sweep skips them, which at hundreds of
//! buffers changes nothing measurable) and does not model the background writer: it is
//! driven by time (`bgwriter_delay`), which the model does not have, and it writes pages
//! the sweep is about to reach, which a backend would write anyway when it evicts them, so
//! the pages written are counted at eviction (`FlushBuffer` from `BufferAlloc`).

mod ring;

use ring::Ring;
pub use ring::Strategy;
use std::collections::HashMap;

/// `BLCKSZ`.
pub const BUFFER_BYTES: u64 = 8192;
/// `BM_MAX_USAGE_COUNT`.
pub const MAX_USAGE_COUNT: u8 = 5;
/// PostgreSQL's smallest `shared_buffers` (16 buffers, 128 kB).
pub const MIN_BUFFERS: u32 = 16;

const EMPTY: u64 = u64::MAX;

/// A relation (or fork) of the table: the heap is 0, its free space map 1, index `i`
/// `2 + 2i` and its free space map `3 + 2i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rel(pub u16);

impl Rel {
    /// The heap.
    pub const HEAP: Rel = Rel(0);
    /// The heap's free space map fork.
    pub const HEAP_FSM: Rel = Rel(1);

    /// Index `i` (0 is the first index, the primary key's when the table has one).
    pub fn index(i: usize) -> Rel {
        Rel(2 + 2 * i as u16)
    }

    /// The index this relation is (or whose free space map it is), `None` for the heap.
    pub fn index_number(self) -> Option<usize> {
        (self.0 >= 2).then(|| usize::from(self.0 - 2) / 2)
    }
}

/// How a page is requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read and left clean.
    Read,
    /// Read and changed (`MarkBufferDirty`, or `MarkBufferDirtyHint` for a free space map).
    Write,
    /// A new block at the end of the relation (`ReadBuffer(P_NEW)`): never in a buffer yet,
    /// counted as a read by `pg_statio`, though nothing is read; changed at once.
    Extend,
}

/// Requests and misses of one relation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelCounters {
    /// Requests (`blks_hit + blks_read`).
    pub requests: u64,
    /// Misses (`blks_read`), extensions included.
    pub reads: u64,
}

/// Totals since the buffers were set up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BufferCounters {
    /// Page requests.
    pub requests: u64,
    /// Misses, extensions included (`pg_statio`'s `blks_read`).
    pub reads: u64,
    /// Of `reads`, new blocks added to a relation (nothing read from storage).
    pub extensions: u64,
    /// Dirty pages written when their buffer was taken for another page (by the backend).
    pub written_at_eviction: u64,
    /// Dirty pages written by checkpoints.
    pub written_at_checkpoint: u64,
    /// Valid buffers given to another page.
    pub evictions: u64,
}

impl BufferCounters {
    /// Pages written, by backends and checkpoints.
    pub fn pages_written(&self) -> u64 {
        self.written_at_eviction + self.written_at_checkpoint
    }
}

#[derive(Debug, Clone, Copy)]
struct Descriptor {
    /// The page held (`EMPTY` for a free buffer).
    page: u64,
    usage: u8,
    dirty: bool,
}

/// The shared buffers.
#[derive(Debug, Clone)]
pub struct SharedBuffers {
    buffers: Vec<Descriptor>,
    lookup: HashMap<u64, u32, foldhash::fast::FixedState>,
    /// Buffers never used yet: `buf_init.c` links all of them into the free list in order,
    /// and nothing here returns one to it (only dropping or truncating a relation does).
    next_free: u32,
    /// `nextVictimBuffer`, the clock hand.
    hand: u32,
    rings: Vec<Ring>,
    counters: BufferCounters,
    by_rel: Vec<RelCounters>,
    /// Unbounded: a buffer is added for every new page (requests counted, nothing evicted).
    grows: bool,
    /// Per relation, the blocks requested since [`SharedBuffers::start_working_set`] (bits),
    /// and how many.
    working_set: Option<Vec<(Vec<u64>, u64)>>,
}

fn page_id(rel: Rel, block: u32) -> u64 {
    u64::from(rel.0) << 32 | u64::from(block)
}

impl SharedBuffers {
    /// `shared_buffers` of `bytes` (at least [`MIN_BUFFERS`] buffers, as the server
    /// refuses fewer).
    pub fn new(bytes: u64) -> Self {
        let n = (bytes / BUFFER_BYTES).clamp(u64::from(MIN_BUFFERS), u64::from(u32::MAX >> 1));
        let n = n as u32;
        SharedBuffers {
            buffers: vec![Descriptor { page: EMPTY, usage: 0, dirty: false }; n as usize],
            lookup: HashMap::with_capacity_and_hasher(n as usize, Default::default()),
            next_free: 0,
            hand: 0,
            rings: Strategy::ALL.iter().map(|&s| Ring::new(s, n)).collect(),
            counters: BufferCounters::default(),
            by_rel: Vec::new(),
            grows: false,
            working_set: None,
        }
    }

    /// Buffers without a bound: every page stays cached once requested, so only requests
    /// (and each call's working set) mean something.
    pub fn unbounded() -> Self {
        let mut b = SharedBuffers::new(0);
        b.buffers.clear();
        b.rings.clear();
        b.grows = true;
        b
    }

    /// True when the buffers have a bound (`shared_buffers`).
    pub fn bounded(&self) -> bool {
        !self.grows
    }

    /// Counts the distinct blocks requested per relation from now on.
    pub fn start_working_set(&mut self) {
        self.working_set = Some(Vec::new());
    }

    /// Distinct blocks requested per relation since [`SharedBuffers::start_working_set`]
    /// (relations never requested are left out), and stops counting.
    pub fn take_working_set(&mut self) -> Vec<(Rel, u64)> {
        let sets = self.working_set.take().unwrap_or_default();
        sets.iter()
            .enumerate()
            .filter(|(_, (_, n))| *n > 0)
            .map(|(r, &(_, n))| (Rel(r as u16), n))
            .collect()
    }

    /// Number of buffers (`NBuffers`).
    pub fn buffers(&self) -> u32 {
        self.buffers.len() as u32
    }

    /// Totals so far.
    pub fn counters(&self) -> BufferCounters {
        self.counters
    }

    /// Requests and misses of `rel` so far.
    pub fn of(&self, rel: Rel) -> RelCounters {
        self.by_rel.get(usize::from(rel.0)).copied().unwrap_or_default()
    }

    /// Every relation's counters, by relation number.
    pub fn by_rel(&self) -> &[RelCounters] {
        &self.by_rel
    }

    /// True when `rel`'s `block` is in a buffer.
    pub fn holds(&self, rel: Rel, block: u32) -> bool {
        self.lookup.contains_key(&page_id(rel, block))
    }

    /// A request for `rel`'s `block` (`ReadBufferExtended`), through a ring when `strategy`
    /// says so; true on a hit.
    pub fn request(&mut self, rel: Rel, block: u32, access: Access, strategy: Strategy) -> bool {
        let page = page_id(rel, block);
        let r = usize::from(rel.0);
        if r >= self.by_rel.len() {
            self.by_rel.resize(r + 1, RelCounters::default());
        }
        self.counters.requests += 1;
        self.by_rel[r].requests += 1;
        if let Some(sets) = &mut self.working_set {
            if r >= sets.len() {
                sets.resize(r + 1, (Vec::new(), 0));
            }
            let (bits, n) = &mut sets[r];
            let (word, bit) = (block as usize / 64, 1u64 << (block % 64));
            if word >= bits.len() {
                bits.resize(word + 1, 0);
            }
            if bits[word] & bit == 0 {
                bits[word] |= bit;
                *n += 1;
            }
        }
        let dirty = access != Access::Read;
        if access != Access::Extend {
            if let Some(&b) = self.lookup.get(&page) {
                let d = &mut self.buffers[b as usize];
                // `PinBuffer`: a plain request raises the usage count up to the maximum; one
                // through a ring only lifts it from 0 to 1, so a scan leaves no mark.
                if strategy == Strategy::Normal {
                    d.usage = (d.usage + 1).min(MAX_USAGE_COUNT);
                } else if d.usage == 0 {
                    d.usage = 1;
                }
                d.dirty |= dirty;
                return true;
            }
        }
        self.counters.reads += 1;
        self.by_rel[r].reads += 1;
        if access == Access::Extend {
            self.counters.extensions += 1;
        }
        let b = self.victim(strategy);
        let d = &mut self.buffers[b as usize];
        if d.page != EMPTY {
            self.lookup.remove(&d.page);
            self.counters.evictions += 1;
            // `BufferAlloc` writes a dirty victim itself (`FlushBuffer`) before reusing it.
            if d.dirty {
                self.counters.written_at_eviction += 1;
            }
        }
        // `BufferAlloc`: a new page starts with a usage count of one, whatever the strategy.
        *d = Descriptor { page, usage: 1, dirty };
        self.lookup.insert(page, b);
        false
    }

    /// The buffer a miss takes: the ring's next one when it may be reused, else the free
    /// list's next, else the clock sweep's (`StrategyGetBuffer`).
    fn victim(&mut self, strategy: Strategy) -> u32 {
        if self.grows {
            self.buffers.push(Descriptor { page: EMPTY, usage: 0, dirty: false });
            return self.buffers.len() as u32 - 1;
        }
        let ring = strategy.ring_index().map(|i| &mut self.rings[i]);
        if let Some(ring) = ring {
            // `GetBufferFromRing`: the ring's next buffer, unless someone else used it since
            // (usage above 1) or it is not set yet.
            let buffers = &self.buffers;
            if let Some(b) = ring.next_reusable(|b| buffers[b as usize].usage <= 1) {
                return b;
            }
        }
        let b = if (self.next_free as usize) < self.buffers.len() {
            self.next_free += 1;
            self.next_free - 1
        } else {
            self.sweep()
        };
        if let Some(i) = strategy.ring_index() {
            // `AddBufferToRing`: the buffer the normal path gave joins the ring's current slot.
            self.rings[i].put(b);
        }
        b
    }

    /// The clock sweep: a buffer with usage count 0 is taken; every other one passed loses
    /// one (`ClockSweepTick` and the loop of `StrategyGetBuffer`).
    fn sweep(&mut self) -> u32 {
        let n = self.buffers.len() as u32;
        loop {
            let b = self.hand;
            self.hand = if b + 1 == n { 0 } else { b + 1 };
            let d = &mut self.buffers[b as usize];
            if d.usage == 0 {
                return b;
            }
            d.usage -= 1;
        }
    }

    /// A checkpoint (`BufferSync`): every dirty buffer is written and left clean; usage
    /// counts stay.
    pub fn checkpoint(&mut self) {
        for d in &mut self.buffers {
            if d.dirty {
                d.dirty = false;
                self.counters.written_at_checkpoint += 1;
            }
        }
    }

    /// Every buffer empty, as after a restart; the counters stay.
    pub fn empty(&mut self) {
        for d in &mut self.buffers {
            *d = Descriptor { page: EMPTY, usage: 0, dirty: false };
        }
        self.lookup.clear();
        self.next_free = 0;
        self.hand = 0;
        let n = self.buffers();
        self.rings = Strategy::ALL.iter().map(|&s| Ring::new(s, n)).collect();
    }

    /// Pages of `rel` in buffers now.
    pub fn resident(&self, rel: Rel) -> u64 {
        self.lookup.keys().filter(|&&p| (p >> 32) as u16 == rel.0).count() as u64
    }
}

#[cfg(test)]
mod tests;
