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
/// diagonal and upper triangle are not read), written as every skew correlation writes its own.
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

#[cfg(test)]
mod tests {
    use nalgebra::{DMatrix, SMatrix};
    use num_rational::Ratio;

    use super::*;
    use crate::packed::SkewSymmetric;

    type Q = Ratio<i64>;

    /// Small rationals that differ entry by entry (`seed` picks the pattern).
    fn rational<const R: usize, const C: usize>(seed: i64) -> SMatrix<Q, R, C> {
        SMatrix::from_fn(|i, j| {
            let k = (i * C + j) as i64;
            Q::new((k * 7 + seed) % 11 - 5, 1 + (k + seed) % 4)
        })
    }

    fn float<const R: usize, const C: usize>(seed: f64) -> SMatrix<f64, R, C> {
        SMatrix::from_fn(|i, j| ((i * C + j) as f64 * 0.731 + seed).sin() * 3.0)
    }

    /// `C = Zᵀ A Z` for the skew weighting and `C = L − Lᵀ`, `L = s·Zᵀ A Z` below the
    /// diagonal, for the arbitrary one: exactly, against nalgebra's own products.
    fn exact<const D: usize, const T: usize>() {
        let z = rational::<D, T>(3);
        let packed: std::vec::Vec<Q> = (0..D * (D.saturating_sub(1)) / 2)
            .map(|k| Q::new(k as i64 % 5 - 2, 3))
            .collect();
        let skew = SkewWeight::new(SkewSymmetric::<Q, D>::from_packed(&packed).unwrap());
        let zt_a_z = z.transpose() * skew.a().matrix() * z;
        assert_eq!(
            skew.correlation(&z.as_view()),
            zt_a_z,
            "skew, D = {D}, T = {T}"
        );

        let (a, scale) = (rational::<D, D>(5), Q::new(2, 3));
        let arbitrary = ArbitraryWeight::with_scale(a, scale);
        let l = z.transpose() * a * z * scale;
        let expected = SMatrix::<Q, T, T>::from_fn(|i, j| match i.cmp(&j) {
            core::cmp::Ordering::Greater => l[(i, j)],
            core::cmp::Ordering::Less => -l[(j, i)],
            core::cmp::Ordering::Equal => Q::from_integer(0),
        });
        assert_eq!(
            arbitrary.correlation(&z.as_view()),
            expected,
            "arbitrary, D = {D}, T = {T}"
        );
    }

    #[test]
    fn the_skew_correlations_are_exact_in_rationals() {
        exact::<1, 3>();
        exact::<2, 4>();
        exact::<3, 3>();
        exact::<4, 1>();
        exact::<5, 6>();
        exact::<3, 9>();
    }

    /// The functions over `Dim` at run-time sizes and the compiled weightings: one kernel, so
    /// the same bits.
    fn same_bits<const D: usize, const T: usize>() {
        let z = float::<D, T>(0.4);
        let a = float::<D, D>(1.3);
        let skew_a = a - a.transpose();
        let dynamic = |m: &SMatrix<f64, D, T>| DMatrix::from_column_slice(D, T, m.as_slice());
        let dense = |m: &SMatrix<f64, D, D>| DMatrix::from_column_slice(D, D, m.as_slice());
        let packed: std::vec::Vec<f64> = (0..D)
            .flat_map(|j| (0..j).map(move |i| (i, j)))
            .map(|(i, j)| skew_a[(i, j)])
            .collect();
        let skew = SkewSymmetric::<f64, D>::from_packed(&packed).unwrap();
        let compiled = SkewWeight::new(skew).correlation(&z.as_view());
        let run_time = skew_sym_correlation(&dynamic(&z), &dense(skew.matrix()));
        assert_eq!(
            run_time.as_slice(),
            compiled.as_slice(),
            "skew, D = {D}, T = {T}"
        );

        let compiled = ArbitraryWeight::new(a).correlation(&z.as_view());
        let scale = 1.0 / (D as f64).sqrt();
        let run_time = arbitrary_correlation(&dynamic(&z), &dense(&a), scale);
        assert_eq!(
            run_time.as_slice(),
            compiled.as_slice(),
            "arbitrary, D = {D}, T = {T}"
        );
    }

    #[test]
    fn at_run_time_sizes_the_correlations_are_the_compiled_ones_bit_for_bit() {
        same_bits::<2, 2>();
        same_bits::<3, 3>();
        same_bits::<4, 7>();
        same_bits::<6, 5>();
        same_bits::<9, 12>();
    }
}
