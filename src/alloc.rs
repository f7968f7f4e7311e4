//! The global allocator: mimalloc, with word-aligned requests sent to its plain entry points.
//!
//! `mimalloc::MiMalloc` passes every request to `mi_malloc_aligned` / `mi_realloc_aligned`.
//! In mimalloc 3 an aligned request whose block size is not a power of two (a row's
//! `Vec<Value>` of 96 bytes, 8-aligned) misses the fast path and takes the over-allocating
//! one, every time: about 140 instructions per row where `mi_malloc` takes about 20
//! (callgrind, docs/benchmarks.md §12). Every mimalloc block is at least word-aligned
//! (mimalloc's own `mi_realloc_aligned` uses the plain path for such alignments), so
//! requests of alignment up to a word go to `mi_malloc` / `mi_zalloc` / `mi_realloc`; larger
//! alignments keep the aligned calls.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

extern "C" {
    fn mi_malloc(size: usize) -> *mut c_void;
    fn mi_zalloc(size: usize) -> *mut c_void;
    fn mi_realloc(p: *mut c_void, newsize: usize) -> *mut c_void;
}

/// Alignments every mimalloc block meets (`sizeof(uintptr_t)`).
const WORD: usize = std::mem::size_of::<usize>();

/// mimalloc, word-aligned requests through its plain calls (module docs).
pub struct Mimalloc;

// SAFETY: each method forwards to mimalloc, which returns null or a block of at least the
// size asked for; a block from the plain calls is word-aligned, and they are used only for
// alignments up to a word; mimalloc frees and reallocates blocks from either family.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: see the impl's comment.
            unsafe { mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: forwarded with the caller's guarantees.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: see the impl's comment.
            unsafe { mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: forwarded with the caller's guarantees.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees (`mi_free` takes any block).
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: see the impl's comment; `ptr` is a live mimalloc block.
            unsafe { mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            // SAFETY: forwarded with the caller's guarantees.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        fn mi_usable_size(p: *const c_void) -> usize;
    }

    #[test]
    fn a_rows_vec_takes_a_block_of_its_size() {
        // The global allocator (main.rs): a row's `Vec<Value>` of 96 bytes must come from
        // mimalloc's 96-byte blocks, not from the over-allocating aligned path (a larger block,
        // the pointer moved into it), which `mimalloc::MiMalloc` took.
        let layout = Layout::from_size_align(96, 8).unwrap();
        for _ in 0..100 {
            // SAFETY: a valid nonzero layout; the block is freed once with it.
            #[allow(unsafe_code)]
            unsafe {
                let p = std::alloc::alloc(layout);
                assert_eq!(mi_usable_size(p.cast()), 96);
                std::alloc::dealloc(p, layout);
            }
        }
    }

    #[test]
    fn blocks_meet_their_alignment_and_keep_their_bytes() {
        let a = Mimalloc;
        for align in [1, 2, 4, 8, 16, 64, 4096] {
            for size in [1, 3, 8, 24, 96, 100, 1000, 5000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: nonzero sizes, valid layouts; each block is freed once, with its layout.
                #[allow(unsafe_code)]
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null() && p as usize % align == 0, "{size} {align}");
                    p.write_bytes(7, size);
                    let q = a.realloc(p, layout, size * 3);
                    assert!(!q.is_null() && q as usize % align == 0, "{size} {align}");
                    assert!((0..size).all(|i| *q.add(i) == 7));
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert!(!z.is_null() && z as usize % align == 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
