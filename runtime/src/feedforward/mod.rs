//! The supporting layers of GML's architectures, which act on each time step independently.
//!
//! | layer | map of one column `x` | GML |
//! |---|---|---|
//! | [`VolumePreservingLowerLayer`], [`VolumePreservingUpperLayer`] | `x + σ(W x + b)`, `W` strictly lower / upper | `VolumePreservingLowerLayer`, `…UpperLayer` |
//! | [`ResNetLayer`] | `x + σ(W x + b)`, `W` dense | `ResNetLayer` |
//! | [`Dense`] | `σ(W x + b)`, `W` out×in | `Dense` |
//! | [`GradientLayerQ`], [`GradientLayerP`] | `q + Kᵀ(a ⊙ σ(K p + b))` (P: q and p swapped) | `GradientLayerQ`, `…P` |
//!
//! Every layer but [`Dense`] maps `R^D` to itself: it implements [`ColumnLayer`] (one vector) and
//! [`SequenceLayer`] for every sequence length `T` (column by column, [`forward_columns`]). The bias is an `Option`: GML's
//! `use_bias = false` is `None`, and then there is no `b` at all.
//!
//! Weights can come as nalgebra matrices or, as Julia stores them, as flat column-major slices
//! (`from_slices` constructors, which check every length and return [`Error::WeightLength`]).

mod dense;
mod gradient;
mod resnet;
mod volume_preserving;

pub use dense::Dense;
pub use gradient::{ChangeP, ChangeQ, GradientLayer, GradientLayerP, GradientLayerQ, PhaseSide};
pub use resnet::ResNetLayer;
pub use volume_preserving::{
    StrictlyTriangular, VolumePreservingLayer, VolumePreservingLowerLayer,
    VolumePreservingUpperLayer,
};

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};
use rand::Rng;

#[cfg(doc)]
use crate::SequenceLayer;
use crate::activation::Activation;
use crate::{Error, Field, init};

/// A map `R^D → R^D` applied to every time step of a sequence independently.
///
/// Every type implementing it here is also a [`SequenceLayer<S, D, T>`] for every `T`, through
/// [`forward_columns`].
///
/// ```
/// use geomattn::{ColumnLayer, SequenceLayer, StrictlyLower, VolumePreservingLowerLayer};
/// use geomattn::activation::Identity;
/// use geomattn::nalgebra::{Matrix2x3, Vector2};
/// let w = StrictlyLower::<f64, 2>::from_packed(&[1.0])?;
/// let layer = VolumePreservingLowerLayer::<f64, 2, Identity>::new(w, None);
/// assert_eq!(layer.apply(&Vector2::new(1.0, 1.0)), Vector2::new(1.0, 2.0));
/// let z = Matrix2x3::new(1.0, 0.0, 2.0,
///                        1.0, 5.0, 0.0);
/// assert_eq!(layer.forward(&z), Matrix2x3::new(1.0, 0.0, 2.0,
///                                              2.0, 5.0, 2.0));
/// # Ok::<(), geomattn::Error>(())
/// ```
pub trait ColumnLayer<S: Field, const D: usize> {
    /// The layer's output for one vector.
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D>;
}

/// [`SequenceLayer::forward_into`] of a [`ColumnLayer`]: `out[:, j] = layer(z[:, j])`.
pub fn forward_columns<S: Field, const D: usize, const T: usize>(
    layer: &impl ColumnLayer<S, D>,
    z: SMatrixView<'_, S, D, T>,
    mut out: SMatrixViewMut<'_, S, D, T>,
) {
    for j in 0..T {
        out.set_column(j, &layer.apply(&z.column(j).into_owned()));
    }
}

/// `W x + b`, or `W x` without a bias.
fn affine<S: Field, const R: usize, const C: usize>(
    w: &SMatrix<S, R, C>,
    x: &SVector<S, C>,
    b: Option<&SVector<S, R>>,
) -> SVector<S, R> {
    let y = w * x;
    match b {
        Some(b) => y + b,
        None => y,
    }
}

/// The residual update `x + σ(W x + b)` shared by the volume-preserving and ResNet layers.
fn residual<S: Field, A: Activation<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    b: Option<&SVector<S, D>>,
) -> SVector<S, D> {
    x + A::apply_matrix(affine(w, x, b))
}

/// A matrix from a flat slice in Julia's column-major order.
fn matrix_from_slice<S: Field, const R: usize, const C: usize>(
    name: &'static str,
    values: &[S],
) -> Result<SMatrix<S, R, C>, Error> {
    if values.len() == R * C {
        Ok(SMatrix::from_column_slice(values))
    } else {
        Err(Error::WeightLength {
            name,
            expected: R * C,
            found: values.len(),
        })
    }
}

/// An optional bias from an optional slice.
fn bias_from_slice<S: Field, const N: usize>(
    values: Option<&[S]>,
) -> Result<Option<SVector<S, N>>, Error> {
    values.map(|b| matrix_from_slice("bias", b)).transpose()
}

/// A vector of length `N` with GlorotUniform entries, U(−√(6/N), √(6/N)) (GML treats a vector of
/// length `N` as having `N` fans in total).
fn glorot_vector<S: RealField + Copy, const N: usize, R: Rng + ?Sized>(
    rng: &mut R,
) -> SVector<S, N> {
    let bound = init::glorot_bound::<S>(N);
    SVector::from_fn(|_, _| init::uniform(rng, bound))
}
