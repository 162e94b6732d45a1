//! The backward pass of symplectic attention (both weights, both kicks, any
//! [`SoftmaxBackward`]): `Z̄ = Ō` plus, in the driving half, the kick's pullback of `G`, the
//! updated half of `Ō`.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, SMatrix, SMatrixView, SMatrixViewMut};

use super::{
    DenseA, Kick, SymmetricA, SymmetricMode, SymplecticAttention, SymplecticWeight, scores,
};
use crate::backward::softmax::pulled_back;
use crate::backward::{Backward, SoftmaxBackward};
use crate::product;
use crate::scalar::{Field, Real};
use crate::softmax::applied;
use crate::symplectic::{PhaseSide, assert_phase_space, half, write_input_bar};
use crate::workspace::{Fresh, Workspace};

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

/// `K = y Sᵀ + w S` with `y = A x`, `w = Aᵀ x`, `S = σ(xᵀ y)`: `kick_backward` (this module).
impl<S: Real, const N: usize> SymplecticWeightBackward<S, N> for DenseA<S, N> {
    fn zero_gradient(&self) -> Self {
        Self::zeros()
    }

    #[inline(always)]
    fn kick_backward<Sm: SoftmaxBackward, const T: usize>(
        &self,
        x: &SMatrix<S, N, T>,
        g: &SMatrix<S, N, T>,
        gradient: &mut Self,
    ) -> SMatrix<S, N, T> {
        let (x_bar, a_bar) = kick_backward(
            Kick::Dense,
            self.a(),
            (x, g),
            (applied::<Sm, S, T>(), pulled_back::<Sm, S, T>()),
            &mut Fresh,
        );
        gradient.accumulate(&a_bar);
        x_bar
    }
}

/// `K = y M` with `y = A x`, `S = σ(xᵀ y)` and `M = S + Sᵀ` ([`GradientExact`](crate::GradientExact))
/// or `2S` ([`GmlCompatible`](crate::GmlCompatible)): `kick_backward`, `Ā` folded onto the
/// packed entries.
impl<S: Real, const N: usize, Mode: SymmetricMode> SymplecticWeightBackward<S, N>
    for SymmetricA<S, N, Mode>
{
    fn zero_gradient(&self) -> Self {
        Self::zeros()
    }

    #[inline(always)]
    fn kick_backward<Sm: SoftmaxBackward, const T: usize>(
        &self,
        x: &SMatrix<S, N, T>,
        g: &SMatrix<S, N, T>,
        gradient: &mut Self,
    ) -> SMatrix<S, N, T> {
        let (x_bar, a_bar) = kick_backward(
            Kick::symmetric(Mode::GML),
            self.a().matrix(),
            (x, g),
            (applied::<Sm, S, T>(), pulled_back::<Sm, S, T>()),
            &mut Fresh,
        );
        gradient.accumulate(&a_bar);
        x_bar
    }
}

/// The pullback of a symplectic attention kick ([`kick`](crate::symplectic::attention::kick)) at the driving half `x` (`n×T`), given
/// `g = ∂L/∂K(x)`, with the caller's `σ` and its pullback (`(s, s̄, c̄)`), on matrices of
/// `workspace`: `(x̄, Ā)`, `Ā = ∂L/∂A` dense (a symmetric weight's caller folds it onto its
/// packed entries). The one place these formulas are written, for every size (nalgebra's
/// [`Dim`]): the compile-time weights and the engine's layers run it. With `C̄` the softmax's
/// pullback of `S̄`:
/// - the dense kick `y Sᵀ + w S` (`w = Aᵀ x`): `S̄ = Gᵀ y + wᵀ G`, `ȳ = x C̄ + G S`,
///   `w̄ = G Sᵀ`, `x̄ = y C̄ᵀ + Aᵀ ȳ + A w̄`, `Ā = ȳ xᵀ + x w̄ᵀ`;
/// - the symmetric kicks `y M`, `M = S + Sᵀ` or `2S`: `M̄ = yᵀ G`, `S̄ = M̄ + M̄ᵀ` or `2M̄`,
///   `ȳ = x C̄ + G Mᵀ`, `x̄ = y C̄ᵀ + A ȳ`, `Ā = ȳ xᵀ`.
#[inline(always)]
pub(crate) fn kick_backward<S, N: Dim, T: Dim, W: Workspace<S>>(
    kind: Kick,
    a: &OMatrix<S, N, N>,
    (x, g): (&OMatrix<S, N, T>, &OMatrix<S, N, T>),
    (softmax, pullback): (
        impl FnOnce(OMatrix<S, T, T>) -> OMatrix<S, T, T>,
        impl FnOnce(&OMatrix<S, T, T>, &OMatrix<S, T, T>, &mut OMatrix<S, T, T>),
    ),
    workspace: &mut W,
) -> (OMatrix<S, N, T>, OMatrix<S, N, N>)
where
    S: Field,
    DefaultAllocator: Allocator<N, N> + Allocator<N, T> + Allocator<T, T>,
{
    let (mut y, mut s) = scores(a, x, softmax, workspace);
    let (t, _) = s.shape_generic();
    let (mut s_bar, mut y_from_g, w) = match kind {
        Kick::Dense => {
            let w = workspace.tr_mul(a, x);
            let mut s_bar = workspace.tr_mul(g, &y);
            let mut from_w = workspace.tr_mul(&w, g);
            add_to(&mut s_bar, &from_w);
            workspace.recycle(&mut from_w);
            (s_bar, workspace.mul(g, &s), Some(w))
        }
        Kick::Exact | Kick::Gml => {
            let mut m_bar = workspace.tr_mul(&y, g);
            let gml = kind == Kick::Gml;
            let s_bar = workspace.build(
                t,
                t,
                #[inline(always)]
                |i, j| m_bar[(i, j)] + if gml { m_bar[(i, j)] } else { m_bar[(j, i)] },
            );
            let mut mixing_t = workspace.build(
                t,
                t,
                #[inline(always)]
                |i, j| s[(j, i)] + if gml { s[(j, i)] } else { s[(i, j)] },
            );
            let y_from_g = workspace.mul(g, &mixing_t);
            workspace.recycle_all([&mut m_bar, &mut mixing_t]);
            (s_bar, y_from_g, None)
        }
    };
    let mut c_bar = workspace.build(t, t, |_, _| S::zero());
    pullback(&s, &s_bar, &mut c_bar);
    let mut y_bar = workspace.mul(x, &c_bar);
    add_to(&mut y_bar, &y_from_g);
    let mut c_bar_t = workspace.transpose(&c_bar);
    let mut x_bar = workspace.mul(&y, &c_bar_t);
    let mut a_bar = workspace.mul_tr(&y_bar, x);
    if let Some(mut w) = w {
        let mut s_t = workspace.transpose(&s);
        let mut w_bar = workspace.mul(g, &s_t);
        let mut from_w = workspace.mul_tr(x, &w_bar);
        add_to(&mut a_bar, &from_w);
        let mut through_y = workspace.tr_mul(a, &y_bar);
        let mut through_w = workspace.mul(a, &w_bar);
        add_to(&mut x_bar, &through_y);
        add_to(&mut x_bar, &through_w);
        workspace.recycle(&mut s_t);
        workspace.recycle(&mut from_w);
        workspace.recycle_all([&mut w, &mut w_bar, &mut through_y, &mut through_w]);
    } else {
        let mut through_y = workspace.mul(a, &y_bar);
        add_to(&mut x_bar, &through_y);
        workspace.recycle(&mut through_y);
    }
    workspace.recycle_all([&mut y, &mut y_from_g, &mut y_bar]);
    workspace.recycle_all([&mut s, &mut s_bar, &mut c_bar, &mut c_bar_t]);
    (x_bar, a_bar)
}

/// `target += m`, entry by entry.
#[inline(always)]
fn add_to<S: Field, R: Dim, C: Dim>(target: &mut OMatrix<S, R, C>, m: &OMatrix<S, R, C>)
where
    DefaultAllocator: Allocator<R, C>,
{
    product::update(
        target,
        #[inline(always)]
        |entry, i, j| entry + m[(i, j)],
    );
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

#[cfg(test)]
mod tests {
    use nalgebra::SMatrix;

    use super::*;
    use crate::backward::exact::{Q, derivative, inner, rational};
    use crate::symplectic::attention::kick;

    /// With `σ` the identity (its pullback too) each kick is a polynomial, of degree 3 in `x` and
    /// 2 in `A`: the pullback's `x̄` and `Ā` against the exact directional derivatives,
    /// `⟨G, ∂K·ẋ⟩ = ⟨x̄, ẋ⟩` and `⟨G, ∂K·Ȧ⟩ = ⟨Ā, Ȧ⟩` (`Ȧ` arbitrary: `Ā` is the dense
    /// gradient, before a symmetric weight folds it).
    fn kicks_exact<const N: usize, const T: usize>() {
        for kind in [Kick::Dense, Kick::Exact, Kick::Gml] {
            let a = match kind {
                Kick::Dense => rational::<N, N>(1),
                _ => rational::<N, N>(1) + rational::<N, N>(1).transpose(),
            };
            let (x, g) = (rational::<N, T>(2), rational::<N, T>(3));
            let (x_dot, a_dot) = (rational::<N, T>(4), rational::<N, N>(5));
            let of =
                |a: &SMatrix<Q, N, N>, x: &SMatrix<Q, N, T>| kick(kind, a, x, |s| s, &mut Fresh);
            let identity =
                |_: &SMatrix<Q, T, T>, s_bar: &SMatrix<Q, T, T>, c_bar: &mut SMatrix<Q, T, T>| {
                    *c_bar = *s_bar;
                };
            let (x_bar, a_bar) = kick_backward(kind, &a, (&x, &g), (|s| s, identity), &mut Fresh);
            let along_x = derivative(|h| of(&a, &(x + x_dot * h)));
            assert_eq!(
                inner(&g, &along_x),
                inner(&x_bar, &x_dot),
                "{kind:?}, N = {N}, T = {T}"
            );
            let along_a = derivative(|h| of(&(a + a_dot * h), &x));
            assert_eq!(
                inner(&g, &along_a),
                inner(&a_bar, &a_dot),
                "{kind:?}, N = {N}, T = {T}"
            );
        }
    }

    #[test]
    fn the_kicks_pullbacks_are_exact_in_rationals() {
        kicks_exact::<1, 1>();
        kicks_exact::<1, 3>();
        kicks_exact::<2, 3>();
        kicks_exact::<3, 2>();
        kicks_exact::<2, 4>();
    }
}
