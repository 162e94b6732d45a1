//! `Network.rollout` in blocks of windows and segments of states, so that Ctrl-C stops it
//! between them ([`Pacer`]) even in one window's rollout of 10⁸ steps.
//!
//! Each pass of the network reads the last `seq` states, which are the previous pass's whole
//! output, and appends its `seq` output states (GML's `iterate` with prediction window `seq`):
//! the passes read the windows that start at multiples of `seq`. A segment holds a multiple of
//! `seq` states, and the next starts from its last `seq` (a window the unsegmented rollout
//! reads too), in row-major windows: the same trajectory, bit for bit. (The lane path pads a
//! partial group of windows with copies of its first, so a window's states do not depend on its
//! neighbours in a block either.)

use geomattn_networks::Network;
use geomattn_networks::batch::{Arithmetic, Layout};
use pyo3::prelude::*;

use crate::arrays;
use crate::parallel::{self, Pacer};
use crate::spec_api::Element;

/// About the states a segment of a long rollout holds (its initial window's included): the
/// largest multiple of `seq` below it, and at least `2·seq`.
const SEGMENT: usize = 1024;

/// A rollout of `states` states (`z_0 … z_{states−1}`) per window.
pub(crate) struct Rollout<'a> {
    pub(crate) net: &'a dyn Network,
    pub(crate) dim: usize,
    pub(crate) seq: usize,
    pub(crate) states: usize,
    pub(crate) checked: bool,
    pub(crate) arithmetic: Arithmetic,
}

impl Rollout<'_> {
    /// The trajectories of the windows `input` (in `layout`), row-major `dim × states` each, into
    /// `output`.
    ///
    /// # Errors
    /// A non-finite state (checked) as `ValueError`, naming the window in the batch and the state
    /// in its trajectory; `MemoryError` for a segment's buffer; what a signal handler raises.
    pub(crate) fn run<X: Element>(
        &self,
        py: Python<'_>,
        input: &[X],
        layout: Layout,
        output: &mut [X],
    ) -> PyResult<()> {
        let (window, trajectory) = (self.dim * self.seq, self.dim * self.states);
        let count = input.len().checked_div(window).unwrap_or(0);
        let segment = SEGMENT.max(2 * self.seq) / self.seq * self.seq;
        // A block of at most `segment` states per window: the lanes and the threads busy.
        let mut pacer = Pacer::new(parallel::threads() * parallel::MIN_CHUNK);
        let mut start = 0;
        while start < count {
            let block = pacer.next(start, count);
            let input = &input[block.start * window..block.end * window];
            let output = &mut output[block.start * trajectory..block.end * trajectory];
            if self.states <= segment {
                pacer.run(py, || self.segment(input, layout, output, block.start, 0))?;
            } else {
                self.in_segments(py, &mut pacer, input, layout, output, block.start, segment)?;
            }
            start = block.end;
        }
        Ok(())
    }

    /// One call of the network's rollout on `input`'s windows into `output`, whose trajectories'
    /// states are the batch's windows from `first` on and their states from `step` on.
    fn segment<X: Element>(
        &self,
        input: &[X],
        layout: Layout,
        output: &mut [X],
        first: usize,
        step: usize,
    ) -> PyResult<()> {
        let per_output = output.len() / (input.len() / (self.dim * self.seq));
        parallel::run(input, self.dim * self.seq, output, per_output, |i, o| {
            X::rollout(self.net, i, layout, o, self.checked, self.arithmetic)
        })
        .map_err(|e| parallel::batch_error(&parallel::shifted(e, first, step)))
    }

    /// The trajectories of a block of windows (the batch's from `first` on), `segment` states at
    /// a time.
    #[allow(clippy::too_many_arguments)]
    fn in_segments<X: Element>(
        &self,
        py: Python<'_>,
        pacer: &mut Pacer,
        input: &[X],
        layout: Layout,
        output: &mut [X],
        first: usize,
        segment: usize,
    ) -> PyResult<()> {
        let (dim, seq, states) = (self.dim, self.seq, self.states);
        let windows = input.len() / (dim * seq);
        let mut buffer = arrays::collected(
            windows * dim * segment,
            std::iter::repeat_n(input[0], windows * dim * segment),
        )?;
        let mut initial = arrays::collected(input.len(), input.iter().copied())?;
        let mut initial_layout = layout;
        // States written so far per trajectory (a multiple of `seq` until the last segment); a
        // segment after the first repeats the `seq` states it starts from.
        let mut done = 0;
        while done < states {
            let repeated = if done == 0 { 0 } else { seq };
            let length = segment.min(states - done + repeated);
            let part = &mut buffer[..windows * dim * length];
            pacer.run(py, || {
                self.segment(&initial, initial_layout, part, first, done - repeated)
            })?;
            for (row, states_row) in part
                .chunks_exact(length)
                .zip(output.chunks_exact_mut(states))
            {
                states_row[done..done + length - repeated].copy_from_slice(&row[repeated..]);
            }
            done += length - repeated;
            if done < states {
                // The next segment's windows: the last `seq` states, row-major `dim × seq`.
                initial.clear();
                for states_row in output.chunks_exact(states) {
                    initial.extend_from_slice(&states_row[done - seq..done]);
                }
                initial_layout = Layout::Rows;
            }
        }
        Ok(())
    }
}
