//! The backward passes of GML's SympNet gradient layers (`GradientLayerQ / P`) and of the stacks
//! of them in the symplectic transformers.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, Matrix, OMatrix, RawStorageMut, SMatrix, SVector, U1};

use super::GradientLayer;
use crate::architectures::SympNetStack;
use crate::backward::{ActivationDerivative, ColumnBackward};
use crate::product;
use crate::scalar::Field;
use crate::symplectic::{PhaseSide, UpdateP, UpdateQ, assert_phase_space};
use crate::workspace::{Fresh, Workspace};

/// The backward pass of the shear on `Side` with the weights of `layer` (whichever side its type
/// names), its gradient added to `gradient`: [`shear_pullback`] on the column's halves.
#[cfg_attr(not(debug_assertions), inline(always))]
fn shear_backward<
    Side,
    S,
    Act,
    LayerSide,
    GradientSide,
    const D: usize,
    const N: usize,
    const H: usize,
>(
    layer: &GradientLayer<S, N, H, LayerSide, Act>,
    x: &SVector<S, D>,
    y_bar: &SVector<S, D>,
    gradient: &mut GradientLayer<S, N, H, GradientSide, Act>,
) -> SVector<S, D>
where
    Side: PhaseSide,
    S: Field,
    Act: ActivationDerivative<S>,
    LayerSide: PhaseSide,
    GradientSide: PhaseSide,
{
    const { assert_phase_space::<D, N>() };
    let (target, source) = Side::rows(N);
    let driver: SVector<S, N> = product::matrix(|i, _| x[source + i]);
    let target_bar: SVector<S, N> = product::matrix(|i, _| y_bar[target + i]);
    let k = layer.weight();
    let activated = Act::apply_matrix(product::mul(k, &driver) + layer.bias());
    let (mut k_bar, mut b_bar, mut a_bar) = (SMatrix::zeros(), SVector::zeros(), SVector::zeros());
    let driver_bar = shear_pullback(
        (k, layer.scale()),
        (
            &activated,
            #[inline(always)]
            |value| Act::derivative_from_value(value),
        ),
        (&driver, &target_bar),
        &mut k_bar,
        &mut b_bar,
        &mut a_bar,
        &mut Fresh,
    );
    gradient.accumulate(&k_bar, &b_bar, &a_bar);
    let mut x_bar = *y_bar;
    for i in 0..N {
        x_bar[source + i] += driver_bar[i];
    }
    x_bar
}

/// The pullback of the gradient layers' shear `y_t = x_t + Kᵀ h`, `h = a ⊙ σ(u)`,
/// `u = K x_s + b` (`t` the updated half, `s` the driving one), for every size (nalgebra's
/// [`Dim`]) and every column, on matrices of `workspace`: the one place it is written, run by
/// the compile-time layers (one column, [`Fresh`]) and the engine's (a sequence, its scratch).
/// Given `σ(u)`, `σ'` from `σ`'s value, the driving half `x_s` and the updated half's cotangent
/// `ȳ_t`, with `h̄ = K ȳ_t` and `r = a ⊙ σ'(u) ⊙ h̄`: adds `K̄ = h ȳ_tᵀ + r x_sᵀ`, `b̄ = r` and
/// `ā = σ(u) ⊙ h̄` (each summed over the columns) to `k_bar`, `b_bar` and `a_bar`, and returns
/// `Kᵀ r`, the driving half's share of `x̄` (`x̄_t = ȳ_t`, `x̄_s = ȳ_s + Kᵀ r`).
#[inline(always)]
pub(crate) fn shear_pullback<S, H: Dim, N: Dim, T: Dim, SK, SB, SA, W: Workspace<S>>(
    (k, a): (&OMatrix<S, H, N>, &OMatrix<S, H, U1>),
    (activated, derivative_from_value): (&OMatrix<S, H, T>, impl Fn(S) -> S),
    (driver, target_bar): (&OMatrix<S, N, T>, &OMatrix<S, N, T>),
    k_bar: &mut Matrix<S, H, N, SK>,
    b_bar: &mut Matrix<S, H, U1, SB>,
    a_bar: &mut Matrix<S, H, U1, SA>,
    workspace: &mut W,
) -> OMatrix<S, N, T>
where
    S: Field,
    SK: RawStorageMut<S, H, N>,
    SB: RawStorageMut<S, H, U1>,
    SA: RawStorageMut<S, H, U1>,
    DefaultAllocator: Allocator<H, N> + Allocator<H, U1> + Allocator<H, T> + Allocator<N, T>,
{
    let (hidden, t) = activated.shape_generic();
    let mut h_bar = workspace.mul(k, target_bar);
    let mut r = workspace.build(
        hidden,
        t,
        #[inline(always)]
        |i, j| a[i] * derivative_from_value(activated[(i, j)]) * h_bar[(i, j)],
    );
    let mut h = workspace.build(
        hidden,
        t,
        #[inline(always)]
        |i, j| a[i] * activated[(i, j)],
    );
    let mut from_h = workspace.mul_tr(&h, target_bar);
    let mut from_r = workspace.mul_tr(&r, driver);
    product::update(
        k_bar,
        #[inline(always)]
        |entry, i, j| entry + (from_h[(i, j)] + from_r[(i, j)]),
    );
    let columns = t.value();
    product::update(
        b_bar,
        #[inline(always)]
        |entry, i, _| {
            entry
                + (0..columns).fold(
                    S::zero(),
                    #[inline(always)]
                    |sum, j| sum + r[(i, j)],
                )
        },
    );
    product::update(
        a_bar,
        #[inline(always)]
        |entry, i, _| {
            entry
                + product::sum_of_products(
                    columns,
                    #[inline(always)]
                    |j| (activated[(i, j)], h_bar[(i, j)]),
                )
        },
    );
    let driver_bar = workspace.tr_mul(k, &r);
    workspace.recycle_all([&mut h_bar, &mut r, &mut h]);
    workspace.recycle_all([&mut from_h, &mut from_r]);
    driver_bar
}

/// A layer of zeros with the same shape: the start of a gradient.
fn zeroed<S: Field, const N: usize, const H: usize, Side: PhaseSide, Act>()
-> GradientLayer<S, N, H, Side, Act> {
    GradientLayer::new(SMatrix::zeros(), SVector::zeros(), SVector::zeros())
}

/// The gradient is the layer's own type: `∂L/∂K` in its weight, `∂L/∂b` in its bias, `∂L/∂a` in
/// its scale.
impl<S, const D: usize, const N: usize, const H: usize, Side, Act> ColumnBackward<D>
    for GradientLayer<S, N, H, Side, Act>
where
    S: Field,
    Side: PhaseSide,
    Act: ActivationDerivative<S>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        zeroed()
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        shear_backward::<Side, _, _, _, _, D, N, H>(self, x, y_bar, gradient)
    }
}

/// The gradient is the stack's own type, every layer holding its gradient. The layers' inputs are
/// kept on the stack during the forward pass, then the layers run backward in reverse.
impl<S, const D: usize, const N: usize, const H: usize, const NS: usize, Act, First>
    ColumnBackward<D> for SympNetStack<S, N, H, NS, Act, First>
where
    S: Field,
    Act: ActivationDerivative<S>,
    First: PhaseSide,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        SympNetStack::new([(); NS].map(|()| zeroed()))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut inputs = [SVector::<S, D>::zeros(); NS];
        let mut v = *x;
        for (i, input) in inputs.iter_mut().enumerate() {
            *input = v;
            v = self.apply_layer(i, &v);
        }
        let mut bar = *y_bar;
        for i in (0..NS).rev() {
            let (layer, layer_gradient) = (&self.layers[i], &mut gradient.layers[i]);
            bar = if Self::layer_updates_q(i) {
                shear_backward::<UpdateQ, _, _, _, _, D, N, H>(
                    layer,
                    &inputs[i],
                    &bar,
                    layer_gradient,
                )
            } else {
                shear_backward::<UpdateP, _, _, _, _, D, N, H>(
                    layer,
                    &inputs[i],
                    &bar,
                    layer_gradient,
                )
            };
        }
        bar
    }
}

#[cfg(test)]
mod tests {
    use std::format;

    use super::*;
    use crate::backward::exact::{Q, derivative, inner, rational};

    /// `Kᵀ (a ⊙ (K x + b))` on every column, the shear's update with `σ` the identity.
    fn update<const H: usize, const N: usize, const T: usize>(
        (k, b, a): (&SMatrix<Q, H, N>, &SVector<Q, H>, &SVector<Q, H>),
        x: &SMatrix<Q, N, T>,
    ) -> SMatrix<Q, N, T> {
        let u = SMatrix::<Q, H, T>::from_fn(|i, j| a[i] * ((k * x)[(i, j)] + b[i]));
        k.transpose() * u
    }

    /// With `σ` the identity the update is a polynomial (degree 2 in `K`, 1 in `x`, `b` and `a`):
    /// the pullback's `x̄_s`, `K̄`, `b̄` and `ā` against the exact directional derivatives of
    /// `⟨ȳ_t, update⟩`, on `T` columns at once.
    fn shear_exact<const H: usize, const N: usize, const T: usize>() {
        let (k, b, a) = (
            rational::<H, N>(1),
            rational::<H, 1>(2),
            rational::<H, 1>(3),
        );
        let (x, g) = (rational::<N, T>(4), rational::<N, T>(5));
        let activated = SMatrix::<Q, H, T>::from_fn(|i, j| (k * x)[(i, j)] + b[i]);
        let (mut k_bar, mut b_bar, mut a_bar) = (rational(6), rational(7), rational(8));
        let (k_start, b_start, a_start) = (k_bar, b_bar, a_bar);
        let share = shear_pullback(
            (&k, &a),
            (&activated, |_| Q::from_integer(1)),
            (&x, &g),
            &mut k_bar,
            &mut b_bar,
            &mut a_bar,
            &mut Fresh,
        );
        let (k_dot, b_dot) = (rational::<H, N>(9), rational::<H, 1>(10));
        let (a_dot, x_dot) = (rational::<H, 1>(11), rational::<N, T>(12));
        let along = |f: &dyn Fn(Q) -> SMatrix<Q, N, T>| inner(&g, &derivative(f));
        let sizes = format!("H = {H}, N = {N}, T = {T}");
        assert_eq!(
            along(&|h| update((&k, &b, &a), &(x + x_dot * h))),
            inner(&share, &x_dot),
            "x̄, {sizes}"
        );
        assert_eq!(
            along(&|h| update((&(k + k_dot * h), &b, &a), &x)),
            inner(&(k_bar - k_start), &k_dot),
            "K̄, {sizes}"
        );
        assert_eq!(
            along(&|h| update((&k, &(b + b_dot * h), &a), &x)),
            inner(&(b_bar - b_start), &b_dot),
            "b̄, {sizes}"
        );
        assert_eq!(
            along(&|h| update((&k, &b, &(a + a_dot * h)), &x)),
            inner(&(a_bar - a_start), &a_dot),
            "ā, {sizes}"
        );
    }

    #[test]
    fn the_shears_pullback_is_exact_in_rationals() {
        shear_exact::<1, 1, 1>();
        shear_exact::<3, 2, 1>();
        shear_exact::<2, 3, 4>();
        shear_exact::<4, 2, 3>();
    }
}
