//! `--repeat N` on `compare` and `run`: how many times each variant (each scenario run) runs
//! on a server, each time on a fresh table with the same rows, so every timed figure comes
//! with its spread (`keylab_core::fold_repeats`).
//!
//! Not for: the repeat loop itself (in `cmd/compare.rs` and `cmd/run.rs`).

use crate::UsageError;
use keylab_core::EngineKind;

/// Repeats on a server when neither `--repeat` nor `KEYLAB_REPEAT` says: the fewest that
/// give a median and a spread (one run showed uuid +61%, the next +2.6%: a single run's time
/// is not a figure). The simulator runs once: its figures are the same every time.
pub const SERVER_DEFAULT_REPEATS: u32 = 3;

/// The most repeats `--repeat` takes (a whole load per repeat).
pub const MAX_REPEATS: u32 = 100;

/// The repeats of a run on `engine`: `given` (`--repeat` or `KEYLAB_REPEAT`), else
/// [`SERVER_DEFAULT_REPEATS`] on a server and 1 on the simulator. More than one repeat on
/// the simulator is refused (exit 2): it would do nothing but take longer.
pub fn repeats(given: Option<u32>, engine: EngineKind) -> Result<u32, UsageError> {
    match (given, engine) {
        (Some(n), EngineKind::Sim) if n > 1 => Err(UsageError(format!(
            "--repeat {n}: the simulator's figures are the same on every run (it has no clock \
             and no noise), so repeats would do nothing; --repeat applies to a server only \
             (--engine mariadb, mysql or postgres). Leave --repeat out on --engine sim"
        ))),
        (Some(n), _) => Ok(n),
        (None, EngineKind::Sim) => Ok(1),
        (None, _) => Ok(SERVER_DEFAULT_REPEATS),
    }
}

/// A scenario's `[engine] repeat = n` on a server: at most [`MAX_REPEATS`], as `--repeat`.
pub fn repeats_from_scenario(n: u32) -> Result<u32, UsageError> {
    if n > MAX_REPEATS {
        return Err(UsageError(format!(
            "the scenario's [engine] repeat = {n}: at most {MAX_REPEATS} (each repeat is a whole \
             run)"
        )));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_repeat_three_times_and_the_simulator_once() {
        assert_eq!(repeats(None, EngineKind::Mariadb).unwrap(), 3);
        assert_eq!(repeats(None, EngineKind::Sim).unwrap(), 1);
        assert_eq!(repeats(Some(1), EngineKind::Sim).unwrap(), 1);
        assert_eq!(repeats(Some(5), EngineKind::Postgres).unwrap(), 5);
        let err = repeats(Some(3), EngineKind::Sim).unwrap_err().0;
        assert!(err.starts_with("--repeat 3: the simulator"), "{err}");
    }
}
