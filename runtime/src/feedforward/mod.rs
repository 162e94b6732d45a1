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

use nalgebra::{Dim, Matrix, RawStorage, RawStorageMut, RealField, SMatrix, SVector, U1};
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
    let mut update = product::mul(w, x);
    let mut y = *x;
    residual_after_product(
        &mut update,
        b,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |u| *u = Act::apply_matrix(*u),
        &mut y,
    );
    (y, update)
}

/// The residual update `x ← x + σ(W x + b)` of the volume-preserving and ResNet layers after its
/// product `u = W x`, column by column, for every size (nalgebra's [`Dim`]): `u ← σ(u + b)`, then
/// `x ← x + u`. The one place these steps are written: the compile-time layers
/// ([`residual_keeping`]) and the run-time engine's (`engine::VolumePreservingLayer`,
/// `engine::ResNetLayer`) give it their product and their `σ` over the whole of `u`
/// (`Activation::apply_matrix`, `engine::Element::activate_all`).
#[inline(always)]
pub(crate) fn residual_after_product<S, D: Dim, C: Dim, SU, SB, SX>(
    u: &mut Matrix<S, D, C, SU>,
    b: Option<&Matrix<S, D, U1, SB>>,
    activate: impl FnOnce(&mut Matrix<S, D, C, SU>),
    x: &mut Matrix<S, D, C, SX>,
) where
    S: Field,
    SU: RawStorageMut<S, D, C>,
    SB: RawStorage<S, D, U1>,
    SX: RawStorageMut<S, D, C>,
{
    if let Some(b) = b {
        product::update(
            u,
            #[inline(always)]
            |entry, i, _| entry + b[i],
        );
    }
    activate(u);
    product::update(
        x,
        #[inline(always)]
        |entry, i, j| entry + u[(i, j)],
    );
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
