//! `keylab validate`'s buffer pool check, its arithmetic: the simulator's page reads and
//! writes against a server's for the same seeded loads under a small pool, and the table
//! that shows them. It runs nothing itself (`src/cmd/validate/pool.rs` runs the loads).

use serde::Serialize;
use std::fmt::Write;

/// The pool of the check: 16 MiB, the smallest round size MariaDB 10.11 starts with at 16k
/// pages (the page cleaner then holds its LRU at 256 pages).
pub const POOL_BYTES: u64 = 16 << 20;
/// Rows per load: the random keys' tables grow to about 2.2x (`uuid4:bin`) and 3.4x
/// (`uuid4:text`) the pool.
pub const ROWS: u64 = 600_000;
/// Two random keys and an ordered one.
pub const VARIANTS: [&str; 3] = ["uuid4:text", "uuid4:bin", "uuid7:text"];
/// The bound the simulator's page reads of a random key should keep (percent of the
/// server's); the table says which keys keep it.
pub const READS_BOUND_PCT: f64 = 10.0;

/// One variant on both engines.
#[derive(Debug, Clone, Serialize)]
pub struct PoolCheck {
    /// The key variant.
    pub variant: String,
    /// Rows loaded.
    pub rows: u64,
    /// Pool size the server reports (bytes).
    pub pool_bytes: Option<u64>,
    /// Page reads (misses) during the load: simulator, server.
    pub sim_pages_read: Option<u64>,
    /// The server's `Innodb_buffer_pool_reads` over the load.
    pub server_pages_read: Option<u64>,
    /// `(sim - server) / server x 100`.
    pub reads_error_pct: Option<f64>,
    /// Page writes: the simulator's.
    pub sim_pages_written: Option<u64>,
    /// The server's `Innodb_pages_written` over the load.
    pub server_pages_written: Option<u64>,
    /// `(sim - server) / server x 100`.
    pub writes_error_pct: Option<f64>,
}

/// `(sim - server) / server x 100`; `None` without both or with a server figure of 0.
pub fn error_pct(sim: Option<u64>, server: Option<u64>) -> Option<f64> {
    let (a, b) = (sim? as f64, server? as f64);
    (b > 0.0).then(|| (a - b) * 100.0 / b)
}

/// The check as a table.
pub fn render(checks: &[PoolCheck]) -> String {
    let n = |v: Option<u64>| v.map_or("null".into(), thousands);
    let pct = |v: Option<f64>| v.map_or("n/a".into(), |p| format!("{p:+.1}%"));
    let mut out = String::new();
    let pool = checks.first().and_then(|c| c.pool_bytes).unwrap_or(POOL_BYTES);
    let _ = writeln!(
        out,
        "Buffer pool ({} MiB, {} rows per load, read-ahead off on the server):",
        pool >> 20,
        thousands(ROWS)
    );
    let _ = writeln!(
        out,
        "{:<12} {:>12} {:>12} {:>8}   {:>12} {:>12} {:>8}",
        "variant", "sim reads", "server reads", "error", "sim writes", "server writes", "error"
    );
    for c in checks {
        let _ = writeln!(
            out,
            "{:<12} {:>12} {:>12} {:>8}   {:>12} {:>12} {:>8}",
            c.variant,
            n(c.sim_pages_read),
            n(c.server_pages_read),
            pct(c.reads_error_pct),
            n(c.sim_pages_written),
            n(c.server_pages_written),
            pct(c.writes_error_pct)
        );
    }
    let random: Vec<String> = checks
        .iter()
        .filter(|c| c.variant.starts_with("uuid4"))
        .filter_map(|c| {
            let e = c.reads_error_pct?;
            let held = if e.abs() <= READS_BOUND_PCT { "within" } else { "outside" };
            Some(format!("{} {held}", c.variant))
        })
        .collect();
    if !random.is_empty() {
        let _ = writeln!(
            out,
            "Random keys' reads against the {READS_BOUND_PCT:.0} % bound: {}. The server's reads \
             also count the system tablespace's pages (rollback-segment headers read by purge, \
             undo pages) and the ibuf bitmap (4 to 10 % at 16 MiB, more on a slower load), \
             which the model does not hold; its writes are all LRU batch writes \
             (docs/model-rules.md §9).",
            random.join(", ")
        );
    }
    out
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_relative_to_the_server() {
        assert_eq!(error_pct(Some(90), Some(100)), Some(-10.0));
        assert_eq!(error_pct(Some(1), Some(0)), None);
        assert_eq!(error_pct(None, Some(5)), None);
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }

    #[test]
    fn the_table_shows_both_engines_and_the_errors() {
        let check = PoolCheck {
            variant: "uuid4:text".into(),
            rows: ROWS,
            pool_bytes: Some(16 << 20),
            sim_pages_read: Some(439_855),
            server_pages_read: Some(531_192),
            reads_error_pct: error_pct(Some(439_855), Some(531_192)),
            sim_pages_written: Some(445_298),
            server_pages_written: None,
            writes_error_pct: None,
        };
        let table = render(&[check]);
        assert!(table.starts_with("Buffer pool (16 MiB, 600,000 rows per load"), "{table}");
        assert!(table.contains("439,855") && table.contains("531,192"), "{table}");
        assert!(table.contains("-17.2%") && table.contains("null") && table.contains("n/a"));
        assert!(table.contains("10 % bound: uuid4:text outside."), "{table}");
    }
}
