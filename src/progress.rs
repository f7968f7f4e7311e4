//! Progress bars with rows, rate and ETA on a terminal, one per running job (several jobs
//! share one `MultiProgress`); nothing when standard error is not a terminal (piped, CI).

use indicatif::{
    HumanCount, MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle,
};
use keylab_core::Progress;
use std::io::IsTerminal;

/// The bars of one command: every running job draws its own line.
pub struct Bars {
    multi: Option<MultiProgress>,
}

impl Bars {
    /// Bars on standard error when it is a terminal, else none.
    pub fn new() -> Self {
        let multi = std::io::stderr()
            .is_terminal()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Bars { multi }
    }

    /// No bars at all (tests).
    #[cfg(test)]
    pub fn hidden() -> Self {
        Bars { multi: None }
    }

    /// A line above the bars (on a terminal only, like the bars).
    pub fn println(&self, line: &str) {
        if let Some(multi) = &self.multi {
            let _ = multi.println(line);
        }
    }

    /// The progress of one job (one worker; it may run several loads one after another).
    pub fn bar(&self) -> LoadProgress {
        LoadProgress { multi: self.multi.clone(), bar: None }
    }
}

/// Progress of one job's current load.
pub struct LoadProgress {
    multi: Option<MultiProgress>,
    bar: Option<ProgressBar>,
}

impl Progress for LoadProgress {
    fn start(&mut self, label: &str, rows: u64) {
        let Some(multi) = &self.multi else {
            return;
        };
        let bar = multi.add(ProgressBar::new(rows));
        let style = ProgressStyle::with_template(
            "{prefix:>18} [{bar:30}] {human_pos}/{human_len} rows {rate} eta {eta}",
        )
        .map(|style| {
            // indicatif's own `{per_sec}` prints fractions of a row (`541,871.545/s`).
            style.with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", HumanCount(state.per_sec().round() as u64));
            })
        })
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(label.to_string());
        self.bar = Some(bar);
    }

    fn advance(&mut self, rows: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(rows);
        }
    }

    fn finish(&mut self) {
        if let (Some(bar), Some(multi)) = (self.bar.take(), &self.multi) {
            bar.finish_and_clear();
            multi.remove(&bar);
        }
    }
}
