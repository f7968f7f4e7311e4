//! The buffer rings of `GetAccessStrategy` (freelist.c): a bulk operation recycles a small
//! set of buffers instead of flooding shared buffers. A ring is at most an eighth of the
//! buffers (`GetAccessStrategy` caps it so).

/// Which ring a request goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// No ring (`BAS_NORMAL`): INSERT, index scans, every index page.
    Normal,
    /// `BAS_BULKREAD`, 256 kB: a sequential scan of a table over a quarter of the buffers.
    BulkRead,
    /// `BAS_BULKWRITE`, 16 MB: COPY's heap pages (through its `BulkInsertState`).
    BulkWrite,
    /// `BAS_VACUUM`, 256 kB: VACUUM.
    Vacuum,
}

impl Strategy {
    /// Every strategy with a ring.
    pub const ALL: [Strategy; 3] = [Strategy::BulkRead, Strategy::BulkWrite, Strategy::Vacuum];

    /// The ring's size in bytes, before the cap (`GetAccessStrategy`).
    pub fn ring_bytes(self) -> u64 {
        match self {
            Strategy::Normal => 0,
            Strategy::BulkRead | Strategy::Vacuum => 256 * 1024,
            Strategy::BulkWrite => 16 * 1024 * 1024,
        }
    }

    pub(super) fn ring_index(self) -> Option<usize> {
        Strategy::ALL.iter().position(|&s| s == self)
    }
}

/// One ring: its slots (buffer numbers, `None` until filled) and the current slot.
#[derive(Debug, Clone)]
pub(super) struct Ring {
    slots: Vec<Option<u32>>,
    current: usize,
}

impl Ring {
    /// The ring of `strategy` for `buffers` shared buffers: its size, at most an eighth of
    /// them, at least one.
    pub fn new(strategy: Strategy, buffers: u32) -> Self {
        let size = (strategy.ring_bytes() / super::BUFFER_BYTES).min(u64::from(buffers / 8)).max(1);
        Ring { slots: vec![None; size as usize], current: size as usize - 1 }
    }

    /// Moves to the next slot and gives its buffer if `reusable` says it may be taken again.
    pub fn next_reusable(&mut self, reusable: impl Fn(u32) -> bool) -> Option<u32> {
        self.current = (self.current + 1) % self.slots.len();
        self.slots[self.current].filter(|&b| reusable(b))
    }

    /// Puts `buffer` in the current slot.
    pub fn put(&mut self, buffer: u32) {
        self.slots[self.current] = Some(buffer);
    }
}
