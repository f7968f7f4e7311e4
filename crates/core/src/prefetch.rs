//! Spare threads of a `--jobs` budget, and a row stream that makes its rows on one of them.
//!
//! A command runs up to `--jobs` runs at once; when fewer runs than jobs are left (one
//! variant, or the last long run of a series), the free jobs are idle. [`SpareThreads`]
//! counts them, and [`Prefetch`] lets a run take one: the rest of its row stream is made on
//! a helper thread and handed over in batches through a bounded channel, while the run's
//! own thread only loads. Runs plus helpers never exceed the budget: a helper exists only
//! while it holds a permit, and the permit goes back when the stream ends or is dropped.
//!
//! The rows and their order are exactly the source iterator's, so no figure changes. It does
//! not split a run's load itself (the model inserts in stream order on one thread).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

/// Rows per batch sent from the helper.
const BATCH_ROWS: usize = 1024;
/// Batches the helper may be ahead (bounds the rows in flight to 8 × 1024).
const BATCHES_AHEAD: usize = 8;
/// Rows made inline between two looks for a spare thread.
const LOOK_EVERY_ROWS: u32 = 8192;

/// Threads of a `--jobs` budget that no run uses.
#[derive(Debug, Default)]
pub struct SpareThreads {
    free: AtomicUsize,
}

impl SpareThreads {
    /// `free` threads spare now.
    pub fn new(free: usize) -> SpareThreads {
        SpareThreads { free: AtomicUsize::new(free) }
    }

    /// One more thread is spare (a worker found no run left to start).
    pub fn release(&self) {
        self.free.fetch_add(1, Ordering::AcqRel);
    }

    /// Threads spare now.
    pub fn free(&self) -> usize {
        self.free.load(Ordering::Acquire)
    }

    /// Takes a spare thread, if there is one, until the permit is dropped.
    pub fn try_take(&self) -> Option<SparePermit<'_>> {
        self.free
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .ok()
            .map(|_| SparePermit(self))
    }
}

/// A thread taken from [`SpareThreads`]; given back on drop.
#[derive(Debug)]
pub struct SparePermit<'a>(&'a SpareThreads);

impl Drop for SparePermit<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// The helper making the rest of a stream.
struct Helper<'a, T> {
    rx: Option<Receiver<Vec<T>>>,
    handle: Option<JoinHandle<()>>,
    _permit: SparePermit<'a>,
}

impl<T> Helper<'_, T> {
    /// Stops the helper (a closed channel ends its loop) and waits for it; a panic in it is
    /// raised here.
    fn stop(&mut self) {
        self.rx = None;
        if let Some(h) = self.handle.take() {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

/// The items of `source` in order, made on a spare thread once one is free (see the module
/// doc); inline until then, and always inline without a budget.
pub struct Prefetch<'a, I: Iterator> {
    inline: Option<I>,
    spare: Option<&'a SpareThreads>,
    until_look: u32,
    helper: Option<Helper<'a, I::Item>>,
    batch: std::vec::IntoIter<I::Item>,
}

impl<'a, I> Prefetch<'a, I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    /// `source`, taking a thread from `spare` (if any) when one is free.
    pub fn new(source: I, spare: Option<&'a SpareThreads>) -> Self {
        Prefetch {
            inline: Some(source),
            spare,
            until_look: 0,
            helper: None,
            batch: Vec::new().into_iter(),
        }
    }

    /// Whether the rest of the stream is made on a helper thread.
    pub fn on_helper(&self) -> bool {
        self.helper.is_some()
    }

    /// Moves the rest of the source to a helper thread holding `permit`.
    fn hand_over(&mut self, permit: SparePermit<'a>) {
        let Some(mut source) = self.inline.take() else { return };
        let (tx, rx) = sync_channel::<Vec<I::Item>>(BATCHES_AHEAD);
        let spawned = std::thread::Builder::new().name("keylab-rows".into()).spawn(move || loop {
            let batch: Vec<I::Item> = source.by_ref().take(BATCH_ROWS).collect();
            if batch.is_empty() || tx.send(batch).is_err() {
                break;
            }
        });
        match spawned {
            Ok(handle) => {
                self.helper = Some(Helper { rx: Some(rx), handle: Some(handle), _permit: permit })
            }
            // The system refused a thread (the source went with the closure): fail loudly
            // rather than end the stream short.
            Err(e) => panic!("cannot start a row thread: {e}"),
        }
    }
}

impl<I> Iterator for Prefetch<'_, I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if let Some(item) = self.batch.next() {
            return Some(item);
        }
        if let Some(h) = &mut self.helper {
            let received = h.rx.as_ref().and_then(|rx| rx.recv().ok());
            return match received {
                Some(batch) => {
                    self.batch = batch.into_iter();
                    self.batch.next()
                }
                None => {
                    h.stop();
                    None
                }
            };
        }
        if self.until_look == 0 {
            self.until_look = LOOK_EVERY_ROWS;
            if let Some(permit) = self.spare.and_then(SpareThreads::try_take) {
                self.hand_over(permit);
                return self.next();
            }
        }
        self.until_look -= 1;
        self.inline.as_mut()?.next()
    }
}

impl<I: Iterator> Drop for Prefetch<'_, I> {
    fn drop(&mut self) {
        if let Some(h) = &mut self.helper {
            h.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_the_source_with_or_without_a_helper() {
        let want: Vec<u64> = (0..50_000).collect();
        for free in [0, 1, 3] {
            let spare = SpareThreads::new(free);
            let mut p = Prefetch::new(0..50_000u64, Some(&spare));
            let got: Vec<u64> = p.by_ref().collect();
            assert_eq!(got, want, "free {free}");
            assert_eq!(p.on_helper(), free > 0);
            drop(p);
            assert_eq!(spare.free(), free, "the permit went back");
        }
        let got: Vec<u64> = Prefetch::new(0..50_000u64, None).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_thread_freed_mid_stream_is_taken_and_given_back() {
        let spare = SpareThreads::new(0);
        let mut p = Prefetch::new(0..100_000u64, Some(&spare));
        let head: Vec<u64> = p.by_ref().take(10_000).collect();
        assert!(!p.on_helper());
        spare.release();
        let tail: Vec<u64> = p.by_ref().collect();
        assert!(p.on_helper());
        assert_eq!(spare.free(), 0, "taken");
        assert_eq!(
            head.into_iter().chain(tail).collect::<Vec<_>>(),
            (0..100_000).collect::<Vec<_>>()
        );
        drop(p);
        assert_eq!(spare.free(), 1);
    }

    #[test]
    fn a_stream_dropped_early_stops_its_helper() {
        let spare = SpareThreads::new(1);
        let mut p = Prefetch::new(0.., Some(&spare));
        assert_eq!(p.by_ref().take(5).collect::<Vec<u64>>(), vec![0, 1, 2, 3, 4]);
        assert!(p.on_helper());
        drop(p);
        assert_eq!(spare.free(), 1);
    }

    #[test]
    fn permits_never_exceed_the_spare_threads() {
        let spare = SpareThreads::new(2);
        let a = spare.try_take();
        let b = spare.try_take();
        assert!(a.is_some() && b.is_some());
        assert!(spare.try_take().is_none());
        drop(a);
        assert!(spare.try_take().is_some());
    }
}
