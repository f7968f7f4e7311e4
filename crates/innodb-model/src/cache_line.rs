//! A hint to the CPU's caches: load the line holding an address before it is needed. Used by
//! the prefetching batch insert (`prefetch.rs`), the page search (`page/search.rs`) and the
//! buffer pool's LRU nodes (`pool/`).
//!
//! Not for: anything a model figure depends on; a hint changes no memory and never faults.

/// Hints the CPU to load the cache line holding `p` into every cache level. Any address is
/// allowed: a prefetch never faults and never changes memory (no-op off x86_64).
#[inline(always)]
pub(crate) fn prefetch_line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint: it reads nothing architecturally visible and cannot
    // fault, whatever the address (Intel SDM, PREFETCHh).
    #[allow(unsafe_code)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
