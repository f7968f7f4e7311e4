//! A progress bar with rows, rate and ETA on a terminal; nothing when standard error is not
//! a terminal (piped, CI).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keylab_core::Progress;
use std::io::IsTerminal;

/// Progress of the current variant's load.
pub struct LoadProgress {
    bar: Option<ProgressBar>,
}

impl LoadProgress {
    /// A bar on standard error when it is a terminal.
    pub fn new() -> Self {
        LoadProgress { bar: None }
    }
}

impl Progress for LoadProgress {
    fn start(&mut self, label: &str, rows: u64) {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(rows), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{prefix:>18} [{bar:30}] {human_pos}/{human_len} rows {per_sec} eta {eta}",
        )
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
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
