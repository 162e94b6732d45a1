//! What the batches run on: the lane path (where it is compiled and the scalar has it) or the
//! scalar path, and the staging of the caller's windows (any scalar, either layout) into the
//! network's scalar, column-major, which both read.

use geomattn::nalgebra::SMatrix;
use geomattn::{Error, LaneTwin, SequenceLayer};

use super::{Arithmetic, Layout};
use crate::network::Scalar;

/// Windows staged at a time: the staging buffers (two of `STAGED` windows in the network's
/// scalar) stay in the processor's second-level cache for the sizes of GML's tutorials (288 KiB
/// at `d = 4`, `T = 4` in `f64`), and are allocated once per batch call, not per window.
pub const STAGED: usize = 1024;

/// A network as a batch runs it: on flat column-major windows of `dim × seq` values in its scalar
/// `S`, whatever its type (a network whose sizes are types, or one of run-time size): the
/// batches are written once, over run-time sizes.
pub(crate) trait Windows<S> {
    /// `(dim, seq)`: the values of one state, the states of one window.
    fn shape(&self) -> (usize, usize);

    /// The network on every window of `input` into `output`, in `arithmetic`.
    ///
    /// # Errors
    /// As [`geomattn::Lanewise::forward_flat`].
    fn run(&self, arithmetic: Arithmetic, input: &[S], output: &mut [S]) -> Result<(), Error>;

    /// The checked forward pass of one window (column-major) into `output`.
    ///
    /// # Errors
    /// [`Error::NonFinite`] for the first non-finite value.
    fn forward_checked(&self, window: &[S], output: &mut [S]) -> Result<(), Error>;
}

/// A network whose sizes are types as [`Windows`].
pub(crate) struct Fixed<'a, Net, const D: usize, const T: usize>(pub(crate) &'a Net);

impl<S: Scalar, Net, const D: usize, const T: usize> Windows<S> for Fixed<'_, Net, D, T>
where
    Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S>,
{
    fn shape(&self) -> (usize, usize) {
        (D, T)
    }

    /// The lane path where the scalar has it ([`Scalar::vector_lanes`]), else the scalar path,
    /// one window at a time.
    fn run(&self, arithmetic: Arithmetic, input: &[S], output: &mut [S]) -> Result<(), Error> {
        if arithmetic == Arithmetic::Fast
            && let Some(done) = S::vector_lanes::<Net, D, T>(self.0, input, output)
        {
            return done;
        }
        self.0.forward_flat(input, output)
    }

    fn forward_checked(&self, window: &[S], output: &mut [S]) -> Result<(), Error> {
        let y = self
            .0
            .forward_checked(&SMatrix::from_column_slice(window))?;
        output.copy_from_slice(y.as_slice());
        Ok(())
    }
}

/// The two staging buffers of a batch: windows in, results out, in the network's scalar `S`,
/// column-major.
pub(super) struct Staged<S> {
    windows: Vec<S>,
    results: Vec<S>,
}

impl<S: Scalar> Staged<S> {
    /// Buffers for a batch of `count` windows of `per_window` values (at most [`STAGED`] at a
    /// time).
    pub(super) fn new(count: usize, per_window: usize) -> Self {
        let len = count.min(STAGED) * per_window;
        Self {
            windows: vec![S::zero(); len],
            results: vec![S::zero(); len],
        }
    }

    /// The forward pass of the windows `z` (at most [`STAGED`], in `layout`): the results,
    /// column-major in `S`.
    pub(super) fn forward<X: Scalar>(
        &mut self,
        net: &dyn Windows<S>,
        arithmetic: Arithmetic,
        z: &[X],
        layout: Layout,
    ) -> Result<&mut [S], Error> {
        let len = z.len();
        stage(net.shape(), z, layout, &mut self.windows[..len]);
        net.run(arithmetic, &self.windows[..len], &mut self.results[..len])?;
        Ok(&mut self.results[..len])
    }

    /// GML's `iterate` from the initial windows `z` (at most [`STAGED`], in `layout`) into their
    /// row-major `dim×states` trajectories `out`: all windows advance together, one forward pass
    /// of all of them per step.
    pub(super) fn rollout<X: Scalar>(
        &mut self,
        net: &dyn Windows<S>,
        arithmetic: Arithmetic,
        z: &[X],
        layout: Layout,
        out: &mut [X],
        states: usize,
    ) -> Result<(), Error> {
        let len = z.len();
        let (dim, seq) = net.shape();
        stage((dim, seq), z, layout, &mut self.windows[..len]);
        write_states((dim, seq), &self.windows[..len], out, states, 0);
        // As GML's `iterate` with prediction window `seq`: each pass reads the last `seq` states,
        // which are the previous pass's whole output, and appends its `seq` columns.
        let mut filled = seq;
        while filled < states {
            net.run(arithmetic, &self.windows[..len], &mut self.results[..len])?;
            write_states((dim, seq), &self.results[..len], out, states, filled);
            core::mem::swap(&mut self.windows, &mut self.results);
            filled += seq;
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
fn stage<S: Scalar, X: Scalar>(
    (dim, seq): (usize, usize),
    z: &[X],
    layout: Layout,
    staged: &mut [S],
) {
    for (window, slot) in z
        .chunks_exact(dim * seq)
        .zip(staged.chunks_exact_mut(dim * seq))
    {
        window_into((dim, seq), window, layout, slot);
    }
}

/// One window (`dim·seq` values in `layout`) column-major in `S` into `slot`.
pub(super) fn window_into<S: Scalar, X: Scalar>(
    (dim, seq): (usize, usize),
    window: &[X],
    layout: Layout,
    slot: &mut [S],
) {
    match layout {
        Layout::Columns => {
            for (s, &x) in slot.iter_mut().zip(window) {
                *s = convert(x);
            }
        }
        Layout::Rows => {
            for (i, row) in window.chunks_exact(seq).enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    slot[i + dim * j] = convert(x);
                }
            }
        }
    }
}

/// One column-major window `y` over `S` into `out`, row-major in `X`.
pub(super) fn rows<S: Scalar, X: Scalar>((dim, seq): (usize, usize), y: &[S], out: &mut [X]) {
    for (i, row) in out.chunks_exact_mut(seq).enumerate() {
        for (j, slot) in row.iter_mut().enumerate() {
            *slot = convert(y[i + dim * j]);
        }
    }
}

/// The columns of the column-major windows `windows` as the states `from, from + 1, …` (those
/// below `states`) of the row-major `dim×states` trajectories `out`.
fn write_states<S: Scalar, X: Scalar>(
    (dim, seq): (usize, usize),
    windows: &[S],
    out: &mut [X],
    states: usize,
    from: usize,
) {
    for (window, trajectory) in windows
        .chunks_exact(dim * seq)
        .zip(out.chunks_exact_mut(dim * states))
    {
        for (j, state) in window.chunks_exact(dim).enumerate().take(states - from) {
            for (i, &x) in state.iter().enumerate() {
                trajectory[i * states + from + j] = convert(x);
            }
        }
    }
}
