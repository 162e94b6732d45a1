//! The backward pass of volume-preserving attention and of its two skew correlations.

use nalgebra::allocator::Allocator;
use nalgebra::{
    DefaultAllocator, Dim, Matrix, OMatrix, RawStorageMut, SMatrix, SMatrixView, SMatrixViewMut,
};

use super::VolumePreservingAttention;
use crate::backward::{Backward, CayleyDifferentiable, cayley_vjp};
use crate::correlation::{ArbitraryWeight, SkewCorrelation, SkewWeight};
use crate::packed::SkewSymmetric;
use crate::product;
use crate::scalar::Field;
use crate::workspace::{Fresh, Workspace};

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

/// `C = Zᵀ A Z`: `correlation_pullback`, `∂L/∂A` at the packed positions.
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
        let a_bar = correlation_pullback(
            self.a().matrix(),
            None,
            (&product::matrix(|i, j| z[(i, j)]), c_bar),
            z_bar,
            &mut Fresh,
        );
        gradient.accumulate(&a_bar);
    }
}

/// `C = L − Lᵀ`, `L = s·Zᵀ A Z` below the diagonal: `correlation_pullback`.
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
        let a_bar = correlation_pullback(
            self.a(),
            Some(self.scale()),
            (&product::matrix(|i, j| z[(i, j)]), c_bar),
            z_bar,
            &mut Fresh,
        );
        gradient.accumulate(&a_bar);
    }
}

/// The pullback of a skew correlation of `Z` (`D×T`) with weight `A`, given `C̄ = ∂L/∂C` for a
/// `C` skew by construction, on matrices of `workspace`: adds the correlation's share of
/// `∂L/∂Z` to `z_bar` and returns `Ā`. The one place it is written, for every size (nalgebra's [`Dim`]): the
/// compile-time weightings and the engine's layer run it.
/// - `scale = None`, `C = Zᵀ A Z` with `A` skew: for `K = C̄ − C̄ᵀ`, `Z̄ −= A Z K` and
///   `Ā = Z K Zᵀ`, skew, whose entries at `A`'s packed positions are the packed gradient;
/// - `scale = Some(s)`, `C = L − Lᵀ`, `L = s·Zᵀ A Z` below the diagonal: for `K` the strict
///   lower part of `s·(C̄ − C̄ᵀ)`, `Z̄ += A Z Kᵀ + Aᵀ Z K` and `Ā = Z K Zᵀ`, `∂L/∂A` entry by
///   entry.
#[inline(always)]
pub(crate) fn correlation_pullback<S: Field, D: Dim, T: Dim, W: Workspace<S>>(
    a: &OMatrix<S, D, D>,
    scale: Option<S>,
    (z, c_bar): (&OMatrix<S, D, T>, &OMatrix<S, T, T>),
    z_bar: &mut Matrix<S, D, T, impl RawStorageMut<S, D, T>>,
    workspace: &mut W,
) -> OMatrix<S, D, D>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D, T> + Allocator<T, T>,
{
    let (t, _) = c_bar.shape_generic();
    let mut k = workspace.build(
        t,
        t,
        #[inline(always)]
        |i, j| match scale {
            None => c_bar[(i, j)] - c_bar[(j, i)],
            Some(scale) if i > j => (c_bar[(i, j)] - c_bar[(j, i)]) * scale,
            Some(_) => S::zero(),
        },
    );
    let mut zk = workspace.mul(z, &k);
    match scale {
        None => {
            let mut azk = workspace.mul(a, &zk);
            product::update(
                z_bar,
                #[inline(always)]
                |entry, i, j| entry - azk[(i, j)],
            );
            workspace.recycle(&mut azk);
        }
        Some(_) => {
            let mut zk_t = workspace.mul_tr(z, &k);
            let mut transposed_share = workspace.mul(a, &zk_t);
            let mut share = workspace.tr_mul(a, &zk);
            product::update(
                z_bar,
                #[inline(always)]
                |entry, i, j| entry + (transposed_share[(i, j)] + share[(i, j)]),
            );
            workspace.recycle_all([&mut zk_t, &mut transposed_share, &mut share]);
        }
    }
    let a_bar = workspace.mul_tr(&zk, z);
    workspace.recycle(&mut k);
    workspace.recycle(&mut zk);
    a_bar
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backward::exact::{Q, derivative, inner, rational};
    use crate::packed::{PackedLayout, Skew};

    /// The correlation written out: `Zᵀ A Z` (`scale = None`), or `L − Lᵀ` for `L` the strict
    /// lower part of `s·Zᵀ A Z`.
    fn correlation<const D: usize, const T: usize>(
        a: &SMatrix<Q, D, D>,
        scale: Option<Q>,
        z: &SMatrix<Q, D, T>,
    ) -> SMatrix<Q, T, T> {
        let m = z.transpose() * a * z;
        match scale {
            None => m,
            Some(s) => SMatrix::from_fn(|i, j| match i.cmp(&j) {
                core::cmp::Ordering::Greater => m[(i, j)] * s,
                core::cmp::Ordering::Less => -m[(j, i)] * s,
                core::cmp::Ordering::Equal => Q::from_integer(0),
            }),
        }
    }

    /// The correlation is quadratic in `Z` and linear in `A`: for any `C̄`, the pullback's `Z̄`
    /// and `Ā` against the exact directional derivatives of `⟨C̄, C⟩`; for a skew `A` along a
    /// skew `Ȧ`, `Ā`'s entries at the packed positions are the packed gradient.
    fn correlation_exact<const D: usize, const T: usize>() {
        let skew = |m: SMatrix<Q, D, D>| m - m.transpose();
        for scale in [None, Some(Q::new(2, 3))] {
            let (a, a_dot) = match scale {
                None => (skew(rational(1)), skew(rational(5))),
                Some(_) => (rational(1), rational(5)),
            };
            let (z, c_bar, z_dot) = (rational::<D, T>(2), rational::<T, T>(3), rational(4));
            let mut z_bar = SMatrix::zeros();
            let a_bar = correlation_pullback(&a, scale, (&z, &c_bar), &mut z_bar, &mut Fresh);
            let along_z = derivative(|h| correlation(&a, scale, &(z + z_dot * h)));
            assert_eq!(
                inner(&c_bar, &along_z),
                inner(&z_bar, &z_dot),
                "{scale:?}, D = {D}, T = {T}"
            );
            let along_a = derivative(|h| correlation(&(a + a_dot * h), scale, &z));
            let expected = match scale {
                None => Skew::positions(D)
                    .map(|(i, j)| a_bar[(i, j)] * a_dot[(i, j)])
                    .sum(),
                Some(_) => inner(&a_bar, &a_dot),
            };
            assert_eq!(
                inner(&c_bar, &along_a),
                expected,
                "{scale:?}, D = {D}, T = {T}"
            );
        }
    }

    #[test]
    fn the_correlations_pullback_is_exact_in_rationals() {
        correlation_exact::<2, 1>();
        correlation_exact::<2, 3>();
        correlation_exact::<3, 4>();
        correlation_exact::<4, 2>();
        correlation_exact::<5, 5>();
    }
}
