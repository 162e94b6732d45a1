//! Batches of windows through a network's lane twin: several windows at a time, one per SIMD
//! lane.
//!
//! The twin is the same network over lanes with every weight splatted across them
//! ([`crate::MapScalar::map_scalar`] with [`LanesOf::broadcast`]), built once; every operation of
//! a forward pass then serves [`LanesOf::WIDTH`] windows, and its buffers ([`Scratch`]) serve
//! the whole batch: only the first group allocates.
//! The lanes are `wide`'s portable vectors (8 `f32` or 4 `f64`: two SSE2 registers on a default
//! x86-64 build), whose operations are IEEE's lane by lane. Over [`Batched::Lanes`] the elementary
//! functions are the scalar ones, so that the outputs are **bit for bit** those of the scalar
//! pass, window by window; over [`Batched::FastLanes`] (`f32`, 16 lanes: one AVX-512 vector),
//! `exp` and `tanh` are polynomials and the products fused multiply-adds on the processor's own
//! vectors ([`FastLanes`]), for throughput.

use nalgebra::RealField;

use super::{Element, FastLanes, Forward, Scratch};
use crate::lanes::{LaneScalar, Lanes};

/// A vector of [`WIDTH`](Self::WIDTH) values of the scalar `S`: as many windows, one per lane.
pub trait LanesOf<S>: Element + Send + Sync {
    /// The number of lanes.
    const WIDTH: usize;

    /// `value` in every lane.
    fn broadcast(value: S) -> Self;

    /// The vector whose lane `k` is `f(k)`.
    fn gather(f: impl FnMut(usize) -> S) -> Self;

    /// `f(k, lane k)` for every lane `k`.
    fn scatter(self, f: impl FnMut(usize, S));
}

impl<S: LaneScalar<N> + Element, const N: usize> LanesOf<S> for Lanes<S, N>
where
    Self: Send + Sync,
{
    const WIDTH: usize = N;

    #[inline(always)]
    fn broadcast(value: S) -> Self {
        Lanes::splat(value)
    }

    #[inline(always)]
    fn gather(f: impl FnMut(usize) -> S) -> Self {
        Lanes::new(core::array::from_fn(f))
    }

    #[inline(always)]
    fn scatter(self, mut f: impl FnMut(usize, S)) {
        self.to_array()
            .into_iter()
            .enumerate()
            .for_each(|(k, x)| f(k, x));
    }
}

/// A scalar whose windows the engine runs several at a time, one per lane.
pub trait Batched: Element + RealField + Copy {
    /// Lanes that compute exactly the scalar's operations and functions: 8 `f32`, 4 `f64`
    /// (`wide`'s portable vectors), each window's output bit for bit its scalar pass.
    type Lanes: LanesOf<Self>;
    /// Lanes for throughput: for `f32`, 16 lanes (one AVX-512 vector, two AVX2 ones) with `exp`
    /// and `tanh` as polynomials and the products as fused multiply-adds on the processor's own
    /// vectors ([`FastLanes`]); for `f64`, [`Self::Lanes`].
    type FastLanes: LanesOf<Self>;
}

impl Batched for f32 {
    type Lanes = Lanes<f32, 8>;
    type FastLanes = FastLanes<f32, 16>;
}

impl Batched for f64 {
    type Lanes = Lanes<f64, 4>;
    type FastLanes = Lanes<f64, 4>;
}

/// The forward pass of the network whose lane twin is `twin`, on every window of `input`
/// (`dim×seq` values each, column-major, one after another), written into `output` (the same
/// shape): [`LanesOf::WIDTH`] windows at a time, the last group filled up with copies of its first
/// window. Over [`Batched::Lanes`], every output is bit for bit the network's scalar
/// [`forward_unchecked`](Forward::forward_unchecked) of its window; over
/// [`Batched::FastLanes`], within the errors of its functions.
///
/// ```
/// use geomattn::MapScalar;
/// use geomattn::activation::Function;
/// use geomattn::engine::{Batched, FeedForward, Forward, LanesOf, VolumePreservingLayer, forward_in_lanes};
/// use geomattn::nalgebra::DMatrix;
/// let layer = VolumePreservingLayer::<f64>::lower(3, &[1.0, -2.0, 0.5], None, Function::Sigmoid)?;
/// let net = FeedForward::new(3, vec![layer])?;
/// let twin = net.map_scalar(<f64 as Batched>::Lanes::broadcast);
/// let input: Vec<f64> = (0..3 * 2 * 7).map(|i| (i as f64 * 0.37).sin()).collect();
/// let mut output = vec![0.0; input.len()];
/// forward_in_lanes(&twin, (3, 2), &input, &mut output);
/// for (z, y) in input.chunks(6).zip(output.chunks(6)) {
///     let scalar = net.forward_unchecked(&DMatrix::from_column_slice(3, 2, z));
///     assert_eq!(y, scalar.as_slice());
/// }
/// # Ok::<(), geomattn::Error>(())
/// ```
///
/// # Panics
/// If `input` and `output` differ in length or are not a whole number of windows.
pub fn forward_in_lanes<S: Copy, L: LanesOf<S>>(
    twin: &dyn Forward<L>,
    (dim, seq): (usize, usize),
    input: &[S],
    output: &mut [S],
) {
    let per_window = dim * seq;
    assert!(
        input.len() == output.len() && per_window > 0 && input.len().is_multiple_of(per_window),
        "forward_in_lanes: {} inputs, {} outputs, windows of {dim}×{seq}",
        input.len(),
        output.len()
    );
    let group = L::WIDTH * per_window;
    // One set of buffers for every group: after the first, a pass allocates nothing.
    let mut scratch = Scratch::new();
    for (z, y) in input.chunks(group).zip(output.chunks_mut(group)) {
        let count = z.len() / per_window;
        let mut packed = scratch.zeros(dim, seq);
        for (at, lanes) in packed.iter_mut().enumerate() {
            // The missing windows of a last group are its first window again.
            *lanes = L::gather(|k| z[if k < count { k } else { 0 } * per_window + at]);
        }
        twin.forward_in_place(&mut packed, &mut scratch);
        // Each vector once, into the windows of the group (the copies that filled it dropped).
        for (at, &lanes) in packed.iter().enumerate() {
            lanes.scatter(|k, value| {
                if k < count {
                    y[k * per_window + at] = value;
                }
            });
        }
        scratch.recycle(packed);
    }
}
