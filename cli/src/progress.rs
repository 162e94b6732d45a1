//! A progress bar on stderr for long runs: it appears once a second has passed (and only on a
//! terminal, as `indicatif` decides), and is cleared when dropped.

use std::time::{Duration, Instant};

use indicatif::ProgressBar;

/// Updates between two looks at the clock.
const EVERY: usize = 1024;

/// The progress of `total` items.
pub struct Progress {
    start: Instant,
    total: usize,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Nothing shown yet.
    pub fn new(total: usize) -> Self {
        Self {
            start: Instant::now(),
            total,
            bar: None,
        }
    }

    /// `done` items are done (looked at every [`EVERY`] items: cheap per item).
    pub fn update(&mut self, done: usize) {
        if !done.is_multiple_of(EVERY) {
            return;
        }
        if self.bar.is_none() && self.start.elapsed() > Duration::from_secs(1) {
            self.bar = Some(ProgressBar::new(self.total as u64));
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
