//! The backward passes of the phase-space attention layers: linear symplectic attention and
//! symplectic attention (both weights, both kicks, any [`SoftmaxBackward`]).
//!
//! Each layer adds a kick `K(x)` of the driving half `x` to the updated half, so with `G` the
//! updated half of `Ō`: `Z̄ = Ō` plus, in the driving half, the kick's pullback of `G`.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use super::{Backward, SoftmaxBackward};
use crate::packed::Symmetric;
use crate::product;
use crate::scalar::{Field, Real};
use crate::symplectic::attention::{
    DenseA, SymmetricA, SymmetricMode, SymplecticAttention, SymplecticWeight,
};
use crate::symplectic::linear::LinearSymplecticAttention;
use crate::symplectic::{PhaseSide, assert_phase_space};

/// The rows `first..first + N` of `z`.
fn half<S: Field, const N: usize, const D: usize, const T: usize>(
    z: &SMatrixView<'_, S, D, T>,
    first: usize,
) -> SMatrix<S, N, T> {
    product::matrix(|i, j| z[(first + i, j)])
}

/// `Z̄ = Ō`, then `x_bar` added to the rows `driving..driving + N`.
fn write_input_bar<S: Field, const N: usize, const D: usize, const T: usize>(
    out_bar: &SMatrixView<'_, S, D, T>,
    driving: usize,
    x_bar: &SMatrix<S, N, T>,
    z_bar: &mut SMatrixViewMut<'_, S, D, T>,
) {
    z_bar.copy_from(out_bar);
    for j in 0..T {
        for i in 0..N {
            z_bar[(driving + i, j)] += x_bar[(i, j)];
        }
    }
}

/// Kick `x A` (`A` symmetric): `x̄ = G A`, and `∂L/∂A = xᵀ G` entry by entry, folded onto the
/// packed entries. The gradient is the layer's own type, its `A` holding `∂L/∂A`.
impl<S: Field, const D: usize, const N: usize, const T: usize, Side: PhaseSide> Backward<S, D, T>
    for LinearSymplecticAttention<S, N, T, Side>
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(Symmetric::zeros())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        const { assert_phase_space::<D, N>() };
        let (updated, driving) = Side::rows(N);
        let x: SMatrix<S, N, T> = half(&z, driving);
        let g: SMatrix<S, N, T> = half(&out_bar, updated);
        write_input_bar(
            &out_bar,
            driving,
            &product::mul(&g, self.a().matrix()),
            &mut z_bar,
        );
        gradient.accumulate(&product::tr_mul(&x, &g));
    }
}

/// A [`SymplecticWeight`] with the vector-Jacobian product of its kick. The gradient is the
/// weight's own type, holding `∂L/∂A` (packed entry by packed entry for [`SymmetricA`]).
pub trait SymplecticWeightBackward<S: Real, const N: usize>:
    SymplecticWeight<S, N> + Sized
{
    /// A gradient of zeros.
    fn zero_gradient(&self) -> Self;

    /// `∂L/∂x` for the driving half `x` and `kick_bar = ∂L/∂K(x)`, with `σ` = `Sm`; adds
    /// `∂L/∂A` to `gradient`.
    fn kick_backward<Sm: SoftmaxBackward, const T: usize>(
        &self,
        x: &SMatrix<S, N, T>,
        kick_bar: &SMatrix<S, N, T>,
        gradient: &mut Self,
    ) -> SMatrix<S, N, T>;
}

/// The scores `C = xᵀ y` (`y = A x`) backward: from `s = σ(C)` and `s̄`, with `C̄ = σ'ᵀ s̄`, the
/// shares of `x̄` and `ȳ` through `C`, `(y C̄ᵀ, x C̄)`.
fn scores_backward<Sm: SoftmaxBackward, S: Field, const N: usize, const T: usize>(
    x: &SMatrix<S, N, T>,
    y: &SMatrix<S, N, T>,
    s: &SMatrix<S, T, T>,
    s_bar: &SMatrix<S, T, T>,
) -> (SMatrix<S, N, T>, SMatrix<S, N, T>) {
    let c_bar = Sm::pullback(s, s_bar);
    (product::mul(y, &c_bar.transpose()), product::mul(x, &c_bar))
}

/// `K = y Sᵀ + w S` with `y = A x`, `w = Aᵀ x`, `S = σ(xᵀ y)`: `S̄ = Gᵀ y + wᵀ G`,
/// `ȳ = G S + x C̄`, `w̄ = G Sᵀ`, `x̄ = Aᵀ ȳ + A w̄ + y C̄ᵀ`, `Ā = ȳ xᵀ + x w̄ᵀ`.
impl<S: Real, const N: usize> SymplecticWeightBackward<S, N> for DenseA<S, N> {
    fn zero_gradient(&self) -> Self {
        Self::zeros()
    }

    fn kick_backward<Sm: SoftmaxBackward, const T: usize>(
        &self,
        x: &SMatrix<S, N, T>,
        g: &SMatrix<S, N, T>,
        gradient: &mut Self,
    ) -> SMatrix<S, N, T> {
        let a = self.a();
        let (y, w) = (product::mul(a, x), product::tr_mul(a, x));
        let s = Sm::apply(&product::tr_mul(x, &y));
        let s_bar = product::tr_mul(g, &y) + product::tr_mul(&w, g);
        let (x_share, y_share) = scores_backward::<Sm, _, N, T>(x, &y, &s, &s_bar);
        let y_bar = product::mul(g, &s) + y_share;
        let w_bar = product::mul(g, &s.transpose());
        gradient.accumulate(
            &(product::mul(&y_bar, &x.transpose()) + product::mul(x, &w_bar.transpose())),
        );
        product::tr_mul(a, &y_bar) + product::mul(a, &w_bar) + x_share
    }
}

/// `K = y M` with `y = A x`, `S = σ(xᵀ y)` and `M = S + Sᵀ` ([`GradientExact`](crate::GradientExact))
/// or `2S` ([`GmlCompatible`](crate::GmlCompatible)): `M̄ = yᵀ G`, `S̄ = M̄ + M̄ᵀ` or `2M̄`,
/// `ȳ = G Mᵀ + x C̄`, `x̄ = A ȳ + y C̄ᵀ`, `Ā = ȳ xᵀ` entry by entry, folded onto the packed entries.
impl<S: Real, const N: usize, Mode: SymmetricMode> SymplecticWeightBackward<S, N>
    for SymmetricA<S, N, Mode>
{
    fn zero_gradient(&self) -> Self {
        Self::zeros()
    }

    fn kick_backward<Sm: SoftmaxBackward, const T: usize>(
        &self,
        x: &SMatrix<S, N, T>,
        g: &SMatrix<S, N, T>,
        gradient: &mut Self,
    ) -> SMatrix<S, N, T> {
        let a = self.a().matrix();
        let y = product::mul(a, x);
        let s = Sm::apply(&product::tr_mul(x, &y));
        let m_bar = product::tr_mul(&y, g);
        let (mixing, s_bar) = if Mode::GML {
            (s + s, m_bar + m_bar)
        } else {
            (s + s.transpose(), m_bar + m_bar.transpose())
        };
        let (x_share, y_share) = scores_backward::<Sm, _, N, T>(x, &y, &s, &s_bar);
        let y_bar = product::mul(g, &mixing.transpose()) + y_share;
        gradient.accumulate(&product::mul(&y_bar, &x.transpose()));
        product::mul(a, &y_bar) + x_share
    }
}

/// The gradient is the layer's own type, its weight holding `∂L/∂A`.
impl<S, const D: usize, const N: usize, const T: usize, Side, Sm, Weight> Backward<S, D, T>
    for SymplecticAttention<S, N, Side, Sm, Weight>
where
    S: Real,
    Side: PhaseSide,
    Sm: SoftmaxBackward,
    Weight: SymplecticWeightBackward<S, N>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::with_weight(self.weight().zero_gradient())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        const { assert_phase_space::<D, N>() };
        let (updated, driving) = Side::rows(N);
        let x: SMatrix<S, N, T> = half(&z, driving);
        let g: SMatrix<S, N, T> = half(&out_bar, updated);
        let x_bar = self
            .weight()
            .kick_backward::<Sm, T>(&x, &g, gradient.weight_mut());
        write_input_bar(&out_bar, driving, &x_bar, &mut z_bar);
    }
}
