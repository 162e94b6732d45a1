//! The rows a plot keeps of a long trajectory.

use crate::rollout::Row;

/// The most states a plot keeps of a longer trajectory (it keeps every k-th, and the last).
pub const MAX_POINTS: usize = 10_000;

/// The rows a plot keeps of a trajectory of up to `total` states, handed over one by one: every
/// `stride`-th, with the stride such that at most [`MAX_POINTS`] are kept (every row of a
/// trajectory of up to [`MAX_POINTS`] states), and the last row handed over.
pub struct Kept {
    stride: usize,
    rows: Vec<Row>,
    last: Option<Row>,
}

impl Kept {
    /// Nothing kept yet, of a trajectory of up to `total` states.
    pub fn new(total: usize) -> Self {
        Self {
            stride: total.div_ceil(MAX_POINTS).max(1),
            rows: Vec::new(),
            last: None,
        }
    }

    /// The next row.
    pub fn push(&mut self, row: Row) {
        if row.step.is_multiple_of(self.stride) {
            self.rows.push(row);
            self.last = None;
        } else {
            self.last = Some(row);
        }
    }

    /// The rows kept, in order.
    pub fn rows(mut self) -> Vec<Row> {
        self.rows.extend(self.last);
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::{Kept, MAX_POINTS};
    use crate::rollout::Row;

    fn kept(total: usize, handed: usize) -> Vec<usize> {
        let mut kept = Kept::new(total);
        for step in 0..handed {
            kept.push(Row {
                step,
                state: vec![0.0],
                reference: None,
            });
        }
        kept.rows().iter().map(|row| row.step).collect()
    }

    #[test]
    fn a_short_trajectory_is_kept_whole() {
        assert_eq!(kept(5, 5), [0, 1, 2, 3, 4]);
        assert_eq!(kept(MAX_POINTS, MAX_POINTS).len(), MAX_POINTS);
    }

    #[test]
    fn a_long_one_keeps_every_kth_state_and_the_last() {
        let steps = kept(25 * MAX_POINTS + 7, 25 * MAX_POINTS + 7);
        assert!(steps.len() <= MAX_POINTS + 1, "{}", steps.len());
        assert_eq!(steps[..3], [0, 26, 52]);
        assert_eq!(steps.last(), Some(&(25 * MAX_POINTS + 6)));
        // One that diverged early ends at its last finite state.
        assert_eq!(kept(25 * MAX_POINTS, 60).last(), Some(&59));
    }
}
