//! The backward passes of the per-time-step layers: the residual updates `x + σ(W x + b)` of
//! GML's volume-preserving feed-forward layers and of ResNet, and the blanket [`Backward`] that
//! applies a column layer's backward pass to every time step.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut, SVector};

use super::Backward;
use nalgebra::RealField;

use crate::activation::{Activation, Identity, Relu, Sigmoid, Softplus, Tanh};
use crate::feedforward::{ResNetLayer, VolumePreservingLayer};
use crate::feedforward::{StrictlyTriangular, residual_keeping, residual_pullback_in_place};
use crate::layer::ColumnLayer;
use crate::packed::Packed;
use crate::product;
use crate::scalar::{Field, Real};

/// An [`Activation`] with its derivative.
pub trait ActivationDerivative<S>: Activation<S> {
    /// `σ'(x)` given the value `σ(x)` (which a backward pass has from its forward pass).
    fn derivative_from_value(value: S) -> S;

    /// `σ'(x)`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative(x: S) -> S {
        Self::derivative_from_value(Self::apply(x))
    }
}

impl<S: Field> ActivationDerivative<S> for Identity {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(_: S) -> S {
        S::one()
    }
}

/// `tanh' = 1 − tanh²`.
impl<S: Real> ActivationDerivative<S> for Tanh {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(t: S) -> S {
        S::one() - t * t
    }
}

/// `σ' = σ (1 − σ)`.
impl<S: RealField + Copy> ActivationDerivative<S> for Sigmoid {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(s: S) -> S {
        s * (S::one() - s)
    }
}

/// `relu'(x) = 1` where `relu(x) > 0`, else 0 (NNlib's, so 0 at `x = 0`).
impl<S: RealField + Copy> ActivationDerivative<S> for Relu {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(r: S) -> S {
        if r > S::zero() { S::one() } else { S::zero() }
    }
}

/// `softplus'(x) = sigmoid(x) = 1 − e^{−softplus(x)}`, as `−expm1(−v)` (accurate where
/// `softplus(x)` is tiny).
impl<S: RealField + Copy> ActivationDerivative<S> for Softplus {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(v: S) -> S {
        -(-v).exp_m1()
    }
}

/// A [`ColumnLayer`] that keeps the dimension, with its vector-Jacobian product per time step.
/// Every such layer is a [`Backward`] sequence layer through one blanket implementation, which
/// sums the parameters' gradient over the time steps.
pub trait ColumnBackward<const D: usize>: ColumnLayer<D, D> {
    /// The gradient with respect to the layer's parameters, laid out as the parameters are.
    type Gradient;

    /// A gradient of zeros.
    fn zero_gradient(&self) -> Self::Gradient;

    /// `∂L/∂x` for the input `x` and `y_bar = ∂L/∂y`; adds `∂L/∂θ` to `gradient`.
    fn column_backward(
        &self,
        x: &SVector<Self::Scalar, D>,
        y_bar: &SVector<Self::Scalar, D>,
        gradient: &mut Self::Gradient,
    ) -> SVector<Self::Scalar, D>;
}

impl<S: Field, const D: usize, const T: usize, Layer> Backward<S, D, T> for Layer
where
    Layer: ColumnBackward<D, Scalar = S>,
{
    type Gradient = Layer::Gradient;

    fn zero_gradient(&self) -> Layer::Gradient {
        ColumnBackward::zero_gradient(self)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Layer::Gradient,
    ) {
        for t in 0..T {
            let x_bar = self.column_backward(
                &z.column(t).into_owned(),
                &out_bar.column(t).into_owned(),
                gradient,
            );
            z_bar.set_column(t, &x_bar);
        }
    }
}

/// The residual update's backward pass: for `y = x + σ(u)`, `u = W x + b`, given the forward
/// pass's `activated = σ(u)` and `s = σ'(u) ⊙ ȳ`: `x̄ = ȳ + Wᵀ s` (the steps of
/// [`residual_pullback_in_place`], the engine's too), `W̄ = s xᵀ`, `b̄ = s`. Returns `(x̄, W̄, s)`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn residual_pullback<S: Field, Act: ActivationDerivative<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    activated: &SVector<S, D>,
    y_bar: &SVector<S, D>,
) -> (SVector<S, D>, SMatrix<S, D, D>, SVector<S, D>) {
    let (mut s, mut x_bar) = (*activated, *y_bar);
    residual_pullback_in_place(
        &mut s,
        Act::derivative_from_value,
        &mut x_bar,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |s| product::tr_mul(w, s),
    );
    let w_bar = product::matrix(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |i, j| s[i] * x[j],
    );
    (x_bar, w_bar, s)
}

impl<S, const D: usize, Layout, Act> VolumePreservingLayer<S, D, Layout, Act>
where
    S: Field,
    Layout: StrictlyTriangular,
    Act: ActivationDerivative<S>,
{
    /// The forward pass on one column, bit for bit [`ColumnLayer::apply`], with what
    /// [`Self::backward_kept`] needs of it: `(x + σ(W x + b), σ(W x + b))`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn apply_keeping(&self, x: &SVector<S, D>) -> (SVector<S, D>, SVector<S, D>) {
        residual_keeping::<S, Act, D>(self.weight().matrix(), x, self.bias())
    }

    /// [`ColumnBackward::column_backward`] given the forward pass's `activated = σ(W x + b)`
    /// from [`Self::apply_keeping`], without evaluating `σ` again.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn backward_kept(
        &self,
        x: &SVector<S, D>,
        activated: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (x_bar, w_bar, s) =
            residual_pullback::<S, Act, D>(self.weight().matrix(), x, activated, y_bar);
        gradient.accumulate(&w_bar, &s);
        x_bar
    }
}

/// The gradient is the layer's own type: its packed weight holds `∂L/∂W` entry by packed entry,
/// its bias (where the layer has one) `∂L/∂b`.
impl<S, const D: usize, Layout, Act> ColumnBackward<D> for VolumePreservingLayer<S, D, Layout, Act>
where
    S: Field,
    Layout: StrictlyTriangular,
    Act: ActivationDerivative<S>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(Packed::zeros(), self.bias().map(|_| SVector::zeros()))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (_, activated) = self.apply_keeping(x);
        self.backward_kept(x, &activated, y_bar, gradient)
    }
}

/// The gradient is the layer's own type: `∂L/∂W` in its weight, `∂L/∂b` in its bias.
impl<S: Field, const D: usize, Act: ActivationDerivative<S>> ColumnBackward<D>
    for ResNetLayer<S, D, Act>
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(SMatrix::zeros(), self.bias().map(|_| SVector::zeros()))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (_, activated) = residual_keeping::<S, Act, D>(self.weight(), x, self.bias());
        let (x_bar, w_bar, s) = residual_pullback::<S, Act, D>(self.weight(), x, &activated, y_bar);
        gradient.accumulate(&w_bar, &s);
        x_bar
    }
}
