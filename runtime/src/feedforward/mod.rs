//! The supporting layers of GML's architectures, which act on each time step independently.
//!
//! | layer | map of one column `x` | GML |
//! |---|---|---|
//! | [`VolumePreservingLowerLayer`], [`VolumePreservingUpperLayer`] | `x + σ(W x + b)`, `W` strictly lower / upper | `VolumePreservingLowerLayer`, `…UpperLayer` |
//! | [`ResNetLayer`] | `x + σ(W x + b)`, `W` dense | `ResNetLayer` |
//! | [`Dense`] | `σ(W x + b)`, `W` out×in | `Dense` |
//! | [`GradientLayerQ`], [`GradientLayerP`] | `q + Kᵀ(a ⊙ σ(K p + b))` (P: q and p swapped) | `GradientLayerQ`, `…P` |
//!
//! Each is a [`ColumnLayer`]. Every layer but [`Dense`] maps `R^D` to itself, which makes it a
//! [`SequenceLayer`] for every sequence length `T` (column by column); [`Dense`] changes the
//! dimension and maps sequences with [`ColumnLayer::apply_columns`]. The bias is an `Option`:
//! GML's `use_bias = false` is `None`, and then there is no `b` at all.
//!
//! Weights can come as nalgebra matrices or, as Julia stores them, as flat column-major slices
//! (`from_slices` constructors, which check every length and return [`Error::WeightLength`]).

mod dense;
mod gradient;
mod resnet;
mod volume_preserving;

pub use dense::Dense;
pub use gradient::{GradientLayer, GradientLayerP, GradientLayerQ};
pub use resnet::ResNetLayer;
pub use volume_preserving::{
    StrictlyTriangular, VolumePreservingLayer, VolumePreservingLowerLayer,
    VolumePreservingUpperLayer,
};

use nalgebra::{RealField, SMatrix, SVector};
use rand::Rng;

use crate::activation::Activation;
use crate::error::Error;
#[cfg(doc)]
use crate::layer::{ColumnLayer, SequenceLayer};
use crate::packed::matrix_from_slice;
use crate::scalar::Field;
use crate::{init, product};

/// `W x + b`, or `W x` without a bias (always inlined, like every step of a forward pass: see
/// [`crate::Isa`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn affine<S: Field, const ROWS: usize, const COLS: usize>(
    w: &SMatrix<S, ROWS, COLS>,
    x: &SVector<S, COLS>,
    b: Option<&SVector<S, ROWS>>,
) -> SVector<S, ROWS> {
    let y = product::mul(w, x);
    match b {
        Some(b) => product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i, _| y[i] + b[i],
        ),
        None => y,
    }
}

/// The residual update `x + σ(W x + b)` shared by the volume-preserving and ResNet layers.
#[cfg_attr(not(debug_assertions), inline(always))]
fn residual<S: Field, Act: Activation<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    b: Option<&SVector<S, D>>,
) -> SVector<S, D> {
    residual_keeping::<S, Act, D>(w, x, b).0
}

/// The residual update `x + σ(W x + b)` and its activated part `σ(W x + b)`, which the backward
/// pass reuses instead of evaluating `σ` again ([`crate::backward`]).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn residual_keeping<S: Field, Act: Activation<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    b: Option<&SVector<S, D>>,
) -> (SVector<S, D>, SVector<S, D>) {
    let update = Act::apply_matrix(affine(w, x, b));
    let y = product::matrix(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |i, _| x[i] + update[i],
    );
    (y, update)
}

/// An optional bias from an optional slice.
fn bias_from_slice<S: Field, const LEN: usize>(
    values: Option<&[S]>,
) -> Result<Option<SVector<S, LEN>>, Error> {
    values.map(|b| matrix_from_slice("bias", b)).transpose()
}

/// A vector of length `LEN` with GlorotUniform entries, U(−√(6/LEN), √(6/LEN)) (GML treats a
/// vector of length `LEN` as having `LEN` fans in total).
fn glorot_vector<S: RealField + Copy, const LEN: usize, R: Rng + ?Sized>(
    rng: &mut R,
) -> SVector<S, LEN> {
    let bound = init::glorot_bound::<S>(LEN);
    SVector::from_fn(|_, _| init::uniform(rng, bound))
}
