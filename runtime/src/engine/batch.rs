//! Batches of windows through a network's lane twin: [`Batched::WIDTH`] windows at a time, one per
//! SIMD lane, each lane computing exactly its window's scalar pass.
//!
//! The twin is the same network over [`Lanes`] with every weight splatted across the lanes
//! ([`crate::MapScalar::map_scalar`] with [`Batched::broadcast`]), built once; every operation of a
//! forward pass then serves `WIDTH` windows, and so does each of its allocations. The lanes are
//! `wide`'s portable vectors (8 `f32` or 4 `f64`: two SSE2 registers on a default x86-64 build),
//! whose operations are IEEE's lane by lane and whose elementary functions are the scalar ones,
//! so that the outputs are **bit for bit** those of the scalar pass, window by window.

use nalgebra::{DMatrix, RealField};

use super::{Element, Forward};
use crate::Lanes;

/// A scalar whose windows the engine runs several at a time, one per lane of [`Self::Lanes`].
pub trait Batched: Element + RealField + Copy {
    /// [`WIDTH`](Self::WIDTH) values of the scalar.
    type Lanes: Element + Send + Sync;
    /// The number of lanes: 8 for `f32`, 4 for `f64`.
    const WIDTH: usize;

    /// `value` in every lane.
    fn broadcast(value: Self) -> Self::Lanes;

    /// The vector whose lane `k` is `f(k)`.
    fn gather(f: impl FnMut(usize) -> Self) -> Self::Lanes;

    /// `f(k, lane k)` for every lane `k` of `lanes`.
    fn scatter(lanes: Self::Lanes, f: impl FnMut(usize, Self));
}

macro_rules! batched {
    ($($scalar:ty, $lanes:literal;)*) => {$(
        impl Batched for $scalar {
            type Lanes = Lanes<$scalar, $lanes>;
            const WIDTH: usize = $lanes;

            #[inline(always)]
            fn broadcast(value: Self) -> Self::Lanes {
                Lanes::splat(value)
            }

            #[inline(always)]
            fn gather(f: impl FnMut(usize) -> Self) -> Self::Lanes {
                Lanes::new(core::array::from_fn(f))
            }

            #[inline(always)]
            fn scatter(lanes: Self::Lanes, mut f: impl FnMut(usize, Self)) {
                lanes.to_array().into_iter().enumerate().for_each(|(k, x)| f(k, x))
            }
        }
    )*};
}

batched! {
    f32, 8;
    f64, 4;
}

/// The forward pass of the network whose lane twin is `twin`, on every window of `input`
/// (`dim×seq` values each, column-major, one after another), written into `output` (the same
/// shape): [`Batched::WIDTH`] windows at a time, the last group filled up with copies of its first
/// window. Every output is bit for bit the network's scalar
/// [`forward_unchecked`](Forward::forward_unchecked) of its window.
///
/// ```
/// use geomattn::MapScalar;
/// use geomattn::activation::Function;
/// use geomattn::engine::{Batched, FeedForward, Forward, VolumePreservingLayer, forward_in_lanes};
/// use geomattn::nalgebra::DMatrix;
/// let layer = VolumePreservingLayer::<f64>::lower(3, &[1.0, -2.0, 0.5], None, Function::Sigmoid)?;
/// let net = FeedForward::new(3, vec![layer])?;
/// let twin = net.map_scalar(f64::broadcast);
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
pub fn forward_in_lanes<S: Batched>(
    twin: &dyn Forward<S::Lanes>,
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
    let group = S::WIDTH * per_window;
    for (z, y) in input.chunks(group).zip(output.chunks_mut(group)) {
        let count = z.len() / per_window;
        let packed = DMatrix::from_fn(dim, seq, |i, j| {
            let at = i + dim * j;
            // The missing windows of a last group are its first window again.
            S::gather(|k| z[if k < count { k } else { 0 } * per_window + at])
        });
        let out = twin.forward_unchecked(&packed);
        // Each vector once, into the windows of the group (the copies that filled it dropped).
        for (at, &lanes) in out.iter().enumerate() {
            S::scatter(lanes, |k, value| {
                if k < count {
                    y[k * per_window + at] = value;
                }
            });
        }
    }
}
