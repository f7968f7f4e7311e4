//! Reading sentences about the buffer pool curve: at which table size each run's misses per
//! 1,000 inserts turn up, and how its id index's leaf level then compares with the pool.
//! The leaf level at the turn is estimated from the index's final leaf count in proportion
//! to the rows loaded (random and ordered keys both grow the leaf level about linearly), and
//! said to be an estimate. Only runs with a curve and a pool size get a sentence.

use crate::text::{decimal, group_thousands, human_bytes, times};
use keylab_core::{IndexResult, PoolCurvePoint, RunResult};

/// Misses per 1,000 inserts at which a curve counts as turned: 1 % of inserts read a page.
pub(crate) const TURN_READS_PER_1K_ROWS: f64 = 10.0;

/// The first point at which `curve` reaches [`TURN_READS_PER_1K_ROWS`] and the median of the
/// rest of the load stays there (a server's lone bursts, a checkpoint or purge reading a few
/// pages, are not a turn).
pub(crate) fn turn_point(curve: &[PoolCurvePoint]) -> Option<&PoolCurvePoint> {
    (0..curve.len()).map(|i| &curve[i..]).find_map(|rest| {
        let mut rates: Vec<f64> = rest.iter().map(|p| p.reads_per_1k_rows).collect();
        rates.sort_by(f64::total_cmp);
        let median = rates[rates.len() / 2];
        (rest[0].reads_per_1k_rows >= TURN_READS_PER_1K_ROWS && median >= TURN_READS_PER_1K_ROWS)
            .then_some(&rest[0])
    })
}

/// One sentence per run with a curve; `key_index` picks the index that holds the id and
/// `page_bytes` is the page size.
pub(crate) fn curve_turns(
    runs: &[(&RunResult, &str)],
    key_index: fn(&RunResult) -> Option<&IndexResult>,
    page_bytes: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (run, label) in runs {
        let Some(bp) = &run.buffer_pool else { continue };
        let (Some(curve), Some(pool)) = (&bp.curve, bp.pool_bytes) else { continue };
        let Some(last) = curve.last() else { continue };
        let index = key_index(run);
        let leaf_bytes = |rows: u64| -> Option<u64> {
            let leaves = index?.leaf_pages? as f64;
            Some((leaves * page_bytes? * rows as f64 / last.rows.max(1) as f64) as u64)
        };
        let name = index.map_or("id index", |i| i.name.as_str());
        let pool_words = human_bytes(pool);
        let level = |rows: u64| match leaf_bytes(rows) {
            Some(b) => format!(
                "its {name} leaf level about {} ({} the {pool_words} pool)",
                human_bytes(b),
                times(b as f64 / pool as f64)
            ),
            None => format!("the {pool_words} pool"),
        };
        match turn_point(curve) {
            Some(p) => out.push(format!(
                "Buffer pool: {label} starts reading at {} rows (at least {} page reads per \
                 1,000 inserts), with {}; by {} rows it reads {} pages per 1,000 inserts.",
                group_thousands(p.rows),
                decimal(TURN_READS_PER_1K_ROWS, 0),
                level(p.rows),
                group_thousands(last.rows),
                decimal(last.reads_per_1k_rows, 1)
            )),
            None if last.pages_read == 0 => out.push(format!(
                "Buffer pool: {label} still reads nothing at {} rows, with {}: its inserts \
                 keep touching the same few leaves.",
                group_thousands(last.rows),
                level(last.rows)
            )),
            None => out.push(format!(
                "Buffer pool: {label} still reads almost nothing at {} rows ({} during the \
                 load, {} per 1,000 inserts), with {}: its inserts keep touching the same few \
                 leaves.",
                group_thousands(last.rows),
                plural(last.pages_read, "page read", "page reads"),
                decimal(last.pages_read as f64 * 1000.0 / last.rows.max(1) as f64, 2),
                level(last.rows)
            )),
        }
    }
    out
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", group_thousands(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use keylab_core::PoolCurveSampler;

    fn curve(reads_per_1k: &[u64]) -> Vec<PoolCurvePoint> {
        let mut s = PoolCurveSampler::new();
        let mut read = 0;
        for (i, r) in reads_per_1k.iter().enumerate() {
            read += r;
            s.offer((i as u64 + 1) * 1000, read, None);
        }
        s.finish(reads_per_1k.len() as u64 * 1000, read, None)
    }

    #[test]
    fn a_lone_burst_is_not_a_turn() {
        assert_eq!(turn_point(&curve(&[0, 0, 1, 0, 65, 1, 0, 2, 0, 0])), None);
        assert_eq!(turn_point(&curve(&[0, 0, 1, 0, 12, 40, 90, 120])).map(|p| p.rows), Some(5000));
    }
}
