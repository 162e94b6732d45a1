//! Batches in one call: forward passes of many windows and rollouts of many initial windows, on
//! flat buffers in the caller's scalar and memory layout, written into the caller's buffer
//! (nothing allocated per window). What the Python bindings hand their numpy arrays to.
//!
//! Two kinds of network batch here, with the same staging, layouts and errors:
//! - every [`Network`](crate::Network) ([`crate::open`], the run-time engine, any size) through
//!   [`Batch`]: its windows several at a time in SIMD lanes
//!   ([`geomattn::engine::forward_in_lanes`]). [`Arithmetic::Exact`] runs `wide`'s portable
//!   lanes (8 in `f32`, 4 in `f64`), each window's output bit for bit its scalar pass;
//!   [`Arithmetic::Fast`] in `f32` runs 16 lanes with the polynomial `exp` and `tanh` and fused
//!   multiply-adds on a processor with AVX2 or AVX-512 ([`geomattn::engine::FastLanes`]; in
//!   `f64` the exact lanes);
//! - a network whose sizes are types ([`forward`], [`rollout`]: any `SequenceLayer` with a
//!   `LaneTwin`) in `f32` with [`Arithmetic::Fast`] runs the compile-time lane path
//!   ([`geomattn::Lanewise`] with [`geomattn::VectorFunctions`], [`Isa::lanes`](geomattn::Isa::lanes)
//!   windows at a time on AVX-512 or AVX2, [`lanes`] says whether); in `f64`, in `Exact`, or
//!   without AVX2, the scalar path one window at a time.
//!
//! Either way the windows are staged [`STAGED`] at a time into the network's scalar and Julia's
//! column-major layout, which every path reads.
//!
//! A numpy array of shape `(B, D, T)` in C order holds each window **row-major** (state `t` of
//! window `b` is the strided column `[b, :, t]`): [`Layout::Rows`]. Julia's `(D, T, B)` (the same
//! bytes as a C-order `(B, T, D)`) holds each window column-major, as nalgebra does:
//! [`Layout::Columns`]. Outputs are always written in [`Layout::Rows`].
//!
//! ```
//! use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, nalgebra::Matrix2x3};
//! use geomattn_networks::batch::{Arithmetic, Layout, forward};
//! let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
//! let z = Matrix2x3::new(1.0, 0.0, 1.0,
//!                        0.0, 1.0, 1.0);
//! let rows = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]; // numpy's z in C order
//! let mut out = [0.0; 6];
//! forward(&layer, &rows, Layout::Rows, &mut out, false, Arithmetic::Exact)?;
//! assert_eq!(out.to_vec(), layer.forward(&z).transpose().as_slice().to_vec());
//! # Ok::<(), geomattn::Error>(())
//! ```

use geomattn::{Error, FieldPath, LaneTwin, NonFinite, SequenceLayer};

use crate::network::Scalar;
use geomattn_arch::Arch;

mod lanes;
mod staging;

pub(crate) use lanes::vector_lanes;
pub use staging::STAGED;
pub(crate) use staging::Windows;
use staging::{Fixed, Staged};

/// Whether [`Arithmetic::Fast`] runs the compile-time lane path for networks (of [`forward`],
/// [`rollout`]) computing in `f32` here: this processor has an instruction set it is compiled
/// for ([`geomattn::Isa::is_compact`]). When it is `false`, `Fast` is the scalar path, bit for
/// bit [`Arithmetic::Exact`].
///
/// ```
/// use geomattn::{SkewSymmetric, SkewVpa};
/// use geomattn_networks::batch::{Arithmetic, Layout, forward, lanes};
/// let layer = SkewVpa::<f32, 3, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 0.25])?);
/// let z: Vec<f32> = (0..9 * 40).map(|i| (i as f32 * 0.37).sin()).collect();
/// let (mut fast, mut exact) = (vec![0.0; z.len()], vec![0.0; z.len()]);
/// forward(&layer, &z, Layout::Rows, &mut fast, false, Arithmetic::Fast)?;
/// forward(&layer, &z, Layout::Rows, &mut exact, false, Arithmetic::Exact)?;
/// if !lanes() {
///     assert_eq!(fast, exact);
/// }
/// # Ok::<(), geomattn::Error>(())
/// ```
pub fn lanes() -> bool {
    geomattn::Isa::best().is_compact()
}

/// How each window of a flat batch is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Row-major `D×T` per window: numpy's C-order `(B, D, T)`.
    Rows,
    /// Column-major `D×T` per window (state after state): Julia's `(D, T, B)`, numpy's C-order
    /// `(B, T, D)`.
    Columns,
}

/// The arithmetic of a batch.
///
/// - [`Fast`](Self::Fast), the default: for a network computing in `f32`, on a processor with
///   AVX2 or AVX-512, `exp` (the softmaxes), `tanh` and the sigmoid (the activations) as
///   polynomials on whole vectors, and the matrix products with fused multiply-adds
///   ([`geomattn::VectorFunctions`]: `exp` within 1.25 ulp, `tanh` within 7 ulp), on the
///   run-time engine's lanes ([`geomattn::engine::FastLanes`], 16 windows at a time) or a
///   compile-time network's ([`lanes`]). A network's output then differs from the scalar
///   path's by these errors, propagated through the network like its own rounding: **each
///   forward pass is no further from the exact result (the network computed in `f64`) than
///   four times the scalar path's own rounding error, and at least `16 ε`** (`ε` the machine
///   epsilon of the network's scalar, the distance in units of `ε·max(|y|, 1)`), measured by
///   `tests/tests/engine_lanes.rs` (the engine) and `tests/tests/batch_lanes.rs` (compile-time
///   networks). A rollout's states then differ as any perturbation of the state propagates
///   through the network's steps. For a network computing in `f64`, and on a processor without
///   AVX2, as `Exact`, bit for bit.
/// - [`Exact`](Self::Exact): every output bit for bit that of the network's scalar pass
///   ([`Network::forward`](crate::Network::forward), [`SequenceLayer::forward`]; GML's `iterate`
///   for a rollout), several windows at a time in portable lanes on the engine, one at a time
///   for a compile-time network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arithmetic {
    /// The lane path with the vectorised functions and fused products (within the bound
    /// above) in `f32`: for throughput.
    #[default]
    Fast,
    /// Bit for bit the scalar path.
    Exact,
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
        arithmetic: Arithmetic,
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
        arithmetic: Arithmetic,
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
        arithmetic: Arithmetic,
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
        arithmetic: Arithmetic,
    ) -> Result<(), Error>;
}

/// The name a checked batch gives the network's output in its errors.
pub(crate) fn network_name(arch: &Arch) -> &'static str {
    match arch {
        Arch::Vpt(_) => "VolumePreservingTransformer",
        Arch::Vpff(_) => "VolumePreservingFeedForward",
        Arch::St(_) => "StandardTransformerIntegrator",
        Arch::Ct(_) => "ClassificationTransformer",
        Arch::Sympt(_) => "SymplecticTransformer",
        Arch::LinSympt(_) => "LinearSymplecticTransformer",
    }
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
/// row-major into `output`, in `arithmetic`. Unchecked (`checked = false`), NaN
/// and ∞ propagate as in the layers; checked, a window whose input or output is not finite is
/// run again through the network's checked scalar pass, whose error names the window, the time
/// step and the layer where the first non-finite value appears (the windows before it are
/// written). (Should the checked pass find every value finite, which [`Arithmetic::Fast`] can
/// only cause at the edge of overflow, its output is the window's.)
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
    arithmetic: Arithmetic,
) -> Result<(), Error>
where
    S: Scalar,
    X: Scalar,
    Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S>,
{
    forward_windows(
        &Fixed::<Net, D, T>(net),
        input,
        layout,
        output,
        checked,
        arithmetic,
    )
}

/// [`forward`] over [`Windows`]: any network, its sizes known at run time.
pub(crate) fn forward_windows<S: Scalar, X: Scalar>(
    net: &dyn Windows<S>,
    input: &[X],
    layout: Layout,
    output: &mut [X],
    checked: bool,
    arithmetic: Arithmetic,
) -> Result<(), Error> {
    let (dim, seq) = net.shape();
    let per_window = dim * seq;
    let count = items(input.len(), per_window, output.len(), per_window)?;
    let mut staged = Staged::<S>::new(count, per_window);
    let mut window = vec![S::zero(); per_window];
    for (first, (z, out)) in staging::chunks(input, per_window, output, per_window) {
        let results = staged.forward(net, arithmetic, z, layout)?;
        for (k, ((z, y), out)) in z
            .chunks_exact(per_window)
            .zip(results.chunks_exact_mut(per_window))
            .zip(out.chunks_exact_mut(per_window))
            .enumerate()
        {
            if checked && !(finite(z) && finite(y)) {
                staging::window_into((dim, seq), z, layout, &mut window);
                net.forward_checked(&window, y)
                    .map_err(|e| in_window(e, first + k))?;
            }
            staging::rows((dim, seq), y, out);
        }
    }
    Ok(())
}

/// Whether every value is finite.
fn finite<X: Scalar>(values: &[X]) -> bool {
    values.iter().all(|x| x.is_finite())
}

/// GML's `iterate` (prediction window `T`) from every initial window of `initial` (`D·T` values
/// each, in `layout`): each trajectory of `N = output.len() / (B·D)` states `z₀ … z_{N−1}` (the
/// initial window's first; fewer than `T` cuts the initial window short) is written row-major
/// `D×N` into `output`. The windows are advanced together, one batch forward pass per step, in
/// `arithmetic`. Checked, the first non-finite state (or input) is an error naming the
/// trajectory and the state.
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
    arithmetic: Arithmetic,
) -> Result<(), Error>
where
    S: Scalar,
    X: Scalar,
    Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S>,
{
    rollout_windows(
        &Fixed::<Net, D, T>(net),
        name,
        initial,
        layout,
        output,
        checked,
        arithmetic,
    )
}

/// [`rollout`] over [`Windows`]: any network, its sizes known at run time.
pub(crate) fn rollout_windows<S: Scalar, X: Scalar>(
    net: &dyn Windows<S>,
    name: &'static str,
    initial: &[X],
    layout: Layout,
    output: &mut [X],
    checked: bool,
    arithmetic: Arithmetic,
) -> Result<(), Error> {
    let (dim, seq) = net.shape();
    let per_window = dim * seq;
    let count = initial.len().checked_div(per_window).unwrap_or(0);
    let states = output.len().checked_div(count * dim).unwrap_or(0);
    if initial.is_empty() && output.is_empty() {
        return Ok(());
    }
    if states == 0 {
        return Err(Error::BatchShape {
            detail: "a trajectory must hold at least one state",
            input: initial.len(),
            output: output.len(),
            per_item: per_window,
        });
    }
    items(initial.len(), per_window, output.len(), dim * states)?;
    let mut staged = Staged::<S>::new(count, per_window);
    for (first, (z, out)) in staging::chunks(initial, per_window, output, dim * states) {
        staged.rollout(net, arithmetic, z, layout, out, states)?;
        if checked {
            for (k, (z, trajectory)) in z
                .chunks_exact(per_window)
                .zip(out.chunks_exact(dim * states))
                .enumerate()
            {
                if let Some(step) = first_non_finite((dim, seq), z, layout) {
                    return Err(non_finite(first + k, "input", step));
                }
                if let Some(step) = first_non_finite_state(trajectory, states) {
                    return Err(non_finite(first + k, name, step));
                }
            }
        }
    }
    Ok(())
}

/// The first time step of a window (`dim·seq` values in `layout`) with a NaN or an infinity.
fn first_non_finite<X: Scalar>(
    (dim, seq): (usize, usize),
    z: &[X],
    layout: Layout,
) -> Option<usize> {
    (0..seq).find(|&j| {
        (0..dim).any(|i| {
            let at = match layout {
                Layout::Columns => i + dim * j,
                Layout::Rows => i * seq + j,
            };
            !z[at].is_finite()
        })
    })
}

/// The first state (column) of a row-major `D×states` trajectory with a NaN or an infinity.
fn first_non_finite_state<X: Scalar>(trajectory: &[X], states: usize) -> Option<usize> {
    trajectory
        .chunks_exact(states)
        .filter_map(|row| row.iter().position(|x| !x.is_finite()))
        .min()
}
