//! Batches in one call: forward passes of many windows and rollouts of many initial windows, on
//! flat buffers in the caller's scalar and memory layout, written into the caller's buffer
//! (nothing allocated per window). What the Python bindings hand their numpy arrays to.
//!
//! A numpy array of shape `(B, D, T)` in C order holds each window **row-major** (state `t` of
//! window `b` is the strided column `[b, :, t]`): [`Layout::Rows`]. Julia's `(D, T, B)` (the same
//! bytes as a C-order `(B, T, D)`) holds each window column-major, as nalgebra does:
//! [`Layout::Columns`]. Outputs are always written in [`Layout::Rows`].
//!
//! ```
//! use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, nalgebra::Matrix2x3};
//! use geomattn_spec::batch::{Layout, forward};
//! let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
//! let z = Matrix2x3::new(1.0, 0.0, 1.0,
//!                        0.0, 1.0, 1.0);
//! let rows = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]; // numpy's z in C order
//! let mut out = [0.0; 6];
//! forward(&layer, &rows, Layout::Rows, &mut out, false)?;
//! assert_eq!(out.to_vec(), layer.forward(&z).transpose().as_slice().to_vec());
//! # Ok::<(), geomattn::Error>(())
//! ```

use geomattn::nalgebra::{SMatrix, SVector};
use geomattn::{Error, FieldPath, NonFinite, SequenceLayer, iterate};

use crate::network::Loaded;
use crate::{Arch, Scalar};

/// How each window of a flat batch is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Row-major `D×T` per window: numpy's C-order `(B, D, T)`.
    Rows,
    /// Column-major `D×T` per window (state after state): Julia's `(D, T, B)`, numpy's C-order
    /// `(B, T, D)`.
    Columns,
}

/// Batches of a network, in both buffer scalars (the network converts to its own: no conversion
/// is done when they agree).
pub trait Batch {
    /// [`forward`] on `f32` buffers.
    ///
    /// # Errors
    /// As [`forward`].
    fn forward_f32(
        &self,
        input: &[f32],
        layout: Layout,
        output: &mut [f32],
        checked: bool,
    ) -> Result<(), Error>;
    /// [`forward`] on `f64` buffers.
    ///
    /// # Errors
    /// As [`forward`].
    fn forward_f64(
        &self,
        input: &[f64],
        layout: Layout,
        output: &mut [f64],
        checked: bool,
    ) -> Result<(), Error>;
    /// [`rollout`] on `f32` buffers.
    ///
    /// # Errors
    /// As [`rollout`].
    fn rollout_f32(
        &self,
        initial: &[f32],
        layout: Layout,
        output: &mut [f32],
        checked: bool,
    ) -> Result<(), Error>;
    /// [`rollout`] on `f64` buffers.
    ///
    /// # Errors
    /// As [`rollout`].
    fn rollout_f64(
        &self,
        initial: &[f64],
        layout: Layout,
        output: &mut [f64],
        checked: bool,
    ) -> Result<(), Error>;
}

/// The name a checked batch gives the network's output in its errors.
fn network_name(arch: &Arch) -> &'static str {
    match arch {
        Arch::Vpt(_) => "VolumePreservingTransformer",
        Arch::Vpff(_) => "VolumePreservingFeedForward",
        Arch::St(_) => "StandardTransformerIntegrator",
        Arch::Ct(_) => "ClassificationTransformer",
        Arch::Sympt(_) => "SymplecticTransformer",
        Arch::LinSympt(_) => "LinearSymplecticTransformer",
    }
}

macro_rules! batch_methods {
    ($($forward:ident, $rollout:ident, $X:ty;)*) => {$(
        fn $forward(&self, input: &[$X], layout: Layout, output: &mut [$X], checked: bool)
            -> Result<(), Error> {
            forward::<S, $X, Net, D, T>(&self.net, input, layout, output, checked)
        }
        fn $rollout(&self, initial: &[$X], layout: Layout, output: &mut [$X], checked: bool)
            -> Result<(), Error> {
            rollout::<S, $X, Net, D, T>(&self.net, network_name(&self.arch), initial, layout,
                                         output, checked)
        }
    )*};
}

impl<S, Net, const D: usize, const T: usize> Batch for Loaded<S, Net, D, T>
where
    S: Scalar,
    Net: SequenceLayer<S, D, T>,
{
    batch_methods! {
        forward_f32, rollout_f32, f32;
        forward_f64, rollout_f64, f64;
    }
}

/// Reads window `index` of `input` (`D·T` values in `layout`) into the network's scalar.
fn window<S: Scalar, X: Scalar, const D: usize, const T: usize>(
    values: &[X],
    layout: Layout,
) -> SMatrix<S, D, T> {
    let convert = |x: &X| S::from_double(x.to_double());
    match layout {
        Layout::Columns => SMatrix::from_iterator(values.iter().map(convert)),
        Layout::Rows => SMatrix::from_row_iterator(values.iter().map(convert)),
    }
}

/// The first time step (column) of `z` with a NaN or an infinity.
fn first_non_finite<S: Scalar, const D: usize, const T: usize>(
    z: &SMatrix<S, D, T>,
) -> Option<usize> {
    z.column_iter()
        .position(|c| c.iter().any(|x| !x.is_finite()))
}

/// `error`, naming window `k` of the batch if it is a non-finite value.
fn in_window(error: Error, k: usize) -> Error {
    match error {
        Error::NonFinite(mut at) => {
            at.sequence = Some(k);
            Error::NonFinite(at)
        }
        other => other,
    }
}

fn non_finite(sequence: usize, layer: &'static str, step: usize) -> Error {
    Error::NonFinite(NonFinite {
        sequence: Some(sequence),
        block: None,
        field: FieldPath::default(),
        layer,
        step,
    })
}

/// Checks that `input` and `output` hold the same whole number of items of `input_item` and
/// `output_item` values; returns the number of items.
fn items(
    input: usize,
    input_item: usize,
    output: usize,
    output_item: usize,
) -> Result<usize, Error> {
    let shape_error = |detail| Error::BatchShape {
        detail,
        input,
        output,
        per_item: input_item,
    };
    if input_item == 0 || !input.is_multiple_of(input_item) {
        return Err(shape_error("buffer length is not a multiple of d·T"));
    }
    let count = input / input_item;
    if count.checked_mul(output_item) != Some(output) {
        return Err(shape_error(
            "the output does not hold one result per input window",
        ));
    }
    Ok(count)
}

/// The forward pass of `net` on every window of `input` (`D·T` values each, in `layout`), written
/// row-major into `output`. Unchecked (`checked = false`), NaN and ∞ propagate as in the
/// layers; checked, each window runs the network's checked pass, and the first non-finite value
/// (of the input, or of a layer's output) is an error naming the window, the time step and the
/// layer (the windows before it are written).
///
/// # Errors
/// [`Error::BatchShape`] if the buffers are not a whole number of windows each, or differ in
/// length; [`Error::NonFinite`] (checked only).
pub fn forward<S, X, Net, const D: usize, const T: usize>(
    net: &Net,
    input: &[X],
    layout: Layout,
    output: &mut [X],
    checked: bool,
) -> Result<(), Error>
where
    S: Scalar,
    X: Scalar,
    Net: SequenceLayer<S, D, T> + ?Sized,
{
    items(input.len(), D * T, output.len(), D * T)?;
    for (k, (z, out)) in input
        .chunks_exact(D * T)
        .zip(output.chunks_exact_mut(D * T))
        .enumerate()
    {
        let z = window::<S, X, D, T>(z, layout);
        // Checked: the network's own checked pass, which names the layer (and block, and field
        // of a derived network) where the first non-finite value appears; here the window too.
        let y = if checked {
            net.forward_checked(&z).map_err(|e| in_window(e, k))?
        } else {
            net.forward(&z)
        };
        // `y` is column-major; row-major out is its transpose's column-major order.
        for (slot, x) in out.iter_mut().zip(y.transpose().iter()) {
            *slot = X::from_double(x.to_double());
        }
    }
    Ok(())
}

/// GML's `iterate` (prediction window `T`) from every initial window of `initial` (`D·T` values
/// each, in `layout`): each trajectory of `N = output.len() / (B·D)` states `z₀ … z_{N−1}` (the
/// initial window's first; fewer than `T` cuts the initial window short) is written row-major `D×N` into `output`. Checked, the first
/// non-finite state is an error naming the trajectory and the state.
///
/// # Errors
/// [`Error::BatchShape`] if `initial` is not a whole number of windows, `output` not the same
/// number of `D×N` trajectories with `N ≥ 1`; [`Error::NonFinite`] (checked only).
pub fn rollout<S, X, Net, const D: usize, const T: usize>(
    net: &Net,
    name: &'static str,
    initial: &[X],
    layout: Layout,
    output: &mut [X],
    checked: bool,
) -> Result<(), Error>
where
    S: Scalar,
    X: Scalar,
    Net: SequenceLayer<S, D, T> + ?Sized,
{
    let count = initial.len().checked_div(D * T).unwrap_or(0);
    let states = output.len().checked_div(count * D).unwrap_or(0);
    if initial.is_empty() && output.is_empty() {
        return Ok(());
    }
    if states == 0 {
        return Err(Error::BatchShape {
            detail: "a trajectory must hold at least one state",
            input: initial.len(),
            output: output.len(),
            per_item: D * T,
        });
    }
    items(initial.len(), D * T, output.len(), D * states)?;
    let mut trajectory = vec![SVector::<S, D>::zeros(); states.max(T)];
    for (k, (z, out)) in initial
        .chunks_exact(D * T)
        .zip(output.chunks_exact_mut(D * states))
        .enumerate()
    {
        let z = window::<S, X, D, T>(z, layout);
        if checked && let Some(step) = first_non_finite(&z) {
            return Err(non_finite(k, "input", step));
        }
        iterate::<S, D, T, T, Net>(net, &z, &mut trajectory);
        if checked
            && let Some(step) = trajectory[..states]
                .iter()
                .position(|s| s.iter().any(|x| !x.is_finite()))
        {
            return Err(non_finite(k, name, step));
        }
        for (i, row) in out.chunks_exact_mut(states).enumerate() {
            for (slot, state) in row.iter_mut().zip(&trajectory) {
                *slot = X::from_double(state[i].to_double());
            }
        }
    }
    Ok(())
}
