//! How an attention layer scores every pair of time steps: the [`Correlation`] trait, its five
//! implementors, and GML's correlation kernels.
//!
//! A correlation turns a sequence `Z ∈ R^{D×T}` into a `T×T` matrix `C`, `C[i,j]` pairing time
//! step `i` with time step `j`:
//!
//! | type | `C[i,j]` | skew | used by | cost per sequence |
//! |---|---|---|---|---|
//! | [`SkewWeight`] | `z_iᵀ A z_j`, `A` skew (GML's `skew_sym = true`) | yes | [`crate::VolumePreservingAttention`] | `D²T + DT²/2` |
//! | [`ArbitraryWeight`] | `L − Lᵀ`, `L[i,j] = z_iᵀ A z_j / √D` for `i > j` (GML's default) | yes | [`crate::VolumePreservingAttention`] | `D²T + DT²/2` |
//! | [`Bilinear`] | `z_iᵀ W z_j` | no | [`crate::SoftmaxAttention`] | `D²T + DT²` |
//! | [`LowRank`] | `(W_Uᵀ z_i) · (W_Vᵀ z_j)`, `W = W_U W_Vᵀ` of rank `RANK` | no | [`crate::SoftmaxAttention`] | `2D·RANK·T + RANK·T²` |
//! | [`Additive`] | `vᵀ σ(W z_i + U z_j)` (σ = tanh by default) | no | [`crate::SoftmaxAttention`] | `2·HIDDEN·D·T + HIDDEN·T²` |
//!
//! The skew ones also implement the marker [`SkewCorrelation`], which volume-preserving attention
//! asks for: its orthogonal map reads only the strict upper triangle of `C`.

mod scores;
mod skew;

pub use scores::{Additive, Bilinear, LowRank};
#[cfg(feature = "std")]
pub(crate) use skew::gml_scale;
pub use skew::{ArbitraryWeight, SkewWeight, arbitrary_correlation, skew_sym_correlation};

use nalgebra::{Dim, Matrix, RawStorage, RawStorageMut, SMatrix, SMatrixView};

use crate::error::Error;
use crate::layer::check_batch_lengths;
use crate::product;
use crate::scalar::Field;

/// How an attention layer scores every pair of time steps of a sequence in `R^D`.
pub trait Correlation<S: Field, const D: usize> {
    /// The `T×T` matrix `C` of the sequence `z`.
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T>;
}

/// A [`Correlation`] whose matrix is skew-symmetric for every sequence, as the orthogonal maps of
/// volume-preserving attention need.
pub trait SkewCorrelation<S: Field, const D: usize>: Correlation<S, D> {}

/// GML's `tensor_mat_skew_sym_assign` for one sequence: `L[i,j] = z_iᵀ A z_j` for `i > j`,
/// zero on and above the diagonal (no `1/√dim` factor).
///
/// Costs `D²T` for `A Z` plus `D·T(T−1)/2` for the dot products.
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn lower_correlation<S: Field, const D: usize, const T: usize>(
    z: &SMatrixView<'_, S, D, T>,
    a: &SMatrix<S, D, D>,
) -> SMatrix<S, T, T> {
    let az = product::mul(a, z);
    product::matrix(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |i, j| lower_entry(z, &az, i, j),
    )
}

/// `L[i,j]` of [`lower_correlation`] from `az = A Z`: `z_iᵀ (A Z)_j` for `i > j`, else zero.
/// The one place these sums are written, for compile-time and run-time sizes alike.
#[inline(always)]
pub(crate) fn lower_entry<S, D: Dim, T: Dim, SZ, SAZ>(
    z: &Matrix<S, D, T, SZ>,
    az: &Matrix<S, D, T, SAZ>,
    i: usize,
    j: usize,
) -> S
where
    S: Field,
    SZ: RawStorage<S, D, T>,
    SAZ: RawStorage<S, D, T>,
{
    if i > j {
        product::column_dot(z, i, az, j)
    } else {
        S::zero()
    }
}

/// GML's batched `tensor_mat_skew_sym_assign(Z, A)`: [`lower_correlation`] for every slice.
///
/// ```
/// use geomattn::correlation::tensor_mat_skew_sym_assign;
/// use geomattn::nalgebra::{Matrix3, Matrix3x2, Matrix2};
/// let a = Matrix3::from_diagonal(&[1.0, 2.0, 3.0].into());
/// let z = [Matrix3x2::new(1.0, 1.0, 0.0, 1.0, 0.0, 1.0),
///          Matrix3x2::new(0.0, 1.0, 1.0, 1.0, 0.0, 1.0),
///          Matrix3x2::new(0.0, 1.0, 0.0, 1.0, 1.0, 1.0)];
/// let mut out = [Matrix2::zeros(); 3];
/// tensor_mat_skew_sym_assign(&z, &a, &mut out)?;
/// assert_eq!(out, [Matrix2::new(0.0, 0.0, 1.0, 0.0),
///                  Matrix2::new(0.0, 0.0, 2.0, 0.0),
///                  Matrix2::new(0.0, 0.0, 3.0, 0.0)]);
/// # Ok::<(), geomattn::Error>(())
/// ```
///
/// # Errors
/// [`Error::BatchShape`] if `z` and `out` hold different numbers of slices.
pub fn tensor_mat_skew_sym_assign<S: Field, const D: usize, const T: usize>(
    z: &[SMatrix<S, D, T>],
    a: &SMatrix<S, D, D>,
    out: &mut [SMatrix<S, T, T>],
) -> Result<(), Error> {
    check_batch_lengths(z, out)?;
    for (slice, result) in z.iter().zip(out.iter_mut()) {
        *result = lower_correlation(&slice.as_view(), a);
    }
    Ok(())
}

/// `L − Lᵀ`: the skew-symmetric matrix whose strict lower triangle is that of `l` (whose
/// diagonal and upper triangle are not read), as [`skew_of_lower_in_place`] writes it.
///
/// ```
/// use geomattn::correlation::skew_from_lower;
/// use geomattn::nalgebra::Matrix3;
/// let l = Matrix3::new(9.0, 9.0, 9.0,
///                      1.0, 9.0, 9.0,
///                      2.0, 3.0, 9.0);
/// assert_eq!(skew_from_lower(&l), Matrix3::new(0.0, -1.0, -2.0,
///                                              1.0, 0.0, -3.0,
///                                              2.0, 3.0, 0.0));
/// ```
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn skew_from_lower<S: Field, const T: usize>(l: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    let mut c = *l;
    skew_of_lower_in_place(&mut c, None);
    c
}

/// `C = L − Lᵀ` in place, `L` the strict lower part of `c` (scaled entry by entry, as
/// nalgebra's `l * scale` does, if `scale`), subtracted as `L − Lᵀ` is: `l − 0` below the
/// diagonal, `0 − l` above, zero on it. Only the strict lower part of `c` is read: for a skew
/// `A`, `z_jᵀ A z_i = −z_iᵀ A z_j`, so `Zᵀ A Z` is this `L − Lᵀ` of its own strict lower part.
/// Every skew correlation, at compile-time and run-time sizes, ends here.
#[inline(always)]
pub(crate) fn skew_of_lower_in_place<S: Field, T: Dim, SC: RawStorageMut<S, T, T>>(
    c: &mut Matrix<S, T, T, SC>,
    scale: Option<S>,
) {
    for j in 0..c.ncols() {
        c[(j, j)] = S::zero();
        for i in j + 1..c.ncols() {
            let l = scale.map_or(c[(i, j)], |scale| c[(i, j)] * scale);
            c[(i, j)] = l - S::zero();
            c[(j, i)] = S::zero() - l;
        }
    }
}
