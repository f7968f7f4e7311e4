//! The reading's sentence on UUIDv1's time-field swap (E3): canonical v1 (`uuid1:text`,
//! `uuid1:bin`) against `uuid1:bin-swap` on the same rows and placement.
//!
//! Canonical v1 starts with `time_low`, the low 32 bits of its 100-ns timestamp, which wraps
//! every ~429.5 s of the id clock; after each wrap new ids sort among the earlier ones. The
//! swapped layout (`UUID_TO_BIN(u, 1)`) puts the high time bits first, so ids ascend. The
//! sentence states the page figures and says which of the two the figures show; it does not
//! know the clock span, so when the figures do not differ it says what that implies.

use crate::text::{group_thousands, times};
use keylab_core::RunResult;

/// One sentence per canonical v1 run that has a swapped twin (same rows and placement).
pub(crate) fn v1_swap(
    runs: &[RunResult],
    key_pages: impl Fn(&RunResult) -> Option<u64>,
) -> Vec<String> {
    let mut out = Vec::new();
    for swapped in runs.iter().filter(|r| r.variant == "uuid1:bin-swap") {
        let twins = runs.iter().filter(|r| {
            (r.variant == "uuid1:bin" || r.variant == "uuid1:text")
                && r.rows == swapped.rows
                && r.placement == swapped.placement
        });
        let Some(swap_pages) = key_pages(swapped).filter(|&p| p > 0) else { continue };
        let pairs: Vec<(String, u64)> =
            twins.filter_map(|r| Some((r.variant.clone(), key_pages(r)?))).collect();
        if pairs.is_empty() {
            continue;
        }
        let listed: Vec<String> =
            pairs.iter().map(|(v, p)| format!("{v} {}", group_thousands(*p))).collect();
        // Compare with the binary twin where there is one: same key length, layout differs.
        let (against, pages) = pairs.iter().find(|(v, _)| v == "uuid1:bin").unwrap_or(&pairs[0]);
        let ratio = *pages as f64 / swap_pages as f64;
        let head = format!(
            "UUIDv1's time-field swap ({} rows, {}): id index pages uuid1:bin-swap {} vs {}.",
            group_thousands(swapped.rows),
            swapped.placement,
            group_thousands(swap_pages),
            listed.join(", ")
        );
        out.push(if ratio >= 1.05 {
            format!(
                "{head} {against} takes {} the pages: canonical v1 starts with time_low, \
                 which wraps every ~429.5 s of the id clock, and after each wrap new ids land \
                 among the earlier ones and split pages; the swapped layout puts the high time \
                 bits first, so its ids ascend and fill pages in order.",
                times(ratio)
            )
        } else {
            format!(
                "{head} No difference: time_low did not wrap within this run's id clock (it \
                 wraps every ~429.5 s), so canonical v1 arrived in order too; a longer clock \
                 span (`step_ms`) shows the swap's effect."
            )
        });
    }
    out
}
