//! What the batches run on: the lane path (where it is compiled and the scalar has it) or the
//! scalar path, and the staging of the caller's windows (any scalar, either layout) into the
//! network's scalar, column-major, which both read.

use geomattn::nalgebra::SMatrix;
use geomattn::{Error, LaneTwin, SequenceLayer};

use super::{Arithmetic, Layout};
use crate::Scalar;

/// Windows staged at a time: the staging buffers (two of `STAGED` windows in the network's
/// scalar) stay in the processor's second-level cache for the sizes of the grid (288 KiB at
/// `d = 4`, `T = 4` in `f64`), and are allocated once per batch call, not per window.
pub const STAGED: usize = 1024;

/// `net` on every window of a flat column-major `(D, T, B)` buffer in `arithmetic`: the lane
/// path where the scalar has it ([`Scalar::vector_lanes`]), else the scalar path, one window at
/// a time.
fn run<S: Scalar, Net, const D: usize, const T: usize>(
    net: &Net,
    arithmetic: Arithmetic,
    input: &[S],
    output: &mut [S],
) -> Result<(), Error>
where
    Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S>,
{
    if arithmetic == Arithmetic::Fast
        && let Some(done) = S::vector_lanes::<Net, D, T>(net, input, output)
    {
        return done;
    }
    net.forward_flat(input, output)
}

/// The two staging buffers of a batch: windows in, results out, in the network's scalar `S`,
/// column-major.
pub(super) struct Staged<S, const D: usize, const T: usize> {
    windows: Vec<S>,
    results: Vec<S>,
}

impl<S: Scalar, const D: usize, const T: usize> Staged<S, D, T> {
    /// Buffers for a batch of `count` windows (at most [`STAGED`] at a time).
    pub(super) fn new(count: usize) -> Self {
        let len = count.min(STAGED) * D * T;
        Self {
            windows: vec![S::zero(); len],
            results: vec![S::zero(); len],
        }
    }

    /// The forward pass of the windows `z` (at most [`STAGED`], in `layout`): the results,
    /// column-major in `S`.
    pub(super) fn forward<X: Scalar, Net>(
        &mut self,
        net: &Net,
        arithmetic: Arithmetic,
        z: &[X],
        layout: Layout,
    ) -> Result<&mut [S], Error>
    where
        Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S>,
    {
        let len = z.len();
        stage::<S, X, D, T>(z, layout, &mut self.windows[..len]);
        run(
            net,
            arithmetic,
            &self.windows[..len],
            &mut self.results[..len],
        )?;
        Ok(&mut self.results[..len])
    }

    /// GML's `iterate` from the initial windows `z` (at most [`STAGED`], in `layout`) into their
    /// row-major `D×states` trajectories `out`: all windows advance together, one forward pass
    /// of all of them per step.
    pub(super) fn rollout<X: Scalar, Net>(
        &mut self,
        net: &Net,
        arithmetic: Arithmetic,
        z: &[X],
        layout: Layout,
        out: &mut [X],
        states: usize,
    ) -> Result<(), Error>
    where
        Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S>,
    {
        let len = z.len();
        stage::<S, X, D, T>(z, layout, &mut self.windows[..len]);
        write_states::<S, X, D, T>(&self.windows[..len], out, states, 0);
        // As GML's `iterate` with prediction window `T`: each pass reads the last `T` states,
        // which are the previous pass's whole output, and appends its `T` columns.
        let mut filled = T;
        while filled < states {
            run(
                net,
                arithmetic,
                &self.windows[..len],
                &mut self.results[..len],
            )?;
            write_states::<S, X, D, T>(&self.results[..len], out, states, filled);
            core::mem::swap(&mut self.windows, &mut self.results);
            filled += T;
        }
        Ok(())
    }
}

/// The chunks of at most [`STAGED`] items of `input` (`per_input` values each, > 0) and `output`
/// (`per_output` each, > 0), with the index of each chunk's first item.
pub(super) fn chunks<'a, X>(
    input: &'a [X],
    per_input: usize,
    output: &'a mut [X],
    per_output: usize,
) -> impl Iterator<Item = (usize, (&'a [X], &'a mut [X]))> {
    input
        .chunks(STAGED * per_input)
        .zip(output.chunks_mut(STAGED * per_output))
        .enumerate()
        .map(|(chunk, pair)| (chunk * STAGED, pair))
}

/// `x` in the scalar `S` (exact, or no conversion at all, when the two agree).
fn convert<X: Scalar, S: Scalar>(x: X) -> S {
    S::from_double(x.to_double())
}

/// The windows `z` (in `layout`) column-major in `S` into `staged`.
fn stage<S: Scalar, X: Scalar, const D: usize, const T: usize>(
    z: &[X],
    layout: Layout,
    staged: &mut [S],
) {
    for (window, slot) in z.chunks_exact(D * T).zip(staged.chunks_exact_mut(D * T)) {
        match layout {
            Layout::Columns => {
                for (s, &x) in slot.iter_mut().zip(window) {
                    *s = convert(x);
                }
            }
            Layout::Rows => {
                for (i, row) in window.chunks_exact(T).enumerate() {
                    for (j, &x) in row.iter().enumerate() {
                        slot[i + D * j] = convert(x);
                    }
                }
            }
        }
    }
}

/// One window (`D·T` values in `layout`) as a matrix over `S`.
pub(super) fn window<S: Scalar, X: Scalar, const D: usize, const T: usize>(
    values: &[X],
    layout: Layout,
) -> SMatrix<S, D, T> {
    let values = values.iter().map(|&x| convert(x));
    match layout {
        Layout::Columns => SMatrix::from_iterator(values),
        Layout::Rows => SMatrix::from_row_iterator(values),
    }
}

/// One column-major window `y` over `S` into `out`, row-major in `X`.
pub(super) fn rows<S: Scalar, X: Scalar, const D: usize, const T: usize>(y: &[S], out: &mut [X]) {
    for (i, row) in out.chunks_exact_mut(T).enumerate() {
        for (j, slot) in row.iter_mut().enumerate() {
            *slot = convert(y[i + D * j]);
        }
    }
}

/// The columns of the column-major windows `windows` as the states `from, from + 1, …` (those
/// below `states`) of the row-major `D×states` trajectories `out`.
fn write_states<S: Scalar, X: Scalar, const D: usize, const T: usize>(
    windows: &[S],
    out: &mut [X],
    states: usize,
    from: usize,
) {
    for (window, trajectory) in windows
        .chunks_exact(D * T)
        .zip(out.chunks_exact_mut(D * states))
    {
        for (j, state) in window.chunks_exact(D).enumerate().take(states - from) {
            for (i, &x) in state.iter().enumerate() {
                trajectory[i * states + from + j] = convert(x);
            }
        }
    }
}
