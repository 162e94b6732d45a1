//! The backward pass of volume-preserving attention and of its two skew correlations.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use super::{Backward, CayleyDifferentiable, cayley_vjp};
use crate::correlation::{ArbitraryWeight, SkewCorrelation, SkewWeight};
use crate::{Field, SkewSymmetric, VolumePreservingAttention};

/// A skew correlation with its vector-Jacobian product.
pub trait CorrelationBackward<S: Field, const D: usize>: SkewCorrelation<S, D> {
    /// The gradient with respect to the weight, laid out as the weight is.
    type Gradient;

    /// A gradient of zeros.
    fn zero_gradient(&self) -> Self::Gradient;

    /// Adds `∂L/∂Z` to `z_bar` and `∂L/∂A` to `gradient`, given `c_bar = ∂L/∂C` for a `C` that
    /// is skew by construction.
    fn correlation_backward<const T: usize>(
        &self,
        z: &SMatrixView<'_, S, D, T>,
        c_bar: &SMatrix<S, T, T>,
        z_bar: &mut SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self::Gradient,
    );
}

/// `C = Zᵀ A Z`: for `K = C̄ − C̄ᵀ`, `Z̄ += −A Z K` and, entry by packed entry, `Ā = Z K Zᵀ`.
impl<S: Field, const D: usize> CorrelationBackward<S, D> for SkewWeight<S, D> {
    type Gradient = SkewSymmetric<S, D>;

    fn zero_gradient(&self) -> SkewSymmetric<S, D> {
        SkewSymmetric::zeros()
    }

    fn correlation_backward<const T: usize>(
        &self,
        z: &SMatrixView<'_, S, D, T>,
        c_bar: &SMatrix<S, T, T>,
        z_bar: &mut SMatrixViewMut<'_, S, D, T>,
        gradient: &mut SkewSymmetric<S, D>,
    ) {
        let k = c_bar - c_bar.transpose();
        let zk = z * k;
        *z_bar -= self.a().matrix() * zk;
        gradient.add_packed_from(&(zk * z.transpose()));
    }
}

/// `C = L − Lᵀ`, `L = s·Zᵀ A Z` below the diagonal: for `K` the strict lower part of
/// `C̄ − C̄ᵀ`, `Z̄ += s (A Z Kᵀ + Aᵀ Z K)` and `Ā = s Z K Zᵀ`.
impl<S: Field, const D: usize> CorrelationBackward<S, D> for ArbitraryWeight<S, D> {
    type Gradient = SMatrix<S, D, D>;

    fn zero_gradient(&self) -> SMatrix<S, D, D> {
        SMatrix::zeros()
    }

    fn correlation_backward<const T: usize>(
        &self,
        z: &SMatrixView<'_, S, D, T>,
        c_bar: &SMatrix<S, T, T>,
        z_bar: &mut SMatrixViewMut<'_, S, D, T>,
        gradient: &mut SMatrix<S, D, D>,
    ) {
        let k = SMatrix::<S, T, T>::from_fn(|i, j| {
            if i > j {
                (c_bar[(i, j)] - c_bar[(j, i)]) * self.scale()
            } else {
                S::zero()
            }
        });
        let a = self.a();
        *z_bar += a * z * k.transpose() + a.transpose() * z * k;
        *gradient += z * k * z.transpose();
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
    type Gradient = Corr::Gradient;

    fn zero_gradient(&self) -> Corr::Gradient {
        self.weight().zero_gradient()
    }

    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Corr::Gradient,
    ) {
        let lambda = Map::map(&self.weight().correlation(&z));
        z_bar.copy_from(&(out_bar * lambda.transpose()));
        let c_bar = cayley_vjp(&lambda, &(z.transpose() * out_bar));
        self.weight()
            .correlation_backward(&z, &c_bar, &mut z_bar, gradient);
    }
}
