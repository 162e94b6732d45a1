//! Batches of windows through a network's lane twin: several windows at a time, one per SIMD
//! lane.
//!
//! The twin is the same network over lanes with every weight splatted across them
//! ([`crate::MapScalar::map_scalar`] with [`LanesOf::broadcast`]), built once; every operation of
//! a forward pass then serves [`LanesOf::WIDTH`] windows, and so does each of its allocations.
//! The lanes are `wide`'s portable vectors (8 `f32` or 4 `f64`: two SSE2 registers on a default
//! x86-64 build), whose operations are IEEE's lane by lane. Over [`Batched::Lanes`] the elementary
//! functions are the scalar ones, so that the outputs are **bit for bit** those of the scalar
//! pass, window by window; over [`Batched::FastLanes`] (`f32`), `exp` and `tanh` are polynomials
//! on whole vectors, for throughput.

use nalgebra::{DMatrix, RealField};

use super::{Element, Forward};
use crate::Lanes;
use crate::isa::LaneVector;
use crate::isa::polynomial::Polynomial;

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

impl<V: LaneVector + Element + Send + Sync> LanesOf<V::Scalar> for V {
    const WIDTH: usize = V::LANES;

    #[inline(always)]
    fn broadcast(value: V::Scalar) -> Self {
        V::splat(value)
    }

    #[inline(always)]
    fn gather(f: impl FnMut(usize) -> V::Scalar) -> Self {
        V::from_fn(f)
    }

    #[inline(always)]
    fn scatter(self, f: impl FnMut(usize, V::Scalar)) {
        self.for_each_lane(f);
    }
}

/// A scalar whose windows the engine runs several at a time, one per lane.
pub trait Batched: Element + RealField + Copy {
    /// Lanes that compute exactly the scalar's operations and functions: 8 `f32`, 4 `f64`
    /// (`wide`'s portable vectors), each window's output bit for bit its scalar pass.
    type Lanes: LanesOf<Self>;
    /// Lanes for throughput: for `f32`, the same 8 lanes with `exp` and `tanh` as polynomials on
    /// whole vectors (those of [`crate::VectorFunctions`], within 1.25 and 3.5 ulp; the sigmoid
    /// through that `exp`); for `f64`, [`Self::Lanes`].
    type FastLanes: LanesOf<Self>;
}

impl Batched for f32 {
    type Lanes = Lanes<f32, 8>;
    type FastLanes = Polynomial<Lanes<f32, 8>>;
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
/// use geomattn::{Lanes, MapScalar};
/// use geomattn::activation::Function;
/// use geomattn::engine::{FeedForward, Forward, VolumePreservingLayer, forward_in_lanes};
/// use geomattn::nalgebra::DMatrix;
/// let layer = VolumePreservingLayer::<f64>::lower(3, &[1.0, -2.0, 0.5], None, Function::Sigmoid)?;
/// let net = FeedForward::new(3, vec![layer])?;
/// let twin = net.map_scalar(Lanes::<f64, 4>::splat);
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
    for (z, y) in input.chunks(group).zip(output.chunks_mut(group)) {
        let count = z.len() / per_window;
        let packed = DMatrix::from_fn(dim, seq, |i, j| {
            let at = i + dim * j;
            // The missing windows of a last group are its first window again.
            L::gather(|k| z[if k < count { k } else { 0 } * per_window + at])
        });
        let out = twin.forward_unchecked(&packed);
        for (at, lanes) in out.iter().enumerate() {
            lanes.scatter(|k, value| {
                if k < count {
                    y[k * per_window + at] = value;
                }
            });
        }
    }
}
