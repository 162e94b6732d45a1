//! The backward pass of volume-preserving attention and of its two skew correlations.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use super::{Backward, CayleyDifferentiable, cayley_vjp};
use crate::correlation::{ArbitraryWeight, SkewCorrelation, SkewWeight};
use crate::packed::SkewSymmetric;
use crate::product;
use crate::scalar::Field;
use crate::vpa::VolumePreservingAttention;

/// A skew correlation with its vector-Jacobian product. The gradient is the weighting's own type,
/// its weight holding `∂L/∂A` (packed entry by packed entry for the skew one; the arbitrary one's
/// factor is not a parameter and is carried along).
pub trait CorrelationBackward<S: Field, const D: usize>: SkewCorrelation<S, D> + Sized {
    /// A gradient of zeros.
    fn zero_gradient(&self) -> Self;

    /// Adds `∂L/∂Z` to `z_bar` and `∂L/∂A` to `gradient`, given `c_bar = ∂L/∂C` for a `C` that
    /// is skew by construction.
    fn correlation_backward<const T: usize>(
        &self,
        z: &SMatrixView<'_, S, D, T>,
        c_bar: &SMatrix<S, T, T>,
        z_bar: &mut SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    );
}

/// `C = Zᵀ A Z`: for `K = C̄ − C̄ᵀ`, `Z̄ += −A Z K` and, entry by packed entry, `Ā = Z K Zᵀ`.
impl<S: Field, const D: usize> CorrelationBackward<S, D> for SkewWeight<S, D> {
    fn zero_gradient(&self) -> Self {
        SkewWeight::new(SkewSymmetric::zeros())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn correlation_backward<const T: usize>(
        &self,
        z: &SMatrixView<'_, S, D, T>,
        c_bar: &SMatrix<S, T, T>,
        z_bar: &mut SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        let k = product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i, j| c_bar[(i, j)] - c_bar[(j, i)],
        );
        let zk = product::mul(z, &k);
        let azk = product::mul(self.a().matrix(), &zk);
        product::update(
            z_bar,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |entry, i, j| entry - azk[(i, j)],
        );
        gradient.accumulate(&product::mul(&zk, &z.transpose()));
    }
}

/// `C = L − Lᵀ`, `L = s·Zᵀ A Z` below the diagonal: for `K` the strict lower part of
/// `C̄ − C̄ᵀ`, `Z̄ += s (A Z Kᵀ + Aᵀ Z K)` and `Ā = s Z K Zᵀ`.
impl<S: Field, const D: usize> CorrelationBackward<S, D> for ArbitraryWeight<S, D> {
    fn zero_gradient(&self) -> Self {
        ArbitraryWeight::with_scale(SMatrix::zeros(), self.scale())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn correlation_backward<const T: usize>(
        &self,
        z: &SMatrixView<'_, S, D, T>,
        c_bar: &SMatrix<S, T, T>,
        z_bar: &mut SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        let scale = self.scale();
        let k = product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i, j| {
                if i > j {
                    (c_bar[(i, j)] - c_bar[(j, i)]) * scale
                } else {
                    S::zero()
                }
            },
        );
        let zk = product::mul(z, &k);
        let zk_t = product::mul(z, &k.transpose());
        let a = self.a();
        let (transposed_share, share) = (product::mul(a, &zk_t), product::tr_mul(a, &zk));
        product::update(
            z_bar,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |entry, i, j| entry + (transposed_share[(i, j)] + share[(i, j)]),
        );
        gradient.accumulate(&product::mul(&zk, &z.transpose()));
    }
}

/// `out = Z Λ`, `Λ = Cay(C(Z))`: `Z̄ = Ō Λᵀ` plus the correlation's share of
/// `C̄ = cayley_vjp(Λ, Zᵀ Ō)`.
impl<S, const D: usize, const T: usize, Corr, Map> Backward<S, D, T>
    for VolumePreservingAttention<S, D, T, Corr, Map>
where
    S: Field,
    Corr: CorrelationBackward<S, D>,
    Map: CayleyDifferentiable<S, T>,
{
    /// The layer's own type, its weighting holding the gradient.
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(self.weight().zero_gradient())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        let lambda = Map::map(&self.weight().correlation(&z));
        z_bar.copy_from(&product::mul(&out_bar, &lambda.transpose()));
        let c_bar = cayley_vjp(&lambda, &product::tr_mul(&z, &out_bar));
        self.weight()
            .correlation_backward(&z, &c_bar, &mut z_bar, gradient.weight_mut());
    }
}
