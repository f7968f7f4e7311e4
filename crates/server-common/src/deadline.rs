//! A deadline on a blocking call the client libraries cannot bound themselves: their
//! connect timeouts cover the TCP connect only, so a port that accepts and never answers
//! the server's greeting or start-up would hold keylab forever.
//!
//! It knows no client library; the engine crates pass their own connect call.

use std::sync::mpsc;
use std::time::Duration;

/// Runs `call` on a thread of its own and waits for it at most `timeout`: `Some` with its
/// result, or `None` when the time ran out. A call that never returns is left blocked on
/// its socket and ends with the process (or when the peer closes it).
pub fn within<T: Send + 'static>(
    timeout: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("keylab-connect".into()).spawn(move || {
        let _ = tx.send(call());
    });
    if spawned.is_err() {
        // No thread to spare: nothing is running, so say the time ran out.
        return None;
    }
    rx.recv_timeout(timeout).ok()
}

/// The message part for a call that got no answer within `timeout`.
pub fn no_answer(timeout: Duration) -> String {
    format!(
        "no answer within {} s (the port accepted the connection, but no server answered)",
        timeout.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_returns_in_time_gives_its_result() {
        assert_eq!(within(Duration::from_secs(5), || 7), Some(7));
    }

    #[test]
    fn a_call_that_hangs_gives_none_after_the_timeout() {
        let t0 = std::time::Instant::now();
        let r = within(Duration::from_millis(200), || std::thread::sleep(Duration::from_secs(5)));
        assert!(r.is_none());
        assert!(t0.elapsed() < Duration::from_secs(2));
    }
}
